"""The client follows the live ``/openapi.json``: a schema, field, parameter or route added to the
API without the client fails here."""

from __future__ import annotations

import inspect
import types
import typing
from typing import Any

import pytest
from pydantic import AwareDatetime
from pydantic.fields import FieldInfo

from graphmem import AsyncGraphmem, Graphmem
from graphmem.models import SCHEMAS, Model

# Each operation of the API and the client method that makes it.
OPERATIONS = {
    "GET /healthz": "health",
    "GET /readyz": "ready",
    "GET /openapi.json": "openapi",
    "POST /v1/facts": "add_facts",
    "GET /v1/facts": "iter_facts",
    "GET /v1/facts/{id}": "fact",
    "DELETE /v1/facts/{id}": "retract",
    "GET /v1/entities": "find_entities",
    "GET /v1/entities/{id}": "entity",
    "GET /v1/entities/{id}/timeline": "timeline",
    "POST /v1/episodes": "remember",
    "GET /v1/episodes": "iter_episodes",
    "GET /v1/episodes/{id}": "episode",
    "POST /v1/episodes/{id}/retry": "retry_episode",
    "POST /v1/search": "search",
    "POST /v1/context": "context",
    "POST /v1/forget": "forget",
    "GET /v1/audit": "audit",
    "GET /v1/export": "export",
    "POST /v1/import": "import_",
}
# Operations the client leaves to other tools, with why.
NOT_IN_CLIENT = {
    "GET /metrics": "Prometheus scrapes it",
}
# Parameters the client sets itself rather than taking from its caller.
HANDLED = {
    "cursor": "paging follows next_cursor",
    "mode": "retract() is mode=retract; forget() is its own method",
    "wait": "remember(wait=...)",
}
# Request bodies and the client method taking their properties as arguments.
BODIES = {
    "SearchRequest": "search",
    "ContextRequest": "context",
    "EpisodeRequest": "remember",
    "ForgetRequest": "forget",
}


@pytest.fixture(scope="module")
def doc(server_url: str) -> dict[str, Any]:
    with Graphmem(server_url) as g:
        return g.openapi()


def _names(model: type[Model]) -> dict[str, FieldInfo]:
    return {(f.alias or n): f for n, f in model.model_fields.items()}


def _has_datetime(annotation: Any) -> bool:
    # Answers' times are always timezone-aware.
    if annotation is AwareDatetime:
        return True
    return any(_has_datetime(a) for a in typing.get_args(annotation)) or (
        isinstance(annotation, types.UnionType) and any(_has_datetime(a) for a in annotation.__args__)
    )


def _is_datetime_prop(prop: dict[str, Any]) -> bool:
    return prop.get("format") == "date-time" or any(_is_datetime_prop(p) for p in prop.get("oneOf", []))


def test_every_schema_has_a_model_with_every_field(doc: dict[str, Any]) -> None:
    problems = []
    for name, schema in sorted(doc["components"]["schemas"].items()):
        model = SCHEMAS.get(name)
        if model is None:
            problems.append(f"schema {name} has no client model (add one to graphmem.models.SCHEMAS)")
            continue
        fields = _names(model)
        props: dict[str, Any] = schema.get("properties", {})
        for prop, spec in props.items():
            if prop not in fields:
                problems.append(f"{name}.{prop} is missing from {model.__name__}")
            elif _is_datetime_prop(spec) and "Request" not in name and name != "FactInput":
                if not _has_datetime(fields[prop].annotation):
                    problems.append(f"{name}.{prop} is a date-time but {model.__name__}.{prop} is not an AwareDatetime")
        required = set(schema.get("required", []))
        for field_name, info in fields.items():
            if field_name not in props:
                problems.append(f"{model.__name__}.{field_name} is not in schema {name}")
            elif info.is_required() and field_name not in required:
                problems.append(f"{model.__name__}.{field_name} is required but schema {name} may leave it out")
    stale = set(SCHEMAS) - set(doc["components"]["schemas"])
    problems += [f"SCHEMAS names {s}, which the API no longer has" for s in sorted(stale)]
    assert not problems, "\n".join(problems)


def test_every_operation_has_a_method_taking_its_parameters(doc: dict[str, Any]) -> None:
    problems = []
    for path, ops in sorted(doc["paths"].items()):
        for method, op in ops.items():
            key = f"{method.upper()} {path}"
            if key in NOT_IN_CLIENT:
                continue
            name = OPERATIONS.get(key)
            if name is None:
                problems.append(f"{key} has no client method (add it to Graphmem and AsyncGraphmem)")
                continue
            for cls in (Graphmem, AsyncGraphmem):
                params = inspect.signature(getattr(cls, name)).parameters
                for p in op.get("parameters", []):
                    if p["in"] != "query" or p["name"] in HANDLED:
                        continue
                    if p["name"] not in params and not (p["name"] == "limit" and "page_size" in params):
                        problems.append(f"{cls.__name__}.{name} has no argument for {key} ?{p['name']}")
    for schema, name in BODIES.items():
        props = doc["components"]["schemas"][schema]["properties"]
        for cls in (Graphmem, AsyncGraphmem):
            params = inspect.signature(getattr(cls, name)).parameters
            problems += [f"{cls.__name__}.{name} has no argument for {schema}.{p}" for p in props if p not in params]
    stale = set(OPERATIONS) - {f"{m.upper()} {p}" for p, ops in doc["paths"].items() for m in ops}
    problems += [f"OPERATIONS names {s}, which the API no longer has" for s in sorted(stale)]
    assert not problems, "\n".join(problems)


def test_sync_and_async_clients_have_the_same_surface() -> None:
    def public(cls: type) -> dict[str, list[str]]:
        return {
            n: list(inspect.signature(f).parameters)
            for n, f in inspect.getmembers(cls, inspect.isfunction)
            if not n.startswith("_")
        }

    sync, asyn = public(Graphmem), public(AsyncGraphmem)
    assert sync.keys() == asyn.keys()
    assert sync == asyn
    for n in sync:
        assert getattr(Graphmem, n).__doc__ and getattr(AsyncGraphmem, n).__doc__, n
