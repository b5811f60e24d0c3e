"""The synchronous client."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

import httpx

from graphmem import _core
from graphmem._core import Call, FactLike, RecordLike, Settings, TimeLike
from graphmem.models import (
    AuditEntry,
    AuditList,
    Context,
    EntityDetail,
    EntityGraph,
    EntityMatch,
    EntityMatchList,
    Episode,
    EpisodeAccepted,
    EpisodeList,
    ExportRecord,
    Fact,
    FactDetail,
    FactList,
    FactResult,
    FactsResponse,
    ForgetResult,
    Health,
    ImportResult,
    Ontology,
    Overview,
    Model,
    Remembered,
    SearchHits,
    SearchResponse,
    Session,
    Timeline,
)

M = TypeVar("M", bound=Model)


class Graphmem:
    """A client of one graphmem server.

    ``base_url`` defaults to ``GRAPHMEM_URL`` (else http://127.0.0.1:8080) and
    ``api_key`` to ``GRAPHMEM_API_KEY``; ``scope`` picks one of the scopes the
    key may use (its first when None). ``timeout`` bounds each request, in
    seconds. Reads, and writes that carry an idempotency key, are sent again
    up to ``max_retries`` times after a 429 or 503, waiting as long as the
    server's Retry-After asks (else ``backoff`` seconds, doubling). Pass
    ``http_client`` to use your own ``httpx.Client`` (proxies, transports);
    it is then yours to close.

    Use it as a context manager, or call ``close()``::

        with Graphmem() as g:
            g.add_facts([{"subject": "payments-db", "predicate": "port", "value": "3307"}])
            print(g.context("which port does payments-db use?").context)
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        scope: str | None = None,
        timeout: float = 10.0,
        *,
        max_retries: int = 3,
        backoff: float = 0.5,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.settings = Settings.resolve(base_url, api_key, scope, timeout, max_retries, backoff)
        self._owned = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout)

    @property
    def base_url(self) -> str:
        """The server's URL."""
        return self.settings.base_url

    def close(self) -> None:
        """Close the connections (not those of an ``http_client`` you passed)."""
        if self._owned:
            self._http.close()

    def __enter__(self) -> Graphmem:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Graphmem(base_url={self.base_url!r}, scope={self.settings.scope!r})"

    # ---- transport ------------------------------------------------------

    def _send(self, call: Call, *, content: Any = None, stream: bool = False) -> httpx.Response:
        s = self.settings
        headers = s.headers()
        if content is not None:
            headers["Content-Type"] = "application/x-ndjson"
        attempt = 0
        while True:
            request = self._http.build_request(
                call.method,
                s.base_url + call.path,
                params=call.params or None,
                json=call.body,
                content=content,
                headers=headers,
                timeout=call.timeout_for(s),
            )
            try:
                response = self._http.send(request, stream=stream)
            except httpx.TransportError as exc:
                delay = _core.transport_retry_delay(s, call, attempt, exc)
                if delay is None:
                    raise _core.connection_error(s, call, exc) from exc
            else:
                if response.status_code < 400:
                    return response
                body = response.read()
                response.close()
                delay = _core.retry_delay(s, call, attempt, response)
                if delay is None:
                    raise _core.error_from_response(response, body)
            time.sleep(delay)
            attempt += 1

    def _get(self, call: Call, model: type[M]) -> M:
        return _core.parse(model, call, self._send(call))

    def _pages(self, pager: _core.Pager[Any], model: type[FactList] | type[EpisodeList] | type[Timeline]) -> Iterator[Any]:
        while not pager.done:
            page = self._get(pager.call(), model)
            yield from pager.feed(page.items, page.next_cursor)

    # ---- facts ----------------------------------------------------------

    def add_facts(self, facts: Iterable[FactLike]) -> list[FactResult]:
        """Add structured facts (``FactInput`` or mappings of its keys); one result per fact, in order.

        The temporal rules decide what each one does (``result.action``): a new
        value of a one-valued predicate supersedes the one in force, a late one
        slots in as history, a repeated one corroborates. Not retried: the
        request carries no idempotency key.
        """
        return self._get(_core.add_facts(facts), FactsResponse).results

    def iter_facts(
        self,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,
        as_of: TimeLike | None = None,
        known_at: TimeLike | None = None,
        include_history: bool = False,
        *,
        limit: int | None = None,
        page_size: int = 100,
    ) -> Iterator[Fact]:
        """Iterate over the facts valid at ``as_of`` as known at ``known_at``, fetching pages as needed.

        ``subject`` and ``object`` are entity names (or aliases; ``object`` may
        be a literal value); ``include_history`` yields every fact regardless
        of ``as_of``. At most ``limit`` facts when given.
        """
        pager = _core.fact_pager(subject, predicate, object, as_of, known_at, include_history, limit, page_size)
        return self._pages(pager, FactList)

    def facts(
        self,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,
        as_of: TimeLike | None = None,
        known_at: TimeLike | None = None,
        include_history: bool = False,
        *,
        limit: int | None = None,
        page_size: int = 100,
    ) -> list[Fact]:
        """The facts of ``iter_facts`` as a list: every page, or the first ``limit`` facts."""
        return list(
            self.iter_facts(
                subject, predicate, object, as_of, known_at, include_history, limit=limit, page_size=page_size
            )
        )

    def fact(self, fact_id: str, known_at: TimeLike | None = None) -> FactDetail:
        """One fact with its supersession chain and the episodes it came from, as believed at ``known_at``
        (default now): a fact retracted by then raises NotFoundError."""
        return self._get(_core.fact(fact_id, known_at), FactDetail)

    def retract(self, fact_id: str) -> Fact:
        """Retract a fact: it was never true. Queries with an earlier ``known_at`` still see it."""
        return self._get(_core.retract(fact_id), Fact)

    def timeline(
        self,
        name_or_id: str,
        predicate: str | None = None,
        known_at: TimeLike | None = None,
        limit: int | None = None,
        *,
        page_size: int = 1000,
    ) -> list[Fact]:
        """Every fact of an entity over time (the first ``limit`` if given), in valid-time order; the entity
        by id, name or alias. Pages are fetched as needed."""
        return list(self._pages(_core.timeline_pager(name_or_id, predicate, known_at, limit, page_size), Timeline))

    # ---- entities -------------------------------------------------------

    def find_entities(self, name: str, limit: int | None = None) -> list[EntityMatch]:
        """Entities by name: exact, then alias, then fuzzy matches."""
        return self._get(_core.find_entities(name, limit), EntityMatchList).items

    def entity(self, name_or_id: str) -> EntityDetail:
        """One entity (by id, name or alias) with the facts about it valid now."""
        return self._get(_core.get(f"/v1/entities/{_core.path_id(name_or_id)}"), EntityDetail)

    def entity_graph(
        self, name_or_id: str, as_of: TimeLike | None = None, depth: int | None = None, limit: int | None = None
    ) -> EntityGraph:
        """The entities and relationships around an entity (by id, name or alias; ``depth`` 1 or 2 hops,
        default 2) as of a valid time, ended relationships included; at most ``limit`` entities."""
        return self._get(_core.entity_graph(name_or_id, as_of, depth, limit), EntityGraph)

    # ---- recall ---------------------------------------------------------

    def search(
        self,
        query: str,
        limit: int = 10,
        as_of: TimeLike | None = None,
        types: Sequence[str] | None = None,
        *,
        known_at: TimeLike | None = None,
        include_history: bool = False,
    ) -> SearchHits:
        """Ranked facts, entities and episodes (``types`` narrows to some of them) for a query.

        The result is a list of hits that also says which names of the query
        memory knows nothing about (``.unresolved``) or that name several
        entities (``.ambiguous``)."""
        return SearchHits(self._get(_core.search(query, limit, as_of, known_at, include_history, types), SearchResponse))

    def context(
        self,
        query: str,
        as_of: TimeLike | None = None,
        known_at: TimeLike | None = None,
        max_tokens: int | None = None,
        mode: str = "auto",
        format: str = "text",
        *,
        focus: Sequence[str] | None = None,
        reference_time: TimeLike | None = None,
    ) -> Context:
        """What to put in the prompt for ``query``: ``.context`` is the block, the rest what it cites.

        ``mode`` is auto (history for questions about time, change or causes),
        current or history; ``format`` is text, markdown or json; ``focus``
        names entities the answer is about; ``reference_time`` is when the
        question is asked, against which relative times in it ("last March")
        are read (default ``as_of``, else now).
        """
        call = _core.context(query, as_of, known_at, max_tokens, mode, format, focus, reference_time)
        return self._get(call, Context)

    # ---- episodes -------------------------------------------------------

    def remember(
        self,
        content: str,
        speaker: str | None = None,
        role: str | None = None,
        reference_time: TimeLike | None = None,
        kind: str = "message",
        wait: bool = False,
        *,
        source_kind: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Remembered:
        """Store what was said or what happened, verbatim, and queue it for extraction into facts.

        ``kind`` is message, text or json; ``role`` user, assistant, system or
        tool; ``reference_time`` when it happened (default now). With ``wait``
        the server answers once extraction is over, and the episode's
        ``fact_ids`` are filled. The request always carries an idempotency key
        (a new one unless given; a repeated key returns the episode stored
        first), so it is safely retried. The episode's ``warning`` is the server's, when it
        gave one (no extraction model, say).
        """
        accepted = self._get(
            _core.remember(content, speaker, role, reference_time, kind, wait, source_kind, metadata, idempotency_key),
            EpisodeAccepted,
        )
        episode = self._get(_core.get(f"/v1/episodes/{_core.path_id(accepted.episode_id)}"), Remembered)
        episode.warning = accepted.warning
        return episode

    def episode(self, episode_id: str) -> Episode:
        """One episode with its extraction status and the facts derived from it."""
        return self._get(_core.get(f"/v1/episodes/{_core.path_id(episode_id)}"), Episode)

    def iter_episodes(
        self, status: str | None = None, *, limit: int | None = None, page_size: int = 100
    ) -> Iterator[Episode]:
        """Iterate over episodes (of one status: queued, processing, done or failed), fetching pages as needed."""
        return self._pages(_core.episode_pager(status, limit, page_size), EpisodeList)

    def episodes(self, status: str | None = None, *, limit: int | None = None, page_size: int = 100) -> list[Episode]:
        """The episodes of ``iter_episodes`` as a list."""
        return list(self.iter_episodes(status, limit=limit, page_size=page_size))

    def retry_episode(self, episode_id: str) -> EpisodeAccepted:
        """Queue a failed episode for extraction again."""
        call = Call("POST", f"/v1/episodes/{_core.path_id(episode_id)}/retry")
        return self._get(call, EpisodeAccepted)

    # ---- forgetting -----------------------------------------------------

    def forget(
        self,
        fact_ids: Sequence[str] | None = None,
        entity: str | None = None,
        query: str | None = None,
        episode_id: str | None = None,
        mode: str = "forget",
        dry_run: bool = False,
        *,
        reason: str | None = None,
        limit: int | None = None,
    ) -> ForgetResult:
        """Forget facts, selected by ids, entity, search query or source episode.

        ``forget`` takes them off every recall path and keeps tombstones so
        they cannot come back; ``purge`` also deletes their source episodes.
        ``dry_run`` only lists what would go. ``limit`` bounds what a query
        selects (server default 50).
        """
        return self._get(
            _core.forget(fact_ids, entity, query, episode_id, mode, dry_run, reason, limit), ForgetResult
        )

    def audit(self, limit: int | None = None) -> list[AuditEntry]:
        """The scope's forget and purge records, most recent first."""
        return self._get(_core.audit(limit), AuditList).items

    # ---- export and import ----------------------------------------------

    def export(self) -> Iterator[ExportRecord]:
        """Everything in the scope, one record at a time, streamed as the server writes it."""
        response = self._send(_core.export(), stream=True)
        try:
            for line in response.iter_lines():
                record = _core.export_record(line)
                if record is not None:
                    yield record
        finally:
            response.close()

    def import_(self, records: Iterable[RecordLike]) -> ImportResult:
        """Load export records into the scope, keeping ids and times; tombstoned facts stay out.

        Records are streamed, so an export can be piped straight through:
        ``dest.import_(source.export())``. Not retried.
        """
        lines = (_core.import_line(r) for r in records)
        call = Call("POST", "/v1/import")
        return _core.parse(ImportResult, call, self._send(call, content=lines))

    # ---- operations -----------------------------------------------------

    def overview(self, limit: int | None = None) -> Overview:
        """Counts of the scope's facts, entities and episodes, and its latest ``limit`` changes (default
        20), newest first."""
        return self._get(_core.overview(limit), Overview)

    def ontology(self) -> Ontology:
        """The entity types and predicates the server knows (cardinality, synonyms, TTL)."""
        return self._get(_core.get("/v1/ontology"), Ontology)

    def session(self) -> Session:
        """The scope of this client's requests and the scopes its key may use."""
        return self._get(_core.get("/v1/session"), Session)

    def health(self) -> Health:
        """Liveness: the server answers."""
        return self._get(_core.get("/healthz"), Health)

    def ready(self) -> Health:
        """Readiness: the store answers; raises ``UnavailableError`` when it does not."""
        return self._get(Call("GET", "/readyz"), Health)

    def openapi(self) -> dict[str, Any]:
        """The server's OpenAPI document."""
        doc: dict[str, Any] = self._send(_core.get("/openapi.json")).json()
        return doc
