// Package recall answers "what should the model know right now?": Search
// ranks facts, entities and episodes for a query; Context builds the block
// to put in the prompt (docs/design.md §4).
//
// # Pipeline
//
//  1. Query analysis (English and Chinese): intent — when, change (before,
//     used to, changed, 之前, 换成…), why (why, reason, 为什么…) — the
//     times the query names (when.go: dates, months, seasons, years,
//     "last March", "two years ago", "before Bob", "2025年3月", "去年",
//     "三月份", resolved against the reference time) and its n-grams. In
//     mode auto without as_of, the first time named sets the answer's time:
//     a point (a day, the instant before "before X") becomes as_of, a range
//     (a month, "after the migration") a period whose facts are all shown
//     with their status at its end; an event is placed by the best
//     matching fact or episode. The block's header says which time it
//     answers for.
//
//  2. Seeds: BM25 over the search index (length normalisation b 0.15,
//     search.LengthNorm: a long turn or fact is hardly marked down for its
//     length), filtered inside the query by scope, then by status and
//     validity at as_of (history mode keeps superseded facts; retracted,
//     forgotten, TTL-expired and archived facts never appear). Every
//     candidate fact is re-read from the store, which is the source of
//     truth, and checked again (entity.Fact.Recallable, KnownAt/AsKnownAt
//     for known_at, ValidAt for as_of).
//
//  3. Entity linking: the query's n-grams (1–3 words; 2–4 characters of a
//     CJK run) and the focus names are looked up exactly and by alias
//     (Tx.EntitiesByKey), long ones fuzzily (Tx.EntitiesByPrefix and
//     entity.Resolve, which never matches people fuzzily). Linking runs
//     before the BM25 search: the facts of the linked entities (up to 400
//     each, of at most 4 entities) are read, and the query's words that
//     occur in some of them but not all are kept in the search however
//     common they are across the scope (search.Query.Keep; matched only in
//     those entities' facts).
//
//     A name shaped like one word links to a stored one-word name of a
//     thing that is it with up to three letters more or less ("Postgres"
//     to PostgreSQL, "MongoDB" to Mongo; never people, digits or words of
//     another name).
//
//     Names the question mentions (linking.go: capitalised runs,
//     identifiers such as zebra-gateway, quoted phrases, a qualifier
//     before a known name's common-noun head as in "staging database",
//     and in a question written in lower case two words that may name
//     someone next to a known name's word, as in "where does bob marley
//     work") are resolved, ambiguous (several entities) or unknown: no entity
//     resolves the name and no record holds its words in a row. An
//     unknown name is never answered with another entity's facts: what
//     only words inside it linked is unlinked ("Bob" of "Bob Marley"),
//     other subjects' facts of the asked property (every fact and card,
//     when nothing the question names resolved) leave the candidates, the
//     block says in one line that memory holds nothing about it, with the
//     closest known names as "did you mean", and Search and Context list
//     it as unresolved.
//
//     Predicate linking (predicates.go): the question's words, without
//     those of the linked entities' names, are linked to predicates
//     through their stemmed names, the ontology's synonyms and
//     descriptions, and the built-in English and Chinese lexicon of
//     property words (lexicon.go: "manager", "上级" → reports_to;
//     "hosted", "region" → deployed_in). Operators add words through the
//     ontology file's synonyms.
//
//  4. Walk (graph.Walk, the same on every store): breadth-first from the
//     linked entities and the endpoints of the best fact hits, one store
//     read per hop (Tx.FactsAround) that returns each entity's facts valid
//     at as_of and recallable, newest first, filtered in the store; of the
//     first 20 the walk takes the 15 most important and recent (its
//     selection policy). The entities the question names are not read
//     again: the walk takes the facts read for them in step 3. One hop for Search, two for Context; at most 8
//     entities per hop; beyond the first hop, hubs (entities with more
//     facts than the cap) are not expanded. Search and Context each run in
//     one View: one read transaction (one snapshot) on the embedded store;
//     on Neo4j, auto-commit reads, each seeing what was committed when it
//     ran (Neo4j's transactions are read-committed, so a read transaction
//     never gave its statements one snapshot there either).
//
//  5. Fused ranking: a documented weighted score, one scale for every type
//     (see Ranking); each hit carries the explanation of its score.
//
//  6. Context packing (Context): blocks — a fact with, for history mode and
//     for when/change/why questions, the versions linked to it by
//     supersession ("was … (from → to)") and a quote of its source episode;
//     a decision with its reason; a quoted episode; an entity's summary —
//     are chosen by score into max_tokens (default 1500), at most three per
//     subject before the rest is halved (diversity). The scope's
//     constraints and preferences stated by the user are pinned first.
//     Optional lines (older versions, quotes) are dropped before a block is.
//     Chosen blocks are ordered with the most important first and last,
//     the least important in the middle, where models attend least.
//     Before packing, the relevance floor (floor.go) leaves out blocks
//     that do not bear on the question: a block must cover at least 0.6
//     of the concepts (named entities, content words, a predicate the
//     question asks for) the best block covers, and touch a named entity
//     (or a neighbour of one) when any block does. Search applies the
//     same floor to its facts. What search finds stays (keep.go): the
//     blocks of its first 10 results, of the best turn of each of the
//     first 20 sessions among the candidates, and of the walk's paths
//     lead — the floor keeps them and packing takes them before the
//     others; the quotes of episodes the floor leaves out are spares,
//     packed last into the room the others leave.
//
//  7. Render (render.go): text or markdown under the title "Memory —
//     background facts, not instructions" and a line saying which time the
//     block answers for and that the user's own statements win over general
//     documentation; then one line per fact, version, quote or entity. Each
//     line opens with its metadata in brackets — kind, dates, status at
//     as_of, source kind ("[was; 2023-03-01 → 2024-02-15; superseded;
//     user_explicit]") — and only then shows what was stored, every piece
//     of it in double quotes: a fact's subject, predicate (bare when it is
//     a lower-case identifier, as the store keeps it) and value, always,
//     whatever its text says; then its own text, other values stated for
//     the same instant, its reason and other attributes, each after a
//     label; a quote's speaker and words; an entity's name, type and
//     summary. Quoted text is flattened (control characters and line breaks
//     become spaces, so it can never create a line), stripped of format
//     characters (zero-width, bidi, byte-order mark, tags) and escaped (a
//     double quote and a backslash; in markdown also the characters of
//     markup), so it can pass neither for metadata nor for the header. Or
//     json with the same items, their ids and a fact's subject, predicate
//     and value or object as fields.
//
//  8. Bound: the whole answer is bounded by max_tokens — the block by
//     max_tokens, the structured items (facts, entities, episodes, with
//     attributes clipped to 200 characters and episodes to their quote) by
//     ItemsPerToken × max_tokens; a block goes in only if both fit.
//
// # Ranking
//
// The sources — BM25, entity and predicate linking, the walk, the vector
// list, conversation structure and mentions — sit behind one interface
// (source, sources.go: each adds candidates to what the ones before
// found; linking, BM25 and the walk are tested on hand-built records,
// without an index or a store file) and fill a feature struct per
// candidate (factFeatures, entityFeatures); pure functions (scoreFact,
// scoreEntity, scoreEpisodes) turn features and one Weights value into an
// Explanation whose value is the score: a tree whose nodes add or
// multiply their children in the order the formula below does, down to
// the weights (by their JSON path) and what was measured, so every score
// rebuilds from its leaves (explain_test.go) and every term and factor
// shows its effect; a hit's signals flatten it. Settle replaces a score
// by Limits.Below × another's, the other's explanation a factor of it and
// the replaced one kept as Was. Settle, the floor
// and packing follow. No stage reads what another wrote into a map. Every
// constant below is a field of Weights (W.Fact.Pair is written Pair, the
// thresholds that are not weights Limits.Below and so on; defaults in
// DefaultWeights); Engine.Weights or a JSON file (LoadWeights,
// GRAPHMEM_RECALL_WEIGHTS) replaces them, checked whole (Validate). Only
// the bounds of the work (how many candidates are read, how far a walk
// goes) are constants of the code.
//
// Scores are in BM25 units, so facts, entities and episodes compare:
//
//	fact    = (bm25 + S·graph + Pair·S·pair + S·Vector.Fact·vec) · link · quality
//	graph   = Graph (0.6) touching an entity the query names, Hop2 (0.25) one
//	          entity further, × Fuzzy (0.75) from a name with a typing
//	          error, × FromHits (0.5) when the seed came from a fact hit, not
//	          the query; the best path counts
//	pair    = side · (predicate + Local·local), for a fact of an entity the
//	          query names (Pair 2): side 1 when it is the subject (or the
//	          object named right after the predicate), ObjectSide (0.6) the
//	          object; predicate = how well the question names the fact's
//	          predicate (0–1: a phrase of its name, synonyms or lexicon
//	          words counts Name, a word of its description Description
//	          (0.35), × (1 − Explained + Explained·share of the question's
//	          words explained), Explained 0.25; with embeddings at least
//	          Near (0.7) for the predicate nearest to the question in
//	          meaning among the named entities' ones, less for one within
//	          NearMargin (0.015) of its similarity); local = the share of
//	          the question's words the fact holds, weighed by their rarity
//	          among the entity's facts (Local 0.35). A fact touching no named entity has its
//	          bm25 · (1 + PredicateOnly·predicate), PredicateOnly 0.5
//	S       = the best BM25 score of the query (at least 1): a fact reached
//	          only through the graph ranks among the textual matches
//	vec     = (k+1)/(k + r) for the fact at rank r of the vector list (the facts
//	          nearest to the question in meaning, among those visible to the
//	          request; only with embeddings, Engine.Vectors): reciprocal-rank
//	          fusion on the BM25 scale (Vector: Fact 0.5, Entity 0.3,
//	          Episode 0.5, k 20). The question is embedded without the
//	          names of the scope's speakers (whose turn it is is the speaker
//	          signal's part, below), while the rest of the retrieval runs;
//	          the answer waits for it 1.5 × the p95 of the embedder's last
//	          64 question calls (10 ms–1 s; Engine.VectorWait overrides)
//	          and says whether it used the list (VectorState)
//	link    = Subject (1.2) if the query names the subject, Object (1.1) if
//	          it names the object
//	quality = (1 − Confidence + Confidence·confidence) · (1 + Importance·(importance − 5))
//	          — a fact stating none taken as UnstatedConfidence (0.8),
//	          UnstatedImportance (5)
//	          · (1 + Hits·ln(1 + hits)) · (1 + Recency·2^(−age/RecencyHalfLife))
//	          — 0.5, 0.04, 0.1, 0.25, 180 days; age from valid_from to as_of;
//	          × History (0.85) for a version not valid at as_of (history
//	          mode); × WhyDecision (1.5) for a decision on a why question
//	entity  = bm25 + Entity.Linked·S·link (0.8; link 1 exact or alias, Fuzzy
//	          0.75) + Vector.Entity·S·vec
//	episode = (turn + Prev·previous turn + Next·next turn + Mention·mentions)
//	          — Answer instead of Prev when the previous turn asks a
//	          question (holds "?") in chat (turns under Limits.ChatWords,
//	          40, words on average): the turn answers it; a coding assistant's long
//	          answer after a user's question only repeats it
//	          + FollowUp·the turn two before, in chat, when it is the
//	          same speaker's and the turn between, another's, asks a
//	          question: the speaker goes on with what they told
//	          · (1 + Speaker) if the query names the speaker (never when
//	          the speakers are roles: user, assistant)
//	          · (1 + Date) if it happened in a period the query names (or ≤
//	          Limits.DateSlackDays, 7, days after)
//	          + Session·session in chat (none outside it: a coding
//	          assistant's session is one long task, and its share lifts
//	          the whole session above other sessions' evidence), all · form
//	turn    = its BM25 score (+ Vector.Episode·B·vec for its rank among the episodes
//	          nearest in meaning, B the best BM25 score itself: S would
//	          let the list outweigh every word of the question, as BM25
//	          scores of turns are far below 1; when the question names a
//	          speaker, that speaker's turns are ranked among themselves,
//	          and those turns, or all when none is named, in the order of
//	          maximal marginal relevance, λ = Vector.MMR (0.8), so that the list
//	          reaches more of what the person asked about said),
//	          · (1 + TimeWords) if it places something in time
//	          ("yesterday", "last May", "去年"): such a turn tells what
//	          happened, what "when" questions and most others ask about
//	form    = (1 − Question) if the turn asks something (holds "?")
//	          · (1 − Length·(1 − n/t)) for a turn of n < t words (t:
//	          Limits.TurnWords, 30): a
//	          question or a short turn less often holds what is asked
//	          · (1 − Assistant) for the assistant's turn when the speakers
//	          are roles: a user's memory is asked what the user told, the
//	          answer only repeats its words around generic advice
//	session = the mean of the best Limits.SessionTop (3) turns of its session (metadata
//	          session_id, else the day of its reference time)
//	mentions = for each name or thing (entity.Mentions) that one of the
//	          three best turns, or an entity the query names, mentions: the
//	          score of the best such turn divided by the number of turns
//	          mentioning it (none if more than 25 do)
//
// Two orderings are enforced after the scores (settle), so that no weight
// — and no further ranked list fused in — can break them: a version not
// valid at as_of ranks below the candidate version that is (at most
// Limits.Below, 0.95, of its score); and when the
// question names an entity and one of its predicates (predicate ≥
// Predicate.Answer, 0.5), the entity's answering fact valid at as_of ranks
// above the entity's card (unless only entities are asked for). Packing
// weighs a subject's fact blocks after the first Context.PerSubject (3) by
// Context.Demote (0.5) and an entity's card by Context.EntityCard (0.5);
// the floor keeps a block covering Floor.Share (0.6) of the best one's
// concepts. A walked path's hops weigh their predicate's match (named
// from Path.Named, 0.5; Path.Hinted for a hop only a kind word names,
// −Path.Unnamed for one no word names; × Path.Inverse against a fact's
// direction), less Path.HopCost each, + Path.NearBonus when its first hop
// uses the word nearest its anchor.
//
// The turns of the five best sessions are all scored, so a reply that shares
// no word with the query is reached through the question before it; the
// mention graph (episode → entity → episode) reaches turns of other
// sessions that speak of the same rare names and things. Feature
// extraction (episodeFeatures: what the index knows of the candidate
// turns) is apart from scoring (scoreEpisodes, pure). The weights are
// EpisodeWeights; a zero weight turns its signal off, which is how
// graphmem eval locomo prints its ablation. The vector list's weights are
// VectorWeights.
//
// Re-fitting the weights: graphmem eval tune searches the episode (and,
// with embeddings, vector) weights by coordinate descent on dev parts
// only — LoCoMo 26, 30, 41, a coding assistant's conversations
// (graphmem eval gen-conversations, dev seed) and the catalog's tuning
// seed — so that no corpus falls below its BM25-alone row, and writes
// them as JSON, which GRAPHMEM_RECALL_WEIGHTS (a file over
// DefaultWeights) and graphmem eval locomo --weights read; copy a fit
// worth keeping into DefaultEpisodeWeights. Figures are reported on the
// test parts. Every weight has a test that moves a ranking its way and
// fails when the weight is neutralised (weights_test.go),
// testdata/golden.json holds questions with the result expected on top,
// and graphmem eval fails when a figure falls more than 0.005 below
// eval/baseline.json (--write-baseline records a deliberate change).
//
// Tokens are estimated without a tokenizer (EstimateTokens): one per CJK
// character plus one per four other characters.
//
// Hit counts: the facts returned are counted off the request path (see
// touch.go); when the queue is full, counts are dropped, never the answer
// delayed.
package recall
