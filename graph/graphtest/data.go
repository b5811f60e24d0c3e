package graphtest

import (
	"fmt"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
)

// T0 is the instant the suite's data is dated from. It has nanoseconds on
// purpose: stores must keep them.
var T0 = time.Date(2024, 3, 1, 9, 30, 15, 123456789, time.UTC)

// Day returns T0 plus n days.
func Day(n int) time.Time { return T0.AddDate(0, 0, n) }

// Ptr returns a pointer to t.
func Ptr(t time.Time) *time.Time { return &t }

// NewEntity returns an entity of type "thing" created at T0. Its Scope is
// empty: the store fills in the transaction's.
func NewEntity(id, name string, aliases ...string) entity.Entity {
	return entity.Entity{
		ID: id, Name: name, Type: "thing", Aliases: aliases,
		Summary: name + " is a test entity", CreatedAt: T0, UpdatedAt: T0,
	}
}

// NewFact returns a fact subject —predicate→ the entity objectID, valid
// [from, to), backed by one claim.
func NewFact(id, subjectID, predicate, objectID string, from time.Time, to *time.Time) entity.Fact {
	f := newFact(id, subjectID, predicate, from, to)
	f.ObjectID, f.Object = objectID, strings.ToUpper(objectID[:1])+objectID[1:]
	f.Text = f.Subject + " " + predicate + " " + f.Object
	return f
}

// NewValueFact returns a fact subject —predicate→ a literal value.
func NewValueFact(id, subjectID, predicate, value string, from time.Time, to *time.Time) entity.Fact {
	f := newFact(id, subjectID, predicate, from, to)
	f.Value = value
	f.Text = f.Subject + " " + predicate + " " + value
	return f
}

func newFact(id, subjectID, predicate string, from time.Time, to *time.Time) entity.Fact {
	return entity.Fact{
		ID: id, SubjectID: subjectID, Subject: strings.ToUpper(subjectID[:1]) + subjectID[1:],
		Predicate: predicate, ValidFrom: from, ValidTo: to,
		RecordedAt: T0, UpdatedAt: T0, SourceKind: entity.UserExplicit,
		Confidence: 0.9, Importance: 5, EpisodeIDs: []string{"ep-" + id},
		Claims: []entity.Claim{{
			From: from, To: to, EpisodeID: "ep-" + id,
			SourceKind: entity.UserExplicit, Confidence: 0.9, RecordedAt: T0,
		}},
	}
}

// NewEpisode returns a message episode with the given status and reference
// time.
func NewEpisode(id, status string, ref time.Time) entity.Episode {
	return entity.Episode{
		ID: id, Kind: entity.KindMessage, Content: "message " + id,
		Speaker: "alice", Role: entity.RoleUser, ReferenceTime: ref,
		RecordedAt: T0, SourceKind: entity.UserExplicit, Status: status,
	}
}

// NewTombstone returns a tombstone for the given fingerprint.
func NewTombstone(fingerprint, reason string) entity.Tombstone {
	return entity.Tombstone{Fingerprint: fingerprint, At: T0, Reason: reason, FactIDs: []string{"f-" + fingerprint[:min(6, len(fingerprint))]}}
}

// genPredicates is the predicate mix of GenFacts; "_one" marks cardinality
// one (see the package comment).
var genPredicates = []string{"works_at_one", "likes", "lives_in_one", "knows", "uses_package_manager_one", "prefers"}

// GenSubjects is the number of distinct subjects GenFacts draws from.
const GenSubjects = 10_000

// GenFacts returns n realistic facts numbered from start, as the memory
// service writes them in bulk: ids ordered like creation time, subjects
// spread over GenSubjects entities, a third of the objects entities and
// the rest literals, three claims, zero to two revisions, a reason on
// some. The same (start, n) always gives the same facts, and facts of
// different numbers never overlap in valid time, so any set of them keeps
// the invariants of "_one" chains.
func GenFacts(start, n int) []entity.Fact {
	out := make([]entity.Fact, n)
	for j := range out {
		i := start + j
		subj := fmt.Sprintf("e%05d", (i*7919)%GenSubjects)
		pred := genPredicates[i%len(genPredicates)]
		from := T0.Add(time.Duration(i) * time.Hour)
		to := from.Add(time.Hour)
		id := fmt.Sprintf("f%010d", i)
		var f entity.Fact
		if i%3 == 0 {
			f = NewFact(id, subj, pred, fmt.Sprintf("e%05d", (i*104729+1)%GenSubjects), from, &to)
		} else {
			f = NewValueFact(id, subj, pred, fmt.Sprintf("value %d of %s, stated in conversation", i%997, pred), from, &to)
		}
		f.Text = fmt.Sprintf("%s %s %s since %s", f.Subject, pred, f.ObjectText(), from.Format(time.DateOnly))
		f.EpisodeIDs = []string{fmt.Sprintf("ep%09d", i/10), fmt.Sprintf("ep%09d", i/10+1)}
		f.Claims = make([]entity.Claim, 3)
		for c := range f.Claims {
			f.Claims[c] = entity.Claim{
				From: from, To: &to, EpisodeID: f.EpisodeIDs[c%2],
				SourceKind: entity.SourceKinds[(i+c)%len(entity.SourceKinds)],
				Confidence: 0.6 + 0.1*float64(c), RecordedAt: T0.Add(time.Duration(c) * time.Minute),
			}
		}
		for r := range i % 3 {
			f.Revisions = append(f.Revisions, entity.Revision{
				Until: T0.Add(time.Duration(r+1) * time.Minute), ValidFrom: from.Add(-time.Hour), ValidTo: &to,
				Supersedes: fmt.Sprintf("f%010d", max(i-1, 0)),
			})
		}
		if i%4 == 0 {
			f.Attributes = map[string]any{"reason": "it was cheaper and the team already knew it", "alternatives": []any{"yarn", "npm"}}
		}
		out[j] = f
	}
	return out
}
