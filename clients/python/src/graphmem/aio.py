"""The asynchronous client: ``AsyncGraphmem``, the same surface as ``Graphmem`` with ``async`` methods."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Mapping, Sequence
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


class AsyncGraphmem:
    """A client of one graphmem server.

    ``base_url`` defaults to ``GRAPHMEM_URL`` (else http://127.0.0.1:8080) and
    ``api_key`` to ``GRAPHMEM_API_KEY``; ``scope`` picks one of the scopes the
    key may use (its first when None). ``timeout`` bounds each request, in
    seconds. Reads, and writes that carry an idempotency key, are sent again
    up to ``max_retries`` times after a 429 or 503, waiting as long as the
    server's Retry-After asks (else ``backoff`` seconds, doubling). Pass
    ``http_client`` to use your own ``httpx.AsyncClient`` (proxies, transports);
    it is then yours to close.

    Use it as an async context manager, or await ``close()``::

        async with AsyncGraphmem() as g:
            await g.add_facts([{"subject": "payments-db", "predicate": "port", "value": "3307"}])
            print((await g.context("which port does payments-db use?")).context)
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
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.settings = Settings.resolve(base_url, api_key, scope, timeout, max_retries, backoff)
        self._owned = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    @property
    def base_url(self) -> str:
        """The server's URL."""
        return self.settings.base_url

    async def close(self) -> None:
        """Close the connections (not those of an ``http_client`` you passed)."""
        if self._owned:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncGraphmem:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"AsyncGraphmem(base_url={self.base_url!r}, scope={self.settings.scope!r})"

    # ---- transport ------------------------------------------------------

    async def _send(self, call: Call, *, content: Any = None, stream: bool = False) -> httpx.Response:
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
                response = await self._http.send(request, stream=stream)
            except httpx.TransportError as exc:
                delay = _core.transport_retry_delay(s, call, attempt, exc)
                if delay is None:
                    raise _core.connection_error(s, call, exc) from exc
            else:
                if response.status_code < 400:
                    return response
                body = await response.aread()
                await response.aclose()
                delay = _core.retry_delay(s, call, attempt, response)
                if delay is None:
                    raise _core.error_from_response(response, body)
            await asyncio.sleep(delay)
            attempt += 1

    async def _get(self, call: Call, model: type[M]) -> M:
        return _core.parse(model, call, await self._send(call))

    async def _pages(self, pager: _core.Pager[Any], model: type[FactList] | type[EpisodeList] | type[Timeline]) -> AsyncIterator[Any]:
        while not pager.done:
            page = await self._get(pager.call(), model)
            for item in pager.feed(page.items, page.next_cursor):
                yield item

    # ---- facts ----------------------------------------------------------

    async def add_facts(self, facts: Iterable[FactLike]) -> list[FactResult]:
        """Add structured facts (``FactInput`` or mappings of its keys); one result per fact, in order.

        The temporal rules decide what each one does (``result.action``): a new
        value of a one-valued predicate supersedes the one in force, a late one
        slots in as history, a repeated one corroborates. Not retried: the
        request carries no idempotency key.
        """
        return (await self._get(_core.add_facts(facts), FactsResponse)).results

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
    ) -> AsyncIterator[Fact]:
        """Iterate (``async for``) over the facts valid at ``as_of`` as known at ``known_at``, fetching pages as needed.

        ``subject`` and ``object`` are entity names (or aliases; ``object`` may
        be a literal value); ``include_history`` yields every fact regardless
        of ``as_of``. At most ``limit`` facts when given.
        """
        pager = _core.fact_pager(subject, predicate, object, as_of, known_at, include_history, limit, page_size)
        return self._pages(pager, FactList)

    async def facts(
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
        it = self.iter_facts(
            subject, predicate, object, as_of, known_at, include_history, limit=limit, page_size=page_size
        )
        return [f async for f in it]

    async def fact(self, fact_id: str, known_at: TimeLike | None = None) -> FactDetail:
        """One fact with its supersession chain and the episodes it came from, as believed at ``known_at``
        (default now): a fact retracted by then raises NotFoundError."""
        return await self._get(_core.fact(fact_id, known_at), FactDetail)

    async def retract(self, fact_id: str) -> Fact:
        """Retract a fact: it was never true. Queries with an earlier ``known_at`` still see it."""
        return await self._get(_core.retract(fact_id), Fact)

    async def timeline(
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
        pager = _core.timeline_pager(name_or_id, predicate, known_at, limit, page_size)
        return [f async for f in self._pages(pager, Timeline)]

    # ---- entities -------------------------------------------------------

    async def find_entities(self, name: str, limit: int | None = None) -> list[EntityMatch]:
        """Entities by name: exact, then alias, then fuzzy matches."""
        return (await self._get(_core.find_entities(name, limit), EntityMatchList)).items

    async def entity(self, name_or_id: str) -> EntityDetail:
        """One entity (by id, name or alias) with the facts about it valid now."""
        return await self._get(_core.get(f"/v1/entities/{_core.path_id(name_or_id)}"), EntityDetail)

    async def entity_graph(
        self, name_or_id: str, as_of: TimeLike | None = None, depth: int | None = None, limit: int | None = None
    ) -> EntityGraph:
        """The entities and relationships around an entity (by id, name or alias; ``depth`` 1 or 2 hops,
        default 2) as of a valid time, ended relationships included; at most ``limit`` entities."""
        return await self._get(_core.entity_graph(name_or_id, as_of, depth, limit), EntityGraph)

    # ---- recall ---------------------------------------------------------

    async def search(
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
        return SearchHits(await self._get(_core.search(query, limit, as_of, known_at, include_history, types), SearchResponse))

    async def context(
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
        return await self._get(call, Context)

    # ---- episodes -------------------------------------------------------

    async def remember(
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
        accepted = await self._get(
            _core.remember(content, speaker, role, reference_time, kind, wait, source_kind, metadata, idempotency_key),
            EpisodeAccepted,
        )
        episode = await self._get(_core.get(f"/v1/episodes/{_core.path_id(accepted.episode_id)}"), Remembered)
        episode.warning = accepted.warning
        return episode

    async def episode(self, episode_id: str) -> Episode:
        """One episode with its extraction status and the facts derived from it."""
        return await self._get(_core.get(f"/v1/episodes/{_core.path_id(episode_id)}"), Episode)

    def iter_episodes(
        self, status: str | None = None, *, limit: int | None = None, page_size: int = 100
    ) -> AsyncIterator[Episode]:
        """Iterate (``async for``) over episodes (of one status: queued, processing, done or failed), fetching pages as needed."""
        return self._pages(_core.episode_pager(status, limit, page_size), EpisodeList)

    async def episodes(self, status: str | None = None, *, limit: int | None = None, page_size: int = 100) -> list[Episode]:
        """The episodes of ``iter_episodes`` as a list."""
        return [e async for e in self.iter_episodes(status, limit=limit, page_size=page_size)]

    async def retry_episode(self, episode_id: str) -> EpisodeAccepted:
        """Queue a failed episode for extraction again."""
        call = Call("POST", f"/v1/episodes/{_core.path_id(episode_id)}/retry")
        return await self._get(call, EpisodeAccepted)

    # ---- forgetting -----------------------------------------------------

    async def forget(
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
        return await self._get(
            _core.forget(fact_ids, entity, query, episode_id, mode, dry_run, reason, limit), ForgetResult
        )

    async def audit(self, limit: int | None = None) -> list[AuditEntry]:
        """The scope's forget and purge records, most recent first."""
        return (await self._get(_core.audit(limit), AuditList)).items

    # ---- export and import ----------------------------------------------

    async def export(self) -> AsyncIterator[ExportRecord]:
        """Everything in the scope (``async for``), one record at a time, streamed as the server writes it."""
        response = await self._send(_core.export(), stream=True)
        try:
            async for line in response.aiter_lines():
                record = _core.export_record(line)
                if record is not None:
                    yield record
        finally:
            await response.aclose()

    async def import_(self, records: Iterable[RecordLike] | AsyncIterable[RecordLike]) -> ImportResult:
        """Load export records into the scope, keeping ids and times; tombstoned facts stay out.

        Records are streamed, so an export can be piped straight through:
        ``dest.import_(source.export())``. Not retried.
        """
        call = Call("POST", "/v1/import")
        return _core.parse(ImportResult, call, await self._send(call, content=_lines(records)))

    # ---- operations -----------------------------------------------------

    async def overview(self, limit: int | None = None) -> Overview:
        """Counts of the scope's facts, entities and episodes, and its latest ``limit`` changes (default
        20), newest first."""
        return await self._get(_core.overview(limit), Overview)

    async def ontology(self) -> Ontology:
        """The entity types and predicates the server knows (cardinality, synonyms, TTL)."""
        return await self._get(_core.get("/v1/ontology"), Ontology)

    async def session(self) -> Session:
        """The scope of this client's requests and the scopes its key may use."""
        return await self._get(_core.get("/v1/session"), Session)

    async def health(self) -> Health:
        """Liveness: the server answers."""
        return await self._get(_core.get("/healthz"), Health)

    async def ready(self) -> Health:
        """Readiness: the store answers; raises ``UnavailableError`` when it does not."""
        return await self._get(Call("GET", "/readyz"), Health)

    async def openapi(self) -> dict[str, Any]:
        """The server's OpenAPI document."""
        doc: dict[str, Any] = (await self._send(_core.get("/openapi.json"))).json()
        return doc


async def _lines(records: Iterable[RecordLike] | AsyncIterable[RecordLike]) -> AsyncIterator[bytes]:
    if isinstance(records, AsyncIterable):
        async for r in records:
            yield _core.import_line(r)
    else:
        for r in records:
            yield _core.import_line(r)
