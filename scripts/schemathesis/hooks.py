"""Schemathesis hooks for graphmem (loaded by scripts/schemathesis.sh).

The document describes one line of the JSON Lines bodies of
POST /v1/import and GET /v1/export; these hooks write and read such
bodies. Two rules cannot be said in JSON Schema: a fact's valid_to comes
after its valid_from (the server answers 400 naming valid_to), and a
time's year is from 1000 to 9999 in UTC (the schema's pattern checks the
year as written, before its offset), so generated cases that break them
are left out rather than reported.

A word character in the document's patterns is a letter or digit of any
script, as Python reads it and as the server checks it; the validator
that judges negative cases (jsonschema_rs) reads it as ASCII only, so it
takes a name such as "東京" or "é" for a violation. Negative cases built
on that difference are left out too.
"""

import json
import re
from datetime import datetime, timezone

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


def _ends_before_start(f):
    """Whether a statement's valid_to is not after its valid_from."""
    start, end = _time(f.get("valid_from")), _time(f.get("valid_to"))
    if not (start and end):
        return False
    try:
        return end <= start
    except TypeError:  # naive and aware times
        return True


# Ids and the strings the embedded store keeps in its keys: at most 1,024
# bytes, no NUL; the lists hold ids.
KEY_PARTS = {
    "fact": ("id", "subject_id", "object_id", "predicate"),
    "entity": ("id",),
    "episode": ("id", "status", "idempotency_key"),
    "tombstone": ("fingerprint",),
}
ID_LISTS = {"episode": ("fact_ids",), "tombstone": ("fact_ids",)}


def _bad_key(v):
    return isinstance(v, str) and ("\x00" in v or len(v.encode("utf-8", "surrogatepass")) > 1024)


def _breaks_unstated_rules(kind, rec):
    """The import's rules that JSON Schema cannot state: key parts and ids
    of at most 1,024 bytes without NUL, an episode's content of at most
    256 KiB, and the ids a fact refers to, which must name records in the
    import or the scope. A body of one record cannot hold the entity a
    fact's subject_id names, so every fact that has one is left out (one
    without is refused for that)."""
    for name in KEY_PARTS.get(kind, ()):
        if _bad_key(rec.get(name)):
            return True
    for name in ID_LISTS.get(kind, ()):
        ids = rec.get(name)
        if isinstance(ids, list) and any(_bad_key(v) for v in ids):
            return True
    if kind == "episode":
        content = rec.get("content")
        return isinstance(content, str) and len(content.encode("utf-8", "surrogatepass")) > 256 << 10
    return kind == "fact" and bool(rec.get("subject_id"))


OFFSET_TIME = re.compile(r"^\d{4}-\d\d-\d\dT.*[+-]\d\d:\d\d$")


def _outside_years(value):
    """Whether value holds a time whose offset takes it out of the years
    1000 to 9999 in UTC (1000-01-01T00:30:00+01:00 is in year 999)."""
    if isinstance(value, dict):
        return any(_outside_years(v) for v in value.values())
    if isinstance(value, list):
        return any(_outside_years(v) for v in value)
    if not (isinstance(value, str) and OFFSET_TIME.match(value)):
        return False
    t = _time(value)
    if t is None or t.tzinfo is None:
        return False
    try:
        return not 1000 <= t.astimezone(timezone.utc).year <= 9999
    except OverflowError:  # past year 9999
        return True


UNICODE_WORD = re.compile(r"[^\W_]")
ASCII_WORD = re.compile(r"[A-Za-z0-9]")


def _word_only_beyond_ascii(value):
    """Whether value holds a string whose letters or digits are all beyond
    ASCII: a word to Python and the server, none to jsonschema_rs."""
    if isinstance(value, dict):
        return any(_word_only_beyond_ascii(v) for v in value.values())
    if isinstance(value, list):
        return any(_word_only_beyond_ascii(v) for v in value)
    return isinstance(value, str) and bool(UNICODE_WORD.search(value)) and not ASCII_WORD.search(value)


@schemathesis.hook
def filter_case(ctx, case):
    """Leaves out times outside the years 1000 to 9999 in UTC, negative
    cases that are negative only to ASCII word characters, facts that end before they
    start (POST /v1/facts) and import records that break a rule JSON Schema
    cannot state."""
    if _outside_years(case.query) or _outside_years(case.body):
        return False
    meta = case.meta
    if meta is not None and meta.generation.mode.is_negative and (
        _word_only_beyond_ascii(case.query) or _word_only_beyond_ascii(case.body)
    ):
        return False
    if case.method.upper() != "POST":
        return True
    body = case.body
    if case.path == "/v1/facts":
        facts = body.get("facts") if isinstance(body, dict) else None
        if isinstance(facts, list):
            for f in facts:
                if isinstance(f, dict) and _ends_before_start(f):
                    return False
    if case.path == "/v1/import" and isinstance(body, dict):
        for kind, rec in body.items():
            if isinstance(rec, dict) and _breaks_unstated_rules(kind, rec):
                return False
    return True
