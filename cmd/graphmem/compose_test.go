package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	neo "github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"gopkg.in/yaml.v3"

	"github.com/graphmem/graphmem/graph/neo4j"
)

// composeFile is the repository's docker-compose.yml.
const composeFile = "../../docker-compose.yml"

// composeService is what the compose tests read of a service.
type composeService struct {
	Environment yaml.Node `yaml:"environment"` // a map or a list of NAME=value
	Command     yaml.Node `yaml:"command"`     // a string or a list
	Entrypoint  yaml.Node `yaml:"entrypoint"`
	Healthcheck struct {
		Test yaml.Node `yaml:"test"` // ["CMD-SHELL", "text"], ["CMD", args…] or a string
	} `yaml:"healthcheck"`
}

func readCompose(tb testing.TB, data []byte) map[string]composeService {
	tb.Helper()
	var f struct {
		Services map[string]composeService `yaml:"services"`
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		tb.Fatalf("compose file: %v", err)
	}
	if len(f.Services) == 0 {
		tb.Fatal("compose file: no services")
	}
	return f.Services
}

// environment returns the service's environment as written, before
// compose interpolates it.
func (s composeService) environment(tb testing.TB) map[string]string {
	tb.Helper()
	env := map[string]string{}
	switch s.Environment.Kind {
	case 0:
	case yaml.MappingNode:
		if err := s.Environment.Decode(&env); err != nil {
			tb.Fatalf("environment: %v", err)
		}
	case yaml.SequenceNode:
		var list []string
		if err := s.Environment.Decode(&list); err != nil {
			tb.Fatalf("environment: %v", err)
		}
		for _, kv := range list {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
	default:
		tb.Fatalf("environment: neither a map nor a list")
	}
	return env
}

// strings returns the text of a string or list node.
func nodeStrings(tb testing.TB, n yaml.Node) []string {
	tb.Helper()
	switch n.Kind {
	case 0:
		return nil
	case yaml.ScalarNode:
		return []string{n.Value}
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		tb.Fatalf("line %d: %v", n.Line, err)
	}
	return list
}

// shellText is the text a CMD-SHELL healthcheck gives the container's shell.
func (s composeService) shellText(tb testing.TB) string {
	tb.Helper()
	test := nodeStrings(tb, s.Healthcheck.Test)
	if len(test) != 2 || test[0] != "CMD-SHELL" {
		tb.Fatalf("healthcheck test %q is not [\"CMD-SHELL\", text]", test)
	}
	return test[1]
}

var (
	// $$NAME or $${NAME…}: compose writes a $, the container's shell reads
	// the variable from the service's environment.
	containerVar = regexp.MustCompile(`\$\$\{?([A-Za-z_][A-Za-z0-9_]*)`)
	// ${NAME…} or $NAME not after a $: compose fills it in from the
	// environment of `docker compose up`; the operator must be made to set
	// it (:?) or it needs a default (:-), else it is silently empty.
	composeVar = regexp.MustCompile(`(^|[^$])\$(\{([A-Za-z_][A-Za-z0-9_]*)([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)
)

// undefinedVars lists, per service, each variable its command, entrypoint
// or healthcheck uses without defining it: a container-side variable that
// is not in the service's environment, a compose-side one with neither a
// default nor a required-value error.
func undefinedVars(tb testing.TB, services map[string]composeService) []string {
	tb.Helper()
	var out []string
	for name, s := range services {
		env := s.environment(tb)
		var texts []string
		for _, n := range []yaml.Node{s.Command, s.Entrypoint, s.Healthcheck.Test} {
			texts = append(texts, nodeStrings(tb, n)...)
		}
		for _, text := range texts {
			for _, m := range containerVar.FindAllStringSubmatch(text, -1) {
				if _, ok := env[m[1]]; !ok {
					out = append(out, fmt.Sprintf("%s: %s is used in %q but not in the service's environment", name, m[1], text))
				}
			}
			for _, m := range composeVar.FindAllStringSubmatch(text, -1) {
				if m[3] == "" || !strings.ContainsAny(m[4], "?-") {
					out = append(out, fmt.Sprintf("%s: %s is filled in by compose in %q with no default and no :? error", name, m[3]+m[5], text))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestCompose_VariablesDefined: a variable a command or healthcheck uses
// that its service does not define is empty at run time, and a healthcheck
// that depends on it never passes (the neo4j service's once used
// NEO4J_PASSWORD, which only the graphmem service had).
func TestCompose_VariablesDefined(t *testing.T) {
	data, err := os.ReadFile(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range undefinedVars(t, readCompose(t, data)) {
		t.Error(u)
	}

	// The check finds what it is for.
	bad := readCompose(t, []byte(`services:
  neo4j:
    environment:
      NEO4J_AUTH: neo4j/${NEO4J_PASSWORD:?set it}
    command: ["sh", "-c", "echo $$HOME ${TAG}"]
    healthcheck:
      test: ["CMD-SHELL", "cypher-shell -p \"$${NEO4J_PASSWORD}\" 'RETURN 1' $$NEO4J_AUTH"]
`))
	got := undefinedVars(t, bad)
	want := []string{"HOME is used", "NEO4J_PASSWORD is used", "TAG is filled in"}
	if len(got) != len(want) {
		t.Fatalf("findings on a bad file: %q, want %d", got, len(want))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("finding %d: %q, want %q", i, got[i], w)
		}
	}
}

// interpolate does what compose does to a value: ${NAME:-default},
// ${NAME:?error} and ${NAME} from vars, and $$ to $.
func interpolate(tb testing.TB, s string, vars map[string]string) string {
	tb.Helper()
	out := composeVar.ReplaceAllStringFunc(s, func(m string) string {
		sub := composeVar.FindStringSubmatch(m)
		name, mod := sub[3]+sub[5], sub[4]
		v, ok := vars[name]
		switch {
		case strings.HasPrefix(mod, ":-") && v == "":
			v = mod[2:]
		case strings.HasPrefix(mod, ":?") && v == "":
			tb.Fatalf("compose would refuse: %s: %s", name, mod[2:])
		case mod == "" && !ok:
			tb.Fatalf("compose would warn: %s is not set", name)
		}
		return sub[1] + v
	})
	return strings.ReplaceAll(out, "$$", "$")
}

// TestCompose_Rehearsal runs graphmem with the compose file's environment
// for its graphmem service (store neo4j, API keys, wildcard address)
// against a real Neo4j, runs both services' healthchecks as compose would,
// and expects both healthy. What differs from a compose run, and why:
// Neo4j is the test's (GRAPHMEM_NEO4J_URI, as scripts/neo4j-local.sh
// starts it) instead of the compose network's bolt://neo4j:7687; graphmem
// listens on a free loopback port instead of 0.0.0.0:8080, so the test
// opens nothing to the network; the data folder is a temporary one instead
// of the /data volume.
func TestCompose_Rehearsal(t *testing.T) {
	uri := os.Getenv("GRAPHMEM_NEO4J_URI")
	if uri == "" {
		t.Skip("GRAPHMEM_NEO4J_URI is not set (scripts/neo4j-local.sh start prints it)")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	data, err := os.ReadFile(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	services := readCompose(t, data)
	db, gm := services["neo4j"], services["graphmem"]

	secret := make([]byte, 16)
	rand.Read(secret)
	key := hex.EncodeToString(secret)
	// What the operator exports before `docker compose up`.
	hostEnv := map[string]string{"NEO4J_PASSWORD": "rehearsal-password", "GRAPHMEM_API_KEYS": "ops:" + key + "=user:alice"}
	dbEnv := map[string]string{}
	for k, v := range db.environment(t) {
		dbEnv[k] = interpolate(t, v, hostEnv)
	}
	env := map[string]string{}
	for k, v := range gm.environment(t) {
		env[k] = interpolate(t, v, hostEnv)
	}
	if env["GRAPHMEM_STORE"] != "neo4j" || env["GRAPHMEM_API_KEYS"] == "" || !strings.HasPrefix(env["GRAPHMEM_ADDR"], "0.0.0.0:") {
		t.Fatalf("the graphmem service is no longer the production shape: %v", env)
	}
	port := strings.TrimPrefix(env["GRAPHMEM_ADDR"], "0.0.0.0:")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env["GRAPHMEM_NEO4J_URI"], env["GRAPHMEM_ADDR"], env["GRAPHMEM_DATA"] = uri, addr, t.TempDir()

	// The neo4j service's healthcheck first: graphmem's depends_on waits
	// for it.
	neo4jHealth := interpolate(t, db.shellText(t), nil)
	ctx := context.Background()
	if _, err := exec.LookPath("cypher-shell"); err == nil {
		runHealthcheck(t, "neo4j", neo4jHealth, map[string]string{"NEO4J_AUTH": dbEnv["NEO4J_AUTH"], "NEO4J_ADDRESS": uri})
	} else {
		// The same question over Bolt: the user and the password of
		// NEO4J_AUTH, as cypher-shell would send them, and RETURN 1.
		t.Logf("neo4j healthcheck: cypher-shell is not on PATH; asking RETURN 1 over Bolt with the credentials of NEO4J_AUTH instead of %q", neo4jHealth)
		user, password, _ := strings.Cut(dbEnv["NEO4J_AUTH"], "/")
		drv, err := neo.NewDriverWithContext(uri, neo.BasicAuth(user, password, ""))
		if err != nil {
			t.Fatal(err)
		}
		_, err = neo.ExecuteQuery(ctx, drv, "RETURN 1", nil, neo.EagerResultTransformer)
		drv.Close(ctx)
		if err != nil {
			t.Fatalf("neo4j healthcheck: %v", err)
		}
	}

	store, err := neo4j.Open(ctx, neo4j.Config{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Wipe(ctx); err != nil {
		t.Fatal(err)
	}
	store.Close()

	cmd := exec.Command(buildBinary(t), "serve")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		if t.Failed() {
			t.Logf("graphmem's log:\n%s", log.String())
		}
	})

	health := strings.ReplaceAll(interpolate(t, gm.shellText(t), nil), "127.0.0.1:"+port, addr)
	deadline := time.Now().Add(90 * time.Second)
	for !healthy(t, health, addr) {
		if time.Now().After(deadline) {
			t.Fatalf("graphmem healthcheck %q never passed", health)
		}
		time.Sleep(500 * time.Millisecond)
	}

	// The keys are in force: nothing without one, the operator's scope with it.
	for _, tc := range []struct {
		key  string
		want int
	}{{"", http.StatusUnauthorized}, {key, http.StatusOK}} {
		req, _ := http.NewRequest("GET", "http://"+addr+"/v1/facts", nil)
		if tc.key != "" {
			req.Header.Set("Authorization", "Bearer "+tc.key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("GET /v1/facts with key %q: %d, want %d", tc.key, resp.StatusCode, tc.want)
		}
	}
}

// runHealthcheck runs a CMD-SHELL healthcheck's text with sh, as the
// container would, and fails the test unless it exits 0.
func runHealthcheck(t *testing.T, service, text string, env map[string]string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", text)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s healthcheck %q: %v\n%s", service, text, err, out)
	}
}

// healthy runs graphmem's healthcheck once: its text with sh when wget is
// there (the image is alpine, which has it), else the same GET of /readyz.
func healthy(t *testing.T, text, addr string) bool {
	t.Helper()
	if _, err := exec.LookPath("wget"); err == nil {
		return exec.Command("sh", "-c", text).Run() == nil
	}
	t.Logf("graphmem healthcheck: wget is not on PATH; GET http://%s/readyz instead of %q", addr, text)
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
