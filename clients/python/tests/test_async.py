"""The asynchronous client against a real server."""

from __future__ import annotations

import asyncio
import socket
from datetime import date, datetime, timezone

import httpx
import pytest

from conftest import ALICE_KEY, BOB_KEY, IO_KEY
from graphmem import (
    AsyncGraphmem,
    ForbiddenError,
    GraphmemConnectionError,
    InvalidArgumentError,
    NotFoundError,
    UnauthorizedError,
)


async def test_facts_paging_and_time(server_url: str, name: str) -> None:
    sent: list[httpx.Request] = []

    async def record(r: httpx.Request) -> None:
        sent.append(r)

    http = httpx.AsyncClient(event_hooks={"request": [record]})
    async with AsyncGraphmem(server_url, api_key=ALICE_KEY, http_client=http) as g:
        res = await g.add_facts(
            [{"subject": name, "predicate": "tag", "value": f"v{i}", "cardinality": "many", "valid_from": date(2024, 1, 1)}
             for i in range(12)]
        )
        assert {r.action for r in res} == {"created"}
        sent.clear()
        got = [f async for f in g.iter_facts(subject=name, page_size=5)]
        assert len(got) == 12 and len(sent) == 3
        assert all(f.valid_from == datetime(2024, 1, 1, tzinfo=timezone.utc) for f in got)
        assert len(await g.facts(subject=name, limit=3, page_size=2)) == 3
        assert await g.facts(subject=name, as_of=date(2023, 12, 31)) == []
    await http.aclose()


async def test_recall_episodes_and_forgetting(name: str, server_url: str) -> None:
    async with AsyncGraphmem(server_url, api_key=ALICE_KEY) as g:
        r = await g.add_facts(
            [
                {"subject": name, "predicate": "works_at", "object": "Initech", "valid_from": "2019-01-01T00:00:00Z"},
                {"subject": name, "predicate": "works_at", "object": "Globex", "valid_from": "2022-01-01T00:00:00Z"},
            ]
        )
        assert [f.object for f in await g.timeline(name)] == ["Initech", "Globex"]
        assert [f.object for f in await g.timeline(name, page_size=1)] == ["Initech", "Globex"]
        assert (await g.entity_graph(name)).nodes[0].name == name
        assert (await g.session()).scopes == ["alice", "alice-work"]
        assert (await g.fact(r[1].fact_id)).fact.object == "Globex"
        hits = await g.search(f"{name} works at", types=["fact"])
        assert hits and all(h.type == "fact" for h in hits)
        ctx = await g.context(f"where did {name} work before Globex?")
        assert "Initech" in ctx.context

        ep = await g.remember(f"{name} starts at Globex on Monday.", speaker="HR", reference_time=date(2022, 1, 1))
        assert "no extraction model" in ep.warning
        assert (await g.episode(ep.id)).reference_time == datetime(2022, 1, 1, tzinfo=timezone.utc)
        assert ep.id in [e.id async for e in g.iter_episodes(page_size=3)]
        assert len(await g.episodes(limit=1)) == 1

        # Calls run concurrently on one client.
        a, b = await asyncio.gather(g.facts(subject=name), g.find_entities(name))
        assert len(a) == 1 and b[0].entity.name == name
        assert (await g.entity(b[0].entity.id)).entity.name == name

        assert (await g.retract(r[0].fact_id)).status == "retracted"
        gone = await g.forget(entity=name, dry_run=True)
        assert gone.dry_run and gone.facts >= 1
        done = await g.forget(fact_ids=[r[1].fact_id])
        assert done.facts == 1 and (await g.audit(limit=1))[0].fact_ids == [r[1].fact_id]
        assert (await g.health()).status == "ok" and (await g.ready()).status == "ready"


async def test_export_import(server_url: str, name: str) -> None:
    async with AsyncGraphmem(server_url, api_key=IO_KEY, scope="io-source") as src, AsyncGraphmem(
        server_url, api_key=IO_KEY, scope="io-async"
    ) as dst:
        await src.add_facts([{"subject": name, "predicate": "port", "value": "2222"}])
        result = await dst.import_(src.export())  # streamed straight through
        assert result.facts >= 1
        assert [f.value for f in await dst.facts(subject=name)] == ["2222"]


async def test_errors(server_url: str, name: str) -> None:
    async with AsyncGraphmem(server_url, api_key=BOB_KEY) as g:
        with pytest.raises(NotFoundError):
            await g.episode("nope")
        with pytest.raises(InvalidArgumentError) as e:
            await g.add_facts([{"subject": name, "predicate": "port"}])
        assert e.value.fields
    async with AsyncGraphmem(server_url, api_key=BOB_KEY, scope="alice") as g:
        with pytest.raises(ForbiddenError):
            await g.facts()
    async with AsyncGraphmem(server_url) as g:
        with pytest.raises(UnauthorizedError):
            await g.context("x")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with AsyncGraphmem(f"http://127.0.0.1:{port}", max_retries=0) as g:
        with pytest.raises(GraphmemConnectionError) as c:
            await g.health()
    assert f"127.0.0.1:{port}" in str(c.value)
