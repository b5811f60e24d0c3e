"""LangChain integration: a retriever over graphmem's context, and memory tools for an agent.

Needs the ``langchain`` extra: ``pip install "graphmem[langchain]"``.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import date
from typing import Any

try:
    from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.tools import BaseTool, StructuredTool, ToolException
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        'graphmem.langchain needs langchain-core: pip install "graphmem[langchain]"'
    ) from exc
from pydantic import BaseModel, ConfigDict, Field

from graphmem._core import TimeLike
from graphmem.aio import AsyncGraphmem
from graphmem.client import Graphmem
from graphmem.errors import GraphmemError
from graphmem.models import Context, ForgetResult

__all__ = ["GraphmemRetriever", "graphmem_tools", "context_documents"]


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def context_documents(ctx: Context) -> list[Document]:
    """The facts and quoted episodes of a context as Documents, best first within each kind.

    A fact's metadata has its id, statement parts, interval (``valid_from``,
    ``valid_to`` as ISO 8601, None when open), status, role and score, and its
    sources (``source_kind``, ``episode_ids``); an episode's has its id,
    speaker, role, ``reference_time`` and ``source_kind``.
    """
    docs: list[Document] = []
    for cf in ctx.facts:
        f = cf.fact
        docs.append(
            Document(
                page_content=f.text or f"{f.subject} {f.predicate} {f.object or f.value}",
                metadata={
                    "type": "fact",
                    "id": f.id,
                    "subject": f.subject,
                    "predicate": f.predicate,
                    "object": f.object or None,
                    "value": f.value or None,
                    "valid_from": _iso(f.valid_from),
                    "valid_to": _iso(f.valid_to),
                    "recorded_at": _iso(f.recorded_at),
                    "status": f.status,
                    "role": cf.role,
                    "score": cf.score,
                    "source_kind": f.source_kind,
                    "episode_ids": list(f.episode_ids),
                },
            )
        )
    for ce in ctx.episodes:
        e = ce.episode
        docs.append(
            Document(
                page_content=ce.quote or e.content,
                metadata={
                    "type": "episode",
                    "id": e.id,
                    "speaker": e.speaker or None,
                    "role": e.role or None,
                    "reference_time": _iso(e.reference_time),
                    "recorded_at": _iso(e.recorded_at),
                    "source_kind": e.source_kind,
                },
            )
        )
    return docs


class GraphmemRetriever(BaseRetriever):
    """A retriever returning the facts and quoted episodes of graphmem's context for a query.

    Give ``client`` (a ``Graphmem``), ``async_client`` (an ``AsyncGraphmem``)
    or both; without an async client, async calls run the sync one in a
    thread. ``as_of``, ``max_tokens`` and ``mode`` are passed to
    ``context``; see ``context_documents`` for the metadata of each Document.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: Graphmem | None = None
    async_client: AsyncGraphmem | None = None
    as_of: TimeLike | None = None
    max_tokens: int | None = None
    mode: str = "auto"

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        if self.client is None:
            raise ValueError("GraphmemRetriever has no sync client: pass client=Graphmem(...) or call it with ainvoke")
        ctx = self.client.context(query, as_of=self.as_of, max_tokens=self.max_tokens, mode=self.mode)
        return context_documents(ctx)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self.async_client is None:
            return await super()._aget_relevant_documents(query, run_manager=run_manager)
        ctx = await self.async_client.context(query, as_of=self.as_of, max_tokens=self.max_tokens, mode=self.mode)
        return context_documents(ctx)


class _RememberArgs(BaseModel):
    content: str = Field(description="what was said or what happened, verbatim")
    speaker: str | None = Field(default=None, description="who said it, if anyone")


class _RecallArgs(BaseModel):
    query: str = Field(description="the question to answer from memory")
    as_of: str | None = Field(
        default=None, description="answer as things stood at this date or time (ISO 8601); default now"
    )


class _ForgetArgs(BaseModel):
    query: str | None = Field(default=None, description="forget the facts this search finds")
    fact_ids: list[str] | None = Field(default=None, description="forget these facts by id")
    entity: str | None = Field(default=None, description="forget every fact about this entity")
    dry_run: bool = Field(default=False, description="only list what would be forgotten")


def _when(value: str | None) -> TimeLike | None:
    # Models often write a plain date; it means that day (midnight UTC).
    if value and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
        return date.fromisoformat(value.strip())
    return value


def _forget_text(r: ForgetResult) -> str:
    verb = "would forget" if r.dry_run else "forgot"
    ids = f": {', '.join(r.fact_ids)}" if r.fact_ids else ""
    return f"{verb} {r.facts} facts{ids}"


def _tool(
    name: str,
    description: str,
    args: type[BaseModel],
    client: Graphmem | AsyncGraphmem,
    sync: Callable[[Graphmem, Any], str],
    run_async: Callable[[AsyncGraphmem, Any], Awaitable[str]],
) -> BaseTool:
    # Errors become ToolExceptions, which LangChain hands back to the model
    # as the tool's answer, so it can fix its call.
    if isinstance(client, AsyncGraphmem):
        ac = client

        async def coroutine(**kw: Any) -> str:
            try:
                return await run_async(ac, args(**kw))
            except (GraphmemError, ValueError) as e:
                raise ToolException(str(e)) from e

        return StructuredTool.from_function(
            coroutine=coroutine, name=name, description=description, args_schema=args, handle_tool_error=True
        )
    sc = client

    def func(**kw: Any) -> str:
        try:
            return sync(sc, args(**kw))
        except (GraphmemError, ValueError) as e:
            raise ToolException(str(e)) from e

    return StructuredTool.from_function(
        func=func, name=name, description=description, args_schema=args, handle_tool_error=True
    )


def graphmem_tools(client: Graphmem | AsyncGraphmem) -> list[BaseTool]:
    """The ``remember``, ``recall`` and ``forget`` tools for an agent, on ``client``.

    ``remember`` stores an episode verbatim; ``recall`` answers with the
    context block to read; ``forget`` removes facts by query, ids or entity
    (with ``dry_run`` to look first). An error of graphmem is returned to the
    model as the tool's answer.
    """

    async def remember_async(c: AsyncGraphmem, a: Any) -> str:
        ep = await c.remember(a.content, speaker=a.speaker)
        return f"remembered (episode {ep.id})"

    async def recall_async(c: AsyncGraphmem, a: Any) -> str:
        return (await c.context(a.query, as_of=_when(a.as_of))).context

    async def forget_async(c: AsyncGraphmem, a: Any) -> str:
        r = await c.forget(fact_ids=a.fact_ids, entity=a.entity, query=a.query, dry_run=a.dry_run)
        return _forget_text(r)

    def remember(c: Graphmem, a: Any) -> str:
        return f"remembered (episode {c.remember(a.content, speaker=a.speaker).id})"

    def recall(c: Graphmem, a: Any) -> str:
        return c.context(a.query, as_of=_when(a.as_of)).context

    def forget(c: Graphmem, a: Any) -> str:
        return _forget_text(c.forget(fact_ids=a.fact_ids, entity=a.entity, query=a.query, dry_run=a.dry_run))

    return [
        _tool(
            "remember",
            "Store something said or observed in long-term memory, verbatim.",
            _RememberArgs,
            client,
            remember,
            remember_async,
        ),
        _tool(
            "recall",
            "Ask long-term memory: returns dated, sourced facts and quotes relevant to the query.",
            _RecallArgs,
            client,
            recall,
            recall_async,
        ),
        _tool(
            "forget",
            "Remove facts from long-term memory by search query, fact ids or entity; dry_run lists them first.",
            _ForgetArgs,
            client,
            forget,
            forget_async,
        ),
    ]
