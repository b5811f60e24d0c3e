package recall

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

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
	// Session: share of its session's score a turn receives.
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
	// Question: a turn that asks something rather than tells —
	// × (1 − Question).
	Question float64 `json:"question"`
	// Length: a turn of n words, shorter than lengthFull, says less —
	// × (1 − Length·(1 − n/lengthFull)).
	Length float64 `json:"length"`
}

// DefaultEpisodeWeights were chosen on the dev part of LoCoMo (graphmem
// eval locomo --part dev) and are reported on its test part.
var DefaultEpisodeWeights = EpisodeWeights{
	TimeWords: 0.3, Prev: 0.2, Answer: 0.6, Next: 0.1, Session: 0.2, Speaker: 2, Date: 1.0, Mention: 0.25,
	Question: 0.3, Length: 0.5,
}

// Limits of episode ranking.
const (
	dateSlack        = 7 * 24 * time.Hour
	sessionTop       = 3   // a session's score: the mean of its best turns
	sessionsExpanded = 5   // sessions whose every turn is scored
	sessionMembers   = 300 // turns read per expanded session
	mentionSources   = 3   // best turns whose mentions the walk follows
	mentionKeys      = 12  // mentions followed, the best sources' first
	mentionHub       = 25  // a mention in more turns than this says little
)

// lengthFull: see EpisodeWeights.Length.
const lengthFull = 30.0

func (e *Engine) episodeWeights() EpisodeWeights { return e.weights().Episode }

// rankEpisodes scores episode candidates. A turn of a conversation often
// answers a question asked in the turn before, or is only understood with
// its session around it, so besides its own BM25 score a turn receives a
// share of its neighbours' and of its session's scores, and of the best
// turns' scores when it mentions the same rare names or things (the
// mention graph); turns by a speaker the query names, and turns from a
// period the query names, weigh more.
//
// scale is the best BM25 score of the query (any type): what a mention of
// an entity the query names is worth.
func (e *Engine) rankEpisodes(ctx context.Context, tx graph.Tx, c *candidates, hits []search.Hit, scale float64) error {
	p := &c.p
	w := e.episodeWeights()
	base := map[string]float64{}
	byID := map[string]search.Hit{}
	sig := map[string]map[string]float64{}
	signal := func(id, k string, v float64) {
		if sig[id] == nil {
			sig[id] = map[string]float64{}
		}
		sig[id][k] = round(v)
	}
	if !p.history {
		// The index checks this too, except for known_at queries.
		hits = slices.DeleteFunc(slices.Clone(hits), func(h search.Hit) bool { return h.Time.After(p.asOf) })
	}
	for _, h := range hits {
		s := h.Score
		if v, ok := c.vectorEpisodes[h.ID]; ok {
			s += v.add
		}
		if w.TimeWords != 0 && slices.Contains(h.Tags, search.TagTime) {
			s *= 1 + w.TimeWords
			signal(h.ID, "time", 1)
		}
		base[h.ID] = s
		byID[h.ID] = h
	}
	sessionScore := func(ids []string, score map[string]float64) float64 {
		v := make([]float64, 0, len(ids))
		for _, id := range ids {
			v = append(v, score[id])
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(v)))
		var sum float64
		for i := 0; i < len(v) && i < sessionTop; i++ {
			sum += v[i]
		}
		return sum / sessionTop
	}
	sessions := map[string][]string{}
	for _, h := range hits {
		if h.Session != "" {
			sessions[h.Session] = append(sessions[h.Session], h.ID)
		}
	}
	names := make([]string, 0, len(sessions))
	for s := range sessions {
		names = append(names, s)
	}
	pre := map[string]float64{}
	for _, s := range names {
		pre[s] = sessionScore(sessions[s], base)
	}
	sort.Slice(names, func(i, j int) bool {
		if pre[names[i]] != pre[names[j]] {
			return pre[names[i]] > pre[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > sessionsExpanded {
		names = names[:sessionsExpanded]
	}
	if w.Prev == 0 && w.Next == 0 && w.Session == 0 {
		names = nil // conversation structure is off
	}

	// Read every turn of the best sessions, in order, so that a turn with
	// no word of the query can still be reached through its neighbours.
	ordered := map[string][]search.Hit{}
	for _, s := range names {
		ms, err := e.Index.Search(ctx, search.Query{
			Scope: p.scope, Session: s, Types: []string{search.TypeEpisode}, SortByTime: true,
			Limit: sessionMembers, AsOf: p.asOf, KnownAt: p.knownAt, Now: p.now, IncludeHistory: p.history,
		})
		if err != nil {
			return err
		}
		if !p.history {
			ms = slices.DeleteFunc(ms, func(m search.Hit) bool { return m.Time.After(p.asOf) })
		}
		ordered[s] = ms
		ids := make([]string, 0, len(ms))
		for _, m := range ms {
			if _, ok := byID[m.ID]; !ok {
				byID[m.ID] = m
			}
			ids = append(ids, m.ID)
		}
		sessions[s] = ids
	}

	adj := map[string]float64{}
	for id, s := range base {
		adj[id] = s
	}
	for _, ms := range ordered {
		for i, m := range ms {
			var nb float64
			if i > 0 {
				share := w.Prev
				if slices.Contains(ms[i-1].Tags, search.TagQuestion) {
					share = w.Answer
				}
				nb += share * base[ms[i-1].ID]
			}
			if i+1 < len(ms) {
				nb += w.Next * base[ms[i+1].ID]
			}
			if nb > 0 {
				adj[m.ID] = base[m.ID] + nb
				signal(m.ID, "neighbours", nb)
			}
		}
	}
	if w.Mention > 0 {
		ms, err := e.mentioned(ctx, tx, c, base, byID, scale)
		if err != nil {
			return err
		}
		for id, v := range ms {
			adj[id] += w.Mention * v
			signal(id, "mentions", w.Mention*v)
		}
	}
	speakers := c.speakerKeys()
	for id, v := range adj {
		h := byID[id]
		if speakerNamed(h.Speaker, speakers) {
			v *= 1 + w.Speaker
			signal(id, "speaker", 1)
		}
		for _, per := range p.a.periods {
			if per.contains(h.Time, dateSlack) {
				v *= 1 + w.Date
				signal(id, "date", 1)
				break
			}
		}
		adj[id] = v
	}
	final := map[string]float64{}
	for id, v := range adj {
		final[id] = v
	}
	for _, ids := range sessions {
		s := sessionScore(ids, adj)
		if s == 0 {
			continue
		}
		for _, id := range ids {
			final[id] += w.Session * s
			signal(id, "session", w.Session*s)
		}
	}
	for id, v := range final {
		if v <= 0 {
			continue
		}
		if f := w.prior(byID[id]); f != 1 {
			v *= f
			signal(id, "prior", f)
		}
		it := &item{typ: search.TypeEpisode, id: id, score: v, hit: byID[id], signals: sig[id]}
		if it.signals == nil {
			it.signals = map[string]float64{}
		}
		if _, ok := base[id]; ok {
			it.signals["bm25"] = round(byID[id].Score)
		}
		if v, ok := c.vectorEpisodes[id]; ok {
			it.signals["vector"], it.signals["vector_rank"] = round(v.add), float64(v.rank)
		}
		c.episodes[id] = it
	}
	return nil
}

// prior is what a turn's form says of its chance to hold what a question
// asks: a question and a short turn less often do.
func (w EpisodeWeights) prior(h search.Hit) float64 {
	f := 1.0
	if slices.Contains(h.Tags, search.TagQuestion) {
		f *= 1 - w.Question
	}
	if n := float64(h.Words); n > 0 && n < lengthFull {
		f *= 1 - w.Length*(1-n/lengthFull)
	}
	return f
}

// mentioned follows the mention graph from the best turns: the names and
// things they mention (entity.Mentions), and the names of the entities the
// query names, lead to the other turns that mention them. For each such
// mention a turn receives the score of the best turn mentioning it divided
// by the number of turns that do; a mention in more than mentionHub turns
// (a speaker's name, "work") leads nowhere.
func (e *Engine) mentioned(ctx context.Context, tx graph.Tx, c *candidates, base map[string]float64,
	byID map[string]search.Hit, scale float64) (map[string]float64, error) {
	p := &c.p
	top := bestOf(base, mentionSources)
	eps, err := graph.EpisodesByID(tx, top)
	if err != nil {
		return nil, err
	}
	weight := map[string]float64{}
	var keys []string
	add := func(k string, v float64) {
		if _, ok := weight[k]; !ok {
			keys = append(keys, k)
		}
		weight[k] = max(weight[k], v)
	}
	for id := range c.linked {
		if it := c.entities[id]; it != nil && it.entity != nil {
			for _, k := range it.entity.Keys() {
				add(k, scale)
			}
		}
	}
	for _, id := range top {
		if ep, ok := eps[id]; ok {
			for _, k := range entity.Mentions(ep.Content) {
				add(k, base[id])
			}
		}
	}
	out := map[string]float64{}
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
		for _, h := range hs {
			out[h.ID] += weight[k] / float64(len(hs))
			if _, ok := byID[h.ID]; !ok {
				byID[h.ID] = h
			}
		}
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
