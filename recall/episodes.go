package recall

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/graphmem/graphmem/graph"
	"github.com/graphmem/graphmem/search"
)

// Weights of episode ranking; see the package documentation.
const (
	timeWordsBoost   = 0.3  // a "when" question and a turn that places something in time
	prevWeight       = 0.2  // share of the previous turn's score a turn receives
	nextWeight       = 0.1  // share of the next turn's score
	speakerBoost     = 0.15 // the query names the speaker
	dateBoost        = 1.0  // the turn happened in a period the query names
	dateSlack        = 7 * 24 * time.Hour
	sessionWeight    = 0.5 // share of its session's score a turn receives
	sessionTop       = 3   // a session's score: the mean of its best turns
	sessionsExpanded = 5   // sessions whose every turn is scored
	sessionMembers   = 300 // turns read per expanded session
)

// rankEpisodes scores episode candidates. A turn of a conversation often
// answers a question asked in the turn before, or is only understood with
// its session around it, so besides its own BM25 score a turn receives a
// share of its neighbours' and of its session's scores; turns by a speaker
// the query names, and turns from a period the query names, weigh more.
func (e *Engine) rankEpisodes(ctx context.Context, c *candidates, hits []search.Hit) error {
	p := &c.p
	base := map[string]float64{}
	byID := map[string]search.Hit{}
	if !p.history {
		// The index checks this too, except for known_at queries.
		hits = slices.DeleteFunc(slices.Clone(hits), func(h search.Hit) bool { return h.Time.After(p.asOf) })
	}
	for _, h := range hits {
		s := h.Score
		if p.a.intent.When && slices.Contains(h.Tags, search.TagTime) {
			s *= 1 + timeWordsBoost
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
	sig := map[string]map[string]float64{}
	signal := func(id, k string, v float64) {
		if sig[id] == nil {
			sig[id] = map[string]float64{}
		}
		sig[id][k] = round(v)
	}
	for id, s := range base {
		adj[id] = s
	}
	for _, ms := range ordered {
		for i, m := range ms {
			var nb float64
			if i > 0 {
				nb += prevWeight * base[ms[i-1].ID]
			}
			if i+1 < len(ms) {
				nb += nextWeight * base[ms[i+1].ID]
			}
			if nb > 0 {
				adj[m.ID] = base[m.ID] + nb
				signal(m.ID, "neighbours", nb)
			}
		}
	}
	speakers := c.speakerKeys()
	for id, v := range adj {
		h := byID[id]
		if h.Speaker != "" && speakerNamed(h.Speaker, speakers) {
			v *= 1 + speakerBoost
			signal(id, "speaker", 1)
		}
		for _, per := range p.a.periods {
			if per.contains(h.Time, dateSlack) {
				v *= 1 + dateBoost
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
			final[id] += sessionWeight * s
			signal(id, "session", sessionWeight*s)
		}
	}
	for id, v := range final {
		if v <= 0 {
			continue
		}
		it := &item{typ: search.TypeEpisode, id: id, score: v, hit: byID[id], signals: sig[id]}
		if it.signals == nil {
			it.signals = map[string]float64{}
		}
		if _, ok := base[id]; ok {
			it.signals["bm25"] = round(byID[id].Score)
		}
		c.episodes[id] = it
	}
	return nil
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
// the first word of the name ("Caroline" for "Caroline Smith").
func speakerNamed(speaker string, keys map[string]bool) bool {
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
