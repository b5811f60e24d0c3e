package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/graphmem/graphmem/api"
)

// TestE2E_Load drives the real server with 32 concurrent clients on
// loopback for GRAPHMEM_LOAD_SECONDS (default 10), mixing writes and reads,
// and prints throughput and latency per operation. It asserts only that
// every request succeeded: speed is reported, not judged.
//
//	go test -run Load -v ./cmd/graphmem
func TestE2E_Load(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: seconds of traffic")
	}
	dur := 10 * time.Second
	if s := os.Getenv("GRAPHMEM_LOAD_SECONDS"); s != "" {
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || n <= 0 {
			t.Fatalf("GRAPHMEM_LOAD_SECONDS=%q", s)
		}
		dur = time.Duration(n * float64(time.Second))
	}
	const clients, subjects, batch = 32, 200, 10
	m := MustRunMain(t, nil)
	base := "http://" + m.Addr()
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: clients * 2}}

	// Seed: every subject has a current port, so reads find something.
	c := newClient(t, m)
	var seeded []string
	for i := 0; i < subjects; i += 100 {
		var fs []map[string]any
		for j := i; j < i+100; j++ {
			fs = append(fs, fact(fmt.Sprintf("service %d", j), "port", "8000", "2024-01-01T00:00:00Z"))
		}
		for _, r := range c.postFacts(fs...) {
			seeded = append(seeded, r.FactID)
		}
	}
	var ms api.EntityMatchList
	c.do("GET", "/v1/entities?name=service+0", nil).ok(t, 200, &ms)
	if len(ms.Items) == 0 {
		t.Fatal("seed entity not found")
	}
	entityID := ms.Items[0].Entity.ID

	type op struct {
		name   string
		weight int
		req    func(r *rand.Rand) (string, string, []byte)
	}
	ops := []op{
		{"POST /v1/facts (10)", 20, func(r *rand.Rand) (string, string, []byte) {
			fs := make([]map[string]any, batch)
			for i := range fs {
				fs[i] = fact(fmt.Sprintf("service %d", r.IntN(subjects)), "port", strconv.Itoa(1000+r.IntN(9000)),
					time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.IntN(1e6))*time.Second).Format(time.RFC3339))
			}
			b, _ := json.Marshal(map[string]any{"facts": fs})
			return "POST", "/v1/facts", b
		}},
		{"GET /v1/facts?subject", 35, func(r *rand.Rand) (string, string, []byte) {
			return "GET", "/v1/facts?subject=" + url.QueryEscape(fmt.Sprintf("service %d", r.IntN(subjects))), nil
		}},
		{"GET /v1/facts?as_of&history", 10, func(r *rand.Rand) (string, string, []byte) {
			return "GET", "/v1/facts?include_history=true&limit=50&subject=" + url.QueryEscape(fmt.Sprintf("service %d", r.IntN(subjects))), nil
		}},
		{"GET /v1/facts/{id}", 20, func(r *rand.Rand) (string, string, []byte) {
			return "GET", "/v1/facts/" + seeded[r.IntN(len(seeded))], nil
		}},
		{"GET /v1/entities?name", 10, func(r *rand.Rand) (string, string, []byte) {
			return "GET", "/v1/entities?name=" + url.QueryEscape(fmt.Sprintf("service %d", r.IntN(subjects))), nil
		}},
		{"GET timeline", 5, func(r *rand.Rand) (string, string, []byte) {
			return "GET", "/v1/entities/" + entityID + "/timeline", nil
		}},
	}
	total := 0
	for _, o := range ops {
		total += o.weight
	}

	type sample struct {
		op  int
		d   time.Duration
		err string
	}
	var (
		mu      sync.Mutex
		samples []sample
		wg      sync.WaitGroup
	)
	start := time.Now()
	end := start.Add(dur)
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 42))
			var local []sample
			for time.Now().Before(end) {
				k, pick := 0, r.IntN(total)
				for pick >= ops[k].weight {
					pick -= ops[k].weight
					k++
				}
				method, path, body := ops[k].req(r)
				req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
				if body != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				t0 := time.Now()
				resp, err := hc.Do(req)
				s := sample{op: k}
				if err != nil {
					s.err = err.Error()
				} else {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						s.err = resp.Status
					}
				}
				s.d = time.Since(t0)
				local = append(local, s)
			}
			mu.Lock()
			samples = append(samples, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	var buf strings.Builder
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "operation\trequests\treq/s\tp50 ms\tp95 ms\tp99 ms\terrors\t\n")
	row := func(name string, ss []sample) int {
		ds := make([]time.Duration, len(ss))
		errs := 0
		for i, s := range ss {
			ds[i] = s.d
			if s.err != "" {
				errs++
			}
		}
		slices.Sort(ds)
		q := func(p float64) string {
			if len(ds) == 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f", float64(ds[min(len(ds)-1, int(p*float64(len(ds))))].Microseconds())/1000)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t%s\t%d\t\n", name, len(ss), float64(len(ss))/elapsed.Seconds(), q(.50), q(.95), q(.99), errs)
		return errs
	}
	for k, o := range ops {
		var ss []sample
		for _, s := range samples {
			if s.op == k {
				ss = append(ss, s)
			}
		}
		row(o.name, ss)
	}
	errs := row("all", samples)
	tw.Flush()
	t.Logf("%d clients for %s on loopback, server in-process (GOMAXPROCS shared):\n%s", clients, elapsed.Round(time.Millisecond), buf.String())
	if errs > 0 {
		for _, s := range samples {
			if s.err != "" {
				t.Errorf("%s: %s", ops[s.op].name, s.err)
				break
			}
		}
		t.Errorf("%d of %d requests failed", errs, len(samples))
	}
}
