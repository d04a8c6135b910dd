"""Time, said one way: aware UTC datetimes in the code, one text form at the edges.

The code passes ``datetime`` objects (always UTC) and compares them as times. Text is
only for storage and the API: ``to_text`` writes ISO 8601 in UTC with milliseconds and a
``Z`` (``2026-03-05T18:00:00.000Z``); every stamp has that one width, so stored stamps
also sort as text in time order. ``from_text`` reads any ISO 8601 time with a zone.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def now() -> datetime:
    """The current time (UTC), to the millisecond (so that it survives ``to_text``)."""
    t = datetime.now(UTC)
    return t.replace(microsecond=t.microsecond // 1000 * 1000)


def later(seconds: float, start: datetime | None = None) -> datetime:
    """``seconds`` after ``start`` (default: now)."""
    return (start or now()) + timedelta(seconds=seconds)


def to_text(t: datetime) -> str:
    """``t`` as ISO 8601 UTC with milliseconds and a Z."""
    return t.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def from_text(text: str) -> datetime:
    """An ISO 8601 time with a zone (``Z`` or an offset), as an aware UTC datetime."""
    t = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    if t.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone")
    return t.astimezone(UTC)


def seconds_since(t: datetime) -> float:
    return (now() - t).total_seconds()
