package recall

import "github.com/graphmem/graphmem/search"

// What a context keeps of what search found. Search's first results are
// where the evidence is; a block that leaves them out for others is worse
// than the list an agent could have asked for instead. So the blocks of
// the items search ranks in its first searchTop (its ranking, its floor
// on facts) lead: the relevance floor keeps them and packing takes them
// before any other block, whenever the budget allows. A question whose
// answer spans several sessions of a conversation ("what did they do
// together after the move?") ranks one session first and fills the top
// with its turns, so the best turn of each of the first sessionLeads
// sessions among the candidates leads too.

// Limits of what leads.
const (
	searchTop    = 10 // search results whose blocks lead
	sessionLeads = 20 // sessions whose best turn leads
)

// leads returns the ids of the items whose blocks lead: the first
// searchTop of the ranking, floored as search floors it, and the best
// turn of each of the first sessionLeads sessions among the first
// contextCandidates. floored says whether search floors facts.
func (c *candidates) leads(floored bool) map[string]bool {
	ranked := c.ranked()
	ranked = ranked[:min(len(ranked), contextCandidates)]
	out := map[string]bool{}
	top := ranked
	if floored {
		top = c.floorFacts(ranked, 3*searchTop)
	}
	for _, it := range top[:min(len(top), searchTop)] {
		out[it.id] = true
	}
	sessions := map[string]bool{}
	for _, it := range ranked {
		s := it.hit.Session
		if it.typ != search.TypeEpisode || s == "" || sessions[s] {
			continue
		}
		if len(sessions) == sessionLeads {
			break
		}
		sessions[s] = true
		out[it.id] = true
	}
	return out
}
