package eval

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// The baseline: the figures of the evaluations the repository runs by
// itself (the catalog on its report seed, the scenarios; LoCoMo when its
// data is there), committed in baseline.json. A run is compared with it,
// and a figure that drops by more than BaselineTolerance fails the run:
// a change of ranking that costs recall is seen before it is merged. A
// deliberate change rewrites the baseline (graphmem eval … --write-baseline).

// BaselineTolerance is how far a figure may fall below its baseline.
const BaselineTolerance = 0.005

// BaselineFile is the committed baseline, relative to the repository root.
const BaselineFile = "eval/baseline.json"

//go:embed baseline.json
var committedBaseline []byte

// Baseline holds figures by set ("catalog", "scenarios", "locomo dev"…);
// each figure is one where higher is better.
type Baseline map[string]map[string]float64

// CommittedBaseline is the baseline built into the program.
func CommittedBaseline() (Baseline, error) {
	var b Baseline
	if err := json.Unmarshal(committedBaseline, &b); err != nil {
		return nil, fmt.Errorf("%s: %w", BaselineFile, err)
	}
	return b, nil
}

// Check compares the figures of a set with the baseline's: an error
// naming each figure that fell by more than BaselineTolerance, or that the
// run no longer reports. A set the baseline does not hold passes.
func (b Baseline) Check(set string, got map[string]float64) error {
	want, ok := b[set]
	if !ok {
		return nil
	}
	var drops []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		v, ok := got[name]
		switch {
		case !ok:
			drops = append(drops, fmt.Sprintf("%s missing (baseline %.3f)", name, want[name]))
		case v < want[name]-BaselineTolerance:
			drops = append(drops, fmt.Sprintf("%s %.3f < baseline %.3f", name, v, want[name]))
		}
	}
	if len(drops) > 0 {
		return fmt.Errorf("%s: below the baseline (%s): %s", set, BaselineFile, strings.Join(drops, "; "))
	}
	return nil
}

// WriteBaseline sets the figures of a set in the baseline file at path,
// keeping the other sets.
func WriteBaseline(path, set string, figures map[string]float64) error {
	b := Baseline{}
	if data, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(data, &b); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	} else if !os.IsNotExist(err) {
		return err
	}
	b[set] = figures
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// CatalogQuestions is how many questions a default catalog run asks.
const CatalogQuestions = 200

// BaselineSet names the set a catalog run belongs to: only the report
// seed's default run has a baseline ("" otherwise).
func (r CatalogReport) BaselineSet() string {
	if r.Seed != ReportSeed || r.Questions != CatalogQuestions || r.PathsOnly {
		return ""
	}
	return "catalog"
}

// Figures are the catalog's baseline figures, without embeddings (those
// with them depend on the model).
func (r CatalogReport) Figures() map[string]float64 {
	g := r.Graphmem
	return map[string]float64{"hit_at_1": g.Hit1, "hit_at_5": g.Hit5, "top_hit_is_fact": g.TopHit, "context_holds": g.ContextHolds}
}

// BaselineSet: the scenarios always have one.
func (r ScenarioReport) BaselineSet() string { return "scenarios" }

// Figures are the scenarios' baseline figures.
func (r ScenarioReport) Figures() map[string]float64 {
	g := r.Graphmem
	return map[string]float64{"recall": g.Recall, "precision": g.Precision, "passed": float64(g.Passed) / float64(r.Questions)}
}

// BaselineSet names a LoCoMo run's set by its corpus and part: LoCoMo's
// own parts ("locomo dev"), the coding-assistant conversations of the
// default seeds ("conversations dev"); any other folder has none ("").
func (r Report) BaselineSet() string {
	switch {
	case slices.Equal(r.ConversationNames, Parts[r.Part]):
		return "locomo " + r.Part
	case slices.Equal(r.ConversationNames, defaultConversationNames(r.Part)):
		return "conversations " + r.Part
	}
	return ""
}

// Figures are a LoCoMo run's baseline figures: R@5 and R@10 of the
// reported configuration without embeddings (those with them depend on
// the model), and its block recall at 1,000 tokens.
func (r Report) Figures() map[string]float64 {
	out := map[string]float64{}
	for _, k := range []string{"r@5", "r@10"} {
		if v, ok := r.Overall[k]; ok {
			out[k] = v
		}
	}
	for _, b := range r.Block {
		if b.MaxTokens == 1000 {
			out["block@1000"] = b.Recall
		}
	}
	return out
}
