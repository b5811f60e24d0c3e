package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/fixtures"
	"github.com/graphmem/graphmem/memory"
	"github.com/graphmem/graphmem/recall"
)

// ScenarioNow is when the scenario questions are asked: after every
// statement of the scenario files.
var ScenarioNow = time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC)

// ScenarioOptions configures Scenarios.
type ScenarioOptions struct {
	// WorkDir holds the store and index (default: a temporary folder).
	WorkDir string
	// Misses, when set, receives each question that missed a line it must
	// hold or held one it must not, with its context.
	Misses io.Writer
}

// ScenarioScores are the figures of one way of answering.
type ScenarioScores struct {
	// Recall is the share of the texts a context must hold that it holds.
	Recall float64 `json:"recall"`
	// Precision is the share of the fact lines of the contexts (facts and
	// decisions, not their history lines) that are on topic: their subject,
	// object, value or text holds one of the question's names or terms.
	Precision float64 `json:"precision"`
	// Violations counts texts held that a context must not hold.
	Violations int `json:"violations"`
	// Passed counts questions with every must and no must-not text.
	Passed int `json:"passed"`
	// Lines is the mean number of fact lines per context.
	Lines float64 `json:"lines"`
}

// ScenarioReport is the result of Scenarios: graphmem's context next to
// the same context without its relevance floor, in the same run.
type ScenarioReport struct {
	Questions int            `json:"questions"`
	Facts     int            `json:"facts"`
	Graphmem  ScenarioScores `json:"graphmem"`
	NoFloor   ScenarioScores `json:"no_floor"`
}

// Scenarios loads every scenario file of package fixtures into one scope
// and asks the questions of fixtures/questions.jsonl through the context
// builder, with and without the relevance floor.
func Scenarios(ctx context.Context, o ScenarioOptions) (ScenarioReport, error) {
	qs, err := fixtures.Questions()
	if err != nil {
		return ScenarioReport{}, err
	}
	ws, err := openWorkspace(o.WorkDir, "graphmem-scenarios-", nil)
	if err != nil {
		return ScenarioReport{}, err
	}
	defer ws.close()
	clock := func() time.Time { return ScenarioNow }
	svc := memory.New(ws.store, nil)
	svc.Now = clock
	const scope = "scenarios"
	rep := ScenarioReport{Questions: len(qs)}
	for _, name := range fixtures.Scenarios {
		in, err := fixtures.Facts(name)
		if err != nil {
			return ScenarioReport{}, err
		}
		if _, err := svc.AddFacts(ctx, scope, in); err != nil {
			return ScenarioReport{}, fmt.Errorf("loading %s: %w", name, err)
		}
		rep.Facts += len(in)
	}
	if _, err := ws.index.Sync(ctx, ws.store); err != nil {
		return ScenarioReport{}, err
	}
	for _, floor := range []bool{true, false} {
		eng := &recall.Engine{Store: ws.store, Index: ws.index, Now: clock, NoRelevanceFloor: !floor}
		var t scenarioTally
		for _, q := range qs {
			res, err := eng.Context(ctx, scope, recall.ContextRequest{Query: q.Question})
			if err != nil {
				eng.Close()
				return ScenarioReport{}, fmt.Errorf("%q: %w", q.Question, err)
			}
			if missed := t.add(q, res); missed && floor && o.Misses != nil {
				fmt.Fprintf(o.Misses, "%s\n%s\n", q.Question, res.Context)
			}
		}
		eng.Close()
		if floor {
			rep.Graphmem = t.scores(len(qs))
		} else {
			rep.NoFloor = t.scores(len(qs))
		}
	}
	return rep, nil
}

type scenarioTally struct {
	must, found, lines, onTopic, violations, passed int
}

// add scores one context; it reports whether the question missed.
func (t *scenarioTally) add(q fixtures.Question, res recall.ContextResult) bool {
	missed := false
	for _, m := range q.Must {
		t.must++
		if strings.Contains(res.Context, m) {
			t.found++
		} else {
			missed = true
		}
	}
	for _, m := range q.MustNot {
		if strings.Contains(res.Context, m) {
			t.violations++
			missed = true
		}
	}
	if !missed {
		t.passed++
	}
	for _, f := range res.Facts {
		if f.Role == "history" {
			continue
		}
		t.lines++
		if OnTopic(&f.Fact, q.About) {
			t.onTopic++
		}
	}
	return missed
}

func (t *scenarioTally) scores(n int) ScenarioScores {
	s := ScenarioScores{Violations: t.violations, Passed: t.passed}
	if t.must > 0 {
		s.Recall = float64(t.found) / float64(t.must)
	}
	if t.lines > 0 {
		s.Precision = float64(t.onTopic) / float64(t.lines)
	}
	if n > 0 {
		s.Lines = float64(t.lines) / float64(n)
	}
	return s
}

// OnTopic reports whether a fact line is linked to a question's entities
// or terms: its subject, object, value or text holds one of about
// (compared normalised, so case and punctuation do not matter). This is
// the precision measure of the context builder.
func OnTopic(f *entity.Fact, about []string) bool {
	hay := " " + entity.Normalize(f.Subject+" "+f.ObjectText()+" "+f.Text+" "+strings.ReplaceAll(f.Predicate, "_", " ")) + " "
	for _, a := range about {
		if n := entity.Normalize(a); n != "" && strings.Contains(hay, " "+n+" ") {
			return true
		}
	}
	return false
}

// JSON returns the report as one JSON object.
func (r ScenarioReport) JSON() ([]byte, error) { return json.Marshal(r) }

// WriteTable prints the context builder's figures next to the same
// builder without its relevance floor.
func (r ScenarioReport) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "Scenario questions (fixtures/questions.jsonl): %d questions over %d statements in one scope\n", r.Questions, r.Facts)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tprecision\trecall (must)\tmust-not held\tquestions passed\tfact lines per context\t")
	row := func(name string, s ScenarioScores) {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%d\t%d/%d\t%.1f\t\n", name, s.Precision, s.Recall, s.Violations, s.Passed, r.Questions, s.Lines)
	}
	row("graphmem", r.Graphmem)
	row("without relevance floor", r.NoFloor)
	return tw.Flush()
}
