package wire

import (
	"time"
)

// FactResult says what became of one fact of a POST /v1/facts batch.
type FactResult struct {
	FactID     string   `json:"fact_id,omitempty" doc:"absent when blocked_by_tombstone"`
	Action     string   `json:"action" doc:"created, corroborated, corrected, superseded_previous, historical, ended, blocked_by_tombstone or refused (a permission granted to the agent)"`
	Superseded []string `json:"superseded" doc:"ids of the facts this one ended"`
	Warning    string   `json:"warning,omitempty"`
}

// FactsResponse answers POST /v1/facts, one result per fact, in order.
type FactsResponse struct {
	Results []FactResult `json:"results"`
}

// SearchHit is one ranked result of POST /v1/search; Explanation is how
// its score was made, Signals the explanation flattened.
type SearchHit struct {
	Type        string             `json:"type" doc:"fact, entity or episode"`
	ID          string             `json:"id"`
	Text        string             `json:"text"`
	Score       float64            `json:"score" doc:"the explanation's value, rounded to 4 decimals"`
	Signals     map[string]float64 `json:"signals" doc:"the explanation flattened: every node below the root by name with its value, and every input, rounded"`
	Explanation Explanation        `json:"explanation" doc:"how the score was made: it rebuilds from the leaves"`
	Fact        *Fact              `json:"fact,omitempty"`
	Entity      *Entity            `json:"entity,omitempty"`
	Episode     *Episode           `json:"episode,omitempty"`
}

// Explanation is how a score was made, as a tree: a leaf is a measured
// value or a weight; a node with children combines them, in order, by
// Combine into its Value, so the root's Value rebuilds from the leaves.
type Explanation struct {
	Name     string             `json:"name" doc:"what the node is: a term, a factor, a weight (by its path in the weights file, fact.pair) or a measured value"`
	Value    float64            `json:"value"`
	Effect   float64            `json:"effect" doc:"what the node changes of its parent's value: a term of a sum its value, a factor of a product the product less the product of the other factors; the root's is its value"`
	Combine  string             `json:"combine,omitempty" enum:"sum product" doc:"how the children make the value, in order; absent for a leaf"`
	Inputs   map[string]float64 `json:"inputs,omitempty" doc:"what the node was measured from (bm25_rank, graph_distance, vector_rank…): no part of the value"`
	Children []Explanation      `json:"children,omitempty"`
	Was      *Explanation       `json:"was,omitempty" doc:"the explanation before a rule set the score below another's (the version valid at as_of, the answer above its entity's card): no part of the value"`
}

// SearchResponse answers POST /v1/search.
type SearchResponse struct {
	Hits []SearchHit `json:"hits"`
	// Unresolved and Ambiguous are the names the query mentions that
	// resolved to no entity, or to several.
	Unresolved []NameLink `json:"unresolved" doc:"names the query mentions that memory knows nothing about (no entity, no record holding them): none of their words' matches answers for them"`
	Ambiguous  []NameLink `json:"ambiguous" doc:"names the query mentions that denote several entities; all are used"`
	// Vectors and VectorsSkipped say whether the vector list was used.
	Vectors        string `json:"vectors" enum:"used skipped off" doc:"whether the answer was built with the vector list (embeddings): used, skipped (embeddings are on but the question's vector was not there in time: see vectors_skipped) or off (no embedding model configured)"`
	VectorsSkipped string `json:"vectors_skipped,omitempty" enum:"timeout busy failed" doc:"why the vector list was skipped: timeout (the question's vector came after the wait, GRAPHMEM_EMBED_QUERY_WAIT or sized to the embedder; it serves the question's next asking), busy (too many questions being embedded at once) or failed (the embedder failed)"`
}

// NameLink is a name a query mentions that did not resolve to exactly one
// entity.
type NameLink struct {
	Name       string   `json:"name" doc:"the name as the query writes it"`
	Candidates []string `json:"candidates" doc:"unresolved: the closest known names (did you mean), none of them used; ambiguous: the entities it may denote"`
}

// ContextFact is a fact in a context, its status derived at as_of.
type ContextFact struct {
	Fact  Fact    `json:"fact"`
	Role  string  `json:"role" doc:"pinned, fact, history or decision"`
	Score float64 `json:"score"`
}

// ContextEpisode is an episode quoted in a context.
type ContextEpisode struct {
	Episode Episode `json:"episode"`
	Quote   string  `json:"quote"`
}

// ContextResponse answers POST /v1/context: the block to put in the
// prompt and the items in it, with ids for citation. The whole answer is
// bounded by max_tokens: context takes at most max_tokens estimated tokens
// and facts, entities and episodes together at most recall.ItemsPerToken ×
// max_tokens (attributes and quotes clipped), so the body is at most about
// (1 + recall.ItemsPerToken) × max_tokens × 4 bytes.
type ContextResponse struct {
	Context  string           `json:"context"`
	Facts    []ContextFact    `json:"facts"`
	Entities []Entity         `json:"entities"`
	Episodes []ContextEpisode `json:"episodes"`
	Tokens   int              `json:"tokens" doc:"estimated size of context"`
	Mode     string           `json:"mode" doc:"the mode used: current or history"`
	AsOf     time.Time        `json:"as_of" doc:"the time whose status the facts show"`
	// TimeNamed and Period say which time a question answered for.
	TimeNamed string  `json:"time_named,omitempty" doc:"the phrase of the question that set the time of the answer (mode auto, no as_of)"`
	Period    *Period `json:"period,omitempty" doc:"the range the question names; every fact valid in it is shown"`
	// Unresolved and Ambiguous: as in SearchResponse.
	Unresolved []NameLink `json:"unresolved" doc:"names the question mentions that memory knows nothing about; the context says so in one line each, and holds no other subject's facts of the asked property"`
	Ambiguous  []NameLink `json:"ambiguous" doc:"names the question mentions that denote several entities; all are used"`
	Paths      []Path     `json:"paths" doc:"the chains of facts the answer crosses when the question joins facts through an entity it does not name (\"who leads the team that owns cart-api?\"); empty otherwise"`
	// Vectors and VectorsSkipped: as in SearchResponse.
	Vectors        string `json:"vectors" enum:"used skipped off" doc:"whether the block was built with the vector list (embeddings): used, skipped (see vectors_skipped) or off (no embedding model configured)"`
	VectorsSkipped string `json:"vectors_skipped,omitempty" enum:"timeout busy failed" doc:"why the vector list was skipped: timeout (the question's vector came after the wait), busy (too many questions being embedded at once) or failed (the embedder failed)"`
}

// Path is a chain of facts a context answer crosses, from the entity the
// question names to the answer.
type Path struct {
	Hops     []PathHop `json:"hops" doc:"in walk order, the answer last"`
	Complete bool      `json:"complete" doc:"false when memory lacks a hop the question asks for: missing names it"`
	Missing  string    `json:"missing,omitempty" doc:"the predicate memory holds no fact of for the last entity reached"`
	Text     string    `json:"text" doc:"the chain in one line"`
}

// PathHop is one fact of a path: it leaves entity through predicate and
// reaches to.
type PathHop struct {
	Entity    string `json:"entity"`
	EntityID  string `json:"entity_id"`
	Predicate string `json:"predicate"`
	Inverse   bool   `json:"inverse,omitempty" doc:"the hop goes from the fact's object to its subject"`
	To        string `json:"to" doc:"the entity or value reached"`
	ToID      string `json:"to_id,omitempty"`
	FactID    string `json:"fact_id"`
	Status    string `json:"status" doc:"the fact's status at the answer's time"`
}

// GraphNode is an entity of an EntityGraph.
type GraphNode struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Type  string `json:"type"`
	Depth int    `json:"depth" doc:"hops from the centre (0 for the centre)"`
}

// EntityGraph answers GET /v1/entities/{id}/graph.
type EntityGraph struct {
	AsOf      time.Time   `json:"as_of"`
	Nodes     []GraphNode `json:"nodes" doc:"the centre first"`
	Edges     []Fact      `json:"edges" doc:"facts between the nodes and the centre's literal values, status derived at as_of"`
	Truncated bool        `json:"truncated" doc:"a bound left some entities or facts out"`
}

// EpisodeAccepted answers POST /v1/episodes and its retry. With wait=true it
// also carries the facts the episode produced.
type EpisodeAccepted struct {
	EpisodeID string   `json:"episode_id"`
	Status    string   `json:"status"`
	Error     string   `json:"error,omitempty"`
	FactIDs   []string `json:"fact_ids,omitempty"`
	Facts     []Fact   `json:"facts,omitempty"`
	Warning   string   `json:"warning,omitempty" doc:"set when no extraction model is configured: the episode is stored and searchable, but no facts come from it"`
	// Extraction is the episode's extraction report, once it has one.
	Extraction *Extraction `json:"extraction,omitempty" doc:"what extraction proposed, kept and dropped, and why (see GET /v1/episodes/{id})"`
}

// AuditList is the answer of GET /v1/audit.
type AuditList struct {
	Items []AuditRecord `json:"items"`
}

// Overview answers GET /v1/overview: what a scope holds and what changed
// in it lately.
type Overview struct {
	Counts  OverviewCounts `json:"counts"`
	Changes []ChangeItem   `json:"changes" doc:"the scope's latest writes, newest first, among the store's last 2,000 writes of any scope"`
}

// OverviewCounts counts a scope's records from the search index: they may
// trail writes of other replicas by a moment; forgotten facts are left out.
type OverviewCounts struct {
	Facts    uint64 `json:"facts"`
	Entities uint64 `json:"entities"`
	Episodes uint64 `json:"episodes"`
}

// ChangeItem is one record written lately. A record that still exists and
// may be shown comes with it; a deleted record, a forgotten fact or
// episode and a tombstone (the mark a forgotten fact leaves) only say so.
type ChangeItem struct {
	Kind    string   `json:"kind" doc:"fact, entity, episode or tombstone"`
	ID      string   `json:"id" doc:"a tombstone's id is its fingerprint"`
	Deleted bool     `json:"deleted"`
	Fact    *Fact    `json:"fact,omitempty"`
	Entity  *Entity  `json:"entity,omitempty"`
	Episode *Episode `json:"episode,omitempty"`
}

// Session answers GET /v1/session: what the caller's credentials allow, so
// a client (the web view) can offer a scope picker.
type Session struct {
	Scope           string   `json:"scope" doc:"the scope this request used"`
	Scopes          []string `json:"scopes" doc:"the scopes the API key may use; in development mode, the scopes the store holds"`
	DevelopmentMode bool     `json:"development_mode" doc:"true when the server runs without API keys"`
}

// Health is the answer of /healthz and /readyz.
type Health struct {
	Status string `json:"status"`
	// Lag is, on /readyz, how far each follower of the store
	// (search_index, vector_index) is behind it.
	Lag map[string]Lag `json:"lag,omitempty"`
}

// Period is the range of valid time a question names.
type Period struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}
