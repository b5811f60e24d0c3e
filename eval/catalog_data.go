package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
)

// The service catalog: teams, people, services, projects and databases of
// a software company over three years, with properties that change
// (owners, regions, limits, managers…), dependencies, incidents and
// decisions with reasons. The same seed gives the same catalog.

// catalogOntology defines the catalog's predicates as an operator's
// ontology file would: cardinalities, descriptions and synonyms (which
// recall also links question words to).
const catalogOntology = `
entity_types:
  - {name: service, description: "A running service."}
  - {name: person, description: "An engineer."}
  - {name: team, description: "An engineering team."}
  - {name: project, description: "A project."}
  - {name: database, description: "A database cluster."}
  - {name: place, description: "A cloud region or an office."}
predicates:
  - {name: owned_by, cardinality: one, description: "The team responsible for a service.", synonyms: [owner]}
  - {name: deployed_in, cardinality: one, description: "The cloud region a service or database is hosted in.", synonyms: [hosted_in]}
  - {name: runs_on, cardinality: one, description: "The runtime or database engine and its version.", synonyms: [runtime]}
  - {name: uses_database, cardinality: one, description: "The database cluster a service stores its data in.", synonyms: [database]}
  - {name: memory_limit, cardinality: one, description: "Memory a service may use.", synonyms: [ram_limit]}
  - {name: cpu_limit, cardinality: one, description: "CPU a service may use.", synonyms: [cpu_quota]}
  - {name: rate_limit, cardinality: one, description: "Requests per second a service accepts.", synonyms: [throttle]}
  - {name: port, cardinality: one, description: "The port a service listens on."}
  - {name: version, cardinality: one, description: "The release deployed."}
  - {name: on_call, cardinality: one, description: "The engineer paged for a service.", synonyms: [pager_duty]}
  - {name: status, cardinality: one, description: "Health of a service or state of a project."}
  - {name: tier, cardinality: one, description: "How critical a service is."}
  - {name: language, cardinality: one, description: "The programming language a service is written in.", synonyms: [written_in]}
  - {name: sla, cardinality: one, description: "The availability a service promises.", synonyms: [availability_target]}
  - {name: repository, cardinality: one, description: "Where the code of a service lives.", synonyms: [repo, code]}
  - {name: depends_on, cardinality: many, description: "A service this service calls."}
  - {name: had_incident, cardinality: many, description: "An incident of a service."}
  - {name: exposes, cardinality: many, description: "An HTTP endpoint a service serves.", synonyms: [endpoint]}
  - {name: has_skill, cardinality: many, description: "Something an engineer is good at.", synonyms: [skill]}
  - {name: reports_to, cardinality: one, description: "The manager of an engineer.", synonyms: [manager]}
  - {name: member_of, cardinality: one, description: "The team an engineer is on."}
  - {name: job_title, cardinality: one, description: "An engineer's role.", synonyms: [role]}
  - {name: located_in, cardinality: one, description: "The office an engineer works from.", synonyms: [office]}
  - {name: timezone, cardinality: one, description: "An engineer's time zone."}
  - {name: led_by, cardinality: one, description: "The person leading a team or project.", synonyms: [lead]}
  - {name: slack_channel, cardinality: one, description: "Where a team talks.", synonyms: [channel]}
  - {name: budget, cardinality: one, description: "A team's yearly budget."}
  - {name: deadline, cardinality: one, description: "When a project is due.", synonyms: [due_date]}
  - {name: targets, cardinality: many, description: "A service a project changes."}
  - {name: backup_schedule, cardinality: one, description: "When a database is backed up.", synonyms: [backups]}
  - {name: storage_size, cardinality: one, description: "Disk a database uses.", synonyms: [disk_size]}
  - {name: decided, cardinality: many, decision: true, description: "A decision; attributes.reason says why."}
`

// catalogEntity is one named thing of the catalog.
type catalogEntity struct {
	name, typ, alias string
	// domain of a service or database ("identity").
	domain string
}

// catalogQuestion asks for the current value of one property.
type catalogQuestion struct {
	Text      string `json:"question"`
	Subject   string `json:"subject"`
	Predicate string `json:"predicate"`
	// Type is the subject's entity type; Name what the question calls it.
	Type string `json:"type"`
	Name string `json:"name"`
	// Alias: the question names the subject by its alias.
	Alias bool `json:"alias,omitempty"`
	// Lang is "en" or "zh".
	Lang string `json:"lang"`
	// HeldOut: the wording is one of heldOutWordings.
	HeldOut bool `json:"held_out,omitempty"`
}

// unknownQuestion asks for a property of a subject the catalog does not
// hold, named from the generator's own vocabulary.
type unknownQuestion struct {
	Text      string `json:"question"`
	Name      string `json:"name"`
	Predicate string `json:"predicate"`
	// Kind says how the name was made (unknownKinds).
	Kind string `json:"kind"`
}

// The kinds of unknown subjects: a service of an unknown domain and a
// known kind, sharing a word with 30 services ("zebra-gateway"); of a
// known domain and an unknown kind ("cart-proxy"); a database of a domain
// that has none ("audit-db"); a person of a known first and last name
// never put together ("Hiro Chen"); a team and a project of unknown names.
var unknownKinds = []string{"service-domain", "service-kind", "database", "person", "team", "project"}

// lowerKind is the kind of the questions asked again in lower case
// ("person-lower"), with the words of an identifier apart ("zebra
// gateway").
func lowerKind(kind string) string { return kind + "-lower" }

// lowerName is a name as written by someone who does not capitalise nor
// type hyphens: "zebra-gateway" becomes "zebra gateway".
func lowerName(name string) string { return strings.ReplaceAll(strings.ToLower(name), "-", " ") }

var (
	unknownDomains  = []string{"zebra", "loyalty", "wallet", "onboarding", "feeds", "streaming", "quotas", "ratings", "coupons", "routing"}
	unknownSvcKinds = []string{"proxy", "cron", "indexer", "bridge", "relay"}
	unknownBirds    = []string{"Albatross", "Pelican", "Sparrow", "Gannet", "Cormorant", "Magpie"}
	unknownProjects = []string{"Zenith", "Aurora", "Horizon", "Vertex", "Cascade", "Pinnacle"}
)

// catalogData is a generated catalog.
type catalogData struct {
	facts     []memory.FactInput
	questions []catalogQuestion
	unknown   []unknownQuestion
	entities  int
	// changing lists the predicates whose value changes over time.
	changing []string
}

// paraphrases are the question templates of each (entity type, predicate):
// several ways of asking, "%s" standing for the entity.
var paraphrases = map[string][]string{
	"service/owned_by":         {"which team owns %s?", "who is responsible for %s?", "who owns %s", "what team maintains %s?", "%s负责的团队是哪个?"},
	"service/deployed_in":      {"where is %s hosted?", "which region is %s deployed in?", "in which cloud region does %s run?", "%s region", "%s部署在哪个区域?"},
	"service/runs_on":          {"what runtime does %s run on?", "which platform does %s run on?", "what is the runtime of %s?"},
	"service/uses_database":    {"where does %s store its data?", "which database does %s use?", "what db is behind %s?", "%s datastore", "%s用的是什么数据库?"},
	"service/memory_limit":     {"what is the memory limit of %s?", "how much memory can %s use?", "%s RAM limit", "memory cap for %s?"},
	"service/cpu_limit":        {"what is the CPU limit of %s?", "how many cores does %s get?", "%s cpu quota"},
	"service/rate_limit":       {"what is the rate limit of %s?", "how many requests per second does %s accept?", "%s throttle"},
	"service/port":             {"which port does %s listen on?", "what port is %s on?", "%s port number"},
	"service/version":          {"which version of %s is deployed?", "what release is %s at?", "current version of %s?"},
	"service/on_call":          {"who is on call for %s?", "who gets paged for %s?", "%s on-call engineer"},
	"service/status":           {"what is the status of %s?", "is %s healthy?", "what state is %s in?"},
	"service/tier":             {"what tier is %s?", "which criticality tier does %s have?"},
	"service/language":         {"what language is %s written in?", "which programming language is %s built with?"},
	"service/sla":              {"what is the SLA of %s?", "what availability does %s promise?"},
	"service/repository":       {"where is the code of %s?", "which repository holds %s?", "%s repo"},
	"person/reports_to":        {"who is %s's manager?", "who does %s report to?", "who is the boss of %s?", "%s line manager", "%s的上级是谁?"},
	"person/member_of":         {"which team is %s on?", "what team does %s belong to?", "%s team membership"},
	"person/job_title":         {"what is %s's job title?", "what role does %s have?", "what position does %s hold?"},
	"person/located_in":        {"which office is %s based in?", "where does %s work from?"},
	"person/timezone":          {"what timezone is %s in?", "%s time zone"},
	"team/led_by":              {"who leads %s?", "who is the lead of %s?", "who heads %s?", "%s leader", "%s的负责人是谁?"},
	"team/slack_channel":       {"what is the slack channel of %s?", "where can I reach %s on slack?"},
	"team/budget":              {"what is the budget of %s?", "how much money does %s have this year?"},
	"project/led_by":           {"who leads %s?", "who is running %s?", "%s project lead"},
	"project/status":           {"what is the status of %s?", "what state is %s in?", "how is %s going?"},
	"project/deadline":         {"what is the deadline of %s?", "when is %s due?"},
	"database/runs_on":         {"what engine does %s run?", "which database engine powers %s?", "%s engine version"},
	"database/deployed_in":     {"where is %s hosted?", "which region is %s in?"},
	"database/storage_size":    {"how big is %s?", "what is the storage size of %s?", "how much disk does %s use?"},
	"database/backup_schedule": {"when is %s backed up?", "what is the backup schedule of %s?"},
}

// heldOutWordings are further ways of asking, written after the lexicon and
// weights were tuned and never tuned on: their hit@1 is reported apart.
var heldOutWordings = map[string]string{
	"service/owned_by":      "which squad is accountable for %s?",
	"service/deployed_in":   "what geography is %s served from?",
	"service/uses_database": "what persistence layer does %s talk to?",
	"service/memory_limit":  "what's the RAM ceiling for %s?",
	"service/port":          "on what port is %s reachable?",
	"service/on_call":       "who carries the pager for %s this week?",
	"service/version":       "what build of %s is live?",
	"person/reports_to":     "who is %s's line manager these days?",
	"person/member_of":      "which group does %s work in?",
	"team/led_by":           "who is in charge of %s?",
	"project/deadline":      "by when must %s ship?",
	"database/runs_on":      "which DBMS does %s use?",
}

var (
	catalogDomains = []string{"identity", "profiles", "cart", "shipping", "billing", "payments", "search", "catalog",
		"inventory", "pricing", "orders", "checkout", "notifications", "email", "sms", "auth", "sessions",
		"recommendations", "reviews", "media", "thumbnails", "geo", "tax", "fraud", "ledger", "reports", "analytics",
		"export", "import", "audit"}
	catalogKinds   = []string{"api", "worker", "gateway", "scheduler"}
	catalogBirds   = []string{"Falcon", "Heron", "Osprey", "Kestrel", "Condor", "Puffin", "Raven", "Swift", "Wren", "Egret", "Ibis", "Kite", "Lark", "Merlin", "Petrel", "Plover", "Robin", "Stork", "Tern", "Finch"}
	catalogProject = []string{"Atlas", "Beacon", "Comet", "Delta", "Ember", "Fjord", "Glacier", "Harbor", "Iris", "Juniper", "Keystone", "Lumen", "Meridian", "Nova", "Orbit", "Prism", "Quartz", "Ridge", "Summit", "Tundra"}
	catalogFirst   = []string{"Hiro", "Ana", "Bruno", "Chloe", "Dmitri", "Elena", "Farah", "Gustav", "Hana", "Ivan", "Julia", "Kenji", "Leila", "Marco", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tara", "Umar", "Vera", "Wei", "Yuki"}
	catalogLast    = []string{"Sato", "Silva", "Costa", "Martin", "Ivanov", "Rossi", "Khan", "Berg", "Kim", "Petrov", "Novak", "Tanaka", "Haddad", "Bianchi", "Ali", "Farouk", "Patel", "Dubois", "Garcia", "Larsen", "Singh", "Chen", "Mori", "Weber", "Okafor"}
	catalogRegions = []string{"eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-southeast-1", "ap-northeast-1", "sa-east-1", "ca-central-1"}
	catalogRuntime = []string{"Go 1.20", "Go 1.21", "Go 1.22", "JVM 17", "JVM 21", "Node.js 18", "Node.js 20", "Python 3.11", "Python 3.12", "Rust 1.75"}
	catalogEngines = []string{"PostgreSQL 13", "PostgreSQL 14", "PostgreSQL 15", "PostgreSQL 16", "MySQL 8.0", "MongoDB 6.0", "Redis 7.2", "CockroachDB 23.1"}
	catalogTitles  = []string{"Software Engineer", "Senior Software Engineer", "Staff Engineer", "Engineering Manager", "Site Reliability Engineer", "Principal Engineer", "Tech Lead"}
	catalogOffices = []string{"Berlin", "Lisbon", "Tokyo", "Toronto", "Austin", "Singapore", "Dublin", "Remote"}
	catalogZones   = []string{"Europe/Berlin", "Europe/Lisbon", "Asia/Tokyo", "America/Toronto", "America/Chicago", "Asia/Singapore", "Europe/Dublin"}
	catalogReasons = []string{"lower latency for its users", "a cheaper contract", "a security audit finding", "the team knew it better",
		"fewer outages", "simpler operations", "better consistency guarantees", "licensing concerns"}
	catalogSkills = []string{"Kubernetes", "PostgreSQL tuning", "Go", "Kafka", "Terraform", "incident command", "memory profiling",
		"load testing", "React", "gRPC", "capacity planning", "database migrations", "rate limiting", "observability"}
	catalogIncidents = []string{"was OOM-killed after hitting its memory limit", "throttled clients after exceeding its rate limit",
		"lost its database connection pool", "ran out of CPU during a traffic spike", "failed over to another region",
		"served stale data after a cache bug", "returned errors after a bad release", "timed out calling a dependency",
		"filled its disk with logs", "leaked connections on its port"}
)

// catalogStart and catalogEnd bound the catalog's history; catalogNow is
// the clock of the evaluation.
var (
	catalogStart = time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	catalogEnd   = time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC)
	catalogNow   = time.Date(2025, 1, 15, 0, 0, 0, 0, time.UTC)
)

// generateCatalog builds a catalog and nq questions from seed.
func generateCatalog(seed uint64, nq int) catalogData {
	r := rand.New(rand.NewPCG(seed, seed*0x9e3779b97f4a7c15+1))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	span := catalogEnd.Sub(catalogStart)
	// versions returns 1–4 increasing start times over the history; the
	// first is in the first year.
	versions := func(changing bool) []time.Time {
		n := 1
		if changing {
			n = 1 + r.IntN(4)
		}
		out := []time.Time{catalogStart.Add(time.Duration(r.Int64N(int64(span / 3))))}
		for i := 1; i < n; i++ {
			out = append(out, catalogStart.Add(time.Duration(r.Int64N(int64(span)))))
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
		for i := 1; i < len(out); i++ {
			if !out[i].After(out[i-1]) {
				out[i] = out[i-1].Add(24 * time.Hour)
			}
		}
		return out
	}
	var d catalogData
	var ents []catalogEntity
	add := func(e catalogEntity) catalogEntity { ents = append(ents, e); return e }

	var teams, people, services, projects, databases []catalogEntity
	for _, b := range catalogBirds {
		teams = append(teams, add(catalogEntity{name: "Team " + b, typ: "team", alias: b + " squad"}))
	}
	usedNames := map[string]bool{}
	for len(people) < 100 {
		f, l := pick(catalogFirst), pick(catalogLast)
		if usedNames[f+l] {
			continue
		}
		usedNames[f+l] = true
		people = append(people, add(catalogEntity{name: f + " " + l, typ: "person", alias: strings.ToLower(f[:1] + l)}))
	}
	for i, dom := range catalogDomains {
		for j, k := range catalogKinds {
			services = append(services, add(catalogEntity{name: dom + "-" + k, typ: "service", domain: dom,
				alias: fmt.Sprintf("SVC-%03d", 100+i*len(catalogKinds)+j)}))
		}
	}
	for i, p := range catalogProject {
		projects = append(projects, add(catalogEntity{name: "Project " + p, typ: "project", alias: fmt.Sprintf("PRJ-%02d", 10+i)}))
	}
	for i, dom := range catalogDomains[:20] {
		databases = append(databases, add(catalogEntity{name: dom + "-db", typ: "database", domain: dom,
			alias: fmt.Sprintf("DB-%02d", 40+i)}))
	}
	d.entities = len(ents) + len(catalogRegions) + len(catalogOffices)
	aliasOf := map[string]string{}
	typeOf := map[string]string{}
	for _, e := range ents {
		aliasOf[e.name], typeOf[e.name] = e.alias, e.typ
	}
	typeOf["region"] = "place"

	changing := map[string]bool{}
	fact := func(subj catalogEntity, pred, obj, objType, value, text string, t time.Time, attrs map[string]any) {
		f := memory.FactInput{Subject: subj.name, SubjectType: subj.typ, Predicate: pred, Object: obj, ObjectType: objType,
			Value: value, Text: text, SourceKind: "import", Attributes: attrs}
		if subj.alias != "" {
			f.SubjectAliases = []string{subj.alias}
		}
		if a := aliasOf[obj]; a != "" {
			f.ObjectAliases = []string{a}
		}
		t = t.UTC()
		f.ValidFrom = &t
		d.facts = append(d.facts, f)
	}
	// property writes one value per version of (subject, predicate).
	property := func(subj catalogEntity, pred string, change bool, gen func(i int) (obj, objType, value, text string)) {
		ts := versions(change)
		if len(ts) > 1 {
			changing[pred] = true
		}
		prev := ""
		for i, t := range ts {
			obj, objType, value, text := gen(i)
			if obj+value == prev {
				continue // the same value again: no change
			}
			prev = obj + value
			fact(subj, pred, obj, objType, value, text, t, nil)
		}
	}
	entityOf := func(es []catalogEntity) catalogEntity { return es[r.IntN(len(es))] }

	for _, s := range services {
		n := s.name
		property(s, "owned_by", true, func(int) (string, string, string, string) {
			t := entityOf(teams)
			return t.name, "team", "", fmt.Sprintf("%s is owned by %s", n, t.name)
		})
		property(s, "deployed_in", true, func(int) (string, string, string, string) {
			g := pick(catalogRegions)
			return g, "place", "", fmt.Sprintf("%s is deployed in %s", n, g)
		})
		property(s, "runs_on", true, func(int) (string, string, string, string) {
			v := pick(catalogRuntime)
			return "", "", v, fmt.Sprintf("%s runs on %s", n, v)
		})
		property(s, "uses_database", true, func(int) (string, string, string, string) {
			db := entityOf(databases)
			return db.name, "database", "", fmt.Sprintf("%s keeps its data in %s", n, db.name)
		})
		property(s, "memory_limit", true, func(int) (string, string, string, string) {
			v := fmt.Sprintf("%dMi", 256<<r.IntN(6))
			return "", "", v, fmt.Sprintf("%s has a memory limit of %s", n, v)
		})
		property(s, "cpu_limit", true, func(int) (string, string, string, string) {
			v := fmt.Sprintf("%dm", 250*(1+r.IntN(16)))
			return "", "", v, fmt.Sprintf("%s has a CPU limit of %s", n, v)
		})
		property(s, "rate_limit", true, func(int) (string, string, string, string) {
			v := fmt.Sprintf("%d requests/s", 50*(1+r.IntN(40)))
			return "", "", v, fmt.Sprintf("%s accepts at most %s", n, v)
		})
		property(s, "port", true, func(int) (string, string, string, string) {
			v := fmt.Sprint(3000 + r.IntN(6000))
			return "", "", v, fmt.Sprintf("%s listens on port %s", n, v)
		})
		property(s, "version", true, func(i int) (string, string, string, string) {
			v := fmt.Sprintf("v%d.%d.%d", 1+i, r.IntN(10), r.IntN(20))
			return "", "", v, fmt.Sprintf("%s %s is deployed", n, v)
		})
		property(s, "on_call", true, func(int) (string, string, string, string) {
			p := entityOf(people)
			return p.name, "person", "", fmt.Sprintf("%s is on call for %s", p.name, n)
		})
		property(s, "status", true, func(int) (string, string, string, string) {
			v := pick([]string{"healthy", "degraded", "healthy", "deprecated", "healthy"})
			return "", "", v, fmt.Sprintf("%s is %s", n, v)
		})
		property(s, "tier", false, func(int) (string, string, string, string) {
			v := fmt.Sprintf("tier %d", 1+r.IntN(3))
			return "", "", v, fmt.Sprintf("%s is a %s service", n, v)
		})
		property(s, "language", false, func(int) (string, string, string, string) {
			v := pick([]string{"Go", "Java", "Kotlin", "TypeScript", "Python", "Rust"})
			return "", "", v, fmt.Sprintf("%s is written in %s", n, v)
		})
		property(s, "sla", false, func(int) (string, string, string, string) {
			v := pick([]string{"99.9%", "99.95%", "99.99%", "99.5%"})
			return "", "", v, fmt.Sprintf("%s promises %s availability", n, v)
		})
		property(s, "repository", false, func(int) (string, string, string, string) {
			v := "git.internal/" + s.domain + "/" + n
			return "", "", v, fmt.Sprintf("the code of %s lives in %s", n, v)
		})
		for range 2 + r.IntN(4) {
			o := entityOf(services)
			if o.name != n {
				fact(s, "depends_on", o.name, "service", "", fmt.Sprintf("%s calls %s", n, o.name), catalogStart.Add(time.Duration(r.Int64N(int64(span)))), nil)
			}
		}
		for range 3 + r.IntN(6) {
			ep := pick([]string{"GET", "POST", "PUT", "DELETE"}) + " /v" + fmt.Sprint(1+r.IntN(3)) + "/" + s.domain + "/" + pick([]string{"items", "status", "search", "batch", "events", "config", "health", "export"})
			fact(s, "exposes", "", "", ep, fmt.Sprintf("%s exposes %s", n, ep), catalogStart.Add(time.Duration(r.Int64N(int64(span)))), nil)
		}
		for range 12 + r.IntN(19) {
			v := pick(catalogIncidents)
			t := catalogStart.Add(time.Duration(r.Int64N(int64(span))))
			fact(s, "had_incident", "", "", fmt.Sprintf("%s on %s", v, t.Format(time.DateOnly)), fmt.Sprintf("%s %s on %s", n, v, t.Format(time.DateOnly)), t, nil)
		}
	}
	for _, p := range people {
		n := p.name
		property(p, "reports_to", true, func(int) (string, string, string, string) {
			m := entityOf(people)
			for m.name == n {
				m = entityOf(people)
			}
			return m.name, "person", "", fmt.Sprintf("%s reports to %s", n, m.name)
		})
		property(p, "member_of", true, func(int) (string, string, string, string) {
			t := entityOf(teams)
			return t.name, "team", "", fmt.Sprintf("%s is a member of %s", n, t.name)
		})
		property(p, "job_title", true, func(int) (string, string, string, string) {
			v := pick(catalogTitles)
			return "", "", v, fmt.Sprintf("%s works as %s", n, v)
		})
		property(p, "located_in", false, func(int) (string, string, string, string) {
			o := pick(catalogOffices)
			return o, "place", "", fmt.Sprintf("%s works from the %s office", n, o)
		})
		property(p, "timezone", false, func(int) (string, string, string, string) {
			v := pick(catalogZones)
			return "", "", v, fmt.Sprintf("%s is in the %s time zone", n, v)
		})
		for range 3 + r.IntN(5) {
			k := pick(catalogSkills)
			fact(p, "has_skill", "", "", k, fmt.Sprintf("%s knows %s", n, k), catalogStart.Add(time.Duration(r.Int64N(int64(span)))), nil)
		}
	}
	for _, t := range teams {
		n := t.name
		property(t, "led_by", true, func(int) (string, string, string, string) {
			p := entityOf(people)
			return p.name, "person", "", fmt.Sprintf("%s is led by %s", n, p.name)
		})
		property(t, "slack_channel", false, func(int) (string, string, string, string) {
			v := "#" + strings.ToLower(strings.ReplaceAll(n, " ", "-"))
			return "", "", v, fmt.Sprintf("%s talks in %s on Slack", n, v)
		})
		property(t, "budget", true, func(int) (string, string, string, string) {
			v := fmt.Sprintf("$%d00k", 2+r.IntN(30))
			return "", "", v, fmt.Sprintf("%s has a yearly budget of %s", n, v)
		})
		for range 3 + r.IntN(4) {
			s := entityOf(services)
			from, to := pick(catalogEngines), pick(catalogEngines)
			if from == to {
				continue
			}
			why := pick(catalogReasons)
			fact(t, "decided", s.name, "service", "", fmt.Sprintf("%s decided to move %s from %s to %s", n, s.name, from, to),
				catalogStart.Add(time.Duration(r.Int64N(int64(span)))), map[string]any{"reason": why, "alternatives": from})
		}
	}
	for _, p := range projects {
		n := p.name
		property(p, "led_by", true, func(int) (string, string, string, string) {
			l := entityOf(people)
			return l.name, "person", "", fmt.Sprintf("%s is led by %s", n, l.name)
		})
		property(p, "status", true, func(int) (string, string, string, string) {
			v := pick([]string{"planned", "in progress", "at risk", "on hold", "shipped"})
			return "", "", v, fmt.Sprintf("%s is %s", n, v)
		})
		property(p, "deadline", true, func(int) (string, string, string, string) {
			v := catalogStart.AddDate(0, 6+r.IntN(36), 0).Format(time.DateOnly)
			return "", "", v, fmt.Sprintf("%s is due on %s", n, v)
		})
		for range 2 + r.IntN(3) {
			s := entityOf(services)
			fact(p, "targets", s.name, "service", "", fmt.Sprintf("%s changes %s", n, s.name), catalogStart.Add(time.Duration(r.Int64N(int64(span)))), nil)
		}
	}
	for _, db := range databases {
		n := db.name
		property(db, "runs_on", true, func(int) (string, string, string, string) {
			v := pick(catalogEngines)
			return "", "", v, fmt.Sprintf("%s runs %s", n, v)
		})
		property(db, "deployed_in", true, func(int) (string, string, string, string) {
			g := pick(catalogRegions)
			return g, "place", "", fmt.Sprintf("%s is hosted in %s", n, g)
		})
		property(db, "storage_size", true, func(int) (string, string, string, string) {
			v := fmt.Sprintf("%d GB", 50*(1+r.IntN(80)))
			return "", "", v, fmt.Sprintf("%s stores %s", n, v)
		})
		property(db, "backup_schedule", false, func(int) (string, string, string, string) {
			v := fmt.Sprintf("daily at %02d:00 UTC", r.IntN(24))
			return "", "", v, fmt.Sprintf("%s is backed up %s", n, v)
		})
	}
	// History arrives roughly in order, a few statements late.
	sort.SliceStable(d.facts, func(i, j int) bool { return d.facts[i].ValidFrom.Before(*d.facts[j].ValidFrom) })
	for i := range d.facts {
		if j := i + r.IntN(40); r.IntN(20) == 0 && j < len(d.facts) {
			d.facts[i], d.facts[j] = d.facts[j], d.facts[i]
		}
	}
	for p := range changing {
		d.changing = append(d.changing, p)
	}
	slices.Sort(d.changing)

	// Questions: a random (entity, property) and one of its paraphrases;
	// a quarter name the entity by its alias.
	keys := make([]string, 0, len(paraphrases))
	for k := range paraphrases {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	byType := map[string][]catalogEntity{"service": services, "person": people, "team": teams, "project": projects, "database": databases}
	asked := map[string]bool{}
	for len(d.questions) < nq {
		k := keys[r.IntN(len(keys))]
		typ, pred, _ := strings.Cut(k, "/")
		e := entityOf(byType[typ])
		if asked[e.name+"/"+pred] {
			continue
		}
		asked[e.name+"/"+pred] = true
		tmpl, held := pick(paraphrases[k]), false
		if h, ok := heldOutWordings[k]; ok && r.IntN(5) == 0 {
			tmpl, held = h, true
		}
		name, alias := e.name, false
		if e.alias != "" && r.IntN(4) == 0 {
			name, alias = e.alias, true
		}
		lang := "en"
		for _, c := range tmpl {
			if c >= 0x4e00 && c <= 0x9fff {
				lang = "zh"
				break
			}
		}
		d.questions = append(d.questions, catalogQuestion{Text: fmt.Sprintf(tmpl, name), Subject: e.name, Predicate: pred,
			Type: typ, Name: name, Alias: alias, Lang: lang, HeldOut: held})
	}
	// Questions about subjects that do not exist, after the others so
	// that those stay the same: half as many.
	known := map[string]bool{}
	for _, e := range ents {
		known[strings.ToLower(e.name)] = true
	}
	for i := 0; len(d.unknown) < (nq+1)/2; i++ {
		kind := unknownKinds[i%len(unknownKinds)]
		var name, typ string
		switch kind {
		case "service-domain":
			name, typ = pick(unknownDomains)+"-"+pick(catalogKinds), "service"
		case "service-kind":
			name, typ = pick(catalogDomains)+"-"+pick(unknownSvcKinds), "service"
		case "database":
			name, typ = pick(catalogDomains[len(databases):])+"-db", "database"
		case "person":
			name, typ = pick(catalogFirst)+" "+pick(catalogLast), "person"
		case "team":
			name, typ = "Team "+pick(unknownBirds), "team"
		case "project":
			name, typ = "Project "+pick(unknownProjects), "project"
		}
		if known[strings.ToLower(name)] || typo(name, people) {
			continue
		}
		var ks []string
		for _, k := range keys {
			if strings.HasPrefix(k, typ+"/") {
				ks = append(ks, k)
			}
		}
		k := ks[r.IntN(len(ks))]
		_, pred, _ := strings.Cut(k, "/")
		text := fmt.Sprintf(pick(paraphrases[k]), name)
		if asked[text] {
			continue
		}
		asked[text] = true
		d.unknown = append(d.unknown, unknownQuestion{Text: text, Name: name, Predicate: pred, Kind: kind})
	}
	// Names as written by someone who does not capitalise nor type
	// hyphens: no shape tells them ("where does hiro chen work", "which
	// database does zebra gateway use"). Chinese questions only of people:
	// a name without a hyphen runs into the words around it there.
	for _, q := range slices.Clone(d.unknown) {
		if q.Kind != "person" && strings.IndexFunc(q.Text, func(r rune) bool { return r > unicode.MaxLatin1 }) >= 0 {
			continue
		}
		name := lowerName(q.Name)
		text := strings.ToLower(strings.Replace(q.Text, q.Name, name, 1))
		d.unknown = append(d.unknown, unknownQuestion{Text: text, Name: name, Predicate: q.Predicate, Kind: lowerKind(q.Kind)})
	}
	return d
}

// typo reports whether name is a typing error away from a person's name
// (entity.Similarity at least entity.FuzzyThreshold): such a name is
// taken for that person on purpose, so it is not asked as unknown.
func typo(name string, people []catalogEntity) bool {
	for _, p := range people {
		if entity.Similarity(entity.Normalize(name), entity.Normalize(p.name)) >= entity.FuzzyThreshold {
			return true
		}
	}
	return false
}
