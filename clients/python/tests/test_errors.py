"""Errors and scopes against a real server."""

from __future__ import annotations

import socket

import pydantic
import pytest

from conftest import ALICE_KEY, BOB_KEY
from graphmem import (
    FactInput,
    ForbiddenError,
    Graphmem,
    GraphmemConnectionError,
    GraphmemError,
    InvalidArgumentError,
    NotFoundError,
    TooLargeError,
    UnauthorizedError,
    UnavailableError,
)


def test_invalid_input_names_the_field(alice: Graphmem, name: str) -> None:
    with pytest.raises(InvalidArgumentError) as e:
        alice.add_facts([{"subject": name, "predicate": "port", "value": "1"}, {"subject": name}])
    assert e.value.status == 400 and e.value.code == "invalid_argument"
    assert "facts[1].predicate" in e.value.fields
    assert "facts[1].predicate" in str(e.value)
    # A misspelt key is the server's to name, not silently dropped.
    with pytest.raises(InvalidArgumentError) as e:
        alice.add_facts([{"subject": name, "predicate": "port", "value": "1", "valid_form": "2024-01-01T00:00:00Z"}])
    assert any("valid_form" in k or "valid_form" in v for k, v in e.value.fields.items())
    with pytest.raises(InvalidArgumentError) as e:
        alice.context("q", mode="sometimes")
    assert "mode" in e.value.fields
    with pytest.raises(InvalidArgumentError) as e:
        alice.facts(as_of="last tuesday")
    assert "as_of" in e.value.fields


def test_not_found(alice: Graphmem) -> None:
    with pytest.raises(NotFoundError) as e:
        alice.fact("no-such-fact")
    assert e.value.status == 404 and e.value.code == "not_found" and e.value.message
    assert e.value.request_id
    with pytest.raises(NotFoundError):
        alice.episode("no-such-episode")
    with pytest.raises(GraphmemError):  # the base class catches every kind
        alice.retract("no-such-fact")


def test_keys(server_url: str) -> None:
    with Graphmem(server_url, api_key="wrong-key-0000000000000000") as g:
        with pytest.raises(UnauthorizedError) as e:
            g.facts()
        assert e.value.status == 401
    with Graphmem(server_url) as g, pytest.raises(UnauthorizedError):
        g.search("anything")
    # A key may only use its own scopes.
    with Graphmem(server_url, api_key=ALICE_KEY, scope="bob") as g, pytest.raises(ForbiddenError) as f:
        g.facts()
    assert f.value.status == 403


def test_environment_gives_url_and_key(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_URL", server_url)
    monkeypatch.setenv("GRAPHMEM_API_KEY", BOB_KEY)
    with Graphmem() as g:
        assert g.base_url == server_url
        g.facts(limit=1)


def test_scopes_are_kept_apart(server_url: str, alice: Graphmem, bob: Graphmem, name: str) -> None:
    alice.add_facts([{"subject": name, "predicate": "port", "value": "7001"}])
    with Graphmem(server_url, api_key=ALICE_KEY, scope="alice-work") as work:
        work.add_facts([{"subject": name, "predicate": "port", "value": "7002"}])
        assert [f.value for f in work.facts(subject=name)] == ["7002"]
        assert [f.scope for f in work.facts(subject=name)] == ["alice-work"]
    assert [f.value for f in alice.facts(subject=name)] == ["7001"]
    assert bob.facts(subject=name) == []
    assert not [h for h in bob.search(name) if name in h.text]
    # Bob's scope knows nothing of the name: its context says so, and holds neither port.
    ctx = bob.context(f"which port does {name} use?")
    assert [n.name for n in ctx.unresolved] == [name]
    assert "7001" not in ctx.context and "7002" not in ctx.context
    fact_id = alice.facts(subject=name)[0].id
    with pytest.raises(NotFoundError):
        bob.fact(fact_id)
    with pytest.raises(GraphmemError):
        bob.forget(fact_ids=[fact_id])
    assert [f.value for f in alice.facts(subject=name)] == ["7001"]


def test_too_large(alice: Graphmem) -> None:
    with pytest.raises(TooLargeError) as e:
        alice.remember("x" * (5 << 20))
    assert e.value.status == 413


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_unreachable_server_says_so() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    with Graphmem(url, max_retries=1, backoff=0.01) as g:
        with pytest.raises(GraphmemConnectionError) as e:
            g.facts()
    assert isinstance(e.value, UnavailableError)
    assert url in str(e.value) and "graphmem serve" in str(e.value) and "GRAPHMEM_URL" in str(e.value)
    assert e.value.status == 0


def test_arguments_checked_before_sending(alice: Graphmem) -> None:
    with pytest.raises(pydantic.ValidationError):
        FactInput(subject="a", predicate="b", valid_form="2024-01-01")  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        alice.forget()
    with pytest.raises(ValueError):
        alice.add_facts([])
    with pytest.raises(ValueError):
        alice.facts(page_size=0)
