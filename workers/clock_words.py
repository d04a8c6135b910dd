"""The clock in the mails' words, in the reader's language: durations, the time a seat
has left, a day off, the deadline and the game's time control. Every mail says them
through this module. Its sentences are ``msg`` messages said through the catalogs
(``service.i18n.say``); the counted units ("3 days"), the weekdays and "in 3 days" come
from Babel's locale data (CLDR), so that each language's plural forms and cases are
right ("3 päivän päästä", "через 3 дня")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from babel.dates import format_timedelta, get_day_names
from babel.units import format_unit

from engine.words import listing, msg
from service.clock import DAYS, TimeControl
from service.i18n import say
from service.i18n import time as time_of_day

UNITS = (("day", 86400), ("hour", 3600), ("minute", 60))
WEEKEND = ("sat", "sun")


def count(n: int, unit: str, lang: str) -> str:
    """``3 days``, ``1 hour`` (``unit``: day, hour, minute or second)."""
    return format_unit(n, f"duration-{unit}", "long", locale=lang)


def human_duration(seconds: float, lang: str) -> str:
    """A duration in one unit, rounded: ``3 days``, ``90 seconds`` (in days when whole
    days or at least two, else hours…)."""
    seconds = int(round(seconds))
    for unit, size in UNITS:
        if seconds >= size and seconds % size == 0 or seconds >= 2 * size:
            return count(round(seconds / size), unit, lang)
    return count(seconds, "second", lang)


def time_words(seconds: float, lang: str) -> str:
    """A time left in its two largest units (to the nearest minute, then rounded down):
    ``2 days 4 hours``, ``3 days``, ``5 hours 10 minutes``, ``less than a minute``."""
    seconds = round(seconds / 60) * 60 if seconds >= 60 else int(seconds)
    for i, (unit, size) in enumerate(UNITS):
        if seconds >= size:
            big = count(seconds // size, unit, lang)
            if i + 1 < len(UNITS):
                small, small_size = UNITS[i + 1]
                rest = seconds % size // small_size
                if rest:
                    # TRANSLATORS: a time in two units: "2 days 4 hours"
                    return say(msg("{big} {small}", big=big,
                                   small=count(rest, small, lang)), lang)
            return big
    return say(msg("less than a minute"), lang)


def time_left_words(seconds: float, bank: bool, lang: str) -> str:
    """``2 days 4 hours left in your bank``, ``3 days left for this move``."""
    if seconds <= 0:
        return say(msg("no time left"), lang)
    time = time_words(seconds, lang)
    return say(msg("{time} left in your bank", time=time) if bank else
               msg("{time} left for this move", time=time), lang)


def when_words(at: datetime, zone: str | None, lang: str) -> str:
    """``Thursday 18:00 UTC`` (or in ``zone``: ``Monday 00:00 Europe/Helsinki``)."""
    weekday_time = time_of_day(at, lang, ZoneInfo(zone) if zone else UTC, weekday=True)
    # TRANSLATORS: a weekday and a time ("Thursday 18:00"), then the time zone ("UTC")
    return say(msg("{weekday_time} {zone}", weekday_time=weekday_time, zone=zone or "UTC"),
               lang)


def deadline_words(deadline: datetime, now: datetime, lang: str) -> str:
    """The deadline in words: ``in 3 days, Thursday 18:00 UTC``."""
    when = when_words(deadline, None, lang)
    left = (deadline - now).total_seconds()
    if left < 1:
        return say(msg("now, {when}", when=when), lang)
    soon = format_timedelta(timedelta(seconds=left), add_direction=True, locale=lang)
    return say(msg("{in_time}, {when}", in_time=soon, when=when), lang)


def day_off_words(control: TimeControl, until: datetime, lang: str) -> str:
    """While a day off runs: ``Weekend off now: your clock runs again Monday 00:00
    Europe/Helsinki.``"""
    when = when_words(until, control.timezone, lang)
    if set(control.days_off) == set(WEEKEND):
        return say(msg("Weekend off now: your clock runs again {when}.", when=when), lang)
    return say(msg("A day off now: your clock runs again {when}.", when=when), lang)


def control_words(control: TimeControl, lang: str) -> str:
    """The time control: ``3 days per move``, ``a bank of 10 days, +1 day a move, at most
    10 days; weekends off (Europe/Helsinki)``."""
    if control.bank is not None:
        assert control.cap is not None
        out = say(msg("a bank of {bank}, +{increment} a move, at most {cap}",
                      bank=human_duration(control.bank, lang),
                      increment=human_duration(control.increment, lang),
                      cap=human_duration(control.cap, lang)), lang)
    else:
        out = say(msg("{time} per move", time=human_duration(control.time_per_move, lang)),
                  lang)
    zone = control.timezone or "UTC"
    if set(control.days_off) == set(WEEKEND):
        return say(msg("{control}; weekends off ({zone})", control=out, zone=zone), lang)
    if control.days_off:
        names = get_day_names("wide", "stand-alone", locale=lang)
        days = listing([names[DAYS.index(d)] for d in control.days_off], style="unit")
        return say(msg("{control}; no clock runs on {days} ({zone})", control=out,
                       days=days, zone=zone), lang)
    return out
