package memory

import (
	"slices"
	"time"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/ontology"
	"github.com/graphmem/graphmem/temporal"
)

// reverse ends the facts that a decision reverses (ontology: reverses):
// for every subject and object a batch stated with a predicate that
// reverses or is reversed, a fact of predicate P is ended (rule 4) when a
// fact of a predicate reversing P, with the same subject and object,
// starts while it holds. It runs after the batch is written and looks at
// everything stored, so the outcome does not depend on the order in which
// the decisions arrive ("adopted MongoDB" sent after "dropped MongoDB" is
// ended all the same). The ids of ended facts are added to the results of
// the batch's reversing statements.
func (s *Service) reverse(tx graph.Tx, cache *chainCache, ps []pending, results []FactResult, now time.Time) error {
	// Ending a fact can split a chain (adopted, dropped, adopted again in
	// one batch), which may end another: repeat until nothing changes.
	for range maxReversalRounds {
		changed, err := s.reverseOnce(tx, cache, ps, results, now)
		if err != nil || !changed {
			return err
		}
	}
	return nil
}

// maxReversalRounds bounds the rounds of reverse; each round settles at
// least one more change of decision.
const maxReversalRounds = 8

func (s *Service) reverseOnce(tx graph.Tx, cache *chainCache, ps []pending, results []FactResult, now time.Time) (bool, error) {
	// pairs: chain keys of the two sides, for each subject and object.
	type pair struct {
		subject, object string
	}
	touched := map[pair]bool{}
	keys := map[graph.ChainKey]bool{}
	for _, p := range ps {
		f := &p.st.Fact
		if f.ObjectKey() == "" {
			continue
		}
		rev, by := s.Ontology.Reverses(f.Predicate), s.Ontology.ReversedBy(f.Predicate)
		if len(rev) == 0 && len(by) == 0 {
			continue
		}
		touched[pair{f.SubjectID, f.ObjectKey()}] = true
		keys[p.key] = true
		for _, q := range append(slices.Clone(rev), by...) {
			keys[graph.ChainKey{SubjectID: f.SubjectID, Predicate: q}] = true
		}
	}
	if len(keys) == 0 {
		return false, nil
	}
	chains, err := cache.read(tx, mapKeys(keys))
	if err != nil {
		return false, err
	}
	live := func(f *entity.Fact, obj string) bool {
		return f.ObjectKey() == obj && f.ExpiredAt == nil && f.ForgottenAt == nil
	}
	ends := map[graph.ChainKey][]temporal.Statement{}
	endedBy := map[string][]string{} // reversing fact id → ids it ended
	for k := range keys {
		for _, reversed := range s.Ontology.Reverses(k.Predicate) {
			target := graph.ChainKey{SubjectID: k.SubjectID, Predicate: reversed}
			for _, r := range chains[k] {
				if !touched[pair{k.SubjectID, r.ObjectKey()}] || !live(&r, r.ObjectKey()) {
					continue
				}
				for _, g := range chains[target] {
					if !live(&g, r.ObjectKey()) || !g.ValidAt(r.ValidFrom) || !g.ValidFrom.Before(r.ValidFrom) {
						continue
					}
					at := r.ValidFrom
					end := entity.Fact{Scope: g.Scope, SubjectID: g.SubjectID, Subject: g.Subject, Predicate: g.Predicate,
						ObjectID: g.ObjectID, Object: g.Object, Value: g.Value, Text: g.Text, ValidTo: &at,
						SourceKind: r.SourceKind, Confidence: r.Confidence, Importance: g.Importance, EpisodeIDs: r.EpisodeIDs}
					ends[target] = append(ends[target], temporal.Statement{Fact: end, End: true})
					endedBy[r.ID] = append(endedBy[r.ID], g.ID)
				}
			}
		}
	}
	var writes []entity.Fact
	for k, sts := range ends {
		card, _ := s.Ontology.Cardinality(k.Predicate)
		if card == "" {
			card = ontology.Many
		}
		res := temporal.Apply(chains[k], sts, temporal.Rules{Cardinality: card}, now, s.NewID)
		writes = append(writes, res.Writes...)
	}
	if len(writes) == 0 {
		return false, nil
	}
	for i := range results {
		for _, id := range endedBy[results[i].FactID] {
			if !slices.Contains(results[i].Superseded, id) {
				results[i].Superseded = append(results[i].Superseded, id)
			}
		}
	}
	return true, cache.put(tx, writes)
}
