package extract

import (
	"fmt"
	"slices"
	"strings"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/ontology"
)

// mapPredicate reads a predicate as the model wrote it (snake_case) onto
// the ontology, the way small models invent them: with the object glued on
// (moved_to_acme_corp), with a copula (is_employed_by), as a synonym, or as
// a verb whose word an ontology predicate lists in its hints (moved). When
// several predicates fit (moved_to: adopted by synonym, works_at and
// lives_in by hint), the one whose description names the object's entity
// type wins ("the object organization"); with no such type, the synonym's.
// It returns the predicate to use and a warning when it read an undefined
// predicate as another; a predicate nothing fits is returned as it is
// (stored as a new predicate of cardinality many, with the store's
// warning).
func mapPredicate(o *ontology.Ontology, raw, object, objectType string) (string, string) {
	if _, ok := o.Predicate(raw); ok || raw == "" {
		return raw, ""
	}
	variants := predicateVariants(raw, object)
	synonym, candidates := predicateCandidates(o, raw, variants)
	pick := ""
	switch {
	case len(candidates) == 1:
		pick = candidates[0]
	case len(candidates) > 1:
		pick = pickByObjectType(o, candidates, object, objectType, synonym)
	}
	if pick == "" {
		return raw, ""
	}
	if pick == o.Canonical(raw) {
		return pick, "" // an ordinary synonym
	}
	return pick, fmt.Sprintf("predicate %q is not in the ontology: read as %q", raw, pick)
}

// predicateVariants lists raw, raw without the object glued on its end,
// and either without a copula at its start.
func predicateVariants(raw, object string) []string {
	variants := []string{raw}
	if obj := entity.CanonicalPredicate(object); obj != "" {
		if v, ok := strings.CutSuffix(raw, "_"+obj); ok && v != "" {
			variants = append(variants, v)
		}
	}
	for _, v := range append([]string(nil), variants...) {
		for _, pre := range []string{"is_", "was_", "has_", "now_", "currently_"} {
			if rest, ok := strings.CutPrefix(v, pre); ok && rest != "" {
				variants = append(variants, rest)
			}
		}
	}
	return variants
}

// predicateCandidates lists, once each, the ontology predicates a variant
// of raw reads as: by synonym first, then by hint. synonym is the first
// read by synonym, "" if none is.
func predicateCandidates(o *ontology.Ontology, raw string, variants []string) (synonym string, candidates []string) {
	add := func(p string) {
		if !slices.Contains(candidates, p) {
			candidates = append(candidates, p)
		}
	}
	for _, v := range variants {
		if c := o.Canonical(v); c != v || v != raw {
			if _, ok := o.Predicate(c); ok {
				if synonym == "" {
					synonym = c
				}
				add(c)
			}
		}
	}
	for _, p := range o.Predicates {
		for _, v := range variants {
			if hinted(p.Hints, v) {
				add(p.Name)
			}
		}
	}
	return synonym, candidates
}

// pickByObjectType picks among candidates the one predicate whose
// description names the object's entity type (guessed from the object's
// name when not given); else synonym.
func pickByObjectType(o *ontology.Ontology, candidates []string, object, objectType, synonym string) string {
	if objectType == "" {
		objectType = guessType(object)
	}
	var fit []string
	for _, name := range candidates {
		p, _ := o.Predicate(name)
		if objectType != "" && strings.Contains(strings.ToLower(p.Description), "object "+objectType) {
			fit = append(fit, name)
		}
	}
	if len(fit) == 1 {
		return fit[0]
	}
	return synonym
}

// hinted reports whether a word of pred is one of hints.
func hinted(hints []string, pred string) bool {
	for _, w := range strings.Split(pred, "_") {
		for _, h := range hints {
			if w == h {
				return true
			}
		}
	}
	return false
}

// orgWords end names of organizations.
var orgWords = map[string]bool{"corp": true, "corporation": true, "inc": true, "ltd": true, "llc": true, "gmbh": true,
	"co": true, "company": true, "labs": true, "group": true, "bank": true, "university": true, "公司": true}

// guessType guesses an entity type from a name when nothing else says it:
// "Acme Corp" is an organization.
func guessType(name string) string {
	words := strings.Fields(entity.Normalize(name))
	if len(words) > 0 && orgWords[words[len(words)-1]] {
		return "organization"
	}
	return ""
}
