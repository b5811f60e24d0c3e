package client_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Keys of the test server: alice may use her scope and a shared one, bob
// only his.
const (
	aliceKey   = "alice-key-0123456789"
	bobKey     = "bob-key-0123456789ab"
	exampleKey = "example-key-01234567"
)

// serverURL is the base URL of the `graphmem serve` the tests talk to.
var serverURL string

// TestMain runs the real server, built from this repository (or
// GRAPHMEM_BIN), with API keys on a loopback port and an empty data folder.
// The examples find it as a program would: GRAPHMEM_URL and
// GRAPHMEM_API_KEY.
func TestMain(m *testing.M) {
	stop, err := startServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}

func startServer() (stop func(), err error) {
	dir, err := os.MkdirTemp("", "graphmem-client-test-")
	if err != nil {
		return nil, err
	}
	bin := os.Getenv("GRAPHMEM_BIN")
	if bin == "" {
		bin = filepath.Join(dir, "graphmem")
		if out, err := exec.Command("go", "build", "-o", bin, "../cmd/graphmem").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(dir, "data"))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GRAPHMEM_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GRAPHMEM_API_KEYS="+aliceKey+"=alice,shared,copy;"+bobKey+"=bob;"+exampleKey+"=example")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		os.RemoveAll(dir)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "graphmem: listening on "); ok {
				addr <- strings.TrimSpace(a)
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			stop()
			return nil, fmt.Errorf("graphmem serve exited: %s", stderr.String())
		}
		serverURL = a
		os.Setenv("GRAPHMEM_URL", a)
		os.Setenv("GRAPHMEM_API_KEY", exampleKey)
		return stop, nil
	case <-time.After(time.Minute):
		stop()
		return nil, fmt.Errorf("graphmem serve did not start in a minute: %s", stderr.String())
	}
}
