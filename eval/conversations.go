package eval

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Coding-assistant conversations: a corpus of another shape than LoCoMo's,
// written in LoCoMo's format so that the same evaluation reads it. A user
// and a coding assistant ("user", "assistant": roles, not names) work on
// one project over months: the user tells how its services are set up
// (ports, caches, databases, brokers, hosting, libraries), reports errors
// and changes its mind ("we moved the cache to Redis 7", later "switched
// back to memcached"); the assistant answers at length, with code that
// repeats the names the user used. Questions ask for a setting (single
// fact), for the current value of one that changed (knowledge update),
// for when something happened or which came first (temporal), and for
// what two turns of different sessions say together (cross-session), in
// words of their own; evidence is the turns that state the answer. The
// same seed gives the same conversations.

// Conversation seeds: weights are tuned on the conversations of
// ConversationsDevSeed and reported on those of ConversationsTestSeed.
const (
	ConversationsDevSeed  = 1
	ConversationsTestSeed = 2
	// ConversationsPerPart: 10 conversations of about 290 turns each.
	ConversationsPerPart = 10
	// questionsPerKind: questions per category and conversation, at most.
	questionsPerKind = 4
)

// Question categories of the conversations, on LoCoMo's numbers.
const (
	catCrossSession = 1 // LoCoMo's multi-hop
	catTemporal     = 2
	catUpdate       = 3 // LoCoMo's open-domain: here, knowledge update
	catSingle       = 4 // LoCoMo's single-hop
)

// setting is a property of a service that the user states and may change.
type setting struct {
	key string
	// noun is how the user calls it in a statement, ask how a question
	// does (never the same words).
	noun, ask []string
	values    []string
	// set and update state a value (%[1]s service, %[2]s noun, %[3]s
	// value, %[4]s the former value).
	set, update []string
	// code is the assistant's code for a service and a value.
	code func(svc, val string) string
}

var settings = []setting{
	{
		key: "cache", noun: []string{"cache", "caching layer", "cache"}, ask: []string{"in-memory store", "caching backend", "hot-data store"},
		values: []string{"Redis 7", "memcached", "Valkey 8", "Hazelcast", "Dragonfly"},
		set: []string{
			"For context, %[1]s keeps its hot reads in %[3]s, the %[2]s sits in front of every product lookup.",
			"%[1]s already has a %[2]s: %[3]s, one cluster shared by its pods.",
		},
		update: []string{
			"Heads up: last night we moved the %[2]s of %[1]s off %[4]s and onto %[3]s. Can you help me adjust the client code?",
			"We switched %[1]s back to %[3]s for its %[2]s, %[4]s was costing too much for what it did. What do I need to change in the config?",
		},
		code: func(svc, val string) string {
			return fmt.Sprintf("```go\n// %s: cache client for %s\nfunc newCache(cfg Config) (*cache.Client, error) {\n\treturn cache.Dial(cfg.CacheAddr, cache.WithPoolSize(32), cache.WithTTL(5*time.Minute))\n}\n```", svc, val)
		},
	},
	{
		key: "database", noun: []string{"database", "primary database", "main DB"}, ask: []string{"datastore", "system of record", "persistent storage engine"},
		values: []string{"PostgreSQL 15", "PostgreSQL 16", "MySQL 8", "CockroachDB", "MongoDB 7", "SQLite"},
		set: []string{
			"%[1]s writes everything to %[3]s; that %[2]s also holds the audit tables.",
			"Our %[2]s for %[1]s is %[3]s, a single primary with one replica.",
		},
		update: []string{
			"Done with the migration: %[1]s now runs on %[3]s instead of %[4]s as its %[2]s. Which queries should I re-check?",
			"Update: we finally moved %[1]s's %[2]s from %[4]s to %[3]s over the weekend.",
		},
		code: func(svc, val string) string {
			return fmt.Sprintf("```sql\n-- %s on %s\nCREATE INDEX CONCURRENTLY IF NOT EXISTS orders_created_at_idx ON orders (created_at);\nEXPLAIN ANALYZE SELECT id, status FROM orders WHERE created_at > now() - interval '1 day';\n```", svc, val)
		},
	},
	{
		key: "broker", noun: []string{"message broker", "event bus", "queue"}, ask: []string{"messaging system", "pub/sub infrastructure", "event transport"},
		values: []string{"RabbitMQ", "Kafka", "NATS JetStream", "Amazon SQS", "Redis Streams"},
		set: []string{
			"%[1]s publishes its events to %[3]s; every consumer reads from that %[2]s.",
			"The %[2]s behind %[1]s is %[3]s, with one topic per aggregate.",
		},
		update: []string{
			"We replaced %[4]s with %[3]s as the %[2]s for %[1]s. How should the consumer handle redelivery now?",
			"Quick update: %[1]s moved its %[2]s to %[3]s, %[4]s is gone. The retry logic needs a rewrite.",
		},
		code: func(svc, val string) string {
			return fmt.Sprintf("```go\n// %s consumer on %s\nfor msg := range sub.Messages(ctx) {\n\tif err := handle(ctx, msg); err != nil {\n\t\tmsg.Nack()\n\t\tcontinue\n\t}\n\tmsg.Ack()\n}\n```", svc, val)
		},
	},
	{
		key: "port", noun: []string{"port", "listen port", "port"}, ask: []string{"TCP port", "socket number", "network port"},
		values: []string{"8080", "8443", "9090", "3000", "7070", "5050", "8000", "9443"},
		set: []string{
			"%[1]s listens on %[3]s inside the cluster, that %[2]s is hard-coded in the chart.",
			"Note that %[1]s serves on %[2]s %[3]s, the ingress forwards to it.",
		},
		update: []string{
			"We had to change the %[2]s of %[1]s from %[4]s to %[3]s because of a clash with the sidecar. What else references it?",
			"%[1]s is on %[2]s %[3]s now, not %[4]s any more. Update the health check for me?",
		},
		code: func(svc, val string) string {
			return fmt.Sprintf("```yaml\n# %s deployment\nports:\n  - name: http\n    containerPort: %s\nlivenessProbe:\n  httpGet: {path: /healthz, port: %s}\n```", svc, val, val)
		},
	},
	{
		key: "hosting", noun: []string{"hosting", "platform", "deployment target"}, ask: []string{"compute platform", "runtime environment", "hosting provider"},
		values: []string{"Kubernetes on EKS", "ECS Fargate", "Nomad", "Cloud Run", "Fly.io", "a pair of EC2 VMs with systemd"},
		set: []string{
			"%[1]s is deployed on %[3]s; that %[2]s was picked before I joined.",
			"Right now the %[2]s for %[1]s is %[3]s.",
		},
		update: []string{
			"We just finished moving %[1]s from %[4]s to %[3]s. The %[2]s change broke our deploy script, can you look?",
			"Big change this sprint: %[1]s left %[4]s, its new %[2]s is %[3]s.",
		},
		code: func(svc, val string) string {
			return fmt.Sprintf("```bash\n# deploy %s to %s\nset -euo pipefail\nIMAGE=registry.internal/%s:${GIT_SHA}\ndocker build -t \"$IMAGE\" . && docker push \"$IMAGE\"\n./deploy.sh --service %s --image \"$IMAGE\"\n```", svc, val, svc, svc)
		},
	},
	{
		key: "logging", noun: []string{"logging library", "logger", "log library"}, ask: []string{"structured log package", "log framework", "logging package"},
		values: []string{"zap", "zerolog", "slog", "logrus"},
		set: []string{
			"%[1]s logs through %[3]s, JSON lines to stdout; we settled on that %[2]s a while ago.",
			"In %[1]s the %[2]s is %[3]s with a request-id field on every line.",
		},
		update: []string{
			"We ripped out %[4]s and %[1]s uses %[3]s as its %[2]s now. Is there a clean way to keep the old field names?",
			"Changed the %[2]s of %[1]s to %[3]s (from %[4]s) to drop a dependency.",
		},
		code: func(svc, val string) string {
			return fmt.Sprintf("```go\n// %s: %s setup\nlogger := newLogger(os.Stdout).With(\"service\", %q)\nlogger.Info(\"listening\", \"addr\", cfg.Addr)\n```", svc, val, svc)
		},
	},
	{
		key: "auth", noun: []string{"identity provider", "auth provider", "SSO"}, ask: []string{"login system", "token issuer", "authentication vendor"},
		values: []string{"Keycloak", "Auth0", "Cognito", "Ory Hydra", "Okta"},
		set: []string{
			"%[1]s validates tokens issued by %[3]s, our %[2]s for everything customer-facing.",
			"The %[2]s in front of %[1]s is %[3]s.",
		},
		update: []string{
			"We migrated %[1]s from %[4]s to %[3]s as the %[2]s. The JWKS URL changed, what else do I touch?",
			"Update: %[1]s trusts %[3]s now, %[4]s is being decommissioned as our %[2]s.",
		},
		code: func(svc, val string) string {
			return fmt.Sprintf("```go\n// %s: verify tokens from %s\nkeys := jwk.NewCache(ctx)\nkeys.Register(cfg.JWKSURL, jwk.WithMinRefreshInterval(15*time.Minute))\ntok, err := jwt.ParseRequest(r, jwt.WithKeySet(keys.Get(ctx, cfg.JWKSURL)))\n```", svc, val)
		},
	},
}

// services of a project, with what each does (a question may name a
// service by it).
var serviceNames = []struct{ name, role, ask string }{
	{"checkout-api", "takes orders from the web shop", "the service that takes web-shop orders"},
	{"ledger-svc", "keeps the double-entry accounting", "the accounting service"},
	{"notifier", "sends emails and push notifications", "the service that sends emails and push messages"},
	{"search-indexer", "feeds product changes into the search index", "the indexing worker"},
	{"auth-gateway", "terminates sessions and checks API keys", "the gateway that checks API keys"},
	{"inventory-svc", "tracks stock per warehouse", "the stock-tracking service"},
	{"media-resizer", "makes thumbnails of uploaded images", "the thumbnail service"},
	{"webhook-relay", "delivers webhooks to partners", "the partner webhook service"},
	{"billing-worker", "charges subscriptions every night", "the nightly subscription charger"},
	{"report-builder", "renders the monthly PDF reports", "the PDF report service"},
}

// failures a user reports: the error, what triggered it, how a question
// words the trigger.
var failures = []struct{ err, trigger, ask string }{
	{"pq: sorry, too many clients already", "the traffic spike on Monday", "during the Monday rush"},
	{"context deadline exceeded", "we added the retry middleware", "once retries were introduced"},
	{"OOMKilled", "the 2.3 release", "after the last big release"},
	{"x509: certificate signed by unknown authority", "rotating the internal CA", "after the certificate rotation"},
	{"dial tcp 10.0.3.12:6379: connect: connection refused", "the node pool upgrade", "after the node upgrade"},
	{"panic: assignment to entry in nil map", "merging the feature-flag PR", "after the feature flag change"},
	{"listen tcp :8080: bind: address already in use", "adding the metrics sidecar", "when the sidecar was added"},
	{"429 Too Many Requests from the payment provider", "the batch import", "during the bulk import"},
}

// advice the assistant gives and the user takes: what, the value, how a
// question words it.
var advice = []struct{ what, val, ask string }{
	{"connection pool size", "a max of 40 connections with 10 idle", "How many database connections did you tell me to allow"},
	{"HTTP client timeout", "5 seconds for the whole request and 1 second to connect", "How long did you suggest before giving up on an outbound call"},
	{"retry policy", "3 attempts with exponential backoff starting at 200ms plus jitter", "How did you suggest retrying failed calls"},
	{"GOMAXPROCS setting", "to match the container CPU limit via automaxprocs", "What did you recommend for the Go scheduler's thread count"},
	{"graceful shutdown window", "a 25 second drain before SIGKILL", "How long should pods get to finish in-flight work, per your advice"},
	{"rate limit", "100 requests per second per API key with a burst of 20", "What throttling did you propose per customer key"},
}

// generic topics of filler exchanges: they share the settings' words.
var fillerAsks = []string{
	"How do I set a TTL on Redis keys from Go without a second round trip?",
	"What's a sane default for the Postgres connection pool in a small service?",
	"Can you explain Kafka consumer groups and rebalancing in simple terms?",
	"Why would a Kubernetes pod restart without any log line?",
	"How do I write a table-driven test for an HTTP handler?",
	"What's the difference between a readiness and a liveness probe?",
	"Is it worth putting memcached in front of MySQL for read-heavy endpoints?",
	"How should I structure config loading from env vars and a YAML file?",
	"Can you review this retry loop? It feels wrong.",
	"What port conventions do people use for metrics endpoints?",
	"How do I propagate a request id through logs with slog?",
	"What's the cleanest way to run database migrations on deploy?",
	"How do I make a Docker image for a Go service smaller?",
	"Should webhooks be signed with HMAC or with JWTs?",
	"How do I profile memory usage of a Go service in production?",
	"What's the best way to paginate a large SQL table?",
	"How can I test code that publishes to RabbitMQ without a broker?",
	"Explain idempotency keys for payment APIs.",
	"How do I cancel a goroutine cleanly when the request ends?",
	"What should the alerting thresholds be for p99 latency?",
}

var acks = []string{
	"Thanks, that worked.", "Perfect, merged.", "ok", "Makes sense.", "Great, that fixed it.", "Cool, next thing.",
	"Got it, thanks!", "That's clearer now.", "Deployed, looks fine so far.", "Nice, the tests pass.",
}

var fillerAnswerIntros = []string{
	"Good question. The short version: keep it explicit and make the failure modes visible.",
	"There are a few options here; the one I would pick for a service of your size is below.",
	"This comes up a lot. The idea is to keep the hot path free of surprises.",
	"Here is a pattern that has held up well in production.",
}

var fillerCode = []string{
	"```go\nfunc (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)\n\tdefer cancel()\n\tres, err := s.store.Get(ctx, r.PathValue(\"id\"))\n\tif err != nil {\n\t\thttp.Error(w, err.Error(), http.StatusBadGateway)\n\t\treturn\n\t}\n\tjson.NewEncoder(w).Encode(res)\n}\n```",
	"```go\nfunc TestHandler(t *testing.T) {\n\tfor _, tc := range []struct{ name, path string; want int }{\n\t\t{\"ok\", \"/items/1\", 200},\n\t\t{\"missing\", \"/items/404\", 404},\n\t} {\n\t\tt.Run(tc.name, func(t *testing.T) {\n\t\t\trec := httptest.NewRecorder()\n\t\t\tsrv.ServeHTTP(rec, httptest.NewRequest(\"GET\", tc.path, nil))\n\t\t\tif rec.Code != tc.want {\n\t\t\t\tt.Fatalf(\"got %d\", rec.Code)\n\t\t\t}\n\t\t})\n\t}\n}\n```",
	"```yaml\nresources:\n  requests: {cpu: 250m, memory: 256Mi}\n  limits: {cpu: \"1\", memory: 512Mi}\nreadinessProbe:\n  httpGet: {path: /readyz, port: http}\n  periodSeconds: 5\n```",
	"```dockerfile\nFROM golang:1.22 AS build\nWORKDIR /src\nCOPY . .\nRUN CGO_ENABLED=0 go build -o /out/app ./cmd/app\nFROM gcr.io/distroless/static\nCOPY --from=build /out/app /app\nENTRYPOINT [\"/app\"]\n```",
	"```sql\nSELECT id, created_at FROM events\nWHERE (created_at, id) > ($1, $2)\nORDER BY created_at, id\nLIMIT 100;\n```",
}

var fillerTails = []string{
	"A few notes: keep the timeout shorter than the caller's, log the error once at the edge, and add a metric so you can see how often it happens. If the cache or the database is slow this is where you will notice first.",
	"The main pitfalls are retries without backoff, which amplify an outage, and shared mutable state between requests. Keep the port, pool size and timeouts in config rather than in code so each environment can differ.",
	"Once this is in, I would add a test for the failure path and a dashboard panel for it. The same pattern works for the queue consumers and the HTTP handlers.",
}

// conversationTurn and conversationQuestion are written as LoCoMo's.
type conversationTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
}

type conversationQuestion struct {
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Evidence []string `json:"evidence"`
	Category int      `json:"category"`
}

// stated is a value as a turn stated it.
type stated struct {
	svc     string
	turn    string
	session int
	date    time.Time
	val     string
}

// convWriter builds one conversation.
type convWriter struct {
	r        *rand.Rand
	sessions [][]conversationTurn
	dates    []time.Time
	qs       []conversationQuestion
	told     convTold
}

func (w *convWriter) pick(s []string) string { return s[w.r.IntN(len(s))] }

// say adds a turn to the current session and returns its id.
func (w *convWriter) say(speaker, text string) string {
	n := len(w.sessions)
	id := fmt.Sprintf("D%d:%d", n, len(w.sessions[n-1])+1)
	w.sessions[n-1] = append(w.sessions[n-1], conversationTurn{Speaker: speaker, DiaID: id, Text: text})
	return id
}

// filler adds a generic exchange: a question, a long answer with code,
// and sometimes a short acknowledgement.
func (w *convWriter) filler(services []string) {
	ask := w.pick(fillerAsks)
	if w.r.IntN(3) == 0 {
		ask = "For " + w.pick(services) + ": " + ask
	}
	w.say("user", ask)
	w.say("assistant", w.pick(fillerAnswerIntros)+"\n\n"+w.pick(fillerCode)+"\n\n"+w.pick(fillerTails))
	if w.r.IntN(2) == 0 {
		w.say("user", w.pick(acks))
	}
}

// answer is the assistant's long reply to a statement about svc: it
// repeats the service, the setting and the value around its code.
func (w *convWriter) answer(st setting, svc, val string) string {
	return fmt.Sprintf("Got it, %s on %s. Here is how I would wire the %s so the change stays in one place:\n\n%s\n\n%s Keep the %s address in config (%s_ADDR) so staging and production can differ, and add a startup check that fails fast when %s is unreachable.",
		svc, val, st.noun[0], st.code(svc, val), w.pick(fillerTails), st.noun[0], strings.ToUpper(strings.ReplaceAll(svc, "-", "_")), val)
}

// generateConversation writes one conversation of the seed's stream: a
// plan of what the user tells about five services, the sessions that
// tell it, then questions on what they told.
func generateConversation(r *rand.Rand) ([][]conversationTurn, []time.Time, []conversationQuestion) {
	p := planConversation(r)
	w := &convWriter{r: r}
	w.writeSessions(p)
	w.askSettings(p)
	w.askFailures(p)
	w.askAdvice(p)
	w.askAcrossSessions(p)
	w.askOrder(p)
	return w.sessions, w.dates, w.chooseQuestions()
}

// convEvent is one thing a session tells.
type convEvent struct {
	kind string // "intro", "set", "update", "failure", "advice"
	svc  int    // index in the plan's services
	st   int    // setting
	val  string
	old  string
	f, a int // failure, advice
}

// convPlan is what a conversation tells, in order.
type convPlan struct {
	order    []int    // the services' indexes in serviceNames
	services []string // their names
	// values are each (service, setting)'s values in turn; keys the pairs
	// in order.
	values map[[2]int][]string
	keys   [][2]int
	// fs and as are the failures and advice told.
	fs, as []int
	events []convEvent
}

// planConversation picks five services, what each one's settings are and
// become, three failures and three pieces of advice, and lays them out:
// the introductions first, then the rest shuffled, the updates last.
func planConversation(r *rand.Rand) *convPlan {
	p := &convPlan{order: r.Perm(len(serviceNames))[:5]}
	for _, i := range p.order {
		p.services = append(p.services, serviceNames[i].name)
	}
	p.values = settingValues(r, len(p.order))
	p.keys = slices.Collect(maps.Keys(p.values))
	slices.SortFunc(p.keys, func(a, b [2]int) int { return (a[0]*100 + a[1]) - (b[0]*100 + b[1]) })
	p.fs = r.Perm(len(failures))[:3]
	p.as = r.Perm(len(advice))[:3]
	p.events = append(p.opening(r), p.updates(r)...)
	return p
}

// settingValues picks four settings of each of n services and their
// values in turn: one, or two or three when the setting is updated (the
// third is the first again: "switched back").
func settingValues(r *rand.Rand, n int) map[[2]int][]string {
	values := map[[2]int][]string{}
	for i := range n {
		for _, st := range r.Perm(len(settings))[:4] {
			vs := slices.Clone(settings[st].values)
			r.Shuffle(len(vs), func(a, b int) { vs[a], vs[b] = vs[b], vs[a] })
			n := 1
			if r.IntN(3) == 0 {
				n = 2 + r.IntN(2) // updated once or twice
			}
			if n == 3 && len(vs) > 2 {
				vs[2] = vs[0]
			}
			values[[2]int{i, st}] = vs[:n]
		}
	}
	return values
}

// opening is every event but the updates: the introductions first, then
// the first value of each setting, the failures and the advice, each of
// those about a random service, in a deterministic shuffle.
func (p *convPlan) opening(r *rand.Rand) []convEvent {
	var events []convEvent
	for i := range p.order {
		events = append(events, convEvent{kind: "intro", svc: i})
	}
	var rest []convEvent
	for _, k := range p.keys {
		rest = append(rest, convEvent{kind: "set", svc: k[0], st: k[1], val: p.values[k][0]})
	}
	for _, f := range p.fs {
		rest = append(rest, convEvent{kind: "failure", svc: r.IntN(len(p.order)), f: f})
	}
	for _, a := range p.as {
		rest = append(rest, convEvent{kind: "advice", svc: r.IntN(len(p.order)), a: a})
	}
	slices.SortFunc(rest, func(a, b convEvent) int {
		return strings.Compare(fmt.Sprint(a.kind, a.svc, a.st, a.f, a.a), fmt.Sprint(b.kind, b.svc, b.st, b.f, b.a))
	})
	r.Shuffle(len(rest), func(a, b int) { rest[a], rest[b] = rest[b], rest[a] })
	return append(events, rest...)
}

// updates are the later values of the settings, shuffled, a setting's
// second update after its first.
func (p *convPlan) updates(r *rand.Rand) []convEvent {
	var updates []convEvent
	for _, k := range p.keys {
		vs := p.values[k]
		for j := 1; j < len(vs); j++ {
			updates = append(updates, convEvent{kind: "update", svc: k[0], st: k[1], val: vs[j], old: vs[j-1]})
		}
	}
	r.Shuffle(len(updates), func(a, b int) { updates[a], updates[b] = updates[b], updates[a] })
	slices.SortStableFunc(updates, func(a, b convEvent) int {
		if a.svc == b.svc && a.st == b.st {
			return slices.Index(p.values[[2]int{a.svc, a.st}], a.val) - slices.Index(p.values[[2]int{b.svc, b.st}], b.val)
		}
		return 0
	})
	return updates
}

// convTold is where a conversation told each thing: the turns stating
// each setting's values, each failure, each piece of advice and each
// service's introduction.
type convTold struct {
	setAt    map[[2]int][]stated
	failAt   map[int]stated
	adviceAt map[int]stated
	introAt  map[int]stated
}

// writeSessions lays the plan's events out over 14 to 18 sessions a few
// days apart, with filler exchanges between them.
func (w *convWriter) writeSessions(p *convPlan) {
	w.told = convTold{setAt: map[[2]int][]stated{}, failAt: map[int]stated{}, adviceAt: map[int]stated{}, introAt: map[int]stated{}}
	r := w.r
	nSessions := 14 + r.IntN(5)
	perSession := (len(p.events) + nSessions - 1) / nSessions
	date := time.Date(2024, time.Month(1+r.IntN(6)), 1+r.IntN(25), 9+r.IntN(9), r.IntN(60), 0, 0, time.UTC)
	for s := 0; s*perSession < len(p.events); s++ {
		w.sessions = append(w.sessions, nil)
		w.dates = append(w.dates, date)
		for _, ev := range p.events[s*perSession : min((s+1)*perSession, len(p.events))] {
			for range r.IntN(3) {
				w.filler(p.services)
			}
			w.tell(p, ev)
		}
		for range 1 + r.IntN(2) {
			w.filler(p.services)
		}
		date = date.AddDate(0, 0, 3+r.IntN(10)).Add(time.Duration(r.IntN(300)-150) * time.Minute)
	}
}

// here is a statement made now: in the current session, on its date.
func (w *convWriter) here(turn, val string) stated {
	return stated{turn: turn, session: len(w.sessions), date: w.dates[len(w.dates)-1], val: val}
}

// tell writes the turns of one event and records where it was told.
func (w *convWriter) tell(p *convPlan, ev convEvent) {
	svc := p.services[ev.svc]
	switch ev.kind {
	case "intro":
		sv := serviceNames[p.order[ev.svc]]
		id := w.say("user", fmt.Sprintf("Some background before we start on %s: it %s, and it is owned by my team. I'll paste bits of it as we go.", sv.name, sv.role))
		w.say("assistant", fmt.Sprintf("Thanks, that helps. So %s %s. Send me the parts you want to work on first, for example the handler layer or the config loading, and I'll keep the rest of the system in mind.\n\n%s", sv.name, sv.role, w.pick(fillerCode)))
		w.told.introAt[ev.svc] = w.here(id, "")
	case "set", "update":
		st := settings[ev.st]
		tmpl := st.set
		if ev.kind == "update" {
			tmpl = st.update
		}
		id := w.say("user", fmt.Sprintf(w.pick(tmpl), svc, w.pick(st.noun), ev.val, ev.old))
		w.say("assistant", w.answer(st, svc, ev.val))
		k := [2]int{ev.svc, ev.st}
		w.told.setAt[k] = append(w.told.setAt[k], w.here(id, ev.val))
	case "failure":
		f := failures[ev.f]
		id := w.say("user", fmt.Sprintf("%s started failing right after %s. The logs are full of this:\n\n```\n%s\n```\n\nAny idea where to look?", svc, f.trigger, f.err))
		w.say("assistant", fmt.Sprintf("That error usually means a resource is exhausted or misconfigured rather than a bug in %s itself. Check the limits first, then the client configuration:\n\n%s\n\n%s", svc, w.pick(fillerCode), w.pick(fillerTails)))
		w.say("user", w.pick(acks))
		w.told.failAt[ev.f] = w.here(id, svc)
	case "advice":
		a := advice[ev.a]
		w.say("user", fmt.Sprintf("What would you set as the %s for %s?", a.what, svc))
		id := w.say("assistant", fmt.Sprintf("For %s I'd go with %s. That keeps tail latency predictable without starving the other services.\n\n%s\n\nRevisit it once you have a week of metrics.", svc, a.val, w.pick(fillerCode)))
		w.say("user", "Ok, going with that.")
		w.told.adviceAt[ev.a] = w.here(id, svc)
	}
}

// ask adds a question, its answer, category and evidence turns.
func (w *convWriter) ask(q, a string, cat int, ev ...string) {
	w.qs = append(w.qs, conversationQuestion{Question: q, Answer: a, Evidence: ev, Category: cat})
}

// serviceAsked is how a question names the i-th service: by its name or,
// half of the time, by what it does.
func (w *convWriter) serviceAsked(p *convPlan, i int) string {
	if w.r.IntN(2) == 0 {
		return serviceNames[p.order[i]].ask
	}
	return p.services[i]
}

// askSettings asks for a third of the settings stated once (single fact)
// and, of each setting that changed, its current value (knowledge update)
// and when the last change happened (temporal).
func (w *convWriter) askSettings(p *convPlan) {
	for _, k := range p.keys {
		ss, st := w.told.setAt[k], settings[k[1]]
		if len(ss) == 1 {
			if w.r.IntN(3) == 0 {
				w.ask(fmt.Sprintf("Which %s does %s use?", w.pick(st.ask), p.services[k[0]]), ss[0].val, catSingle, ss[0].turn)
			}
			continue
		}
		last := ss[len(ss)-1]
		var ev []string
		for _, s := range ss {
			ev = append(ev, s.turn)
		}
		w.ask(fmt.Sprintf("What is the current %s of %s?", w.pick(st.ask), w.serviceAsked(p, k[0])), last.val, catUpdate, ev...)
		w.ask(fmt.Sprintf("When did %s start using %s?", p.services[k[0]], last.val), last.date.Format("2 January 2006"), catTemporal, last.turn)
	}
}

// askFailures asks what went wrong in each failure told (single fact), and
// again naming the service by what it does, told in its introduction
// (cross-session).
func (w *convWriter) askFailures(p *convPlan) {
	for _, f := range p.fs {
		s, ok := w.told.failAt[f]
		if !ok {
			continue
		}
		w.ask(fmt.Sprintf("What went wrong with %s %s?", s.val, failures[f].ask), failures[f].err, catSingle, s.turn)
		for i, svc := range p.services {
			if svc == s.val && w.told.introAt[i].turn != "" {
				w.ask(fmt.Sprintf("Which error did %s hit %s?", serviceNames[p.order[i]].ask, failures[f].ask), failures[f].err, catCrossSession, w.told.introAt[i].turn, s.turn)
			}
		}
	}
}

// askAdvice asks for each piece of advice given (single fact).
func (w *convWriter) askAdvice(p *convPlan) {
	for _, a := range p.as {
		if s, ok := w.told.adviceAt[a]; ok {
			w.ask(advice[a].ask+" for "+s.val+"?", advice[a].val, catSingle, s.turn)
		}
	}
}

// askAcrossSessions asks, of each service that failed, for a setting
// stated once in another session, naming the service by its failure.
func (w *convWriter) askAcrossSessions(p *convPlan) {
	for _, f := range p.fs {
		s, ok := w.told.failAt[f]
		if !ok {
			continue
		}
		for _, k := range p.keys {
			set := w.told.setAt[k]
			if p.services[k[0]] != s.val || len(set) != 1 || set[0].session == s.session {
				continue
			}
			st := settings[k[1]]
			w.ask(fmt.Sprintf("The service that crashed %s: which %s does it use?", failures[f].ask, w.pick(st.ask)),
				set[0].val, catCrossSession, s.turn, set[0].turn)
			break
		}
	}
}

// askOrder asks which of two first changes, told in different sessions,
// came first (temporal).
func (w *convWriter) askOrder(p *convPlan) {
	var firsts []stated
	for _, k := range p.keys {
		if ss := w.told.setAt[k]; len(ss) > 1 {
			f := ss[1]
			f.svc = p.services[k[0]]
			firsts = append(firsts, f)
		}
	}
	for i := 0; i+1 < len(firsts); i += 2 {
		a, b := firsts[i], firsts[i+1]
		if a.session == b.session {
			continue
		}
		first := a.val
		if b.date.Before(a.date) {
			first = b.val
		}
		w.ask(fmt.Sprintf("Which did we do first: switch %s to %s, or switch %s to %s?", a.svc, a.val, b.svc, b.val), first, catTemporal, a.turn, b.turn)
	}
}

// chooseQuestions keeps at most questionsPerKind questions of each
// category, chosen at random.
func (w *convWriter) chooseQuestions() []conversationQuestion {
	var qs []conversationQuestion
	for cat := catCrossSession; cat <= catSingle; cat++ {
		var of []conversationQuestion
		for _, q := range w.qs {
			if q.Category == cat {
				of = append(of, q)
			}
		}
		for _, i := range w.r.Perm(len(of))[:min(len(of), questionsPerKind)] {
			qs = append(qs, of[i])
		}
	}
	return qs
}

// conversationName names the i-th conversation of a part and seed.
func conversationName(part string, seed uint64, i int) string {
	return fmt.Sprintf("%s-%d-%02d", part, seed, i+1)
}

// defaultConversationNames are the conversations of a part written with
// the default seeds and count; nil for a part that is neither dev nor
// test.
func defaultConversationNames(part string) []string {
	seed, ok := map[string]uint64{PartDev: ConversationsDevSeed, PartTest: ConversationsTestSeed}[part]
	if !ok {
		return nil
	}
	names := make([]string, ConversationsPerPart)
	for i := range names {
		names[i] = conversationName(part, seed, i)
	}
	return names
}

// WriteConversations writes n conversations of each seed (dev, test) into
// dir as LoCoMo JSON files, and parts.json naming which file belongs to
// which part.
func WriteConversations(dir string, devSeed, testSeed uint64, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	parts := map[string][]string{}
	for _, p := range []struct {
		part string
		seed uint64
	}{{PartDev, devSeed}, {PartTest, testSeed}} {
		r := rand.New(rand.NewPCG(p.seed, p.seed*0x9e3779b97f4a7c15+7))
		for i := range n {
			name := conversationName(p.part, p.seed, i)
			sessions, dates, qs := generateConversation(r)
			doc := map[string]any{"speaker_a": "user", "speaker_b": "assistant", "qa": qs}
			for s := range sessions {
				doc[fmt.Sprintf("session_%d", s+1)] = sessions[s]
				doc[fmt.Sprintf("session_%d_date_time", s+1)] = dates[s].Format("3:04 pm on 2 January, 2006")
			}
			b, err := json.MarshalIndent(doc, "", " ")
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
				return err
			}
			parts[p.part] = append(parts[p.part], name)
		}
	}
	b, err := json.MarshalIndent(parts, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "parts.json"), b, 0o644)
}
