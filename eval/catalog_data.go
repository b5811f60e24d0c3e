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

// generateCatalog builds a catalog and nq questions from seed: the
// entities, the facts of each kind of entity, the history in the order it
// arrives, then the questions about known subjects, about unknown ones,
// and the unknown ones again in lower case.
func generateCatalog(seed uint64, nq int) catalogData {
	g := &catalogGen{r: rand.New(rand.NewPCG(seed, seed*0x9e3779b97f4a7c15+1)), changing: map[string]bool{}}
	g.makeEntities()
	for _, s := range g.services {
		g.serviceFacts(s)
	}
	for _, p := range g.people {
		g.personFacts(p)
	}
	for _, t := range g.teams {
		g.teamFacts(t)
	}
	for _, p := range g.projects {
		g.projectFacts(p)
	}
	for _, db := range g.databases {
		g.databaseFacts(db)
	}
	g.arriveInOrder()
	for p := range g.changing {
		g.d.changing = append(g.d.changing, p)
	}
	slices.Sort(g.d.changing)
	asked := g.askKnown(nq)
	g.askUnknown(nq, asked)
	g.askLowerCase()
	return g.d
}

// catalogGen is one catalog being generated: its random source, what it
// holds so far, its entities by kind.
type catalogGen struct {
	r    *rand.Rand
	d    catalogData
	ents []catalogEntity

	teams, people, services, projects, databases []catalogEntity
	// aliasOf is each entity's alias by name; changing the predicates
	// written with more than one version.
	aliasOf  map[string]string
	changing map[string]bool
}

// catalogSpan is the length of the catalog's history.
var catalogSpan = catalogEnd.Sub(catalogStart)

func (g *catalogGen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

func (g *catalogGen) entityOf(es []catalogEntity) catalogEntity { return es[g.r.IntN(len(es))] }

// moment is a random time of the catalog's history.
func (g *catalogGen) moment() time.Time {
	return catalogStart.Add(time.Duration(g.r.Int64N(int64(catalogSpan))))
}

// versions returns 1–4 increasing start times over the history (one when
// the property does not change); the first is in the first year.
func (g *catalogGen) versions(changing bool) []time.Time {
	n := 1
	if changing {
		n = 1 + g.r.IntN(4)
	}
	out := []time.Time{catalogStart.Add(time.Duration(g.r.Int64N(int64(catalogSpan / 3))))}
	for i := 1; i < n; i++ {
		out = append(out, g.moment())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	for i := 1; i < len(out); i++ {
		if !out[i].After(out[i-1]) {
			out[i] = out[i-1].Add(24 * time.Hour)
		}
	}
	return out
}

// add records e among the catalog's entities and returns it.
func (g *catalogGen) add(e catalogEntity) catalogEntity {
	g.ents = append(g.ents, e)
	return e
}

// makeEntities names the teams, 100 people, the services, projects and
// databases, and counts the entities (regions and offices with them).
func (g *catalogGen) makeEntities() {
	for _, b := range catalogBirds {
		g.teams = append(g.teams, g.add(catalogEntity{name: "Team " + b, typ: "team", alias: b + " squad"}))
	}
	usedNames := map[string]bool{}
	for len(g.people) < 100 {
		f, l := g.pick(catalogFirst), g.pick(catalogLast)
		if usedNames[f+l] {
			continue
		}
		usedNames[f+l] = true
		g.people = append(g.people, g.add(catalogEntity{name: f + " " + l, typ: "person", alias: strings.ToLower(f[:1] + l)}))
	}
	for i, dom := range catalogDomains {
		for j, k := range catalogKinds {
			g.services = append(g.services, g.add(catalogEntity{name: dom + "-" + k, typ: "service", domain: dom,
				alias: fmt.Sprintf("SVC-%03d", 100+i*len(catalogKinds)+j)}))
		}
	}
	for i, p := range catalogProject {
		g.projects = append(g.projects, g.add(catalogEntity{name: "Project " + p, typ: "project", alias: fmt.Sprintf("PRJ-%02d", 10+i)}))
	}
	for i, dom := range catalogDomains[:20] {
		g.databases = append(g.databases, g.add(catalogEntity{name: dom + "-db", typ: "database", domain: dom,
			alias: fmt.Sprintf("DB-%02d", 40+i)}))
	}
	g.d.entities = len(g.ents) + len(catalogRegions) + len(catalogOffices)
	g.aliasOf = map[string]string{}
	for _, e := range g.ents {
		g.aliasOf[e.name] = e.alias
	}
}

// fact writes one fact of subj valid from t, with the aliases of its
// subject and object.
func (g *catalogGen) fact(subj catalogEntity, pred, obj, objType, value, text string, t time.Time, attrs map[string]any) {
	f := memory.FactInput{Subject: subj.name, SubjectType: subj.typ, Predicate: pred, Object: obj, ObjectType: objType,
		Value: value, Text: text, SourceKind: "import", Attributes: attrs}
	if subj.alias != "" {
		f.SubjectAliases = []string{subj.alias}
	}
	if a := g.aliasOf[obj]; a != "" {
		f.ObjectAliases = []string{a}
	}
	t = t.UTC()
	f.ValidFrom = &t
	g.d.facts = append(g.d.facts, f)
}

// property writes one value per version of (subject, predicate): gen
// gives the i-th version's object, its type, value and text; a version
// with the value of the one before is no change and is left out.
func (g *catalogGen) property(subj catalogEntity, pred string, change bool, gen versionOf) {
	ts := g.versions(change)
	if len(ts) > 1 {
		g.changing[pred] = true
	}
	prev := ""
	for i, t := range ts {
		obj, objType, value, text := gen(i)
		if obj+value == prev {
			continue
		}
		prev = obj + value
		g.fact(subj, pred, obj, objType, value, text, t, nil)
	}
}

// A version maker of property: each call picks the value of a version.
type versionOf func(i int) (obj, objType, value, text string)

// pickValue makes versions whose value is one of xs, stated by format
// (the subject's name n, then the value).
func (g *catalogGen) pickValue(n string, xs []string, format string) versionOf {
	return func(int) (string, string, string, string) {
		v := g.pick(xs)
		return "", "", v, fmt.Sprintf(format, n, v)
	}
}

// pickPlace makes versions whose object is the place of xs, stated by
// format (the subject's name n, then the place).
func (g *catalogGen) pickPlace(n string, xs []string, format string) versionOf {
	return func(int) (string, string, string, string) {
		p := g.pick(xs)
		return p, "place", "", fmt.Sprintf(format, n, p)
	}
}

// pickEntity makes versions whose object is one of es, of type typ,
// stated by format (the subject's name n, then the object's).
func (g *catalogGen) pickEntity(n string, es []catalogEntity, typ, format string) versionOf {
	return func(int) (string, string, string, string) {
		e := g.entityOf(es)
		return e.name, typ, "", fmt.Sprintf(format, n, e.name)
	}
}

// serviceFacts writes a service's properties, the services it calls, its
// endpoints and its incidents.
func (g *catalogGen) serviceFacts(s catalogEntity) {
	n, r := s.name, g.r
	g.property(s, "owned_by", true, g.pickEntity(n, g.teams, "team", "%s is owned by %s"))
	g.property(s, "deployed_in", true, g.pickPlace(n, catalogRegions, "%s is deployed in %s"))
	g.property(s, "runs_on", true, g.pickValue(n, catalogRuntime, "%s runs on %s"))
	g.property(s, "uses_database", true, g.pickEntity(n, g.databases, "database", "%s keeps its data in %s"))
	g.property(s, "memory_limit", true, func(int) (string, string, string, string) {
		v := fmt.Sprintf("%dMi", 256<<r.IntN(6))
		return "", "", v, fmt.Sprintf("%s has a memory limit of %s", n, v)
	})
	g.property(s, "cpu_limit", true, func(int) (string, string, string, string) {
		v := fmt.Sprintf("%dm", 250*(1+r.IntN(16)))
		return "", "", v, fmt.Sprintf("%s has a CPU limit of %s", n, v)
	})
	g.property(s, "rate_limit", true, func(int) (string, string, string, string) {
		v := fmt.Sprintf("%d requests/s", 50*(1+r.IntN(40)))
		return "", "", v, fmt.Sprintf("%s accepts at most %s", n, v)
	})
	g.property(s, "port", true, func(int) (string, string, string, string) {
		v := fmt.Sprint(3000 + r.IntN(6000))
		return "", "", v, fmt.Sprintf("%s listens on port %s", n, v)
	})
	g.property(s, "version", true, func(i int) (string, string, string, string) {
		v := fmt.Sprintf("v%d.%d.%d", 1+i, r.IntN(10), r.IntN(20))
		return "", "", v, fmt.Sprintf("%s %s is deployed", n, v)
	})
	g.property(s, "on_call", true, func(int) (string, string, string, string) {
		p := g.entityOf(g.people)
		return p.name, "person", "", fmt.Sprintf("%s is on call for %s", p.name, n)
	})
	g.property(s, "status", true, g.pickValue(n, []string{"healthy", "degraded", "healthy", "deprecated", "healthy"}, "%s is %s"))
	g.property(s, "tier", false, func(int) (string, string, string, string) {
		v := fmt.Sprintf("tier %d", 1+r.IntN(3))
		return "", "", v, fmt.Sprintf("%s is a %s service", n, v)
	})
	g.property(s, "language", false, g.pickValue(n, []string{"Go", "Java", "Kotlin", "TypeScript", "Python", "Rust"}, "%s is written in %s"))
	g.property(s, "sla", false, g.pickValue(n, []string{"99.9%", "99.95%", "99.99%", "99.5%"}, "%s promises %s availability"))
	g.property(s, "repository", false, func(int) (string, string, string, string) {
		v := "git.internal/" + s.domain + "/" + n
		return "", "", v, fmt.Sprintf("the code of %s lives in %s", n, v)
	})
	for range 2 + r.IntN(4) {
		o := g.entityOf(g.services)
		if o.name != n {
			g.fact(s, "depends_on", o.name, "service", "", fmt.Sprintf("%s calls %s", n, o.name), g.moment(), nil)
		}
	}
	for range 3 + r.IntN(6) {
		ep := g.pick([]string{"GET", "POST", "PUT", "DELETE"}) + " /v" + fmt.Sprint(1+r.IntN(3)) + "/" + s.domain + "/" + g.pick([]string{"items", "status", "search", "batch", "events", "config", "health", "export"})
		g.fact(s, "exposes", "", "", ep, fmt.Sprintf("%s exposes %s", n, ep), g.moment(), nil)
	}
	for range 12 + r.IntN(19) {
		v := g.pick(catalogIncidents)
		t := g.moment()
		g.fact(s, "had_incident", "", "", fmt.Sprintf("%s on %s", v, t.Format(time.DateOnly)), fmt.Sprintf("%s %s on %s", n, v, t.Format(time.DateOnly)), t, nil)
	}
}

// personFacts writes a person's manager (another person), team, title,
// office, time zone and skills.
func (g *catalogGen) personFacts(p catalogEntity) {
	n := p.name
	g.property(p, "reports_to", true, func(int) (string, string, string, string) {
		m := g.entityOf(g.people)
		for m.name == n {
			m = g.entityOf(g.people)
		}
		return m.name, "person", "", fmt.Sprintf("%s reports to %s", n, m.name)
	})
	g.property(p, "member_of", true, g.pickEntity(n, g.teams, "team", "%s is a member of %s"))
	g.property(p, "job_title", true, g.pickValue(n, catalogTitles, "%s works as %s"))
	g.property(p, "located_in", false, g.pickPlace(n, catalogOffices, "%s works from the %s office"))
	g.property(p, "timezone", false, g.pickValue(n, catalogZones, "%s is in the %s time zone"))
	for range 3 + g.r.IntN(5) {
		k := g.pick(catalogSkills)
		g.fact(p, "has_skill", "", "", k, fmt.Sprintf("%s knows %s", n, k), g.moment(), nil)
	}
}

// teamFacts writes a team's lead, channel and budget, and its decisions
// to move a service from one engine to another, each with a reason.
func (g *catalogGen) teamFacts(t catalogEntity) {
	n := t.name
	g.property(t, "led_by", true, g.pickEntity(n, g.people, "person", "%s is led by %s"))
	g.property(t, "slack_channel", false, func(int) (string, string, string, string) {
		v := "#" + strings.ToLower(strings.ReplaceAll(n, " ", "-"))
		return "", "", v, fmt.Sprintf("%s talks in %s on Slack", n, v)
	})
	g.property(t, "budget", true, func(int) (string, string, string, string) {
		v := fmt.Sprintf("$%d00k", 2+g.r.IntN(30))
		return "", "", v, fmt.Sprintf("%s has a yearly budget of %s", n, v)
	})
	for range 3 + g.r.IntN(4) {
		s := g.entityOf(g.services)
		from, to := g.pick(catalogEngines), g.pick(catalogEngines)
		if from == to {
			continue
		}
		why := g.pick(catalogReasons)
		g.fact(t, "decided", s.name, "service", "", fmt.Sprintf("%s decided to move %s from %s to %s", n, s.name, from, to),
			g.moment(), map[string]any{"reason": why, "alternatives": from})
	}
}

// projectFacts writes a project's lead, status and deadline, and the
// services it changes.
func (g *catalogGen) projectFacts(p catalogEntity) {
	n := p.name
	g.property(p, "led_by", true, g.pickEntity(n, g.people, "person", "%s is led by %s"))
	g.property(p, "status", true, g.pickValue(n, []string{"planned", "in progress", "at risk", "on hold", "shipped"}, "%s is %s"))
	g.property(p, "deadline", true, func(int) (string, string, string, string) {
		v := catalogStart.AddDate(0, 6+g.r.IntN(36), 0).Format(time.DateOnly)
		return "", "", v, fmt.Sprintf("%s is due on %s", n, v)
	})
	for range 2 + g.r.IntN(3) {
		s := g.entityOf(g.services)
		g.fact(p, "targets", s.name, "service", "", fmt.Sprintf("%s changes %s", n, s.name), g.moment(), nil)
	}
}

// databaseFacts writes a database's engine, region, size and backup
// schedule.
func (g *catalogGen) databaseFacts(db catalogEntity) {
	n := db.name
	g.property(db, "runs_on", true, g.pickValue(n, catalogEngines, "%s runs %s"))
	g.property(db, "deployed_in", true, g.pickPlace(n, catalogRegions, "%s is hosted in %s"))
	g.property(db, "storage_size", true, func(int) (string, string, string, string) {
		v := fmt.Sprintf("%d GB", 50*(1+g.r.IntN(80)))
		return "", "", v, fmt.Sprintf("%s stores %s", n, v)
	})
	g.property(db, "backup_schedule", false, func(int) (string, string, string, string) {
		v := fmt.Sprintf("daily at %02d:00 UTC", g.r.IntN(24))
		return "", "", v, fmt.Sprintf("%s is backed up %s", n, v)
	})
}

// arriveInOrder orders the history as it arrives: roughly by start, a few
// statements late.
func (g *catalogGen) arriveInOrder() {
	fs := g.d.facts
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].ValidFrom.Before(*fs[j].ValidFrom) })
	for i := range fs {
		if j := i + g.r.IntN(40); g.r.IntN(20) == 0 && j < len(fs) {
			fs[i], fs[j] = fs[j], fs[i]
		}
	}
}

// paraphraseKeys are the keys of paraphrases, sorted.
func paraphraseKeys() []string {
	keys := make([]string, 0, len(paraphrases))
	for k := range paraphrases {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// askKnown writes nq questions, each about a random (entity, property) not
// asked before, and returns what was asked.
func (g *catalogGen) askKnown(nq int) map[string]bool {
	keys := paraphraseKeys()
	byType := map[string][]catalogEntity{"service": g.services, "person": g.people, "team": g.teams, "project": g.projects,
		"database": g.databases}
	asked := map[string]bool{}
	for len(g.d.questions) < nq {
		k := keys[g.r.IntN(len(keys))]
		typ, pred, _ := strings.Cut(k, "/")
		e := g.entityOf(byType[typ])
		if asked[e.name+"/"+pred] {
			continue
		}
		asked[e.name+"/"+pred] = true
		g.d.questions = append(g.d.questions, g.question(k, e))
	}
	return asked
}

// question asks for the property of e that k names in one of its
// paraphrases (now and then a held-out wording), naming e by its alias a
// quarter of the time.
func (g *catalogGen) question(k string, e catalogEntity) catalogQuestion {
	typ, pred, _ := strings.Cut(k, "/")
	tmpl, held := g.pick(paraphrases[k]), false
	if h, ok := heldOutWordings[k]; ok && g.r.IntN(5) == 0 {
		tmpl, held = h, true
	}
	name, alias := e.name, false
	if e.alias != "" && g.r.IntN(4) == 0 {
		name, alias = e.alias, true
	}
	return catalogQuestion{Text: fmt.Sprintf(tmpl, name), Subject: e.name, Predicate: pred,
		Type: typ, Name: name, Alias: alias, Lang: templateLang(tmpl), HeldOut: held}
}

// templateLang is "zh" for a template with a CJK ideograph, else "en".
func templateLang(tmpl string) string {
	for _, c := range tmpl {
		if c >= 0x4e00 && c <= 0x9fff {
			return "zh"
		}
	}
	return "en"
}

// askUnknown writes half as many questions as nq about subjects that do
// not exist, after the others so that those stay the same; asked holds
// the questions already written.
func (g *catalogGen) askUnknown(nq int, asked map[string]bool) {
	keys := paraphraseKeys()
	known := map[string]bool{}
	for _, e := range g.ents {
		known[strings.ToLower(e.name)] = true
	}
	for i := 0; len(g.d.unknown) < (nq+1)/2; i++ {
		kind := unknownKinds[i%len(unknownKinds)]
		name, typ := g.unknownName(kind)
		if known[strings.ToLower(name)] || typo(name, g.people) {
			continue
		}
		var ks []string
		for _, k := range keys {
			if strings.HasPrefix(k, typ+"/") {
				ks = append(ks, k)
			}
		}
		k := ks[g.r.IntN(len(ks))]
		_, pred, _ := strings.Cut(k, "/")
		text := fmt.Sprintf(g.pick(paraphrases[k]), name)
		if asked[text] {
			continue
		}
		asked[text] = true
		g.d.unknown = append(g.d.unknown, unknownQuestion{Text: text, Name: name, Predicate: pred, Kind: kind})
	}
}

// unknownName makes a name of the kind (unknownKinds) from the
// generator's vocabulary, and its entity type.
func (g *catalogGen) unknownName(kind string) (name, typ string) {
	switch kind {
	case "service-domain":
		return g.pick(unknownDomains) + "-" + g.pick(catalogKinds), "service"
	case "service-kind":
		return g.pick(catalogDomains) + "-" + g.pick(unknownSvcKinds), "service"
	case "database":
		return g.pick(catalogDomains[len(g.databases):]) + "-db", "database"
	case "person":
		return g.pick(catalogFirst) + " " + g.pick(catalogLast), "person"
	case "team":
		return "Team " + g.pick(unknownBirds), "team"
	case "project":
		return "Project " + g.pick(unknownProjects), "project"
	}
	return "", ""
}

// askLowerCase asks the unknown questions again with names as written by
// someone who does not capitalise nor type hyphens: no shape tells them
// ("where does hiro chen work", "which database does zebra gateway use").
// Chinese questions only of people: a name without a hyphen runs into the
// words around it there.
func (g *catalogGen) askLowerCase() {
	for _, q := range slices.Clone(g.d.unknown) {
		if q.Kind != "person" && strings.IndexFunc(q.Text, func(r rune) bool { return r > unicode.MaxLatin1 }) >= 0 {
			continue
		}
		name := lowerName(q.Name)
		text := strings.ToLower(strings.Replace(q.Text, q.Name, name, 1))
		g.d.unknown = append(g.d.unknown, unknownQuestion{Text: text, Name: name, Predicate: q.Predicate, Kind: lowerKind(q.Kind)})
	}
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
