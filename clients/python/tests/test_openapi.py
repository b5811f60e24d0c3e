"""The client follows the live ``/openapi.json``: a schema, field, parameter or route added to the
API without the client fails here."""

from __future__ import annotations

import copy
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
    "GET /v1/entities/{id}/graph": "entity_graph",
    "GET /v1/session": "session",
    "GET /v1/overview": "overview",
    "POST /v1/episodes": "remember",
    "GET /v1/episodes": "iter_episodes",
    "GET /v1/episodes/{id}": "episode",
    "POST /v1/episodes/{id}/retry": "retry_episode",
    "POST /v1/search": "search",
    "POST /v1/context": "context",
    "POST /v1/forget": "forget",
    "GET /v1/audit": "audit",
    "GET /v1/ontology": "ontology",
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


JSON_TYPES: dict[str, type] = {
    "string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict,
}


def _flat(annotation: Any) -> set[Any]:
    """The bare types an annotation admits: unions and Optional flattened, generics by origin."""
    if annotation is None or annotation is type(None):
        return set()
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin is typing.Union or isinstance(annotation, types.UnionType):
        return set().union(*(_flat(a) for a in args))
    if origin is typing.Annotated:
        return _flat(args[0])
    return {origin or annotation}


def _type_problem(spec: dict[str, Any], annotation: Any, request: bool) -> str | None:
    """Why a field's annotation does not fit its property's JSON type, or None."""
    kinds = spec.get("type")
    kinds = [kinds] if isinstance(kinds, str) else [k for k in kinds or [] if k != "null"]
    if not kinds:
        return None  # a $ref or oneOf: the schema it names is checked on its own
    flat = _flat(annotation)
    if spec.get("format") == "date-time" and not request:
        # Answers' times are always timezone-aware.
        return None if AwareDatetime in flat else "is a date-time but the model's field is not an AwareDatetime"
    want = JSON_TYPES.get(kinds[0])
    if want is None or want in flat:
        return None
    return f"is {kinds[0]} but the model has {annotation}"


def schema_problems(doc: dict[str, Any]) -> list[str]:
    """What the client's models miss of the document's schemas."""
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
            else:
                request = name.endswith("Request") or name == "FactInput"
                why = _type_problem(spec, fields[prop].annotation, request)
                if why:
                    problems.append(f"{name}.{prop} {why}")
        required = set(schema.get("required", []))
        for field_name, info in fields.items():
            if field_name not in props:
                problems.append(f"{model.__name__}.{field_name} is not in schema {name}")
            elif info.is_required() and field_name not in required:
                problems.append(f"{model.__name__}.{field_name} is required but schema {name} may leave it out")
    stale = set(SCHEMAS) - set(doc["components"]["schemas"])
    problems += [f"SCHEMAS names {s}, which the API no longer has" for s in sorted(stale)]
    return problems


def operation_problems(doc: dict[str, Any]) -> list[str]:
    """What the client's methods miss of the document's operations and their parameters."""
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
    return problems


def test_every_schema_has_a_model_with_every_field(doc: dict[str, Any]) -> None:
    problems = schema_problems(doc)
    assert not problems, "\n".join(problems)


def test_every_operation_has_a_method_taking_its_parameters(doc: dict[str, Any]) -> None:
    problems = operation_problems(doc)
    assert not problems, "\n".join(problems)


def test_additions_to_the_api_are_caught(doc: dict[str, Any]) -> None:
    changed = copy.deepcopy(doc)
    schemas = changed["components"]["schemas"]
    schemas["Fact"]["properties"]["mood"] = {"type": "string"}
    schemas["Episode"]["properties"]["reference_time"] = {"type": "integer"}
    schemas["Widget"] = {"type": "object", "properties": {}}
    schemas["SearchRequest"]["properties"]["boost"] = {"type": "number"}
    changed["paths"]["/v1/widgets"] = {"get": {"responses": {}}}
    changed["paths"]["/v1/facts"]["get"]["parameters"].append({"name": "color", "in": "query"})
    assert schema_problems(changed) == [
        "Episode.reference_time is integer but the model has <class 'pydantic.types.AwareDatetime'>",
        "Fact.mood is missing from Fact",
        "SearchRequest.boost is missing from SearchRequest",
        "schema Widget has no client model (add one to graphmem.models.SCHEMAS)",
    ]
    assert operation_problems(changed) == [
        "Graphmem.iter_facts has no argument for GET /v1/facts ?color",
        "AsyncGraphmem.iter_facts has no argument for GET /v1/facts ?color",
        "GET /v1/widgets has no client method (add it to Graphmem and AsyncGraphmem)",
        "Graphmem.search has no argument for SearchRequest.boost",
        "AsyncGraphmem.search has no argument for SearchRequest.boost",
    ]


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
