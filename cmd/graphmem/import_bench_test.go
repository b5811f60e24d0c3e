package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/api"
)

// BenchmarkImportMemory imports a valid export of each size in
// GRAPHMEM_BENCH_IMPORT_MB (default "20,200", in MB) into a fresh `graphmem serve` and reports how far the
// server's peak resident memory (VmHWM) and its peak anonymous memory rose
// above what it held before. With GRAPHMEM_BENCH_BASE_BIN naming another
// build (the code before a change, built from `git archive`), the same
// import runs against it first, in the same run, as the baseline. With
// GRAPHMEM_BENCH_IMPORT_EPISODES set, the import is of large episodes.
//
//	GRAPHMEM_BENCH_BASE_BIN=/tmp/base/graphmem go test -run '^$' -bench ImportMemory -benchtime 1x ./cmd/graphmem
func BenchmarkImportMemory(b *testing.B) {
	sizes := []int{20, 200}
	if v := os.Getenv("GRAPHMEM_BENCH_IMPORT_MB"); v != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(v, ",") {
			mb, err := strconv.Atoi(f)
			if err != nil {
				b.Fatalf("GRAPHMEM_BENCH_IMPORT_MB: %q", v)
			}
			sizes = append(sizes, mb)
		}
	}
	bins := [][2]string{}
	if base := os.Getenv("GRAPHMEM_BENCH_BASE_BIN"); base != "" {
		bins = append(bins, [2]string{"baseline", base})
	}
	bins = append(bins, [2]string{"this", buildBinary(b)})
	for _, bin := range bins {
		for _, mb := range sizes {
			b.Run(fmt.Sprintf("%s/%dMB", bin[0], mb), func(b *testing.B) {
				for range b.N {
					s := startServer(b, bin[1], b.TempDir())
					pid := s.cmd.Process.Pid
					time.Sleep(500 * time.Millisecond)
					before := procStatusKB(b, pid, "VmRSS")
					stop := make(chan struct{})
					anon := make(chan int)
					// VmHWM counts the store's mapped file pages too (page
					// cache the kernel may drop): sample the anonymous part.
					go func() {
						peak := 0
						tick := time.NewTicker(20 * time.Millisecond)
						defer tick.Stop()
						for {
							select {
							case <-stop:
								anon <- peak
								return
							case <-tick.C:
								peak = max(peak, procStatusKB(b, pid, "RssAnon"))
							}
						}
					}()
					anonBefore := procStatusKB(b, pid, "RssAnon")
					body := &countingReader{r: importStream(mb<<20, os.Getenv("GRAPHMEM_BENCH_IMPORT_EPISODES") != "")}
					start := time.Now()
					resp, err := http.Post(s.base+"/v1/import", api.NDJSON, body)
					if err != nil {
						b.Fatal(err)
					}
					out, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					elapsed := time.Since(start)
					close(stop)
					peakAnon := <-anon
					peak := procStatusKB(b, pid, "VmHWM")
					if resp.StatusCode != http.StatusOK {
						b.Fatalf("import: %d %s", resp.StatusCode, out)
					}
					b.ReportMetric(float64(peak-before)/1024, "MB-peak-rss-growth")
					b.ReportMetric(float64(peakAnon-anonBefore)/1024, "MB-peak-anon-growth")
					b.ReportMetric(elapsed.Seconds(), "s-import")
					b.Logf("%s: %d MB imported in %v (%s); RSS %d MB before, peak %d MB (+%d MB); anon %d MB before, peak %d MB (+%d MB)",
						bin[0], body.n>>20, elapsed.Round(time.Millisecond), strings.TrimSpace(string(out)),
						before>>10, peak>>10, (peak-before)>>10, anonBefore>>10, peakAnon>>10, (peakAnon-anonBefore)>>10)
				}
			})
		}
	}
}

// importStream is a valid export of about n bytes: entities, then facts
// about them, each with a few hundred bytes of text, or with episodes,
// episodes of 200 KB of content each.
func importStream(n int, episodes bool) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 64<<10)
		cw := &byteCounter{w: w}
		enc := json.NewEncoder(cw)
		const entities = 10000
		at := "2024-01-02T03:04:05Z"
		for i := range entities {
			enc.Encode(map[string]any{"entity": map[string]any{"id": fmt.Sprintf("ent-%06d", i),
				"name": fmt.Sprintf("service %d", i), "type": "service", "created_at": at, "updated_at": at}})
		}
		filler := strings.Repeat("lorem ipsum dolor sit amet ", 30)
		content := strings.Repeat("lorem ipsum dolor sit amet ", 200<<10/27)
		for i := 0; episodes && cw.n < n; i++ {
			enc.Encode(map[string]any{"episode": map[string]any{"id": fmt.Sprintf("ep-%08d", i), "kind": "message",
				"content": content, "status": "done", "reference_time": at, "recorded_at": at, "source_kind": "import"}})
		}
		for i := 0; cw.n < n; i++ {
			s := i % entities
			enc.Encode(map[string]any{"fact": map[string]any{"id": fmt.Sprintf("fact-%08d", i),
				"subject_id": fmt.Sprintf("ent-%06d", s), "subject": fmt.Sprintf("service %d", s),
				"predicate": fmt.Sprintf("note_%d", i%50), "value": fmt.Sprintf("value %d", i),
				"text":       fmt.Sprintf("service %d note %d: %s", s, i, filler),
				"valid_from": at, "recorded_at": at, "updated_at": at, "source_kind": "import",
				"confidence": 0.9, "importance": 5}})
		}
		pw.CloseWithError(w.Flush())
	}()
	return pr
}

type byteCounter struct {
	w io.Writer
	n int
}

func (c *byteCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// BenchmarkPurgeRequest times POST /v1/forget purging one fact by id on a
// served store of GRAPHMEM_BENCH_PURGE_MB (default 50) MB of imported
// facts, once the index has taken them up, and reports the data folder's
// size; with GRAPHMEM_BENCH_BASE_BIN, against that build first, in the
// same run.
//
//	GRAPHMEM_BENCH_BASE_BIN=/tmp/base/graphmem go test -run '^$' -bench PurgeRequest -benchtime 5x ./cmd/graphmem
func BenchmarkPurgeRequest(b *testing.B) {
	mb := 50
	if v := os.Getenv("GRAPHMEM_BENCH_PURGE_MB"); v != "" {
		mb, _ = strconv.Atoi(v)
	}
	bins := [][2]string{}
	if base := os.Getenv("GRAPHMEM_BENCH_BASE_BIN"); base != "" {
		bins = append(bins, [2]string{"baseline", base})
	}
	bins = append(bins, [2]string{"this", buildBinary(b)})
	for _, bin := range bins {
		data := b.TempDir()
		s := startServer(b, bin[1], data)
		resp, err := http.Post(s.base+"/v1/import", api.NDJSON, importStream(mb<<20, false))
		if err != nil {
			b.Fatal(err)
		}
		var got struct{ Facts int }
		json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || got.Facts == 0 {
			b.Fatalf("import: %d %+v", resp.StatusCode, got)
		}
		c := client{tb: b, base: s.base, hc: &http.Client{Timeout: 5 * time.Minute}}
		last := fmt.Sprintf("value %d", got.Facts-1)
		for deadline := time.Now().Add(5 * time.Minute); len(searchHits(c, last)) == 0; time.Sleep(time.Second) {
			if time.Now().After(deadline) {
				b.Fatal("the index did not catch up")
			}
		}
		next := 0
		b.Run(bin[0], func(b *testing.B) {
			for range b.N {
				id := fmt.Sprintf("fact-%08d", next*7919%got.Facts)
				next++
				c.do("POST", "/v1/forget", map[string]any{"fact_ids": []string{id}, "mode": "purge"}).ok(b, 200, nil)
			}
			b.ReportMetric(float64(dirBytes(b, data))/(1<<20), "MB-data")
		})
	}
}

// dirBytes is the size of the files under dir.
func dirBytes(tb testing.TB, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}
