"""Times on the wire: what the client sends for a datetime, a date or a string."""

from __future__ import annotations

from datetime import date, datetime, time, timezone


def format_time(value: datetime | date | str) -> str:
    """Return ``value`` as the server reads it (RFC 3339).

    An aware ``datetime`` keeps its offset; a naive one is local time, as
    everywhere in Python; a ``date`` is midnight UTC of that day; a string is
    sent as it is, for the server to parse (and to name the field if it cannot).
    """
    if isinstance(value, str):
        return value
    if isinstance(value, datetime):
        if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
            value = value.astimezone()
        return value.isoformat()
    if isinstance(value, date):
        return datetime.combine(value, time(0), tzinfo=timezone.utc).isoformat().replace("+00:00", "Z")
    raise TypeError(f"a time must be a datetime, a date or a string, not {type(value).__name__}")


def optional_time(value: datetime | date | str | None) -> str | None:
    """``format_time`` for an optional value."""
    return None if value is None else format_time(value)
