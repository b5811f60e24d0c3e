"""The LangChain retriever and tools, with langchain-core and no model: the tools are called directly."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from langchain_core.documents import Document

from conftest import BOB_KEY
from graphmem import AsyncGraphmem, Graphmem
from graphmem.langchain import GraphmemRetriever, graphmem_tools


@pytest.fixture
def seeded(alice: Graphmem, name: str) -> Iterator[str]:
    alice.add_facts(
        [
            {"subject": name, "predicate": "uses", "object": "MongoDB", "valid_from": "2021-01-01T00:00:00Z",
             "valid_to": "2023-06-01T00:00:00Z", "cardinality": "one"},
            {"subject": name, "predicate": "uses", "object": "PostgreSQL", "valid_from": "2023-06-01T00:00:00Z",
             "source_kind": "user_explicit", "cardinality": "one",
             "attributes": {"reason": "transactions across orders and payments"}},
        ]
    )
    alice.remember(f"We moved {name} off MongoDB because we needed transactions.", speaker="Priya")
    yield name


def _check(docs: list[Document], name: str) -> None:
    facts = [d for d in docs if d.metadata["type"] == "fact"]
    episodes = [d for d in docs if d.metadata["type"] == "episode"]
    assert facts and episodes
    pg = next(d for d in facts if d.metadata["object"] == "PostgreSQL")
    assert pg.metadata["subject"] == name
    assert pg.metadata["valid_from"] == "2023-06-01T00:00:00+00:00" and pg.metadata["valid_to"] is None
    assert pg.metadata["source_kind"] == "user_explicit" and pg.metadata["id"]
    assert "PostgreSQL" in pg.page_content
    quote = next(d for d in episodes if "MongoDB" in d.page_content)
    assert quote.metadata["speaker"] == "Priya" and quote.metadata["reference_time"]


def test_retriever(alice: Graphmem, seeded: str) -> None:
    docs = GraphmemRetriever(client=alice).invoke(f"which database does {seeded} use?")
    _check(docs, seeded)


async def test_retriever_async(server_url: str, alice: Graphmem, seeded: str) -> None:
    async with AsyncGraphmem(server_url, api_key=alice.settings.api_key) as ag:
        docs = await GraphmemRetriever(async_client=ag).ainvoke(f"which database does {seeded} use?")
    _check(docs, seeded)
    # Without an async client, ainvoke runs the sync one in a thread.
    _check(await GraphmemRetriever(client=alice).ainvoke(f"which database does {seeded} use?"), seeded)


def test_tools(server_url: str, name: str) -> None:
    with Graphmem(server_url, api_key=BOB_KEY) as g:
        tools = {t.name: t for t in graphmem_tools(g)}
        assert set(tools) == {"remember", "recall", "forget"}
        assert "content" in tools["remember"].args and "query" in tools["recall"].args

        out = tools["remember"].invoke({"content": f"The {name} deploy key rotates every 90 days.", "speaker": "Sam"})
        assert out.startswith("remembered (episode ")
        recalled = tools["recall"].invoke({"query": f"how often does the {name} deploy key rotate?"})
        assert "90 days" in recalled

        fact = g.add_facts([{"subject": name, "predicate": "owner", "object": "Team Blue"}])[0]
        dry = tools["forget"].invoke({"fact_ids": [fact.fact_id], "dry_run": True})
        assert dry == f"would forget 1 facts: {fact.fact_id}"
        assert tools["forget"].invoke({"fact_ids": [fact.fact_id]}) == f"forgot 1 facts: {fact.fact_id}"
        assert g.facts(subject=name, predicate="owner") == []

        # Errors go back to the model as the tool's answer.
        assert "forget needs" in tools["forget"].invoke({})
        assert "not_found" in tools["forget"].invoke({"fact_ids": ["no-such-fact"]})
        assert "as_of" in tools["recall"].invoke({"query": "x", "as_of": "someday"})
        # A plain date is that day: the deploy key was remembered today, so not known in 2020.
        assert "90 days" not in tools["recall"].invoke(
            {"query": f"how often does the {name} deploy key rotate?", "as_of": "2020-01-01"}
        )


async def test_tools_async(server_url: str, name: str) -> None:
    async with AsyncGraphmem(server_url, api_key=BOB_KEY) as g:
        tools = {t.name: t for t in graphmem_tools(g)}
        assert (await tools["remember"].ainvoke({"content": f"{name} pages the on-call at 2am."})).startswith(
            "remembered"
        )
        assert "2am" in await tools["recall"].ainvoke({"query": f"when does {name} page the on-call?"})


def test_without_langchain_the_error_says_what_to_install() -> None:
    code = "import sys; sys.modules['langchain_core'] = None; import graphmem.langchain"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode != 0 and 'pip install "graphmem[langchain]"' in done.stderr
    plain = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['langchain_core'] = None; import graphmem; print('ok')"],
        capture_output=True, text=True,
    )
    assert plain.stdout.strip() == "ok", plain.stderr
