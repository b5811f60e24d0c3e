"""Schemathesis hooks for graphmem (loaded by scripts/schemathesis.sh).

The document describes one line of the JSON Lines bodies of
POST /v1/import and GET /v1/export; these hooks write and read such
bodies. One rule cannot be said in JSON Schema: a fact's valid_to comes
after its valid_from (the server answers 400 naming valid_to), so
generated facts that break it are left out rather than reported.
"""

import json
from datetime import datetime

import schemathesis

NDJSON = "application/x-ndjson"


@schemathesis.serializer(NDJSON)
def write_json_lines(ctx, value):
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return (json.dumps(value) + "\n").encode()


@schemathesis.deserializer(NDJSON)
def read_json_lines(ctx, response):
    """Every line must be a JSON object holding exactly one record; the
    first is checked against the schema (an empty export reads as {})."""
    records = []
    for n, line in enumerate(response.content.splitlines(), 1):
        if not line.strip():
            continue
        rec = json.loads(line)
        if not isinstance(rec, dict) or len(rec) != 1:
            raise ValueError(f"line {n} is not one record: {line[:200]!r}")
        records.append(rec)
    return records[0] if records else {}


def _time(v):
    if not isinstance(v, str):
        return None
    try:
        return datetime.fromisoformat(v.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None


@schemathesis.hook
def filter_case(ctx, case):
    """Leaves out a POST /v1/facts whose facts end before they start."""
    if case.method.upper() != "POST" or case.path != "/v1/facts":
        return True
    body = case.body
    facts = body.get("facts") if isinstance(body, dict) else None
    if not isinstance(facts, list):
        return True
    for f in facts:
        if not isinstance(f, dict):
            continue
        start, end = _time(f.get("valid_from")), _time(f.get("valid_to"))
        if start and end:
            try:
                if end <= start:
                    return False
            except TypeError:  # naive and aware times
                return False
    return True
