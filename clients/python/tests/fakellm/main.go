// Command fakellm runs the fake OpenAI-compatible endpoint of
// extract/extracttest as a process, for the Python client's tests and its
// example agent. It prints the base URL on its first line, answers every
// chat completion with -reply, appends each request body to -log as one
// JSON line, and stops on SIGINT or SIGTERM.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/graphmem/graphmem/extract/extracttest"
)

func main() {
	reply := flag.String("reply", "Noted.", "the assistant message of every answer")
	logPath := flag.String("log", "", "file receiving each request body as a JSON line")
	flag.Parse()

	var (
		mu  sync.Mutex
		log *os.File
	)
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakellm:", err)
			os.Exit(1)
		}
		defer f.Close()
		log = f
	}
	srv := extracttest.Start(func(_ int, req extracttest.Request) extracttest.Reply {
		var line bytes.Buffer
		if log != nil && json.Compact(&line, req.Body) == nil {
			line.WriteByte('\n')
			mu.Lock()
			_, _ = log.Write(line.Bytes())
			mu.Unlock()
		}
		return extracttest.Answer(*reply)
	})
	defer srv.Close()
	fmt.Println(srv.BaseURL())

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
}
