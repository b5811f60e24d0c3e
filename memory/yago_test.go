package memory_test

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/graph/storetest"
	"github.com/graphmem/graphmem/memory"
)

// yagoTriple is one YAGO15k triple with its year bounds (0 = none).
type yagoTriple struct {
	s, p, o      string
	since, until int
}

// yagoFile finds the YAGO15k test split: $GRAPHMEM_SHARED_DATA/yago15k, or
// shared/data/yago15k in a folder above the package (the repository's
// ../shared/data).
func yagoFile(tb testing.TB) string {
	tb.Helper()
	const rel = "yago15k/yago15k_test.txt"
	if d := os.Getenv("GRAPHMEM_SHARED_DATA"); d != "" {
		return filepath.Join(d, rel)
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		tb.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "data", rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skipf("the YAGO15k test split is absent: put ../shared/data next to the repository or set GRAPHMEM_SHARED_DATA")
		}
		dir = parent
	}
}

// loadYago returns every triple of the file (timed ones with their bounds)
// in file order.
func loadYago(tb testing.TB) []yagoTriple {
	tb.Helper()
	f, err := os.Open(yagoFile(tb))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	byTriple := map[[3]string]*yagoTriple{}
	var order [][3]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 3 && len(cols) != 5 {
			continue
		}
		clean := func(s string) string { return strings.ReplaceAll(strings.Trim(s, "<>"), "_", " ") }
		k := [3]string{clean(cols[0]), strings.Trim(cols[1], "<>"), clean(cols[2])}
		tr, ok := byTriple[k]
		if !ok {
			tr = &yagoTriple{s: k[0], p: k[1], o: k[2]}
			byTriple[k] = tr
			order = append(order, k)
		}
		if len(cols) == 3 {
			continue
		}
		year, err := strconv.Atoi(strings.Trim(cols[4], `"`)[:4])
		if err != nil {
			tb.Fatalf("bad year in %q", sc.Text())
		}
		switch cols[3] {
		case "<occursSince>":
			tr.since = year
		case "<occursUntil>":
			tr.until = year
		}
	}
	out := make([]yagoTriple, 0, len(order))
	for _, k := range order {
		out = append(out, *byTriple[k])
	}
	return out
}

func (tr yagoTriple) timed() bool { return tr.since != 0 || tr.until != 0 }
func (tr yagoTriple) valid() bool { return tr.since == 0 || tr.until == 0 || tr.until >= tr.since }

// validIn: a year-level interval holds in year y when since ≤ y ≤ until.
func (tr yagoTriple) validIn(y int) bool {
	return (tr.since == 0 || tr.since <= y) && (tr.until == 0 || y <= tr.until)
}

func yearStart(y int) *time.Time {
	t := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	return &t
}

// yagoType is the type every YAGO name gets: one known type that is not
// "person", so fuzzy matching applies to every name (the strictest case
// for wrong merges).
const yagoType = "thing"

// yagoStatements turns the timed triples into separate statements, the way
// an importer reading the file line by line sends them: the start (or
// "start unknown" when only an end is known) and the end.
func yagoStatements(trs []yagoTriple) []memory.FactInput {
	var in []memory.FactInput
	for _, tr := range trs {
		if !tr.timed() || !tr.valid() {
			continue
		}
		f := memory.FactInput{Subject: tr.s, SubjectType: yagoType, Predicate: tr.p, Object: tr.o, ObjectType: yagoType, SourceKind: entity.Import}
		start := f
		if tr.since != 0 {
			start.ValidFrom = yearStart(tr.since)
		} else {
			start.StartUnknown = true
		}
		in = append(in, start)
		if tr.until != 0 {
			end := f
			end.ValidTo = yearStart(tr.until + 1)
			in = append(in, end)
		}
	}
	return in
}

// TestYago15k loads the real timed facts of YAGO15k with the built-in
// ontology's cardinalities, starts and ends sent as separate statements in
// three random orders and random batch sizes, and checks every point-in-time
// answer against the intervals computed straight from the file, and that
// the orders agree. It runs on the store the environment names (embedded,
// or Neo4j in the Neo4j pass of scripts/test.sh).
func TestYago15k(t *testing.T) {
	trs := loadYago(t)
	in := yagoStatements(trs)
	type probe struct {
		s, p string
		year int
	}
	var probes []probe
	seen := map[probe]bool{}
	step := 1
	if testing.Short() {
		step = 3
	}
	for i, tr := range trs {
		if !tr.timed() || !tr.valid() || i%step != 0 {
			continue
		}
		for _, y := range []int{tr.since - 1, tr.since, tr.until, tr.until + 1, (tr.since + tr.until) / 2} {
			if y <= 1 {
				continue
			}
			if p := (probe{tr.s, tr.p, y}); !seen[p] {
				seen[p] = true
				probes = append(probes, p)
			}
		}
	}
	want := make([]string, len(probes))
	for i, pr := range probes {
		var objs []string
		for _, tr := range trs {
			if tr.timed() && tr.valid() && tr.s == pr.s && tr.p == pr.p && tr.validIn(pr.year) {
				objs = append(objs, entity.Normalize(tr.o))
			}
		}
		slices.Sort(objs)
		want[i] = strings.Join(slices.Compact(objs), "|")
	}
	r := rand.New(rand.NewPCG(11, 15))
	var first []string
	for order := range 3 {
		svc := memory.New(storetest.Open(t), nil)
		shuffled := slices.Clone(in)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for i := 0; i < len(shuffled); {
			n := 1 + r.IntN(entity.MaxBatch)
			if _, err := svc.AddFacts(ctx, "yago", shuffled[i:min(i+n, len(shuffled))]); err != nil {
				t.Fatal(err)
			}
			i += n
		}
		got := make([]string, len(probes))
		mismatches := 0
		for i, pr := range probes {
			asOf := time.Date(pr.year, 7, 1, 0, 0, 0, 0, time.UTC)
			fs, _, err := svc.Facts(ctx, "yago", memory.FactQuery{Subject: pr.s, Predicate: pr.p, AsOf: asOf, Limit: entity.MaxPageSize})
			if err != nil {
				t.Fatal(err)
			}
			var objs []string
			for _, f := range fs {
				objs = append(objs, entity.Normalize(f.Object))
			}
			slices.Sort(objs)
			got[i] = strings.Join(slices.Compact(objs), "|")
			if got[i] != want[i] {
				mismatches++
				if mismatches <= 5 {
					t.Errorf("order %d: %s %s in %d: got %q, want %q", order, pr.s, pr.p, pr.year, got[i], want[i])
				}
			}
		}
		if mismatches > 0 {
			t.Fatalf("order %d: %d of %d point-in-time answers differ from the file", order, mismatches, len(probes))
		}
		if order == 0 {
			first = got
		} else if !slices.Equal(got, first) {
			t.Fatalf("order %d answers differently from order 0", order)
		}
		t.Logf("order %d (%s store): %d statements, %d probes, 100%% equal to the file", order, storetest.Kind(), len(in), len(probes))
	}
}

// typo drops one interior letter of the longest word of name, or returns
// "" if no word is long enough to make a typing error of.
func typo(name string) string {
	words := strings.Fields(name)
	best := -1
	for i, w := range words {
		if utf8.RuneCountInString(w) >= 8 && (best < 0 || utf8.RuneCountInString(w) > utf8.RuneCountInString(words[best])) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	rs := []rune(words[best])
	mid := len(rs) / 2
	words[best] = string(append(rs[:mid:mid], rs[mid+1:]...))
	return strings.Join(words, " ")
}

// TestYagoNames resolves every name of the YAGO15k test split, all typed,
// in three random orders: no two distinct names may be merged, and the
// names must fall into the same entities in every order. Then typing-error
// variants of the names are sent and the test reports how many still join
// their entity.
func TestYagoNames(t *testing.T) {
	if testing.Short() {
		t.Skip("resolves every YAGO15k name three times")
	}
	trs := loadYago(t)
	var in []memory.FactInput
	for _, tr := range trs {
		in = append(in, memory.FactInput{Subject: tr.s, SubjectType: yagoType, Predicate: tr.p, Object: tr.o, ObjectType: yagoType, SourceKind: entity.Import})
	}
	names := map[string]bool{}
	for _, tr := range trs {
		names[tr.s], names[tr.o] = true, true
	}
	r := rand.New(rand.NewPCG(3, 4))
	var firstPartition string
	for order := range 3 {
		svc := memory.New(storetest.Open(t), nil)
		shuffled := slices.Clone(in)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for i := 0; i < len(shuffled); i += entity.MaxBatch {
			if _, err := svc.AddFacts(ctx, "yago", shuffled[i:min(i+entity.MaxBatch, len(shuffled))]); err != nil {
				t.Fatal(err)
			}
		}
		ents, err := allEntities(svc)
		if err != nil {
			t.Fatal(err)
		}
		var groups []string
		wrong := 0
		for _, e := range ents {
			group := []string{entity.Normalize(e.Name)}
			for _, a := range e.Aliases {
				if k := entity.Normalize(a); !slices.Contains(group, k) {
					group = append(group, k)
				}
			}
			if len(group) > 1 {
				wrong++
				t.Errorf("order %d: distinct names merged: %q", order, group)
			}
			slices.Sort(group)
			groups = append(groups, strings.Join(group, "|"))
		}
		slices.Sort(groups)
		partition := strings.Join(groups, "\n")
		if order == 0 {
			firstPartition = partition
		} else if partition != firstPartition {
			t.Errorf("order %d groups the names differently from order 0", order)
		}
		if order > 0 {
			continue
		}
		// Typing-error variants of the names: how many still join.
		var variants []memory.FactInput
		for n := range names {
			if v := typo(n); v != "" && !names[v] {
				variants = append(variants, memory.FactInput{Subject: v, SubjectType: yagoType, Predicate: "mentioned", Value: "typo"})
			}
		}
		joined := 0
		for i := 0; i < len(variants); i += entity.MaxBatch {
			if _, err := svc.AddFacts(ctx, "yago", variants[i:min(i+entity.MaxBatch, len(variants))]); err != nil {
				t.Fatal(err)
			}
		}
		after, err := allEntities(svc)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]entity.Entity{}
		for _, e := range after {
			byName[entity.Normalize(e.Name)] = e
		}
		for _, v := range variants {
			if _, own := byName[entity.Normalize(v.Subject)]; !own {
				joined++
			}
		}
		t.Logf("%d distinct typed names, %d entities, %d wrong merges; %d of %d typing-error variants (one letter dropped from a word of 8+ letters) joined their entity",
			len(names), len(ents), wrong, joined, len(variants))
	}
}

func allEntities(svc *memory.Service) ([]entity.Entity, error) {
	var out []entity.Entity
	err := svc.Store.View(ctx, "yago", func(tx graph.Tx) error {
		out = nil
		cur := ""
		for {
			es, next, err := tx.Entities(cur, 1000)
			if err != nil {
				return err
			}
			out = append(out, es...)
			if next == "" {
				return nil
			}
			cur = next
		}
	})
	return out, err
}
