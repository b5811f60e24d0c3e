package recall

import (
	"slices"
	"strings"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
)

// Handover notes: a predicate the ontology does not define is stored as
// many, so after an on-call handover written without cardinality "one"
// both people are current. The write's answer warns (memory/ingest.go);
// the block says it again, one line under the facts, whenever it shows two
// or more current values of such a predicate for one subject.

// undescribed are the predicates of the blocks' current fact lines that
// neither the ontology nor a cardinality hint of the scope (the meta key
// memory writes on a first hint) describes.
func undescribed(e *Engine, tx graph.Tx, blocks []*block) (map[string]bool, error) {
	out := map[string]bool{}
	seen := map[string]bool{}
	for _, bl := range blocks {
		for _, l := range bl.lines {
			if !handoverLine(l) || seen[l.Predicate] {
				continue
			}
			seen[l.Predicate] = true
			if _, ok := e.ontology().Cardinality(l.Predicate); ok {
				continue
			}
			if _, hinted, err := tx.Meta("cardinality:" + l.Predicate); err != nil {
				return nil, err
			} else if !hinted {
				out[l.Predicate] = true
			}
		}
	}
	return out, nil
}

// handoverLine reports whether l states a current value of a fact.
func handoverLine(l line) bool {
	switch l.Kind {
	case "fact", "constraint", "preference", "decision":
	default:
		return false
	}
	return l.Status == entity.StatusCurrent && l.Subject != "" && l.Predicate != "" && l.Object+l.Value != ""
}

// handoverBlock is one note line for each subject and undescribed
// predicate the chosen blocks show with several current values, in the
// order they first appear, the values oldest first; nil when there is none.
func handoverBlock(chosen []*block, undescribed map[string]bool) *block {
	type key struct{ subject, predicate string }
	values := map[key][]string{}
	since := map[string]time.Time{} // a value's start, to name the older first
	var order []key
	for _, bl := range chosen {
		for _, l := range bl.lines {
			if !handoverLine(l) || !undescribed[l.Predicate] {
				continue
			}
			k := key{l.Subject, l.Predicate}
			v := l.Object + l.Value
			if _, ok := values[k]; !ok {
				order = append(order, k)
			}
			if !containsString(values[k], v) {
				values[k] = append(values[k], v)
				if l.ValidFrom != nil {
					since[k.subject+"\x00"+k.predicate+"\x00"+v] = *l.ValidFrom
				}
			}
		}
	}
	var lines []line
	for _, k := range order {
		vs := values[k]
		if len(vs) < 2 {
			continue
		}
		// Oldest first: the value a handover should have ended leads.
		slices.SortStableFunc(vs, func(a, b string) int {
			return since[k.subject+"\x00"+k.predicate+"\x00"+a].Compare(since[k.subject+"\x00"+k.predicate+"\x00"+b])
		})
		l := line{Kind: "note", Subject: k.subject, Predicate: k.predicate, conflicts: vs}
		l.Text = strings.TrimPrefix(noteLine(l, FormatText), "- [note] ") // the json format's item
		lines = append(lines, l)
	}
	if lines == nil {
		return nil
	}
	return &block{lines: lines}
}

// noteLine renders a note line in the text and markdown formats, its
// stored names quoted as every stored string is.
func noteLine(l line, format string) string {
	quoted := make([]string, len(l.conflicts))
	for i, v := range l.conflicts {
		quoted[i] = quote(v, format)
	}
	return "- " + brackets([]string{"note"}) + " " + quote(l.Predicate, format) + " is not in the ontology: " + andList(quoted) +
		" are " + bothOrAll(len(l.conflicts)) + " current for " + quote(l.Subject, format) + `; send cardinality "one" or define it`
}

func andList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func bothOrAll(n int) string {
	if n == 2 {
		return "both"
	}
	return "all"
}

func containsString(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
