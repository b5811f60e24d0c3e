"""The synchronous client against a real server."""

from __future__ import annotations

import uuid
from datetime import date, datetime, timedelta, timezone

import httpx
import pytest

from conftest import IO_KEY
from graphmem import ExportRecord, FactInput, Graphmem, NotFoundError


def test_add_supersede_and_read_back(alice: Graphmem, name: str) -> None:
    first = alice.add_facts(
        [{"subject": name, "predicate": "port", "value": "5432", "valid_from": date(2023, 1, 1)}]
    )
    assert first[0].action == "created" and first[0].fact_id
    second = alice.add_facts(
        [FactInput(subject=name, predicate="port", value="3307", valid_from=date(2024, 3, 1), source_kind="user_explicit")]
    )
    assert second[0].action == "superseded_previous"
    assert second[0].superseded == [first[0].fact_id]

    now = alice.facts(subject=name, predicate="port")
    assert [f.value for f in now] == ["3307"]
    assert now[0].valid_from == datetime(2024, 3, 1, tzinfo=timezone.utc)
    assert now[0].valid_to is None and now[0].status == "current"

    then = alice.facts(subject=name, as_of=date(2023, 6, 1))
    assert [f.value for f in then] == ["5432"]
    assert then[0].valid_to == datetime(2024, 3, 1, tzinfo=timezone.utc)

    unknown = alice.add_facts([FactInput(subject=name, predicate="owner", object="Team Red", start_unknown=True)])
    assert unknown[0].action == "created"
    owner = alice.facts(subject=name, predicate="owner", as_of=date(1990, 1, 1))
    assert [f.object for f in owner] == ["Team Red"] and owner[0].valid_from is None

    history = alice.facts(subject=name, predicate="port", include_history=True)
    assert sorted(f.value for f in history) == ["3307", "5432"]

    detail = alice.fact(second[0].fact_id)
    assert detail.fact.id == second[0].fact_id
    assert [f.value for f in detail.chain] == ["5432", "3307"]


def test_times_in_every_form_come_back_aware(alice: Graphmem, name: str) -> None:
    plus2 = timezone(timedelta(hours=2))
    alice.add_facts(
        [
            {"subject": name, "predicate": "a_start", "value": "aware", "valid_from": datetime(2024, 5, 1, 12, tzinfo=plus2),
             "cardinality": "one"},
            {"subject": name, "predicate": "b_start", "value": "string", "valid_from": "2024-05-01T10:00:00Z",
             "cardinality": "one"},
            {"subject": name, "predicate": "c_start", "value": "date", "valid_from": date(2024, 5, 1), "cardinality": "one"},
            {"subject": name, "predicate": "d_start", "value": "naive", "valid_from": datetime(2024, 5, 1, 10),
             "cardinality": "one"},
        ]
    )
    got = {f.value: f for f in alice.facts(subject=name)}
    for f in got.values():
        assert f.valid_from is not None and f.valid_from.tzinfo is not None
        assert f.recorded_at.tzinfo is not None
    ten_utc = datetime(2024, 5, 1, 10, tzinfo=timezone.utc)
    assert got["aware"].valid_from == ten_utc
    assert got["string"].valid_from == ten_utc
    assert got["date"].valid_from == datetime(2024, 5, 1, tzinfo=timezone.utc)
    # A naive datetime is local time, as everywhere in Python.
    assert got["naive"].valid_from == datetime(2024, 5, 1, 10).astimezone()
    # as_of takes the same forms.
    assert {f.value for f in alice.facts(subject=name, as_of=date(2024, 4, 30))} == set()
    assert len(alice.facts(subject=name, as_of=datetime(2024, 5, 2, tzinfo=plus2))) == 4


def _counting(url: str, key: str) -> tuple[Graphmem, list[httpx.Request]]:
    sent: list[httpx.Request] = []
    http = httpx.Client(event_hooks={"request": [sent.append]})
    return Graphmem(url, api_key=key, http_client=http), sent


def test_paging_is_transparent_and_respects_limit(server_url: str, alice: Graphmem, name: str) -> None:
    alice.add_facts(
        [{"subject": name, "predicate": "tag", "value": f"t{i:02d}", "cardinality": "many"} for i in range(25)]
    )
    g, sent = _counting(server_url, alice.settings.api_key or "")
    with g:
        every = g.facts(subject=name, page_size=10)
        assert sorted(f.value for f in every) == [f"t{i:02d}" for i in range(25)]
        assert len({f.id for f in every}) == 25
        assert len(sent) == 3  # 10 + 10 + 5
        assert "cursor" not in sent[0].url.params and sent[1].url.params["cursor"]

        sent.clear()
        seven = g.facts(subject=name, limit=7, page_size=5)
        assert len(seven) == 7
        assert [r.url.params["limit"] for r in sent] == ["5", "2"]

        sent.clear()
        it = g.iter_facts(subject=name, page_size=4)
        assert next(it).subject == name
        assert len(sent) == 1  # lazily: one page so far
        assert len(list(it)) == 24
        assert g.facts(subject=name, limit=0) == []


def test_timeline_by_name_and_by_id(alice: Graphmem, name: str) -> None:
    alice.add_facts(
        [
            {"subject": name, "predicate": "works_at", "object": "Initech", "valid_from": "2019-01-01T00:00:00Z"},
            {"subject": name, "predicate": "works_at", "object": "Acme Corp", "valid_from": "2023-01-01T00:00:00Z"},
            {"subject": name, "predicate": "works_at", "object": "Globex", "valid_from": "2021-01-01T00:00:00Z"},
        ]
    )
    by_name = alice.timeline(name)
    assert [f.object for f in by_name] == ["Initech", "Globex", "Acme Corp"]
    by_id = alice.timeline(by_name[0].subject_id)
    assert [f.id for f in by_id] == [f.id for f in by_name]
    assert [f.object for f in alice.timeline(name, predicate="works_at")] == ["Initech", "Globex", "Acme Corp"]
    assert [f.object for f in alice.timeline(name, page_size=2)] == ["Initech", "Globex", "Acme Corp"]
    assert [f.object for f in alice.timeline(name, limit=2, page_size=1)] == ["Initech", "Globex"]
    matches = alice.find_entities(name)
    assert matches[0].entity.name == name and matches[0].match == "exact"
    detail = alice.entity(matches[0].entity.id)
    assert [f.object for f in detail.facts] == ["Acme Corp"]
    assert alice.entity(name).entity.id == matches[0].entity.id
    try:
        alice.timeline(f"nobody-{uuid.uuid4().hex}")
    except NotFoundError as e:
        assert e.status == 404
    else:
        raise AssertionError("a timeline of an unknown entity must raise NotFoundError")


def test_entity_graph_and_session(alice: Graphmem, name: str) -> None:
    alice.add_facts(
        [
            {"subject": name, "predicate": "works_at", "object": f"{name} Initech", "valid_from": "2019-01-01T00:00:00Z"},
            {"subject": name, "predicate": "works_at", "object": f"{name} Acme", "valid_from": "2023-01-01T00:00:00Z"},
        ]
    )
    first = alice.timeline(name, limit=1)
    assert [f.object for f in first] == [f"{name} Initech"]
    centre = first[0].subject_id
    now = alice.entity_graph(centre)
    assert now.nodes[0].id == centre and {n.name for n in now.nodes[1:]} == {f"{name} Initech", f"{name} Acme"}
    assert sorted(str(f.status) for f in now.edges) == ["current", "superseded"]
    then = alice.entity_graph(centre, as_of="2020-06-01T00:00:00Z", depth=1)
    assert [n.name for n in then.nodes] == [name, f"{name} Initech"] and then.edges[0].status == "current"
    assert alice.entity_graph(name, depth=1).nodes[0].id == centre  # by name too
    session = alice.session()
    assert session.scope == "alice" and session.scopes == ["alice", "alice-work"] and not session.development_mode
    with Graphmem(alice.base_url, api_key=alice.settings.api_key, scope="alice-work") as work:
        assert work.session().scope == "alice-work"


def test_overview(alice: Graphmem, name: str) -> None:
    before = alice.overview().counts.facts
    alice.add_facts([{"subject": name, "predicate": "likes", "value": "tea"}])
    o = alice.overview(limit=3)
    assert o.counts.facts == before + 1 and len(o.changes) <= 3
    assert any(c.fact is not None and c.fact.subject == name for c in o.changes)


def test_search_and_context(alice: Graphmem, name: str) -> None:
    alice.add_facts([{"subject": name, "predicate": "port", "value": "6543", "source_kind": "user_explicit"}])
    hits = alice.search(f"{name} port", limit=5)
    assert any(h.type == "fact" and h.fact is not None and h.fact.value == "6543" for h in hits)
    assert all(h.score > 0 for h in hits)
    assert hits.vectors == "off" and hits.vectors_skipped == ""  # the test server has no embedding model
    only_entities = alice.search(name, types=["entity"])
    assert only_entities and all(h.type == "entity" for h in only_entities)

    ctx = alice.context(f"which port does {name} use?", max_tokens=400)
    assert f'current; user_explicit] "{name}" port "6543"' in ctx.context  # metadata first, stored text quoted
    with pytest.warns(DeprecationWarning, match="use Context.context"):
        assert ctx.text == ctx.context  # the old name of the block, kept one release
    assert "text" not in ctx.model_dump()
    assert any(cf.fact.value == "6543" for cf in ctx.facts)
    assert ctx.tokens > 0 and ctx.as_of.tzinfo is not None
    assert ctx.vectors == "off" and ctx.vectors_skipped == ""  # the test server has no embedding model
    then = alice.context(f"which port did {name} use last year?", reference_time=date(2025, 6, 1))
    assert then.time_named and then.period is not None
    assert then.period.from_ == datetime(2024, 1, 1, tzinfo=timezone.utc)
    md = alice.context(f"which port does {name} use?", format="markdown", mode="current")
    assert md.mode == "current" and 'port "6543"' in md.context
    assert hits.unresolved == [] and ctx.unresolved == []

    # A name memory knows nothing about is said so, and not answered with another's port.
    unknown = f"zebra-{name}"
    none = alice.search(f"which port does {unknown} use?")
    assert [n.name for n in none.unresolved] == [unknown]
    assert not any(h.fact is not None and h.fact.predicate == "port" for h in none)
    nctx = alice.context(f"which port does {unknown} use?")
    assert [n.name for n in nctx.unresolved] == [unknown] and "6543" not in nctx.context
    assert f'memory holds nothing about "{unknown}"' in nctx.context

    # A question that crosses an entity gets the path: both facts, the chain.
    alice.add_facts([
        {"subject": name, "predicate": "owned_by", "object": f"{name}-owners", "object_type": "team"},
        {"subject": f"{name}-owners", "subject_type": "team", "predicate": "led_by", "object": "Bob Aziz", "object_type": "person"},
    ])
    walked = alice.context(f"who leads the team that owns {name}?")
    assert len(walked.paths) == 1 and walked.paths[0].complete, walked.context
    assert [h.predicate for h in walked.paths[0].hops] == ["owned_by", "led_by"]
    assert walked.paths[0].hops[-1].to == "Bob Aziz" and "[path]" in walked.context


def test_remember_and_read_episodes(alice: Graphmem, name: str) -> None:
    ep = alice.remember(
        f"{name} moved to the new datacenter yesterday.", speaker="Dana", role="user", reference_time=date(2024, 2, 2)
    )
    assert ep.content.startswith(name) and ep.speaker == "Dana" and ep.role == "user"
    assert ep.reference_time == datetime(2024, 2, 2, tzinfo=timezone.utc)
    # This server has no extraction model: remember says so, as the TypeScript client does.
    assert "no extraction model" in ep.warning
    assert alice.episode(ep.id).model_dump() == ep.model_dump(exclude={"warning"})
    # The idempotency key makes a repeat return the episode stored first.
    a = alice.remember("said once", idempotency_key=f"k-{name}")
    b = alice.remember("said once", idempotency_key=f"k-{name}")
    assert a.id == b.id
    waited = alice.remember(f"{name} is owned by the platform team.", wait=True)
    assert waited.status in ("done", "failed")
    assert any(e.id == ep.id for e in alice.iter_episodes(page_size=2))
    assert len(alice.episodes(status="done", limit=2)) <= 2
    ctx = alice.context(f"where did {name} move?")
    assert any(ce.episode.id == ep.id for ce in ctx.episodes)


def test_retract_forget_and_audit(alice: Graphmem, name: str) -> None:
    r = alice.add_facts(
        [
            {"subject": name, "predicate": "owner", "object": "Team Red"},
            {"subject": name, "predicate": "language", "value": "Go"},
            {"subject": name, "predicate": "region", "value": "eu-west"},
        ]
    )
    retracted = alice.retract(r[0].fact_id)
    assert retracted.status == "retracted" and retracted.expired_at is not None
    # Read by id it is not found as known now; as known before, it was believed.
    try:
        alice.fact(r[0].fact_id)
    except NotFoundError as e:
        assert "retracted" in str(e)
    else:
        raise AssertionError("a retracted fact is not found as known now")
    before = alice.fact(r[0].fact_id, known_at=retracted.expired_at - timedelta(microseconds=1))
    assert before.fact.object == "Team Red" and before.fact.status != "retracted"

    dry = alice.forget(fact_ids=[r[1].fact_id], dry_run=True)
    assert dry.dry_run and dry.facts == 1
    assert [f.value for f in alice.facts(subject=name, predicate="language")] == ["Go"]

    done = alice.forget(fact_ids=[r[1].fact_id], reason="test")
    assert not done.dry_run and done.facts == 1 and done.mode == "forget"
    assert alice.facts(subject=name, predicate="language") == []
    try:
        alice.fact(r[1].fact_id)
    except NotFoundError:
        pass
    else:
        raise AssertionError("a forgotten fact must be gone")
    entries = alice.audit(limit=5)
    assert entries and entries[0].fact_ids == [r[1].fact_id] and entries[0].at.tzinfo is not None


def test_export_import_round_trip(server_url: str, name: str) -> None:
    with Graphmem(server_url, api_key=IO_KEY, scope="io-source") as src, Graphmem(
        server_url, api_key=IO_KEY, scope="io-dest"
    ) as dst:
        src.add_facts([{"subject": name, "predicate": "port", "value": "1111", "valid_from": "2024-01-01T00:00:00Z"}])
        src.remember(f"{name} was set up by Erin.")
        records = list(src.export())
        assert any(r.fact is not None and r.fact.subject == name for r in records)
        assert all(isinstance(r, ExportRecord) for r in records)
        result = dst.import_(records)
        assert result.facts >= 1 and result.episodes >= 1
        keep = ("id", "subject", "value", "valid_from", "valid_to", "recorded_at", "claims")
        mine = [{k: r.raw["fact"].get(k) for k in keep} for r in records if r.fact and r.fact.subject == name]
        copied = [{k: r.raw["fact"].get(k) for k in keep} for r in dst.export() if r.fact and r.fact.subject == name]
        # Same ids and times, to the nanosecond the server wrote.
        assert mine and mine == copied


def test_health_ready_and_openapi(alice: Graphmem) -> None:
    assert alice.health().status == "ok"
    assert alice.ready().status == "ready"
    assert alice.openapi()["openapi"].startswith("3.")
