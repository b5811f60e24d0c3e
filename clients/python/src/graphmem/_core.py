"""What the sync and async clients share: settings, the calls they make, retries, errors and paging.

Each client method builds a ``Call`` here and parses the answer with a
model; the two clients differ only in how they send and wait.
"""

from __future__ import annotations

import email.utils
import json
import os
import random
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx

from graphmem._times import optional_time
from graphmem.errors import GraphmemConnectionError, GraphmemError, error_class
from graphmem.models import (
    ContextRequest,
    EpisodeRequest,
    ErrorBody,
    ExportRecord,
    FactInput,
    ForgetRequest,
    Model,
    SearchRequest,
)

DEFAULT_URL = "http://127.0.0.1:8080"
SCOPE_HEADER = "X-Graphmem-Scope"
REQUEST_ID_HEADER = "X-Request-Id"

TimeLike = datetime | date | str
"""A time argument: a ``datetime`` (naive means local time), a ``date`` (midnight UTC) or a string."""

FactLike = FactInput | Mapping[str, Any]
"""A fact to add: a ``FactInput`` or a mapping with the same keys."""

RecordLike = ExportRecord | Mapping[str, Any]
"""An export line to import: an ``ExportRecord`` or the JSON object itself."""

RETRY_STATUSES = frozenset({429, 503})
WAIT_TIMEOUT = 75.0
"""The least time ``remember(wait=True)`` is given: the server waits up to 60 s for extraction."""
MAX_RETRY_WAIT = 30.0
"""Longest Retry-After the client waits for; past it the error is raised at once."""


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("graphmem")
    except Exception:  # not installed: running from a source tree
        return "0+unknown"


VERSION = _version()


@dataclass(frozen=True)
class Settings:
    """How a client reaches graphmem; see ``Graphmem`` for each setting."""

    base_url: str
    api_key: str | None
    scope: str | None
    timeout: float
    max_retries: int
    backoff: float

    @classmethod
    def resolve(
        cls,
        base_url: str | None,
        api_key: str | None,
        scope: str | None,
        timeout: float,
        max_retries: int,
        backoff: float,
    ) -> Settings:
        """Fill unset values from GRAPHMEM_URL and GRAPHMEM_API_KEY, then the defaults."""
        url = base_url or os.environ.get("GRAPHMEM_URL") or DEFAULT_URL
        key = api_key if api_key is not None else os.environ.get("GRAPHMEM_API_KEY") or None
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        return cls(url.rstrip("/"), key, scope, timeout, max_retries, backoff)

    def headers(self) -> dict[str, str]:
        """Headers every request carries."""
        h = {"User-Agent": f"graphmem-python/{VERSION}", "Accept": "application/json"}
        if self.api_key:
            h["Authorization"] = f"Bearer {self.api_key}"
        if self.scope:
            h[SCOPE_HEADER] = self.scope
        return h


@dataclass(frozen=True)
class Call:
    """One HTTP request of the API. ``retry`` says it may be sent again after a 429 or 503;
    ``timeout``, when set, is the least time the call is given whatever the client's timeout."""

    method: str
    path: str
    params: dict[str, str] = field(default_factory=dict)
    body: Any = None
    retry: bool = False
    timeout: float | None = None

    def timeout_for(self, settings: Settings) -> float:
        """The time this call is given."""
        return max(settings.timeout, self.timeout or 0.0)


# ---- retries ------------------------------------------------------------


def retry_after(response: httpx.Response) -> float | None:
    """The wait a Retry-After header asks for, in seconds (delta or HTTP date), or None."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def backoff_delay(settings: Settings, attempt: int) -> float:
    """Exponential backoff with jitter for the attempt-th retry (0-based)."""
    return float(settings.backoff * (2**attempt) * (0.5 + random.random() / 2))


def retry_delay(settings: Settings, call: Call, attempt: int, response: httpx.Response) -> float | None:
    """How long to wait before sending ``call`` again after ``response``, or None to give up."""
    if response.status_code not in RETRY_STATUSES or not call.retry or attempt >= settings.max_retries:
        return None
    asked = retry_after(response)
    if asked is None:
        return backoff_delay(settings, attempt)
    if asked > MAX_RETRY_WAIT:
        return None
    return asked


def transport_retry_delay(settings: Settings, call: Call, attempt: int, exc: httpx.TransportError) -> float | None:
    """How long to wait before sending ``call`` again after a failed connection, or None to give up.

    A refused or timed-out connection never reached the server, so any call
    may be sent again; a connection that broke later only for retryable calls.
    """
    if attempt >= settings.max_retries:
        return None
    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)) or call.retry:
        return backoff_delay(settings, attempt)
    return None


# ---- errors -------------------------------------------------------------


def error_from_response(response: httpx.Response, body: bytes) -> GraphmemError:
    """The error an answer of status 4xx/5xx stands for."""
    status = response.status_code
    rid = response.headers.get(REQUEST_ID_HEADER)
    try:
        detail = ErrorBody.model_validate_json(body).error
    except ValueError:
        reason = response.reason_phrase or "error"
        text = body.decode("utf-8", "replace").strip()[:200]
        message = f"the server answered {status} {reason}" + (f": {text}" if text else "")
        return error_class(status, "")(message, status=status, request_id=rid)
    return error_class(status, detail.code)(
        detail.message, status=status, code=detail.code, fields=detail.fields, request_id=rid
    )


M = TypeVar("M", bound=Model)


def parse(model: type[M], call: Call, response: httpx.Response) -> M:
    """The answer to ``call`` as ``model``; an answer of another shape (a proxy's page, a server of
    another version) is a GraphmemError saying so."""
    try:
        return model.model_validate_json(response.content)
    except ValueError as exc:
        raise GraphmemError(
            f"unexpected answer to {call.method} {call.path} ({response.status_code}, "
            f"{response.headers.get('Content-Type', 'no content type')}): {exc}",
            status=response.status_code,
            request_id=response.headers.get(REQUEST_ID_HEADER),
        ) from exc


def connection_error(settings: Settings, call: Call, exc: httpx.TransportError) -> GraphmemConnectionError:
    """A clear error for a request that got no answer."""
    where = f"{call.method} {settings.base_url}{call.path}"
    if isinstance(exc, httpx.ConnectTimeout):
        msg = f"cannot reach graphmem at {settings.base_url}: no connection within {settings.timeout:g}s"
    elif isinstance(exc, httpx.ConnectError):
        msg = (
            f"cannot reach graphmem at {settings.base_url} ({exc or 'connection failed'}); "
            "is `graphmem serve` running there? Set base_url or GRAPHMEM_URL to its address"
        )
    elif isinstance(exc, httpx.TimeoutException):
        msg = f"graphmem did not answer {where} within {settings.timeout:g}s (raise timeout= for slow calls)"
    else:
        msg = f"the connection to graphmem broke during {where}: {exc or type(exc).__name__}"
    return GraphmemConnectionError(msg)


# ---- paging -------------------------------------------------------------

T = TypeVar("T")


class Pager(Generic[T]):
    """Walks the pages of a list endpoint, asking for no more items than ``limit``."""

    def __init__(self, path: str, params: dict[str, str], limit: int | None, page_size: int) -> None:
        if limit is not None and limit < 0:
            raise ValueError("limit must be 0 or more")
        if not 1 <= page_size <= 1000:
            raise ValueError("page_size must be between 1 and 1000")
        self.path, self.params, self.limit, self.page_size = path, params, limit, page_size
        self.cursor: str | None = None
        self.seen = 0
        self.done = limit == 0

    def call(self) -> Call:
        """The request for the next page."""
        size = self.page_size if self.limit is None else min(self.page_size, self.limit - self.seen)
        params = dict(self.params, limit=str(size))
        if self.cursor:
            params["cursor"] = self.cursor
        return Call("GET", self.path, params, retry=True)

    def feed(self, items: Sequence[T], next_cursor: str | None) -> Iterator[T]:
        """Yield a page's items within the limit and note where the next page starts."""
        for item in items:
            if self.limit is not None and self.seen >= self.limit:
                break
            self.seen += 1
            yield item
        self.cursor = next_cursor
        self.done = (
            not next_cursor or not items or (self.limit is not None and self.seen >= self.limit)
        )


# ---- the calls ----------------------------------------------------------


def _params(**values: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in values.items():
        if v is None:
            continue
        if isinstance(v, bool):
            out[k] = "true" if v else "false"
        elif isinstance(v, (datetime, date)):
            out[k] = optional_time(v) or ""
        else:
            out[k] = str(v)
    return out


def _body(model: Model) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def path_id(value: str) -> str:
    """An id or name as one path segment."""
    if not value:
        raise ValueError("an id must not be empty")
    return quote(value, safe="")


def fact_body(fact: FactLike) -> dict[str, Any]:
    """One fact of an ``add_facts`` batch as JSON.

    A mapping is sent with only its times formatted, so a misspelt key is
    reported by the server by name rather than dropped here.
    """
    if isinstance(fact, FactInput):
        body: dict[str, Any] = _body(fact)
        return body
    out = dict(fact)
    for k in ("valid_from", "valid_to"):
        if isinstance(out.get(k), (datetime, date)):
            out[k] = optional_time(out[k])
    return out


def add_facts(facts: Iterable[FactLike]) -> Call:
    """``POST /v1/facts``: a write without an idempotency key, so never sent twice."""
    body = [fact_body(f) for f in facts]
    if not body:
        raise ValueError("add_facts needs at least one fact")
    return Call("POST", "/v1/facts", body={"facts": body})


def fact_pager(
    subject: str | None,
    predicate: str | None,
    object: str | None,
    as_of: TimeLike | None,
    known_at: TimeLike | None,
    include_history: bool,
    limit: int | None,
    page_size: int,
) -> Pager[Any]:
    """The pages of ``GET /v1/facts``."""
    params = _params(
        subject=subject,
        predicate=predicate,
        object=object,
        as_of=as_of,
        known_at=known_at,
        include_history=include_history or None,
    )
    return Pager("/v1/facts", params, limit, page_size)


def episode_pager(status: str | None, limit: int | None, page_size: int) -> Pager[Any]:
    """The pages of ``GET /v1/episodes``."""
    return Pager("/v1/episodes", _params(status=status), limit, page_size)


def timeline_pager(
    entity: str, predicate: str | None, known_at: TimeLike | None, limit: int | None, page_size: int
) -> Pager[Any]:
    """The pages of ``GET /v1/entities/{id}/timeline``."""
    path = f"/v1/entities/{path_id(entity)}/timeline"
    return Pager(path, _params(predicate=predicate, known_at=known_at), limit, page_size)


def fact(fact_id: str, known_at: TimeLike | None) -> Call:
    """``GET /v1/facts/{id}``."""
    return Call("GET", f"/v1/facts/{path_id(fact_id)}", _params(known_at=known_at), retry=True)


def entity_graph(entity_id: str, as_of: TimeLike | None, depth: int | None, limit: int | None) -> Call:
    """``GET /v1/entities/{id}/graph``."""
    return Call(
        "GET",
        f"/v1/entities/{path_id(entity_id)}/graph",
        _params(as_of=as_of, depth=depth, limit=limit),
        retry=True,
    )


def find_entities(name: str, limit: int | None) -> Call:
    """``GET /v1/entities?name=``."""
    return Call("GET", "/v1/entities", _params(name=name, limit=limit), retry=True)


def search(
    query: str,
    limit: int | None,
    as_of: TimeLike | None,
    known_at: TimeLike | None,
    include_history: bool,
    types: Sequence[str] | None,
) -> Call:
    """``POST /v1/search``: a read, so retried."""
    req = SearchRequest(
        query=query,
        limit=limit,
        as_of=as_of,
        known_at=known_at,
        include_history=include_history or None,
        types=list(types) if types is not None else None,
    )
    return Call("POST", "/v1/search", body=_body(req), retry=True)


def context(
    query: str,
    as_of: TimeLike | None,
    known_at: TimeLike | None,
    max_tokens: int | None,
    mode: str | None,
    format: str | None,
    focus: Sequence[str] | None,
    reference_time: TimeLike | None = None,
) -> Call:
    """``POST /v1/context``: a read, so retried."""
    req = ContextRequest(
        query=query,
        as_of=as_of,
        known_at=known_at,
        reference_time=reference_time,
        max_tokens=max_tokens,
        mode=mode,
        format=format,
        focus=list(focus) if focus is not None else None,
    )
    return Call("POST", "/v1/context", body=_body(req), retry=True)


def remember(
    content: str,
    speaker: str | None,
    role: str | None,
    reference_time: TimeLike | None,
    kind: str | None,
    wait: bool,
    source_kind: str | None,
    metadata: Mapping[str, Any] | None,
    idempotency_key: str | None,
) -> Call:
    """``POST /v1/episodes``. It always carries an idempotency key (a new one
    unless given), so sending it again after a 429/503 cannot store it twice."""
    req = EpisodeRequest(
        content=content,
        kind=kind,
        speaker=speaker,
        role=role,
        reference_time=reference_time,
        source_kind=source_kind,
        idempotency_key=idempotency_key or f"py-{uuid.uuid4()}",
        metadata=dict(metadata) if metadata is not None else None,
    )
    # The server answers a waited episode within its wait timeout (60 s by
    # default), so the call is given longer than that.
    timeout = WAIT_TIMEOUT if wait else None
    return Call("POST", "/v1/episodes", _params(wait=wait or None), body=_body(req), retry=True, timeout=timeout)


def get(path: str) -> Call:
    """A GET of one resource."""
    return Call("GET", path, retry=True)


def forget(
    fact_ids: Sequence[str] | None,
    entity: str | None,
    query: str | None,
    episode_id: str | None,
    mode: str | None,
    dry_run: bool,
    reason: str | None,
    limit: int | None,
) -> Call:
    """``POST /v1/forget``; a dry run changes nothing, so only it is retried."""
    if not (fact_ids or entity or query or episode_id):
        raise ValueError("forget needs fact_ids, entity, query or episode_id")
    req = ForgetRequest(
        fact_ids=list(fact_ids) if fact_ids else None,
        entity=entity,
        query=query,
        episode_id=episode_id,
        mode=mode,
        reason=reason,
        dry_run=dry_run or None,
        limit=limit,
    )
    return Call("POST", "/v1/forget", body=_body(req), retry=dry_run)


def retract(fact_id: str) -> Call:
    """``DELETE /v1/facts/{id}?mode=retract``."""
    return Call("DELETE", f"/v1/facts/{path_id(fact_id)}", {"mode": "retract"})


def overview(limit: int | None) -> Call:
    """``GET /v1/overview``."""
    return Call("GET", "/v1/overview", _params(limit=limit), retry=True)


def audit(limit: int | None) -> Call:
    """``GET /v1/audit``."""
    return Call("GET", "/v1/audit", _params(limit=limit), retry=True)


def export() -> Call:
    """``GET /v1/export``."""
    return Call("GET", "/v1/export", retry=True)


def import_line(record: RecordLike) -> bytes:
    """One record of an import as a JSON line."""
    data = record.raw if isinstance(record, ExportRecord) else dict(record)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def export_record(line: str) -> ExportRecord | None:
    """Parse one line of an export; None for a blank one."""
    line = line.strip()
    if not line:
        return None
    data = json.loads(line)
    if not isinstance(data, dict):
        raise GraphmemError(f"export: a line is not a JSON object: {line[:80]}")
    return ExportRecord.from_json(data)

