package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphmem/graphmem/api"
)

// TestE2E_ImportLineMemory: an import line far longer than any record is
// refused with its line number while it is still arriving, and the
// server's peak resident memory (VmHWM) grows by less than 100 MB for a
// 100 MB and a 300 MB line: the line is never held whole.
func TestE2E_ImportLineMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and streams 400 MB")
	}
	s := startServer(t, buildBinary(t), t.TempDir())
	pid := s.cmd.Process.Pid
	before := procStatusKB(t, pid, "VmRSS")
	for _, mb := range []int{100, 300} {
		body := &countingReader{r: longLine(mb << 20)}
		req, err := http.NewRequest("POST", s.base+"/v1/import", body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", api.NDJSON)
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%d MB line: %v", mb, err)
		}
		var e api.ErrorBody
		err = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		elapsed := time.Since(start)
		peak := procStatusKB(t, pid, "VmHWM")
		t.Logf("%d MB line: answered %d after %v, %d MB sent; RSS %d MB before, peak %d MB (+%d MB)",
			mb, resp.StatusCode, elapsed.Round(time.Millisecond), body.n>>20, before>>10, peak>>10, (peak-before)>>10)
		if err != nil || resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(e.Error.Fields["line[1]"], "longer than") {
			t.Errorf("%d MB line: status %d, %+v (%v)", mb, resp.StatusCode, e, err)
		}
		if growth := peak - before; growth >= 100<<10 {
			t.Errorf("%d MB line: peak RSS grew by %d MB", mb, growth>>10)
		}
	}
}

// longLine is one import line of n bytes: an episode whose content goes on
// to the end.
func longLine(n int) io.Reader {
	head := `{"episode":{"id":"e1","status":"done","content":"`
	tail := `"}}` + "\n"
	return io.MultiReader(strings.NewReader(head),
		io.LimitReader(letters{}, int64(n-len(head)-len(tail))), strings.NewReader(tail))
}

// letters reads as an endless run of "a".
type letters struct{}

func (letters) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// procStatusKB reads a kB figure (VmRSS, VmHWM) of process pid.
func procStatusKB(t testing.TB, pid int, name string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("%s: %q", name, line)
			}
			return kb
		}
	}
	t.Fatalf("%s not in /proc/%d/status", name, pid)
	return 0
}
