"""Typed models of graphmem's API, one per schema of ``/openapi.json``.

Answers are parsed into these models: every time is a timezone-aware
``datetime``, open intervals are ``None``. Fields the server adds later are
ignored rather than refused, so an older client keeps working against a newer
server; the test suite checks against the live document that no field is
missing here.
"""

from __future__ import annotations

import warnings
from datetime import date, datetime
from typing import Annotated, Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, PlainSerializer, PrivateAttr

from graphmem._times import format_time

Time = Annotated[datetime | date | str, PlainSerializer(format_time, return_type=str)]
"""A time as a request takes it: an aware ``datetime`` (a naive one is local
time), a ``date`` (midnight UTC) or a string the server parses."""


class Model(BaseModel):
    """Base of every model: fields may be set by name or by their JSON name."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class RequestModel(Model):
    """Base of the models a caller builds: a misspelt field is an error, not silently dropped."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Fact(Model):
    """A fact: subject, predicate and object (an entity) or value (a literal), valid from/to.

    ``status`` is derived when the server answers: current, superseded, ended,
    retracted, expired, archived or future.
    """

    id: str
    scope: str
    subject: str
    subject_id: str
    predicate: str
    object: str = ""
    object_id: str = ""
    value: str = ""
    text: str
    valid_from: AwareDatetime | None = Field(description="None: since an unknown time")
    valid_to: AwareDatetime | None = Field(description="None: still true")
    recorded_at: AwareDatetime
    expired_at: AwareDatetime | None = Field(description="when it was retracted")
    status: str
    supersedes: str | None
    superseded_by: str | None
    episode_ids: list[str]
    source_kind: str
    confidence: float
    importance: int
    attributes: dict[str, Any]
    expires_at: AwareDatetime | None = None


class FactInput(RequestModel):
    """One fact to add with ``add_facts``; exactly one of ``object`` and ``value``.

    Times may be given as ``datetime``, ``date`` or strings; ``valid_to`` alone
    ends the matching fact; ``start_unknown=True`` instead of ``valid_from``
    states it true since an unknown time.
    """

    subject: str
    predicate: str
    subject_type: str | None = None
    subject_aliases: list[str] | None = None
    object: str | None = None
    object_type: str | None = None
    object_aliases: list[str] | None = None
    value: str | None = None
    text: str | None = None
    valid_from: Time | None = None
    valid_to: Time | None = None
    start_unknown: bool | None = None
    source_kind: str | None = None
    episode_id: str | None = None
    confidence: float | None = None
    importance: int | None = None
    attributes: dict[str, Any] | None = None
    cardinality: str | None = None


class FactsRequest(RequestModel):
    """The body of ``POST /v1/facts``."""

    facts: list[FactInput]


class FactResult(Model):
    """What became of one added fact.

    ``action`` is created, corroborated, superseded_previous, historical,
    ended, blocked_by_tombstone or refused; ``superseded`` lists the ids of the
    facts it ended; ``fact_id`` is empty when the fact was blocked.
    """

    fact_id: str = ""
    action: str
    superseded: list[str] = []
    warning: str = ""


class FactsResponse(Model):
    """The answer of ``POST /v1/facts``: one result per fact, in order."""

    results: list[FactResult]


class FactList(Model):
    """A page of facts."""

    items: list[Fact]
    next_cursor: str | None = None


class Entity(Model):
    """An entity (a person, a service, a library…) with its aliases."""

    id: str
    scope: str
    name: str
    type: str
    aliases: list[str]
    summary: str
    attributes: dict[str, Any]
    created_at: AwareDatetime
    updated_at: AwareDatetime


class EntityMatch(Model):
    """An entity found by name; ``match`` is exact, alias or fuzzy."""

    entity: Entity
    match: str
    score: float


class EntityMatchList(Model):
    """A page of entity matches."""

    items: list[EntityMatch]
    next_cursor: str | None = None


class EntityDetail(Model):
    """An entity with the facts about it valid now."""

    entity: Entity
    facts: list[Fact]


class Timeline(Model):
    """An entity with a page of its facts over time, in valid-time order."""

    entity: Entity
    items: list[Fact]
    next_cursor: str | None = None


class GraphNode(Model):
    """An entity of an ``EntityGraph``, ``depth`` hops from its centre."""

    id: str
    name: str
    type: str
    depth: int


class EntityGraph(Model):
    """The graph around an entity as of a valid time: the centre first, then its
    neighbours; ``edges`` are the facts between them (ended ones included) and the
    centre's literal values, with statuses at ``as_of``."""

    as_of: AwareDatetime
    nodes: list[GraphNode]
    edges: list[Fact]
    truncated: bool


class OverviewCounts(Model):
    """How many facts (forgotten ones left out), entities and episodes a scope holds, counted by
    the server's search index."""

    facts: int
    entities: int
    episodes: int


class ChangeItem(Model):
    """A record written lately: ``kind`` is fact, entity, episode or tombstone; the record comes
    with it unless it was deleted or forgotten (a tombstone's ``id`` is its fingerprint)."""

    kind: str
    id: str
    deleted: bool
    fact: Fact | None = None
    entity: Entity | None = None
    episode: Episode | None = None


class Overview(Model):
    """What a scope holds and its latest changes, newest first."""

    counts: OverviewCounts
    changes: list[ChangeItem]


class OntologyEntityType(Model):
    """An entity type the server knows; ``ttl`` (e.g. ``90d``) is how long facts about such
    entities stay in recall, ``None`` for ever."""

    name: str
    description: str
    ttl: str | None


class OntologyPredicate(Model):
    """A predicate the server knows: ``cardinality`` one (a new value ends the current one) or
    many (values coexist), the synonyms written to mean it, and its TTL (``None``: for ever)."""

    name: str
    description: str
    cardinality: str
    synonyms: list[str]
    inverse: str = ""
    symmetric: bool
    decision: bool
    reverses: list[str]
    ttl: str | None


class Ontology(Model):
    """The entity types and predicates the server knows, and what becomes of other predicates."""

    entity_types: list[OntologyEntityType]
    predicates: list[OntologyPredicate]
    unknown_predicates: str


class Session(Model):
    """What the caller's credentials allow: the scope of the request and the scopes
    it may pick."""

    scope: str
    scopes: list[str]
    development_mode: bool


class DroppedFact(Model):
    """A fact the extraction model proposed that was left out, and why.

    ``reason`` is not_grounded, permission, bad_date, malformed, duplicate or forgotten;
    ``object`` is the object or value as the model wrote it.
    """

    subject: str
    predicate: str
    object: str
    reason: str
    detail: str


class Extraction(Model):
    """What an episode's last extraction did: facts proposed, kept and dropped (with reasons), the
    response format, calls and tokens. ``summary`` says it in one sentence, and says why an episode
    has no facts."""

    summary: str
    prompt: str
    mode: str
    repaired: bool
    proposed: int
    kept: int
    dropped: list[DroppedFact]
    warnings: list[str]
    calls: int
    prompt_tokens: int
    completion_tokens: int
    skipped: str
    error: str


class Episode(Model):
    """Something that happened, stored verbatim: a message, a text or a JSON document.

    ``status`` is queued, processing, done or failed (extraction into facts);
    ``fact_ids`` are the facts derived from it; ``extraction`` reports what extraction
    proposed, kept and dropped, and why (None until one has ended).
    """

    id: str
    scope: str
    kind: str
    content: str
    speaker: str
    role: str
    reference_time: AwareDatetime
    recorded_at: AwareDatetime
    source_kind: str
    status: str
    error: str = ""
    attempts: int
    next_attempt_at: AwareDatetime | None = None
    metadata: dict[str, Any]
    idempotency_key: str = ""
    fact_ids: list[str]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    extraction: Extraction | None = None


class Remembered(Episode):
    """The episode ``remember`` stored, with the server's warning when it gave one."""

    warning: str = ""
    """Set when the server has no extraction model: the episode is stored and searchable, but no
    facts come from it. Empty otherwise; ``episode()`` never carries it."""


class EpisodeRequest(RequestModel):
    """The body of ``POST /v1/episodes``."""

    content: str
    kind: str | None = None
    speaker: str | None = None
    role: str | None = None
    reference_time: Time | None = None
    source_kind: str | None = None
    idempotency_key: str | None = None
    metadata: dict[str, Any] | None = None


class EpisodeAccepted(Model):
    """The answer to storing an episode or retrying one; with ``wait`` it carries the facts produced."""

    episode_id: str
    status: str
    error: str = ""
    fact_ids: list[str] = []
    facts: list[Fact] = []
    warning: str = ""
    """Set when the server has no extraction model: the episode is stored and searchable, but no
    facts come from it."""
    extraction: Extraction | None = None
    """What extraction proposed, kept and dropped, and why, once it has ended."""


class EpisodeList(Model):
    """A page of episodes."""

    items: list[Episode]
    next_cursor: str | None = None


class FactDetail(Model):
    """One fact with its supersession chain (in valid-time order) and the episodes it came from."""

    fact: Fact
    chain: list[Fact]
    episodes: list[Episode]


class SearchRequest(RequestModel):
    """The body of ``POST /v1/search``."""

    query: str
    limit: int | None = None
    as_of: Time | None = None
    known_at: Time | None = None
    include_history: bool | None = None
    types: list[str] | None = None


class Explanation(Model):
    """How a score was made, as a tree: a leaf is a measured value or a weight; a node with children combines
    them, in order, by ``combine`` (``sum`` or ``product``) into its ``value``, so the root's value rebuilds
    from the leaves. ``effect`` is what a node changes of its parent's value; ``inputs`` are what it was
    measured from (no part of the value); ``was`` is the explanation a score had before a rule set it below
    another's."""

    name: str
    value: float
    effect: float
    combine: str | None = None
    inputs: dict[str, float] = Field(default_factory=dict)
    children: list[Explanation] = Field(default_factory=list)
    was: Explanation | None = None


class SearchHit(Model):
    """One ranked search result: a fact, an entity or an episode, with the explanation of its score
    (``signals``: the explanation flattened)."""

    type: str
    id: str
    text: str
    score: float
    signals: dict[str, float]
    explanation: Explanation | None = None
    fact: Fact | None = None
    entity: Entity | None = None
    episode: Episode | None = None


class NameLink(Model):
    """A name a query mentions that did not resolve to exactly one entity.

    For an unresolved name memory knows nothing about it, and ``candidates``
    are the closest known names (did you mean), none of which answered; for
    an ambiguous one they are the entities it may denote, all of which did.
    """

    name: str
    candidates: list[str]


class SearchResponse(Model):
    """The answer of ``POST /v1/search``; ``vectors`` says whether it was built with the vector list.

    ``vectors`` is used, skipped (embeddings are on but the question's vector
    was not there in time; ``vectors_skipped`` says why: timeout, busy or
    failed) or off (no embedding model configured).
    """

    hits: list[SearchHit]
    unresolved: list[NameLink]
    ambiguous: list[NameLink]
    vectors: str
    vectors_skipped: str = ""


class SearchHits(list[SearchHit]):
    """The hits of a search, best first, and the names of the query that did not resolve.

    ``unresolved`` are the names memory knows nothing about (no other
    entity's facts answer for them), ``ambiguous`` those naming several
    entities; ``vectors`` and ``vectors_skipped`` say whether the vector
    list was used, as in ``SearchResponse``.
    """

    def __init__(self, res: SearchResponse) -> None:
        super().__init__(res.hits)
        self.unresolved: list[NameLink] = res.unresolved
        self.ambiguous: list[NameLink] = res.ambiguous
        self.vectors: str = res.vectors
        self.vectors_skipped: str = res.vectors_skipped


class ContextRequest(RequestModel):
    """The body of ``POST /v1/context``."""

    query: str
    as_of: Time | None = None
    known_at: Time | None = None
    reference_time: Time | None = None
    max_tokens: int | None = None
    mode: str | None = None
    format: str | None = None
    focus: list[str] | None = None


class ContextFact(Model):
    """A fact in a context, its status derived at ``as_of``; ``role`` is pinned, fact, history or decision."""

    fact: Fact
    role: str
    score: float


class ContextEpisode(Model):
    """An episode quoted in a context."""

    episode: Episode
    quote: str


class Period(Model):
    """A range of valid time a question names (``from_`` is its JSON ``from``)."""

    from_: AwareDatetime = Field(alias="from")
    to: AwareDatetime


class PathHop(Model):
    """One fact of a path: it leaves ``entity`` through ``predicate`` (back, object to subject, when ``inverse``) and reaches ``to``."""

    entity: str
    entity_id: str
    predicate: str
    inverse: bool = False
    to: str
    to_id: str = ""
    fact_id: str
    status: str


class Path(Model):
    """A chain of facts a context crosses, from the entity the question names to the answer.

    ``complete`` is false when memory lacks a hop the question asks for;
    ``missing`` then names the predicate. ``text`` is the chain in one line.
    """

    hops: list[PathHop]
    complete: bool
    missing: str = ""
    text: str


class Context(Model):
    """What to put in the prompt: ``context`` is the block; the lists hold what it cites, with ids.

    ``paths`` are the chains of facts the answer crosses when the question
    joins facts through an entity it does not name ("who leads the team
    that owns cart-api?").

    ``time_named`` is the phrase of the question that set the time of the
    answer (mode auto, no ``as_of``), and ``period`` the range it names.
    ``vectors`` says whether the block was built with the vector list: used,
    skipped (``vectors_skipped`` says why: timeout, busy or failed) or off.
    """

    context: str
    facts: list[ContextFact]
    entities: list[Entity]
    episodes: list[ContextEpisode]
    tokens: int = Field(description="estimated size of context")
    mode: str = Field(description="the mode used: current or history")
    as_of: AwareDatetime
    time_named: str = ""
    period: Period | None = None
    unresolved: list[NameLink] = Field(description="names the question mentions that memory knows nothing about; the block says so")
    ambiguous: list[NameLink] = Field(description="names the question mentions that denote several entities")
    paths: list[Path] = []
    vectors: str
    vectors_skipped: str = ""

    @property
    def text(self) -> str:
        """Deprecated: the old name of ``context``, kept for one release."""
        warnings.warn("Context.text is deprecated: use Context.context", DeprecationWarning, stacklevel=2)
        return self.context


class ForgetRequest(RequestModel):
    """The body of ``POST /v1/forget``."""

    fact_ids: list[str] | None = None
    entity: str | None = None
    query: str | None = None
    episode_id: str | None = None
    mode: str | None = None
    reason: str | None = None
    dry_run: bool | None = None
    limit: int | None = None


class ForgetItem(Model):
    """One record a forget or purge removes: a fact by its sentence, an entity by its name, an episode by id."""

    type: str
    id: str
    name: str | None = None


class NameMatch(Model):
    """A name a forget query mentions and the entity it resolved to."""

    name: str
    entity: str = ""
    entity_id: str = ""
    candidates: list[str] = []


class ForgetResult(Model):
    """What a forget or purge removed (or, on a dry run, would remove).

    ``resolved`` says which entity each name of a query resolved to; a
    query naming something memory does not know, or several entities, is
    refused (``NotFoundError``, 404, or ``ConflictError``, 409, with the candidates) and nothing
    changes.
    """

    mode: str
    dry_run: bool = False
    facts: int
    entities: int
    episodes: int
    tombstones: int
    fact_ids: list[str] = []
    resolved: list[NameMatch] = []
    items: list[ForgetItem] = []


class AuditEntry(Model):
    """One forget or purge: ids, time, actor and counts, never content."""

    id: str
    at: AwareDatetime
    action: str
    actor: str = ""
    reason: str = ""
    fact_ids: list[str] = []
    entity_id: str = ""
    episode_id: str = ""
    result: ForgetResult


class AuditList(Model):
    """The answer of ``GET /v1/audit``."""

    items: list[AuditEntry]


class ImportResult(Model):
    """What an import loaded."""

    entities: int
    episodes: int
    facts: int
    tombstones: int
    blocked_by_tombstone: int


class Claim(Model):
    """One statement a stored fact was built from (in exports).

    ``said`` is when it was stated and ``dated`` whether it named its start
    (else the start is unknown); ``text``, ``importance`` and ``attributes``
    are what the statement carried.
    """

    from_: AwareDatetime | None = Field(default=None, alias="from")
    to: AwareDatetime | None = None
    end: bool = False
    said: AwareDatetime | None = None
    dated: bool = False
    recorded_at: AwareDatetime | None = None
    source_kind: str = ""
    confidence: float = 0.0
    episode_id: str = ""
    text: str = ""
    importance: int = 0
    attributes: dict[str, Any] = {}


class Revision(Model):
    """A change of belief about a stored fact's interval (in exports)."""

    until: AwareDatetime | None = None
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    supersedes: str = ""
    superseded_by: str = ""


class StoredFact(Model):
    """A fact as exported: with its claims, revisions and bookkeeping."""

    id: str
    scope: str = ""
    subject: str = ""
    subject_id: str
    predicate: str
    object: str = ""
    object_id: str = ""
    value: str = ""
    text: str = ""
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    recorded_at: AwareDatetime | None = None
    updated_at: AwareDatetime | None = None
    expired_at: AwareDatetime | None = None
    archived_at: AwareDatetime | None = None
    forgotten_at: AwareDatetime | None = None
    expires_at: AwareDatetime | None = None
    last_accessed_at: AwareDatetime | None = None
    supersedes: str = ""
    superseded_by: str = ""
    episode_ids: list[str] = []
    source_kind: str = ""
    confidence: float = 0.0
    importance: int = 0
    hits: int = 0
    attributes: dict[str, Any] = {}
    claims: list[Claim] = []
    revisions: list[Revision] = []
    conflicts: list[str] = []
    waiting: bool = False
    seq: int = 0


class StoredEntity(Model):
    """An entity as exported."""

    id: str
    scope: str = ""
    name: str
    type: str = ""
    aliases: list[str] = []
    summary: str = ""
    attributes: dict[str, Any] = {}
    created_at: AwareDatetime | None = None
    updated_at: AwareDatetime | None = None
    forgotten_at: AwareDatetime | None = None
    seq: int = 0


class StoredEpisode(Model):
    """An episode as exported."""

    id: str
    scope: str = ""
    kind: str = ""
    content: str = ""
    speaker: str = ""
    role: str = ""
    reference_time: AwareDatetime | None = None
    recorded_at: AwareDatetime | None = None
    source_kind: str = ""
    status: str
    error: str = ""
    attempts: int = 0
    next_attempt_at: AwareDatetime | None = None
    metadata: dict[str, Any] = {}
    idempotency_key: str = ""
    fact_ids: list[str] = []
    forgotten_at: AwareDatetime | None = None
    seq: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    extraction: StoredExtraction | None = None


class StoredDroppedFact(Model):
    """A dropped fact of an exported extraction report."""

    subject: str = ""
    predicate: str = ""
    object: str = ""
    reason: str
    detail: str = ""


class StoredExtraction(Model):
    """An extraction report as exported."""

    prompt: str = ""
    mode: str = ""
    repaired: bool = False
    proposed: int = 0
    kept: int = 0
    dropped: list[StoredDroppedFact] = []
    warnings: list[str] = []
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    skipped: str = ""
    error: str = ""


class Tombstone(Model):
    """What keeps a forgotten fact from coming back: a fingerprint, never the content."""

    scope: str = ""
    fingerprint: str
    fact_ids: list[str] = []
    at: AwareDatetime | None = None
    reason: str = ""


class ExportRecord(Model):
    """One line of an export: exactly one of its fields is set.

    ``raw`` is the line as the server wrote it; importing sends it back
    unchanged, so the round trip keeps the server's nanosecond times.
    """

    tombstone: Tombstone | None = None
    entity: StoredEntity | None = None
    episode: StoredEpisode | None = None
    fact: StoredFact | None = None
    _raw: dict[str, Any] = PrivateAttr(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ExportRecord:
        """Parse one export line, keeping it as the server wrote it."""
        rec = cls.model_validate(data)
        rec._raw = data
        return rec

    @property
    def raw(self) -> dict[str, Any]:
        """The line as the server wrote it, or this record's JSON when built by hand."""
        return self._raw or self.model_dump(mode="json", by_alias=True, exclude_none=True)


class Lag(Model):
    """How far a follower of the store (the search or the vector index) is behind it."""

    changes: int
    seconds: float


class Health(Model):
    """The answer of ``/healthz`` and ``/readyz``; on ``/readyz``, ``lag`` by follower
    (``search_index``, ``vector_index``)."""

    status: str
    lag: dict[str, Lag] = {}


class ErrorDetail(Model):
    """The content of an error answer."""

    code: str
    message: str
    fields: dict[str, str] = {}


class ErrorBody(Model):
    """The one error shape of every error answer."""

    error: ErrorDetail


SCHEMAS: dict[str, type[Model]] = {
    "AuditList": AuditList,
    "AuditRecord": AuditEntry,
    "ChangeItem": ChangeItem,
    "Claim": Claim,
    "ContextEpisode": ContextEpisode,
    "ContextFact": ContextFact,
    "ContextRequest": ContextRequest,
    "ContextResponse": Context,
    "Entity": Entity,
    "EntityDetail": EntityDetail,
    "Timeline": Timeline,
    "EntityGraph": EntityGraph,
    "EntityMatch": EntityMatch,
    "EntityMatchList": EntityMatchList,
    "Episode": Episode,
    "EpisodeAccepted": EpisodeAccepted,
    "EpisodeList": EpisodeList,
    "EpisodeRequest": EpisodeRequest,
    "DroppedFact": DroppedFact,
    "Error": ErrorBody,
    "ErrorDetail": ErrorDetail,
    "ExportRecord": ExportRecord,
    "Explanation": Explanation,
    "Extraction": Extraction,
    "Fact": Fact,
    "FactDetail": FactDetail,
    "FactInput": FactInput,
    "FactList": FactList,
    "FactResult": FactResult,
    "FactsRequest": FactsRequest,
    "FactsResponse": FactsResponse,
    "ForgetRequest": ForgetRequest,
    "ForgetItem": ForgetItem,
    "ForgetResult": ForgetResult,
    "GraphNode": GraphNode,
    "Health": Health,
    "Lag": Lag,
    "Period": Period,
    "NameLink": NameLink,
    "NameMatch": NameMatch,
    "Path": Path,
    "PathHop": PathHop,
    "ImportResult": ImportResult,
    "Ontology": Ontology,
    "OntologyEntityType": OntologyEntityType,
    "OntologyPredicate": OntologyPredicate,
    "Overview": Overview,
    "OverviewCounts": OverviewCounts,
    "Revision": Revision,
    "SearchHit": SearchHit,
    "SearchRequest": SearchRequest,
    "SearchResponse": SearchResponse,
    "Session": Session,
    "StoredEntity": StoredEntity,
    "StoredDroppedFact": StoredDroppedFact,
    "StoredEpisode": StoredEpisode,
    "StoredExtraction": StoredExtraction,
    "StoredFact": StoredFact,
    "Tombstone": Tombstone,
}
"""The client model of each schema of ``/openapi.json``, by schema name."""
