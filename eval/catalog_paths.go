package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/ontology"
)

// Relational questions of the catalog: questions whose answer needs two or
// three facts joined through entities the question does not name ("who
// leads the team that owns cart-api?": cart-api owned_by Team Heron, Team
// Heron led_by Nadia Kim). They are generated from the catalog's own facts
// and record the path that answers them, so that a context block can be
// checked for every fact of the path, not only for the answer's words.
// Current questions ask about catalogNow; dated ones name a month or a day
// of the catalog's history in the question text, chosen where the path of
// that time ends in another answer than today's.

// The shapes of relational questions.
const (
	ShapeTwoHop   = "2-hop"
	ShapeThreeHop = "3-hop"
	ShapeDated    = "dated"
)

// PathShapes lists the shapes in report order.
var PathShapes = []string{ShapeTwoHop, ShapeThreeHop, ShapeDated}

// PathFact is one fact of a question's path, as the generator wrote it:
// the object (an entity's name) or the value, and when it became valid.
type PathFact struct {
	// Hop is the fact's position in the chain, 0 for the anchor's fact.
	Hop       int       `json:"hop"`
	Subject   string    `json:"subject"`
	Predicate string    `json:"predicate"`
	Object    string    `json:"object,omitempty"`
	Value     string    `json:"value,omitempty"`
	ValidFrom time.Time `json:"valid_from"`
}

// Target is what the fact points to: its object, else its value.
func (f PathFact) Target() string {
	if f.Object != "" {
		return f.Object
	}
	return f.Value
}

// PathQuestion is a relational question of the catalog and the path that
// answers it at its time.
type PathQuestion struct {
	Text  string `json:"question"`
	Shape string `json:"shape"`
	// Chain names the relation chain: the anchor's type and the hops'
	// predicates ("service owned_by led_by").
	Chain      string   `json:"chain"`
	Anchor     string   `json:"anchor"`
	AnchorType string   `json:"anchor_type"`
	Hops       []string `json:"hops"`
	// At is the instant the path holds at: catalogNow for current
	// questions; for dated ones a day inside the month or the day When
	// names (the path is the same all that month).
	At   time.Time `json:"at"`
	When string    `json:"when,omitempty"`
	// Path holds the facts of each hop in hop order; a hop over a "many"
	// predicate (targets) holds one fact per object, and the next hop one
	// fact per object of it.
	Path []PathFact `json:"path"`
	// Answers are the last hop's objects or values (one, except after a
	// "many" hop).
	Answers []string `json:"answers"`
	Lang    string   `json:"lang"`
	// HeldOut: the wording is the chain's held-out one, never tuned on.
	HeldOut bool `json:"held_out,omitempty"`
}

// pathChain is one relation chain of the catalog and its wordings: "{x}"
// stands for the anchor, "{when}" for the time phrase of a dated question.
type pathChain struct {
	start string
	preds []string
	// now are present-tense wordings, past dated ones; heldNow and
	// heldPast are held out of tuning ("" when the chain has none).
	now, past         []string
	heldNow, heldPast string
}

func (c pathChain) name() string { return c.start + " " + strings.Join(c.preds, " ") }

// pathChains are the chains the catalog's facts support. Every
// intermediate hop ends at an entity (a team, a person, a database, a
// service); the last may end at a value.
var pathChains = []pathChain{
	// Two hops.
	{start: "service", preds: []string{"owned_by", "led_by"},
		now: []string{"who leads the team that owns {x}?", "who's the lead of {x}'s owning team?",
			"{x} is owned by a team — who runs it?", "who heads the team responsible for {x}?", "{x}所属团队的负责人是谁?"},
		past:     []string{"{when}, who led the team that owned {x}?", "who was the lead of {x}'s owning team {when}?", "{when}{x}所属团队的负责人是谁?"},
		heldNow:  "who is in charge of the squad accountable for {x}?",
		heldPast: "{when}, who was in charge of the squad accountable for {x}?"},
	{start: "service", preds: []string{"owned_by", "slack_channel"},
		now:     []string{"what slack channel does the team that owns {x} use?", "where does {x}'s owning team talk on slack?", "which channel reaches the owners of {x}?"},
		past:    []string{"{when}, which slack channel did the team that owned {x} use?"},
		heldNow: "how do I ping the team behind {x} on slack?"},
	{start: "service", preds: []string{"on_call", "reports_to"},
		now: []string{"whom does {x}'s on-call engineer report to?", "who does the on-call engineer for {x} report to?",
			"who is the manager of the engineer on call for {x}?", "{x}值班工程师的上级是谁?"},
		past:     []string{"{when}, who did the on-call engineer for {x} report to?", "who managed {x}'s on-call engineer {when}?"},
		heldNow:  "who is the boss of whoever carries the pager for {x}?",
		heldPast: "{when}, who was the boss of whoever carried the pager for {x}?"},
	{start: "service", preds: []string{"on_call", "member_of"},
		now:  []string{"which team is {x}'s on-call engineer on?", "what team does the person on call for {x} belong to?"},
		past: []string{"{when}, which team was the on-call engineer for {x} on?"}},
	{start: "service", preds: []string{"on_call", "located_in"},
		now:     []string{"which office does the on-call engineer for {x} work from?", "where is {x}'s on-call engineer based?"},
		past:    []string{"{when}, which office did {x}'s on-call engineer work from?"},
		heldNow: "in what city sits the person who gets paged for {x}?"},
	{start: "service", preds: []string{"uses_database", "runs_on"},
		now: []string{"which engine does the database behind {x} run?", "which version of the database that {x} uses do we run?",
			"{x}'s database runs which engine?", "{x}使用的数据库运行的是什么引擎?"},
		past:     []string{"{when}, which engine did the database behind {x} run?", "what did {x}'s database run {when}?"},
		heldNow:  "what DBMS powers the datastore of {x}?",
		heldPast: "{when}, what DBMS powered the datastore of {x}?"},
	{start: "service", preds: []string{"uses_database", "deployed_in"},
		now: []string{"what region is the database behind {x} in?", "where is {x}'s database hosted?",
			"which region hosts the database {x} uses?", "{x}的数据库部署在哪个区域?"},
		past:    []string{"{when}, which region was the database behind {x} in?", "where was {x}'s database hosted {when}?"},
		heldNow: "in which geography does the persistence layer of {x} live?"},
	{start: "service", preds: []string{"uses_database", "storage_size"},
		now:  []string{"how big is the database {x} uses?", "how much disk does {x}'s database take?"},
		past: []string{"{when}, how big was the database {x} used?"}},
	{start: "service", preds: []string{"uses_database", "backup_schedule"},
		now:  []string{"when is the database behind {x} backed up?", "what is the backup schedule of {x}'s database?"},
		past: []string{"{when}, when was the database behind {x} backed up?"}},
	{start: "person", preds: []string{"member_of", "led_by"},
		now:      []string{"who leads {x}'s team?", "who is the lead of the team {x} is on?", "{x} is on a team — who leads it?", "{x}所在团队的负责人是谁?"},
		past:     []string{"{when}, who led {x}'s team?", "who was the lead of the team {x} was on {when}?"},
		heldNow:  "who runs the group {x} works in?",
		heldPast: "{when}, who ran the group {x} worked in?"},
	{start: "person", preds: []string{"member_of", "slack_channel"},
		now:  []string{"what is the slack channel of {x}'s team?", "where does the team {x} belongs to chat on slack?"},
		past: []string{"{when}, what was the slack channel of {x}'s team?"}},
	{start: "person", preds: []string{"reports_to", "reports_to"},
		now:     []string{"who is {x}'s manager's manager?", "who does {x}'s boss report to?", "{x}上级的上级是谁?"},
		past:    []string{"{when}, who did {x}'s manager report to?"},
		heldNow: "who is {x}'s skip-level?"},
	{start: "person", preds: []string{"reports_to", "located_in"},
		now:  []string{"which office does {x}'s manager work from?", "where is the manager of {x} based?"},
		past: []string{"{when}, which office did {x}'s manager work from?"}},
	{start: "team", preds: []string{"led_by", "reports_to"},
		now:  []string{"who does the lead of {x} report to?", "whom does {x}'s leader report to?"},
		past: []string{"{when}, who did the lead of {x} report to?"}},
	{start: "project", preds: []string{"led_by", "located_in"},
		now:     []string{"which office does the lead of {x} work from?", "where is {x}'s project lead based?"},
		past:    []string{"{when}, which office did the lead of {x} work from?"},
		heldNow: "from which city does the person driving {x} work?"},
	{start: "project", preds: []string{"led_by", "reports_to"},
		now:  []string{"who does the lead of {x} report to?", "who is the manager of {x}'s project lead?", "{x}项目负责人的上级是谁?"},
		past: []string{"{when}, who did the lead of {x} report to?"}},
	{start: "project", preds: []string{"targets", "owned_by"},
		now:     []string{"which teams own the services that {x} targets?", "who owns the services {x} changes?"},
		past:    []string{"{when}, which teams owned the services that {x} targeted?"},
		heldNow: "which squads are accountable for what {x} touches?"},
	// Three hops.
	{start: "service", preds: []string{"owned_by", "led_by", "reports_to"},
		now: []string{"who does the lead of the team that owns {x} report to?", "whom does the head of {x}'s owning team report to?",
			"who is the manager of the lead of {x}'s owner?", "{x}所属团队负责人的上级是谁?"},
		past:     []string{"{when}, who did the lead of the team that owned {x} report to?", "whom did the head of {x}'s owning team report to {when}?"},
		heldNow:  "the squad accountable for {x} has a lead — who is that lead's boss?",
		heldPast: "{when}, the squad accountable for {x} had a lead — who was that lead's boss?"},
	{start: "service", preds: []string{"owned_by", "led_by", "located_in"},
		now:  []string{"which office is the lead of {x}'s owning team based in?", "where does the lead of the team that owns {x} work from?"},
		past: []string{"{when}, which office was the lead of {x}'s owning team based in?"}},
	{start: "service", preds: []string{"on_call", "member_of", "led_by"},
		now:     []string{"who leads the team of {x}'s on-call engineer?", "who is the lead of the team the on-call engineer for {x} is on?"},
		past:    []string{"{when}, who led the team of {x}'s on-call engineer?"},
		heldNow: "whoever carries the pager for {x} is on some squad — who is in charge of it?"},
	{start: "service", preds: []string{"on_call", "reports_to", "located_in"},
		now:  []string{"where does the manager of {x}'s on-call engineer work from?", "which office is the boss of the engineer on call for {x} in?"},
		past: []string{"{when}, where did the manager of {x}'s on-call engineer work from?"}},
	{start: "person", preds: []string{"member_of", "led_by", "reports_to"},
		now:  []string{"who does the lead of {x}'s team report to?", "whom does the head of the team {x} is on report to?", "{x}所在团队负责人的上级是谁?"},
		past: []string{"{when}, who did the lead of {x}'s team report to?"}},
	{start: "project", preds: []string{"led_by", "member_of", "led_by"},
		now:     []string{"who leads the team of the person running {x}?", "who is the lead of the team {x}'s lead is on?"},
		past:    []string{"{when}, who led the team of the person running {x}?"},
		heldNow: "{x} is driven by someone — who heads that person's group?"},
}

// pathVersion is one version of a (subject, predicate) of the catalog.
type pathVersion struct {
	from       time.Time
	obj, value string
}

func (v pathVersion) target() string {
	if v.obj != "" {
		return v.obj
	}
	return v.value
}

// catalogTimeline answers what the generated facts hold at an instant,
// from the facts alone (not through a store).
type catalogTimeline struct {
	versions map[[2]string][]pathVersion // (subject, predicate) → by start
	byType   map[string][]string         // entity type → subjects, sorted
	many     map[string]bool             // predicates of cardinality many
}

func newCatalogTimeline(facts []memory.FactInput) *catalogTimeline {
	tl := &catalogTimeline{versions: map[[2]string][]pathVersion{}, byType: map[string][]string{}, many: map[string]bool{}}
	onto, err := ontology.Parse([]byte(catalogOntology))
	if err != nil {
		panic(err) // a constant of this package
	}
	for _, p := range onto.Predicates {
		if p.Cardinality == ontology.Many {
			tl.many[p.Name] = true
		}
	}
	seen := map[string]bool{}
	for _, f := range facts {
		k := [2]string{f.Subject, f.Predicate}
		tl.versions[k] = append(tl.versions[k], pathVersion{from: *f.ValidFrom, obj: f.Object, value: f.Value})
		if !seen[f.Subject] {
			seen[f.Subject] = true
			tl.byType[f.SubjectType] = append(tl.byType[f.SubjectType], f.Subject)
		}
	}
	for k, vs := range tl.versions {
		slices.SortStableFunc(vs, func(a, b pathVersion) int { return a.from.Compare(b.from) })
		tl.versions[k] = vs
	}
	for _, ss := range tl.byType {
		slices.Sort(ss)
	}
	return tl
}

// at returns the versions of (subject, predicate) valid at t: the latest
// begun for a "one" predicate; every one begun for a "many" predicate,
// one per object (the earliest).
func (tl *catalogTimeline) at(subject, predicate string, t time.Time) []pathVersion {
	var out []pathVersion
	for _, v := range tl.versions[[2]string{subject, predicate}] {
		if v.from.After(t) {
			break
		}
		switch {
		case !tl.many[predicate]:
			out = append(out[:0], v)
		case !slices.ContainsFunc(out, func(w pathVersion) bool { return w.target() == v.target() }):
			out = append(out, v)
		}
	}
	return out
}

// walk follows preds from anchor at t. ok is false when a hop of any
// branch holds nothing then.
func (tl *catalogTimeline) walk(anchor string, preds []string, t time.Time) (path []PathFact, answers []string, ok bool) {
	frontier := []string{anchor}
	for hop, p := range preds {
		var next []string
		for _, s := range frontier {
			vs := tl.at(s, p, t)
			if len(vs) == 0 {
				return nil, nil, false
			}
			for _, v := range vs {
				path = append(path, PathFact{Hop: hop, Subject: s, Predicate: p, Object: v.obj, Value: v.value, ValidFrom: v.from})
				if !slices.Contains(next, v.target()) {
					next = append(next, v.target())
				}
			}
		}
		frontier = next
	}
	slices.Sort(frontier)
	return path, frontier, true
}

// PathQuestionsDefault is how many relational questions a catalog run asks
// by default: 120 two-hop, 90 three-hop and 90 dated.
const PathQuestionsDefault = 300

// PathQuestions generates n relational questions over the catalog of seed
// (the same catalog Catalog loads): 40 % two hops and 30 % three hops
// about now, 30 % dated. The same seed gives the same questions.
func PathQuestions(seed uint64, n int) []PathQuestion {
	return generatePathQuestions(seed, generateCatalog(seed, 0).facts, n)
}

func generatePathQuestions(seed uint64, facts []memory.FactInput, n int) []PathQuestion {
	tl := newCatalogTimeline(facts)
	r := rand.New(rand.NewPCG(seed, 0x9a7d_c4a1_2b0f_77e3))
	var two, three []pathChain
	for _, c := range pathChains {
		if len(c.preds) == 2 {
			two = append(two, c)
		} else {
			three = append(three, c)
		}
	}
	nTwo, nThree := n*4/10, n*3/10
	counts := map[string]int{ShapeTwoHop: nTwo, ShapeThreeHop: nThree, ShapeDated: n - nTwo - nThree}
	asked := map[string]bool{}
	var out []PathQuestion
	for _, shape := range PathShapes {
		chains := two
		switch shape {
		case ShapeThreeHop:
			chains = three
		case ShapeDated:
			chains = pathChains
		}
		made := 0
		// Chains in turn, so that every chain is asked; a chain whose
		// anchor draw fails is tried again at its next turn.
		for i := 0; made < counts[shape] && i < 200*counts[shape]; i++ {
			c := chains[i%len(chains)]
			anchors := tl.byType[c.start]
			anchor := anchors[r.IntN(len(anchors))]
			q, ok := makePathQuestion(r, tl, c, anchor, shape == ShapeDated)
			if !ok {
				continue
			}
			key := q.Chain + "|" + q.Anchor + "|" + q.At.Format(time.DateOnly)
			if asked[key] {
				continue
			}
			asked[key] = true
			q.Shape = shape
			out = append(out, q)
			made++
		}
	}
	return out
}

// makePathQuestion asks chain c from anchor, about now or (dated) about a
// month of the history whose path ends in another answer than now.
func makePathQuestion(r *rand.Rand, tl *catalogTimeline, c pathChain, anchor string, dated bool) (PathQuestion, bool) {
	q := PathQuestion{Chain: c.name(), Anchor: anchor, AnchorType: c.start, Hops: c.preds, At: catalogNow}
	path, answers, ok := tl.walk(anchor, c.preds, catalogNow)
	if !ok {
		return q, false
	}
	wordings, held := c.now, c.heldNow
	if dated {
		wordings, held = c.past, c.heldPast
		nowAnswers := answers
		found := false
		for range 12 {
			// A month from the second through the last of the history.
			m := catalogStart.AddDate(0, 1+r.IntN(35), 0)
			p, a, ok := steadyMonth(tl, anchor, c.preds, m)
			if ok && !slices.Equal(a, nowAnswers) {
				day := 1 + r.IntN(28)
				q.At = time.Date(m.Year(), m.Month(), day, 12, 0, 0, 0, time.UTC)
				path, answers, found = p, a, true
				break
			}
		}
		if !found {
			return q, false
		}
	}
	q.Path, q.Answers = path, answers
	tmpl := wordings[r.IntN(len(wordings))]
	if held != "" && r.IntN(5) == 0 {
		tmpl, q.HeldOut = held, true
	}
	q.Lang = "en"
	if hasHan(tmpl) {
		q.Lang = "zh"
	}
	if dated {
		q.When = whenPhrase(r, q.At, q.Lang)
	}
	q.Text = strings.NewReplacer("{x}", anchor, "{when}", q.When).Replace(tmpl)
	return q, true
}

// steadyMonth walks the chain at the start of every day of month m and at
// its last instant; ok only when the path is the same throughout, so that
// any day of the month, or the month as a whole, has one answer.
func steadyMonth(tl *catalogTimeline, anchor string, preds []string, m time.Time) ([]PathFact, []string, bool) {
	first := time.Date(m.Year(), m.Month(), 1, 0, 0, 0, 0, time.UTC)
	end := first.AddDate(0, 1, 0)
	path, answers, ok := tl.walk(anchor, preds, first)
	if !ok {
		return nil, nil, false
	}
	var ts []time.Time
	for t := first.AddDate(0, 0, 1); t.Before(end); t = t.AddDate(0, 0, 1) {
		ts = append(ts, t)
	}
	for _, t := range append(ts, end.Add(-time.Second)) {
		p, _, ok := tl.walk(anchor, preds, t)
		if !ok || !slices.Equal(p, path) {
			return nil, nil, false
		}
	}
	return path, answers, true
}

// whenPhrase names the month of t, or its day, as a question would.
func whenPhrase(r *rand.Rand, t time.Time, lang string) string {
	if lang == "zh" {
		return fmt.Sprintf("%d年%d月", t.Year(), int(t.Month()))
	}
	switch r.IntN(4) {
	case 0:
		return fmt.Sprintf("back in %s %d", t.Month(), t.Year())
	case 1:
		return fmt.Sprintf("on %d %s %d", t.Day(), t.Month(), t.Year())
	default:
		return fmt.Sprintf("in %s %d", t.Month(), t.Year())
	}
}

// hasHan reports whether s holds a Chinese character.
func hasHan(s string) bool {
	for _, c := range s {
		if c >= 0x4e00 && c <= 0x9fff {
			return true
		}
	}
	return false
}
