package recall

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
)

// EpisodeWeights weigh the signals of episode ranking beyond a turn's own
// BM25 score (see the package documentation); a zero weight turns its
// signal off. They are Weights.Episode.
type EpisodeWeights struct {
	// TimeWords: a turn that places something in time ("yesterday",
	// "last May") — the turn's score × (1 + TimeWords), whatever the
	// question: it holds the answer to a "when" question more often, and
	// to any other more often too, as it tells what happened ("we went
	// camping last weekend") where other turns react to it.
	TimeWords float64 `json:"time_words"`
	// Prev and Next: shares of the previous and the next turn's score a
	// turn receives.
	Prev float64 `json:"prev"`
	Next float64 `json:"next"`
	// Session: share of its session's score a turn receives, in chat
	// (short turns) only.
	Session float64 `json:"session"`
	// Speaker: the query names the speaker — × (1 + Speaker).
	Speaker float64 `json:"speaker"`
	// Date: the turn happened in a period the query names — × (1 + Date).
	Date float64 `json:"date"`
	// Mention: share of the score of the best turns a turn receives for
	// each rare name or thing it mentions with them (the mention graph,
	// episode → entity → episode).
	Mention float64 `json:"mention"`
	// Answer: share of the previous turn's score a turn receives when
	// that turn asks a question (the turn answers it); Prev otherwise.
	Answer float64 `json:"answer"`
	// FollowUp: share of the score of the turn two before a turn
	// receives when the turn between, another speaker's, asks a question
	// about it ("we played games" — "which ones?" — "charades"): the
	// speaker goes on with what they told, in words the question rarely
	// shares. In chat only, as Answer.
	FollowUp float64 `json:"follow_up"`
	// Question: a turn that asks something rather than tells —
	// × (1 − Question).
	Question float64 `json:"question"`
	// Length: a turn of n words, shorter than Limits.TurnWords (t), says
	// less — × (1 − Length·(1 − n/t)).
	Length float64 `json:"length"`
	// Assistant: between roles, the assistant's turn — × (1 − Assistant):
	// what a user's memory is asked about is what the user told (their
	// services, settings, changes); the assistant's answer repeats the
	// user's words around generic advice and code.
	Assistant float64 `json:"assistant"`
}

// DefaultEpisodeWeights were fitted by graphmem eval tune on the dev parts
// of LoCoMo (26, 30, 41), of the coding-assistant conversations (seed 1)
// and of the catalog (seed 1), and are reported on their test parts;
// Assistant (0.5) was chosen over 0.15–0.9 on the conversations' dev part
// (R@10 0.781 → 0.789, R@5 0.692 → 0.694; LoCoMo has no roles). FollowUp
// 0.3 and Session 0.4 (instead of 0.2, as the tune fitted it with
// vectors) were chosen on LoCoMo's dev part (R@10 0.806 → 0.819, with
// vectors 0.848 → 0.855; FollowUp 0.15, 0.2, 0.6, 0.9 or Session 0.3
// lowered one of the two); both are chat's only, so the conversations'
// figures do not move.
var DefaultEpisodeWeights = EpisodeWeights{
	TimeWords: 0.5, Prev: 0.2, Answer: 0.9, FollowUp: 0.3, Next: 0.2, Session: 0.4, Speaker: 3, Date: 2, Mention: 0.1,
	Question: 0.15, Length: 0.25, Assistant: 0.5,
}

// Limits of the work of episode ranking (what changes the ranking is in
// Limits).
const (
	sessionsExpanded = 5   // sessions whose every turn is scored
	sessionMembers   = 300 // turns read per expanded session
	mentionSources   = 3   // best turns whose mentions the walk follows
	mentionKeys      = 12  // mentions followed, the best sources' first
	mentionHub       = 25  // a mention in more turns than this says little
)

func (e *Engine) episodeWeights() EpisodeWeights { return e.weights().Episode }

// rankEpisodes scores episode candidates: episodeFeatures reads what the
// index knows of them, scoreEpisodes weighs it.
//
// scale is the best BM25 score of the query (any type): what a mention of
// an entity the query names is worth.
func (e *Engine) rankEpisodes(ctx context.Context, tx graph.Tx, c *candidates, hits []search.Hit, scale float64) error {
	w := e.episodeWeights()
	f, byID, err := e.episodeFeatures(ctx, tx, c, hits, scale, w)
	if err != nil {
		return err
	}
	for id, s := range scoreEpisodes(w, &c.w.Limits, f) {
		if s.score <= 0 {
			continue
		}
		c.episodes[id] = &item{typ: search.TypeEpisode, id: id, score: s.score, hit: byID[id], explain: s.explain}
	}
	return nil
}

// episodeFeatures are what episode ranking knows of one query's candidate
// turns; scoreEpisodes weighs them without reading anything else.
type episodeFeatures struct {
	turns map[string]*turnFeatures
	// sessions are the turns of the best sessions, each in turn order;
	// others the candidate turns of every other session.
	sessions, others [][]string
	// mentions are the mentions the mention graph follows.
	mentions []mentionFeature
	// scale is what a mention of an entity the query names is worth.
	scale float64
	shape conversationShape
}

// turnFeatures describe one turn.
type turnFeatures struct {
	bm25       float64 // its own BM25 score; 0 when reached otherwise
	hit        bool    // BM25 found it
	vector     float64 // what the vector list adds (0: not in it)
	vectorRank int
	inVectors  bool
	time       bool // it places something in time
	question   bool // it asks something
	words      int
	speaker    bool   // the query names its speaker
	dated      bool   // it happened in a period the query names
	assistant  bool   // the assistant said it
	by         string // its speaker (normalised)
}

// mentionFeature is one mention the walk follows: the turns that mention
// it, and what leads to it — an entity the query names (worth scale)
// and the best turns that mention it (worth their base score).
type mentionFeature struct {
	named   bool
	sources []string
	turns   []string
}

// conversationShape is what the candidate turns say of the conversation
// they come from; signals chosen on one shape are gated on it.
type conversationShape struct {
	// roles: the speakers are roles (user, assistant), not people a
	// question could name.
	roles bool
	// chat: the turns are short (under Limits.ChatWords words on
	// average), as between people; a coding assistant's answers are not.
	chat bool
}

// shapeOf reads the shape of the conversation from its turns: the
// candidates and the turns of their best sessions. The mean, not the
// median: half the turns of a coding assistant's conversation are a
// user's short questions and thanks.
func shapeOf(turns map[string]search.Hit, chatWords float64) conversationShape {
	if len(turns) == 0 {
		return conversationShape{}
	}
	roles, words := true, 0
	for _, h := range turns {
		if !isRole(h.Speaker) {
			roles = false
		}
		words += h.Words
	}
	return conversationShape{roles: roles, chat: float64(words) < chatWords*float64(len(turns))}
}

// isRole reports whether a speaker is a role rather than a name.
func isRole(speaker string) bool {
	switch speaker {
	case entity.RoleUser, entity.RoleAssistant, entity.RoleSystem, entity.RoleTool:
		return true
	}
	return false
}

// episodeFeatures fills the features of the candidate turns (hits): the
// best sessions' turns in order, the mentions of the best turns, the
// speaker and dates the query names. What is read depends on w only
// through the base scores (which sessions and turns are best) and which
// signals are off.
func (e *Engine) episodeFeatures(ctx context.Context, tx graph.Tx, c *candidates, hits []search.Hit, scale float64,
	w EpisodeWeights) (*episodeFeatures, map[string]search.Hit, error) {
	p := &c.p
	if !p.history {
		// The index checks this too, except for known_at queries.
		hits = slices.DeleteFunc(slices.Clone(hits), func(h search.Hit) bool { return h.Time.After(p.asOf) })
	}
	f := &episodeFeatures{turns: map[string]*turnFeatures{}, scale: scale}
	byID := map[string]search.Hit{}
	add := func(h search.Hit) *turnFeatures {
		if t, ok := f.turns[h.ID]; ok {
			return t
		}
		t := &turnFeatures{time: slices.Contains(h.Tags, search.TagTime), question: slices.Contains(h.Tags, search.TagQuestion),
			words: h.Words, assistant: h.Speaker == entity.RoleAssistant, by: h.Speaker}
		f.turns[h.ID], byID[h.ID] = t, h
		return t
	}
	base := map[string]float64{}
	var scratch nodes
	for _, h := range hits {
		t := add(h)
		t.bm25, t.hit = h.Score, true
		if v, ok := c.vectorEpisodes[h.ID]; ok {
			t.vector, t.vectorRank, t.inVectors = v.add, v.rank, true
		}
		base[h.ID] = w.turn(&scratch, t).Value
	}
	if w.Prev != 0 || w.Next != 0 || w.Session != 0 || w.Answer != 0 {
		// Read every turn of the best sessions, in order, so that a turn
		// with no word of the query can still be reached through its
		// neighbours.
		best, others := bestSessions(hits, base, c.w.Limits.SessionTop)
		f.others = others
		for _, s := range best {
			ms, err := e.Index.Search(ctx, search.Query{
				Scope: p.scope, Session: s, Types: []string{search.TypeEpisode}, SortByTime: true,
				Limit: sessionMembers, AsOf: p.asOf, KnownAt: p.knownAt, Now: p.now, IncludeHistory: p.history,
			})
			if err != nil {
				return nil, nil, err
			}
			if !p.history {
				ms = slices.DeleteFunc(ms, func(m search.Hit) bool { return m.Time.After(p.asOf) })
			}
			ids := make([]string, 0, len(ms))
			for _, m := range ms {
				add(m)
				ids = append(ids, m.ID)
			}
			f.sessions = append(f.sessions, ids)
		}
	}
	if w.Mention > 0 {
		ms, err := e.mentioned(ctx, tx, c, base, add)
		if err != nil {
			return nil, nil, err
		}
		f.mentions = ms
	}
	f.shape = shapeOf(byID, c.w.Limits.ChatWords)
	slack := days(c.w.Limits.DateSlackDays)
	speakers := c.speakerKeys()
	for id, t := range f.turns {
		h := byID[id]
		t.speaker = !isRole(h.Speaker) && speakerNamed(h.Speaker, speakers)
		t.dated = slices.ContainsFunc(p.a.periods, func(per period) bool { return per.contains(h.Time, slack) })
	}
	return f, byID, nil
}

// bestSessions returns the sessions of the hits with the best session
// scores (sessionScore of their turns' base scores, over their top best),
// at most sessionsExpanded, and the hits of each other session.
func bestSessions(hits []search.Hit, base map[string]float64, top int) (best []string, others [][]string) {
	members := map[string][]string{}
	for _, h := range hits {
		if h.Session != "" {
			members[h.Session] = append(members[h.Session], h.ID)
		}
	}
	score := make(map[string]float64, len(members))
	for s, ids := range members {
		score[s] = sessionScore(ids, base, top)
	}
	best = bestOf(score, sessionsExpanded)
	for _, s := range bestOf(score, len(score))[len(best):] {
		others = append(others, members[s])
	}
	return best, others
}

// sessionScore is the mean of a session's top best scores.
func sessionScore(ids []string, score map[string]float64, top int) float64 {
	v := make([]float64, 0, len(ids))
	for _, id := range ids {
		v = append(v, score[id])
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(v)))
	var sum float64
	for i := 0; i < len(v) && i < top; i++ {
		sum += v[i]
	}
	return sum / float64(top)
}

// episodeScore is a turn's score and its explanation.
type episodeScore struct {
	score   float64
	explain *Explanation
}

// scoreEpisodes weighs the features of the candidate turns. A turn of a
// conversation often answers a question asked in the turn before, or is
// only understood with its session around it, so besides its own score
// (turn) a turn receives a share of its neighbours' and of its session's
// scores, and of the best turns' scores when it mentions the same rare
// names or things (the mention graph); turns by a speaker the query
// names, and turns from a period the query names, weigh more; a turn's
// form (a question, a short turn) says how likely it holds an answer.
//
// Gates: in a conversation between roles (user and assistant) no speaker
// is named; outside chat (long turns, as a coding assistant's) a question
// is where the user tells the setting it asks about, and the long answer
// after it only repeats it, so the turn after a question gets Prev, not
// Answer; and a session there is one long task whose every turn shares
// the question's words, so no turn gets a share of its session's score
// (it lifts the whole session above the other sessions' evidence: on the
// coding-assistant dev part R@5 0.683 → 0.692, R@10 0.780 → 0.781).
//
//	episode = ((turn + neighbours + mentions) · speaker · date + session) · prior
func scoreEpisodes(w EpisodeWeights, lim *Limits, f *episodeFeatures) map[string]episodeScore {
	n := &nodes{}
	turn := make(map[string]*Explanation, len(f.turns))
	for id, t := range f.turns {
		turn[id] = w.turn(n, t)
	}
	answer, followUp, session := w.Answer, w.FollowUp, w.Session
	if !f.shape.chat {
		answer, followUp, session = w.Prev, 0, 0
	}
	near := neighbours(n, w, f, turn, answer, followUp)
	ment := mentionShares(n, w, f, turn)
	adj := make(map[string]*Explanation, len(f.turns))
	adjValue := make(map[string]float64, len(f.turns))
	for id, t := range f.turns {
		var speaker, date *Explanation
		if t.speaker && !f.shape.roles {
			speaker = n.leaf("speaker", 1+w.Speaker)
		}
		if t.dated {
			date = n.leaf("date", 1+w.Date)
		}
		adj[id] = n.product("adjusted", n.sum("evidence", turn[id], near[id], ment[id]), speaker, date)
		adjValue[id] = adj[id].Value
	}
	shares := map[string]*Explanation{}
	for _, ids := range slices.Concat(f.sessions, f.others) {
		s := sessionScore(ids, adjValue, lim.SessionTop)
		if s == 0 || session == 0 {
			continue
		}
		for _, id := range ids {
			shares[id] = n.product("session", n.leaf("episode.session", session), n.leaf("session_score", s))
		}
	}
	out := make(map[string]episodeScore, len(f.turns))
	for id, t := range f.turns {
		total := n.sum("total", adj[id], shares[id])
		var prior *Explanation
		if total.Value > 0 {
			if p := w.prior(n, t, f.shape.roles, lim.TurnWords); p.Value != 1 {
				prior = p
			}
		}
		x := n.product("episode", total, prior)
		out[id] = episodeScore{score: x.Value, explain: x}
	}
	return out
}

// turn is a turn's own score: BM25 and the vector list, × (1 +
// TimeWords) when it places something in time.
func (w EpisodeWeights) turn(n *nodes, t *turnFeatures) *Explanation {
	var bm25, vec, time *Explanation
	if t.hit {
		bm25 = n.leaf("bm25", t.bm25)
	}
	if t.inVectors {
		vec = n.leaf("vector", t.vector, Input{"vector_rank", float64(t.vectorRank)})
	}
	if w.TimeWords != 0 && t.time {
		time = n.leaf("time_words", 1+w.TimeWords)
	}
	return n.product("turn", n.sum("text", bm25, vec), time)
}

// neighbours are the shares of the turns around each turn of the best
// sessions it receives: of the previous turn (Prev, or answer when that
// turn asks a question), of the turn two before when the turn follows it
// up (followUp), of the next turn (Next).
func neighbours(n *nodes, w EpisodeWeights, f *episodeFeatures, turn map[string]*Explanation, answer, followUp float64) map[string]*Explanation {
	out := map[string]*Explanation{}
	for _, ids := range f.sessions {
		for i, id := range ids {
			var prev, back, next *Explanation
			if i > 0 {
				prev = n.product("prev", n.leaf("episode.prev", w.Prev), n.leaf("previous_turn", turn[ids[i-1]].Value))
				if f.turns[ids[i-1]].question {
					prev = n.product("answer", n.leaf("episode.answer", answer), n.leaf("previous_turn", turn[ids[i-1]].Value))
				}
			}
			if i > 1 && followUp > 0 && followsUp(f.turns[ids[i-2]], f.turns[ids[i-1]], f.turns[id]) {
				back = n.product("follow_up", n.leaf("episode.follow_up", followUp), n.leaf("turn_before", turn[ids[i-2]].Value))
			}
			if i+1 < len(ids) {
				next = n.product("next", n.leaf("episode.next", w.Next), n.leaf("next_turn", turn[ids[i+1]].Value))
			}
			if nb := n.sum("neighbours", prev, back, next); nb.Value > 0 {
				out[id] = nb
			}
		}
	}
	return out
}

// mentionShares are, for each turn the mention graph reaches, Mention ×
// the sum over the mentions leading to it of the best score leading to
// the mention (scale for an entity the query names, else the best source
// turn's) divided by how many turns hold the mention.
func mentionShares(n *nodes, w EpisodeWeights, f *episodeFeatures, turn map[string]*Explanation) map[string]*Explanation {
	if w.Mention <= 0 {
		return nil
	}
	got := map[string][]*Explanation{}
	for _, m := range f.mentions {
		v := 0.0
		if m.named {
			v = f.scale
		}
		for _, s := range m.sources {
			v = max(v, turn[s].Value)
		}
		for _, id := range m.turns {
			got[id] = append(got[id], n.leaf("mention", v/float64(len(m.turns)), Input{"mention_turns", float64(len(m.turns))}))
		}
	}
	out := make(map[string]*Explanation, len(got))
	for id, ms := range got {
		out[id] = n.product("mentions", n.leaf("episode.mention", w.Mention), n.sum("mentioned", ms...))
	}
	return out
}

// followsUp reports whether turn c goes on with what turn a told after
// turn b, another speaker's, asked about it: a and c share a speaker.
func followsUp(a, b, c *turnFeatures) bool {
	return b.question && a.by != "" && a.by == c.by && b.by != c.by
}

// prior is what a turn's form says of its chance to hold what a question
// asks: a question and a short turn less often do (in chat and in a
// coding assistant's conversation alike: a short turn there is thanks or
// a generic question), nor, between roles (roles), the assistant's turn.
// A turn of full words or more is not short. Its value is 1 when no
// factor applies.
func (w EpisodeWeights) prior(n *nodes, t *turnFeatures, roles bool, full float64) *Explanation {
	var assistant, question, length *Explanation
	if roles && t.assistant {
		assistant = n.leaf("assistant", 1-w.Assistant)
	}
	if t.question {
		question = n.leaf("question", 1-w.Question)
	}
	if words := float64(t.words); words > 0 && words < full {
		length = n.leaf("length", 1-w.Length*(1-words/full), Input{"words", words})
	}
	return n.product("prior", n.leaf("form", 1), assistant, question, length)
}

// mentioned follows the mention graph from the best turns: the names and
// things they mention (entity.Mentions), and the names of the entities the
// query names, lead to the other turns that mention them (added to the
// candidates by add); a mention in more than mentionHub turns (a
// speaker's name, "work") leads nowhere.
func (e *Engine) mentioned(ctx context.Context, tx graph.Tx, c *candidates, base map[string]float64,
	add func(search.Hit) *turnFeatures) ([]mentionFeature, error) {
	p := &c.p
	top := bestOf(base, mentionSources)
	eps, err := graph.EpisodesByID(tx, top)
	if err != nil {
		return nil, err
	}
	byKey := map[string]*mentionFeature{}
	var keys []string
	key := func(k string) *mentionFeature {
		m, ok := byKey[k]
		if !ok {
			m = &mentionFeature{}
			byKey[k] = m
			keys = append(keys, k)
		}
		return m
	}
	// In a fixed order: the list is cut at mentionKeys.
	for _, id := range slices.Sorted(maps.Keys(c.linked)) {
		if it := c.entities[id]; it != nil && it.entity != nil {
			for _, k := range it.entity.Keys() {
				key(k).named = true
			}
		}
	}
	for _, id := range top {
		if ep, ok := eps[id]; ok {
			for _, k := range entity.Mentions(ep.Content) {
				m := key(k)
				m.sources = append(m.sources, id)
			}
		}
	}
	var out []mentionFeature
	for _, k := range keys[:min(len(keys), mentionKeys)] {
		hs, err := e.Index.Search(ctx, search.Query{
			Scope: p.scope, Mentions: []string{k}, Types: []string{search.TypeEpisode}, SortByTime: true,
			Limit: mentionHub + 1, AsOf: p.asOf, KnownAt: p.knownAt, Now: p.now, IncludeHistory: p.history,
		})
		if err != nil {
			return nil, err
		}
		if !p.history {
			hs = slices.DeleteFunc(hs, func(h search.Hit) bool { return h.Time.After(p.asOf) })
		}
		if len(hs) == 0 || len(hs) > mentionHub {
			continue
		}
		m := byKey[k]
		for _, h := range hs {
			add(h)
			m.turns = append(m.turns, h.ID)
		}
		out = append(out, *m)
	}
	return out, nil
}

// bestOf returns the n ids of the highest scores, best first.
func bestOf(score map[string]float64, n int) []string {
	top := make([]string, 0, len(score))
	for id := range score {
		top = append(top, id)
	}
	sort.Slice(top, func(i, j int) bool {
		if score[top[i]] != score[top[j]] {
			return score[top[i]] > score[top[j]]
		}
		return top[i] < top[j]
	})
	return top[:min(len(top), n)]
}

// speakerKeys are the normalised names by which the query refers to
// people: its n-grams and the names and aliases of the entities it names.
func (c *candidates) speakerKeys() map[string]bool {
	keys := map[string]bool{}
	for _, g := range c.p.a.grams {
		keys[g] = true
	}
	for id := range c.linked {
		if it := c.entities[id]; it != nil && it.entity != nil {
			for _, k := range it.entity.Keys() {
				keys[k] = true
			}
		}
	}
	return keys
}

// speakerNamed reports whether the query names the speaker, in full or by
// the first word of the name ("Caroline" for "Caroline Smith"); a turn of
// no speaker has none named.
func speakerNamed(speaker string, keys map[string]bool) bool {
	if speaker == "" {
		return false
	}
	if keys[speaker] {
		return true
	}
	first, _, found := strings.Cut(speaker, " ")
	return found && keys[first]
}

// loadEpisodes reads the episodes among items from the store, dropping
// those deleted since they were indexed.
func loadEpisodes(tx graph.Tx, items []*item) error {
	var ids []string
	for _, it := range items {
		if it.typ == search.TypeEpisode && it.episode == nil {
			ids = append(ids, it.id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	found, err := graph.EpisodesByID(tx, ids)
	if err != nil {
		return err
	}
	for _, it := range items {
		if it.typ != search.TypeEpisode || it.episode != nil {
			continue
		}
		if ep, ok := found[it.id]; ok {
			it.episode = &ep
		} else {
			it.score = 0
		}
	}
	return nil
}
