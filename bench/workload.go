package bench

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/graphmem/graphmem/memory"
)

// Workload generates n statements about a population of people, projects
// and services: predicates of both cardinalities, values that change over
// time (supersession), about one statement in ten backdated (arriving after
// later ones), and decisions with reasons. The same seed gives the same
// workload.
func Workload(n int, seed uint64) []memory.FactInput {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	people := max(10, n/20)
	orgs := max(3, people/10)
	services := max(3, people/4)
	projects := max(3, people/8)
	cities := []string{"Berlin", "Paris", "Lisbon", "Madrid", "Oslo", "Tokyo", "Kyoto", "Seoul", "Austin", "Denver",
		"Toronto", "Lima", "Nairobi", "Cairo", "Sydney", "Dublin", "Prague", "Vienna", "Zurich", "Shanghai"}
	topics := []string{"hiking", "chess", "jazz", "cooking", "climbing", "photography", "cycling", "painting",
		"gardening", "astronomy", "poetry", "running", "sailing", "pottery", "birdwatching", "tennis"}
	tools := []string{"npm", "pnpm", "yarn", "PostgreSQL", "MySQL", "MongoDB", "Redis", "Kafka", "Go", "Rust",
		"Python", "TypeScript", "React", "Vue", "Terraform", "Kubernetes"}
	reasons := []string{"faster installs", "better consistency guarantees", "lower hosting cost", "the team knew it well",
		"licensing concerns", "simpler operations", "a security audit finding", "better tooling support"}
	clock := map[string]time.Time{}
	start := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	when := func(key string) time.Time {
		t, ok := clock[key]
		if !ok {
			t = start.Add(time.Duration(r.IntN(900)) * 24 * time.Hour)
		}
		if ok && r.IntN(10) == 0 {
			// Backdated: something that happened before what is known.
			return t.Add(-time.Duration(1+r.IntN(300)) * 24 * time.Hour)
		}
		t = t.Add(time.Duration(10+r.IntN(400)) * 24 * time.Hour)
		clock[key] = t
		return t
	}
	person := func() string { return fmt.Sprintf("Person %05d", r.IntN(people)) }
	out := make([]memory.FactInput, 0, n)
	for len(out) < n {
		var f memory.FactInput
		switch k := r.IntN(100); {
		case k < 25:
			p, o := person(), fmt.Sprintf("Org %04d", r.IntN(orgs))
			f = memory.FactInput{Subject: p, SubjectType: "person", Predicate: "works_at", Object: o, ObjectType: "organization",
				Text: fmt.Sprintf("%s works at %s", p, o)}
		case k < 40:
			p, c := person(), cities[r.IntN(len(cities))]
			f = memory.FactInput{Subject: p, SubjectType: "person", Predicate: "lives_in", Object: c, ObjectType: "place",
				Text: fmt.Sprintf("%s lives in %s", p, c)}
		case k < 55:
			s, port := fmt.Sprintf("service-%04d", r.IntN(services)), fmt.Sprint(1024+r.IntN(60000))
			f = memory.FactInput{Subject: s, SubjectType: "service", Predicate: "port", Value: port,
				Text: fmt.Sprintf("%s listens on port %s", s, port)}
		case k < 65:
			s := fmt.Sprintf("service-%04d", r.IntN(services))
			st := []string{"healthy", "degraded", "down", "deprecated"}[r.IntN(4)]
			f = memory.FactInput{Subject: s, SubjectType: "service", Predicate: "status", Value: st,
				Text: fmt.Sprintf("%s is %s", s, st)}
		case k < 80:
			p, t := person(), topics[r.IntN(len(topics))]
			f = memory.FactInput{Subject: p, SubjectType: "person", Predicate: "likes", Object: t, ObjectType: "topic",
				Text: fmt.Sprintf("%s likes %s", p, t)}
		case k < 90:
			a, b := person(), person()
			if a == b {
				continue
			}
			f = memory.FactInput{Subject: a, SubjectType: "person", Predicate: "knows", Object: b, ObjectType: "person",
				Text: fmt.Sprintf("%s knows %s", a, b)}
		case k < 96:
			p, t := fmt.Sprintf("project-%04d", r.IntN(projects)), tools[r.IntN(len(tools))]
			f = memory.FactInput{Subject: p, SubjectType: "project", Predicate: "uses", Object: t, ObjectType: "tool",
				Text: fmt.Sprintf("%s uses %s", p, t)}
		default:
			p, t := fmt.Sprintf("project-%04d", r.IntN(projects)), tools[r.IntN(len(tools))]
			pred := []string{"adopted", "dropped"}[r.IntN(2)]
			why := reasons[r.IntN(len(reasons))]
			f = memory.FactInput{Subject: p, SubjectType: "project", Predicate: pred, Object: t, ObjectType: "tool",
				Text: fmt.Sprintf("%s %s %s because of %s", p, pred, t, why), Attributes: map[string]any{"reason": why},
				Importance: 7}
		}
		t := when(f.Subject + "/" + f.Predicate)
		f.ValidFrom = &t
		f.SourceKind = "user_explicit"
		out = append(out, f)
	}
	return out
}
