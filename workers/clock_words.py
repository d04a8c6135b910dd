"""The clock in the mails' words: durations, the time a seat has left, a day off, the
deadline and the game's time control. Every mail says them through this module; its
English words are in ``WORDS`` and come out through ``say`` alone (the one function to
translate)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from service import times
from service.clock import DAYS, TimeControl

#: Each text by key: a (singular, plural) pair for the counted ones.
WORDS: dict[str, str | tuple[str, str]] = {
    "day": ("{n} day", "{n} days"),
    "hour": ("{n} hour", "{n} hours"),
    "minute": ("{n} minute", "{n} minutes"),
    "second": ("{n} second", "{n} seconds"),
    "under_a_minute": "less than a minute",
    "pair": "{big} {small}",
    "left_in_bank": "{time} left in your bank",
    "left_for_move": "{time} left for this move",
    "no_time_left": "no time left",
    "weekend_off": "Weekend off now: your clock runs again {when}.",
    "day_off": "A day off now: your clock runs again {when}.",
    "per_move": "{time} per move",
    "bank": "a bank of {bank}, +{increment} a move, at most {cap}",
    "with_weekends_off": "{control}; weekends off ({zone})",
    "with_days_off": "{control}; no clock runs on {days} ({zone})",
    "in": "in {time}, {when}",
    "now": "now, {when}",
    "when": "{weekday} {hour} {zone}",
    "mon": "Monday", "tue": "Tuesday", "wed": "Wednesday", "thu": "Thursday",
    "fri": "Friday", "sat": "Saturday", "sun": "Sunday",
}
UNITS = (("day", 86400), ("hour", 3600), ("minute", 60))
WEEKEND = ("sat", "sun")


def say(key: str, n: int | None = None, **fields: object) -> str:
    """The words of ``key``, filled in (``n``: the count that picks singular or plural)."""
    text = WORDS[key]
    if isinstance(text, tuple):
        text = text[0] if n == 1 else text[1]
    return text.format(n=n, **fields)


def human_duration(seconds: float) -> str:
    """A duration in one unit, rounded: ``3 days``, ``90 seconds``."""
    seconds = int(round(seconds))
    for unit, size in UNITS:
        if seconds >= size and seconds % size == 0 or seconds >= 2 * size:
            return say(unit, round(seconds / size))
    return say("second", seconds)


def time_words(seconds: float) -> str:
    """A time left in its two largest units (to the nearest minute, then rounded down):
    ``2 days 4 hours``, ``3 days``, ``5 hours 10 minutes``, ``less than a minute``."""
    seconds = round(seconds / 60) * 60 if seconds >= 60 else int(seconds)
    for i, (unit, size) in enumerate(UNITS):
        if seconds >= size:
            big = say(unit, seconds // size)
            if i + 1 < len(UNITS):
                small, small_size = UNITS[i + 1]
                rest = seconds % size // small_size
                if rest:
                    return say("pair", big=big, small=say(small, rest))
            return big
    return say("under_a_minute")


def time_left_words(seconds: float, bank: bool) -> str:
    """``2 days 4 hours left in your bank``, ``3 days left for this move``."""
    if seconds <= 0:
        return say("no_time_left")
    return say("left_in_bank" if bank else "left_for_move", time=time_words(seconds))


def when_words(at: datetime, zone: str | None = None) -> str:
    """``Thursday 18:00 UTC`` (or in ``zone``)."""
    local = at.astimezone(ZoneInfo(zone) if zone else UTC)
    return say("when", weekday=say(DAYS[local.weekday()]), hour=f"{local:%H:%M}",
               zone=zone or "UTC")


def deadline_words(deadline: datetime, now: datetime | None = None) -> str:
    """The deadline in words: ``in 3 days, Thursday 18:00 UTC``."""
    left = (deadline - (now or times.now())).total_seconds()
    when = when_words(deadline)
    return say("in", time=human_duration(left), when=when) if left >= 1 else \
        say("now", when=when)


def day_off_words(control: TimeControl, until: datetime) -> str:
    """While a day off runs: ``Weekend off now: your clock runs again Monday 00:00
    Europe/Helsinki.``"""
    weekend = set(control.days_off) == set(WEEKEND)
    return say("weekend_off" if weekend else "day_off",
               when=when_words(until, control.timezone))


def control_words(control: TimeControl) -> str:
    """The time control: ``3 days per move``, ``a bank of 10 days, +1 day a move, at most
    10 days; weekends off (Europe/Helsinki)``."""
    if control.bank is not None:
        assert control.cap is not None
        out = say("bank", bank=human_duration(control.bank),
                  increment=human_duration(control.increment), cap=human_duration(control.cap))
    else:
        out = say("per_move", time=human_duration(control.time_per_move))
    zone = control.timezone or "UTC"
    if set(control.days_off) == set(WEEKEND):
        return say("with_weekends_off", control=out, zone=zone)
    if control.days_off:
        return say("with_days_off", control=out, zone=zone,
                   days=", ".join(say(d) for d in control.days_off))
    return out
