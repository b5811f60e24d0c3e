package memory_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph/bolt"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
)

// yagoInterval is one timed YAGO15k triple with year bounds (0 = unknown).
type yagoInterval struct {
	s, p, o      string
	since, until int
}

func loadYago(tb testing.TB) []yagoInterval {
	tb.Helper()
	path := filepath.Join("..", "..", "shared", "data", "yago15k", "yago15k_test.txt")
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		tb.Skipf("%s is absent: the YAGO15k real-data check needs ../shared/data next to the repository", path)
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	byTriple := map[[3]string]*yagoInterval{}
	var order [][3]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 5 {
			continue // untimed
		}
		clean := func(s string) string { return strings.ReplaceAll(strings.Trim(s, "<>"), "_", " ") }
		k := [3]string{clean(cols[0]), strings.Trim(cols[1], "<>"), clean(cols[2])}
		year, err := strconv.Atoi(strings.Trim(cols[4], `"`)[:4])
		if err != nil {
			tb.Fatalf("bad year in %q", sc.Text())
		}
		iv, ok := byTriple[k]
		if !ok {
			iv = &yagoInterval{s: k[0], p: k[1], o: k[2]}
			byTriple[k] = iv
			order = append(order, k)
		}
		switch cols[3] {
		case "<occursSince>":
			iv.since = year
		case "<occursUntil>":
			iv.until = year
		}
	}
	var out []yagoInterval
	for _, k := range order {
		out = append(out, *byTriple[k])
	}
	return out
}

// validIn: a year-level interval holds in year y when since ≤ y ≤ until.
func (iv yagoInterval) validIn(y int) bool {
	return (iv.since == 0 || iv.since <= y) && (iv.until == 0 || y <= iv.until)
}

func yearStart(y int) *time.Time {
	t := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	return &t
}

// TestYago15k loads real facts with validity intervals and checks
// point-in-time answers against intervals computed straight from the file.
func TestYago15k(t *testing.T) {
	ivs := loadYago(t)
	store, err := bolt.Open(filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// Every YAGO relation may hold several values at once (a player plays
	// for a club and a national team), so no predicate is "one" here.
	onto, err := ontology.Parse([]byte("predicates: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	svc := memory.New(store, onto)
	var in []memory.FactInput
	for _, iv := range ivs {
		if iv.since != 0 && iv.until != 0 && iv.until < iv.since {
			continue
		}
		f := memory.FactInput{Subject: iv.s, Predicate: iv.p, Object: iv.o, SourceKind: entity.Import}
		if iv.since != 0 {
			f.ValidFrom = yearStart(iv.since)
		}
		if iv.until != 0 {
			f.ValidTo = yearStart(iv.until + 1)
		}
		in = append(in, f)
	}
	for i := 0; i < len(in); i += 500 {
		if _, err := svc.AddFacts(ctx, "yago", in[i:min(i+500, len(in))]); err != nil {
			t.Fatal(err)
		}
	}
	type probe struct {
		s, p string
		year int
	}
	var probes []probe
	seen := map[probe]bool{}
	for i, iv := range ivs {
		if i%5 != 0 {
			continue
		}
		for _, y := range []int{iv.since - 1, iv.since, iv.until, iv.until + 1, (iv.since + iv.until) / 2} {
			if y <= 1 {
				continue
			}
			if p := (probe{iv.s, iv.p, y}); !seen[p] {
				seen[p] = true
				probes = append(probes, p)
			}
		}
	}
	mismatches := 0
	for _, pr := range probes {
		var want []string
		for _, iv := range ivs {
			if entity.Normalize(iv.s) == entity.Normalize(pr.s) && iv.p == pr.p && iv.validIn(pr.year) &&
				!(iv.since != 0 && iv.until != 0 && iv.until < iv.since) {
				want = append(want, entity.Normalize(iv.o))
			}
		}
		asOf := time.Date(pr.year, 7, 1, 0, 0, 0, 0, time.UTC)
		got, _, err := svc.Facts(ctx, "yago", memory.FactQuery{Subject: pr.s, Predicate: pr.p, AsOf: asOf, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		var gotNames []string
		for _, f := range got {
			gotNames = append(gotNames, entity.Normalize(f.Object))
		}
		slices.Sort(want)
		slices.Sort(gotNames)
		want, gotNames = slices.Compact(want), slices.Compact(gotNames)
		if !slices.Equal(want, gotNames) {
			mismatches++
			if mismatches <= 5 {
				t.Errorf("%s %s in %d: got %v, want %v", pr.s, pr.p, pr.year, gotNames, want)
			}
		}
	}
	if len(probes) < 300 {
		t.Fatalf("only %d probes", len(probes))
	}
	if mismatches > 0 {
		t.Fatalf("%d of %d point-in-time answers differ from the file", mismatches, len(probes))
	}
	t.Logf("%d facts, %d probes, all match", len(in), len(probes))
}
