// The types of graphmem's API, one per schema of /openapi.json, in the client's spelling: camelCase
// properties and Dates for times. The OpenAPI test checks every schema and property here against the
// live document. Answers may carry properties a newer server adds; they pass through untyped.

import type { TimeLike } from "./wire.js";

/** A free-form JSON object (metadata, attributes), its keys as written. */
export type JsonObject = Record<string, unknown>;

/**
 * A fact: subject, predicate and object (an entity) or value (a literal), valid from/to.
 * `status` is derived when the server answers: current, superseded, ended, retracted, expired,
 * archived or future. `validFrom` null: since an unknown time; `validTo` null: still true.
 */
export interface Fact {
  id: string;
  scope: string;
  subject: string;
  subjectId: string;
  predicate: string;
  object?: string;
  objectId?: string;
  value?: string;
  text: string;
  validFrom: Date | null;
  validTo: Date | null;
  recordedAt: Date;
  /** When it was retracted. */
  expiredAt: Date | null;
  expiresAt?: Date | null;
  status: string;
  supersedes: string | null;
  supersededBy: string | null;
  episodeIds: string[];
  sourceKind: string;
  confidence: number;
  importance: number;
  attributes: JsonObject;
}

/**
 * One fact to add with `addFacts`: exactly one of `object` and `value`. `validTo` alone ends the
 * matching fact; `startUnknown: true` instead of `validFrom` states it true since an unknown time.
 */
export interface FactInput {
  subject: string;
  predicate: string;
  subjectType?: string | null;
  /** Other names of the subject, kept as the entity's aliases. */
  subjectAliases?: string[] | null;
  object?: string | null;
  objectType?: string | null;
  /** Other names of the object entity (not with `value`), kept as its aliases. */
  objectAliases?: string[] | null;
  value?: string | null;
  text?: string | null;
  validFrom?: TimeLike | null;
  validTo?: TimeLike | null;
  startUnknown?: boolean | null;
  sourceKind?: string | null;
  episodeId?: string | null;
  confidence?: number | null;
  importance?: number | null;
  attributes?: JsonObject | null;
  cardinality?: string | null;
}

/** The body of `POST /v1/facts`. */
export interface FactsRequest {
  facts: FactInput[];
}

/**
 * What became of one added fact: `action` is created, corroborated, corrected, superseded_previous,
 * historical, ended, blocked_by_tombstone or refused; `superseded` the ids of the facts it ended;
 * `factId` is absent when the fact was blocked.
 */
export interface FactResult {
  factId?: string;
  action: string;
  superseded: string[];
  warning?: string;
}

/** The answer of `POST /v1/facts`: one result per fact, in order. */
export interface FactsResponse {
  results: FactResult[];
}

/** A page of facts. */
export interface FactList {
  items: Fact[];
  nextCursor: string | null;
}

/** One fact with its supersession chain (in valid-time order) and the episodes it came from. */
export interface FactDetail {
  fact: Fact;
  chain: Fact[];
  episodes: Episode[];
}

/** An entity (a person, a service, a library…) with its aliases. */
export interface Entity {
  id: string;
  scope: string;
  name: string;
  type: string;
  aliases: string[];
  summary: string;
  attributes: JsonObject;
  createdAt: Date;
  updatedAt: Date;
}

/** An entity found by name; `match` is exact, alias or fuzzy. */
export interface EntityMatch {
  entity: Entity;
  match: string;
  score: number;
}

/** The answer of `GET /v1/entities`. */
export interface EntityMatchList {
  items: EntityMatch[];
  nextCursor: string | null;
}

/** One entity with the facts about it valid now. */
export interface EntityDetail {
  entity: Entity;
  facts: Fact[];
}

/** A page of an entity's facts over time. */
export interface Timeline {
  entity: Entity;
  items: Fact[];
  nextCursor: string | null;
}

/** An entity of a graph, `depth` hops from its centre. */
export interface GraphNode {
  id: string;
  name: string;
  type: string;
  depth: number;
}

/** The entities around one (the first node) and the facts linking them, ended ones included. */
export interface EntityGraph {
  asOf: Date;
  nodes: GraphNode[];
  edges: Fact[];
  truncated: boolean;
}

/** What the caller's credentials allow: the scope of the request and the scopes it may pick. */
export interface Session {
  scope: string;
  scopes: string[];
  developmentMode: boolean;
}

/** How many facts, entities and episodes a scope holds. */
export interface OverviewCounts {
  facts: number;
  entities: number;
  episodes: number;
}

/** A record written lately: `kind` is fact, entity, episode or tombstone. */
export interface ChangeItem {
  kind: string;
  id: string;
  deleted: boolean;
  fact?: Fact | null;
  entity?: Entity | null;
  episode?: Episode | null;
}

/** What a scope holds and its latest changes, newest first. */
export interface Overview {
  counts: OverviewCounts;
  changes: ChangeItem[];
}

/** An entity type the server knows; `ttl` (e.g. `90d`) is how long facts about such entities stay in recall. */
export interface OntologyEntityType {
  name: string;
  description: string;
  ttl: string | null;
}

/** A predicate the server knows: its cardinality (one or many), synonyms and TTL. */
export interface OntologyPredicate {
  name: string;
  description: string;
  cardinality: string;
  synonyms: string[];
  inverse?: string;
  symmetric: boolean;
  decision: boolean;
  reverses: string[];
  ttl: string | null;
}

/** The entity types and predicates the server knows, and what becomes of other predicates. */
export interface Ontology {
  entityTypes: OntologyEntityType[];
  predicates: OntologyPredicate[];
  unknownPredicates: string;
}

/**
 * A fact the extraction model proposed that was left out, and why: `reason` is not_grounded, permission,
 * bad_date, malformed, duplicate or forgotten; `object` is the object or value as the model wrote it.
 */
export interface DroppedFact {
  subject: string;
  predicate: string;
  object: string;
  reason: string;
  detail: string;
}

/**
 * What an episode's last extraction did: facts proposed, kept and dropped (with reasons), the prompt style,
 * the response format, calls and tokens. `summary` says it in one sentence, and says why an episode has no facts.
 */
export interface Extraction {
  summary: string;
  prompt: string;
  mode: string;
  repaired: boolean;
  proposed: number;
  kept: number;
  dropped: DroppedFact[];
  warnings: string[];
  calls: number;
  promptTokens: number;
  completionTokens: number;
  skipped: string;
  error: string;
}

/**
 * Something that happened, stored verbatim: a message, a text or a JSON document. `status` is queued,
 * processing, done or failed (extraction into facts); `factIds` are the facts derived from it; `extraction`
 * reports what extraction proposed, kept and dropped, and why (null until one has ended).
 */
export interface Episode {
  id: string;
  scope: string;
  kind: string;
  content: string;
  speaker: string;
  role: string;
  referenceTime: Date;
  recordedAt: Date;
  sourceKind: string;
  status: string;
  error?: string;
  attempts: number;
  nextAttemptAt?: Date | null;
  metadata: JsonObject;
  idempotencyKey?: string;
  factIds: string[];
  promptTokens: number;
  completionTokens: number;
  extraction: Extraction | null;
}

/** The body of `POST /v1/episodes`. */
export interface EpisodeRequest {
  content: string;
  kind?: string | null;
  speaker?: string | null;
  role?: string | null;
  referenceTime?: TimeLike | null;
  sourceKind?: string | null;
  idempotencyKey?: string | null;
  metadata?: JsonObject | null;
}

/**
 * The answer to storing an episode or retrying one; with `wait` it carries the facts produced.
 * `warning` is set when the server has no extraction model: the episode is stored and searchable,
 * but no facts come from it.
 */
export interface EpisodeAccepted {
  episodeId: string;
  status: string;
  error?: string;
  factIds?: string[];
  facts?: Fact[];
  warning?: string;
  extraction?: Extraction | null;
}

/** A page of episodes. */
export interface EpisodeList {
  items: Episode[];
  nextCursor: string | null;
}

/** The body of `POST /v1/search`. */
export interface SearchRequest {
  query: string;
  limit?: number | null;
  asOf?: TimeLike | null;
  knownAt?: TimeLike | null;
  includeHistory?: boolean | null;
  types?: string[] | null;
}

/**
 * How a score was made, as a tree: a leaf is a measured value or a weight; a node with children combines them,
 * in order, by `combine` (a sum or a product) into its `value`, so the root's value rebuilds from the leaves.
 * `effect` is what a node changes of its parent's value; `inputs` are what it was measured from (no part of the
 * value); `was` is the explanation a score had before a rule set it below another's.
 */
export interface Explanation {
  name: string;
  value: number;
  effect: number;
  combine?: string;
  inputs?: Record<string, number>;
  children?: Explanation[];
  was?: Explanation | null;
}

/** One ranked search result: a fact, an entity or an episode, with the explanation of its score. */
export interface SearchHit {
  type: string;
  id: string;
  text: string;
  score: number;
  /** The explanation flattened: every node below the root by name with its value, and every input. */
  signals: Record<string, number>;
  explanation: Explanation;
  fact?: Fact | null;
  entity?: Entity | null;
  episode?: Episode | null;
}

/**
 * A name a query mentions that did not resolve to exactly one entity. For an unresolved name memory
 * knows nothing about it, and `candidates` are the closest known names; for an ambiguous one they
 * are the entities it may denote.
 */
export interface NameLink {
  name: string;
  candidates: string[];
}

/**
 * The hits of a search, best first, and the names of the query that did not resolve. `vectors` is
 * used, skipped (`vectorsSkipped` says why: timeout, busy or failed) or off (no embedding model).
 */
export interface SearchResponse {
  hits: SearchHit[];
  unresolved: NameLink[];
  ambiguous: NameLink[];
  vectors: string;
  vectorsSkipped?: string;
}

/** The body of `POST /v1/context`. */
export interface ContextRequest {
  query: string;
  asOf?: TimeLike | null;
  knownAt?: TimeLike | null;
  referenceTime?: TimeLike | null;
  maxTokens?: number | null;
  mode?: string | null;
  format?: string | null;
  focus?: string[] | null;
}

/** A fact in a context; `role` is pinned, fact, history or decision. */
export interface ContextFact {
  fact: Fact;
  role: string;
  score: number;
}

/** An episode quoted in a context. */
export interface ContextEpisode {
  episode: Episode;
  quote: string;
}

/** A range of valid time a question names. */
export interface Period {
  from: Date;
  to: Date;
}

/** One fact of a path: it leaves `entity` through `predicate` (back, object to subject, when `inverse`) and reaches `to`. */
export interface PathHop {
  entity: string;
  entityId: string;
  predicate: string;
  inverse?: boolean;
  to: string;
  toId?: string;
  factId: string;
  status: string;
}

/**
 * A chain of facts a context crosses, from the entity the question names to the answer. `complete` is false
 * when memory lacks a hop the question asks for; `missing` then names the predicate.
 */
export interface Path {
  hops: PathHop[];
  complete: boolean;
  missing?: string;
  text: string;
}

/**
 * What to put in the prompt: `text` is the block (the JSON `context`); the lists hold what it cites.
 * `paths` are the chains of facts the answer crosses when the question joins facts through an entity it does
 * not name ("who leads the team that owns cart-api?").
 * `mode` is the one used (current or history); `timeNamed` the phrase of the question that set the
 * time of the answer and `period` the range it names; `unresolved` the names memory knows nothing
 * about (the block says so) and `ambiguous` those naming several entities; `vectors` as in a search.
 */
export interface Context {
  /** The block to put in the prompt (`context` in every interface: REST, MCP, the CLI, Go, Python). */
  context: string;
  /** @deprecated The old name of `context`, kept for one release. */
  readonly text: string;
  tokens: number;
  facts: ContextFact[];
  entities: Entity[];
  episodes: ContextEpisode[];
  mode: string;
  asOf: Date;
  timeNamed?: string;
  period?: Period | null;
  unresolved: NameLink[];
  ambiguous: NameLink[];
  paths: Path[];
  vectors: string;
  vectorsSkipped?: string;
}

/** The body of `POST /v1/forget`. */
export interface ForgetRequest {
  factIds?: string[] | null;
  entity?: string | null;
  query?: string | null;
  episodeId?: string | null;
  mode?: string | null;
  reason?: string | null;
  dryRun?: boolean | null;
  limit?: number | null;
}

/** One record a forget or purge removes. */
export interface ForgetItem {
  type: string;
  id: string;
  name?: string;
}

/** A name a forget query mentions and the entity it resolved to. */
export interface NameMatch {
  name: string;
  entity?: string;
  entityId?: string;
  candidates?: string[];
}

/**
 * What a forget or purge removed (or, on a dry run, would remove). `resolved` says which entity each name of a
 * query resolved to; a query naming something memory does not know, or several entities, is refused (404 or 409 with
 * the candidates) and nothing changes.
 */
export interface ForgetResult {
  mode: string;
  dryRun?: boolean;
  facts: number;
  entities: number;
  episodes: number;
  tombstones: number;
  factIds?: string[];
  resolved?: NameMatch[];
  items?: ForgetItem[];
}

/** One forget or purge: ids, time, actor and counts, never content. */
export interface AuditEntry {
  id: string;
  at: Date;
  action: string;
  actor?: string;
  reason?: string;
  factIds?: string[];
  entityId?: string;
  episodeId?: string;
  result: ForgetResult;
}

/** The answer of `GET /v1/audit`. */
export interface AuditList {
  items: AuditEntry[];
}

/** What an import loaded. */
export interface ImportResult {
  entities: number;
  episodes: number;
  facts: number;
  tombstones: number;
  blockedByTombstone: number;
}

/** One statement a stored fact was built from (in exports). */
export interface Claim {
  from?: Date | null;
  to?: Date | null;
  end?: boolean | null;
  said?: Date | null;
  dated?: boolean | null;
  recordedAt?: Date | null;
  sourceKind?: string | null;
  confidence?: number | null;
  episodeId?: string | null;
  text?: string | null;
  importance?: number | null;
  attributes?: JsonObject | null;
}

/** A change of belief about a stored fact's interval (in exports). */
export interface Revision {
  until?: Date | null;
  validFrom?: Date | null;
  validTo?: Date | null;
  supersedes?: string | null;
  supersededBy?: string | null;
}

/** A fact as exported: with its claims, revisions and bookkeeping. */
export interface StoredFact {
  id: string;
  scope?: string | null;
  subject?: string | null;
  subjectId: string;
  predicate: string;
  object?: string | null;
  objectId?: string | null;
  value?: string | null;
  text?: string | null;
  validFrom?: Date | null;
  validTo?: Date | null;
  recordedAt?: Date | null;
  updatedAt?: Date | null;
  expiredAt?: Date | null;
  archivedAt?: Date | null;
  forgottenAt?: Date | null;
  expiresAt?: Date | null;
  lastAccessedAt?: Date | null;
  supersedes?: string | null;
  supersededBy?: string | null;
  episodeIds?: string[] | null;
  sourceKind?: string | null;
  confidence?: number | null;
  importance?: number | null;
  hits?: number | null;
  attributes?: JsonObject | null;
  claims?: Claim[] | null;
  revisions?: Revision[] | null;
  conflicts?: string[] | null;
  waiting?: boolean | null;
  seq?: number | null;
}

/** An entity as exported. */
export interface StoredEntity {
  id: string;
  scope?: string | null;
  name: string;
  type?: string | null;
  aliases?: string[] | null;
  summary?: string | null;
  attributes?: JsonObject | null;
  createdAt?: Date | null;
  updatedAt?: Date | null;
  forgottenAt?: Date | null;
  seq?: number | null;
}

/** An episode as exported. */
export interface StoredEpisode {
  id: string;
  scope?: string | null;
  kind?: string | null;
  content: string;
  speaker?: string | null;
  role?: string | null;
  referenceTime?: Date | null;
  recordedAt?: Date | null;
  sourceKind?: string | null;
  status: string;
  error?: string | null;
  attempts?: number | null;
  nextAttemptAt?: Date | null;
  metadata?: JsonObject | null;
  idempotencyKey?: string | null;
  factIds?: string[] | null;
  forgottenAt?: Date | null;
  seq?: number | null;
  promptTokens?: number | null;
  completionTokens?: number | null;
  extraction?: StoredExtraction | null;
}

/** A dropped fact of an exported extraction report. */
export interface StoredDroppedFact {
  subject?: string | null;
  predicate?: string | null;
  object?: string | null;
  reason: string;
  detail?: string | null;
}

/** An extraction report as exported. */
export interface StoredExtraction {
  prompt?: string | null;
  mode?: string | null;
  repaired?: boolean | null;
  proposed?: number | null;
  kept?: number | null;
  dropped?: StoredDroppedFact[] | null;
  warnings?: string[] | null;
  calls?: number | null;
  promptTokens?: number | null;
  completionTokens?: number | null;
  skipped?: string | null;
  error?: string | null;
}

/** What keeps a forgotten fact from coming back: a fingerprint, never the content. */
export interface Tombstone {
  scope?: string | null;
  fingerprint: string;
  factIds?: string[] | null;
  at?: Date | null;
  reason?: string | null;
}

/** One line of an export: exactly one of its properties is set. */
export interface ExportRecord {
  tombstone?: Tombstone | null;
  entity?: StoredEntity | null;
  episode?: StoredEpisode | null;
  fact?: StoredFact | null;
}

/** How far a follower of the store (the search or the vector index) is behind it. */
export interface Lag {
  changes: number;
  seconds: number;
}

/** The answer of `/healthz` and `/readyz`; on `/readyz`, `lag` by follower (`search_index`, `vector_index`). */
export interface Health {
  status: string;
  lag?: Record<string, Lag>;
}

/** The content of an error answer; `fields` names the offending inputs. */
export interface ErrorDetail {
  code: string;
  message: string;
  fields?: Record<string, string>;
}

/** The one shape of every error answer. */
export interface ErrorBody {
  error: ErrorDetail;
}
