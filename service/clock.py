"""The game clock: how much time each seat has, and when the seat to act runs out.

Pure: no I/O and no ``now()``; every instant is an argument. The application layer gives
it the game's time control and the times of its turns (``turns``, from the log: the
time each batch was appended), and asks it for the game row's deadline and the game
document's ``time_left``; the reminders and the deadline job ask it the same way
(``reminder_times``, ``deadline``).

The rules:

- A seat's clock runs only while that seat is to act: from the batch that hands it the
  turn (or, at the game end, a tile to place) to the batch that hands it on.
- Days off: on the ``days_off`` of ``timezone`` (whole local days, midnight to
  midnight, as the IANA zone says, DST included) no clock runs.
- Time per move (no bank): each turn has ``time_per_move`` seconds of running clock.
- A bank: a seat starts with ``bank`` seconds; its turns run it down (never below 0),
  and each turn it completes adds ``increment``, up to ``cap``.
- The deadline is the instant at which the seat to act has no time left.
- Vacations: a seat's clock does not run during its player's vacation spans (the log's
  ``vacation`` events, ``vacations``): a deadline inside one moves out by the time left.

A game without a time control (every game before this module) has time per move and no
days off: its deadline is ``time_per_move`` after its turn started, as it always was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from engine.describe import CLOCK_EVENTS
from engine.words import Msg, msg

from .times import from_text

#: Day names, Monday first (``datetime.weekday()``).
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
#: The event that stops every clock.
END_EVENT = "game_over"
#: The event of a seat's vacation (``vacations``).
VACATION_EVENT = "vacation"
#: The events the clock reads from a log (``turns``, ``vacations``).
TIMED_EVENTS = (*CLOCK_EVENTS, END_EVENT, VACATION_EVENT)
Span = tuple[datetime, datetime]
MAX_SECONDS = 365 * 86400  # the most a bank, a cap or an increment may be
DAY = 86400
ZERO = timedelta(0)


class ControlError(ValueError):
    """A time control that cannot be: ``field`` names the input, the message says why."""

    def __init__(self, field: str, message: Msg | str) -> None:
        super().__init__(message)
        self.field = field


@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


@dataclass(frozen=True)
class TimeControl:
    """A game's settings for the clock (see the module's rules)."""

    time_per_move: int
    bank: int | None = None
    increment: int = 0
    cap: int | None = None
    days_off: tuple[str, ...] = ()
    timezone: str | None = None

    @classmethod
    def parse(cls, time_per_move: int | None, doc: Mapping[str, Any] | None,
              minimum: int, default_time_per_move: int = 72 * 3600) -> TimeControl:
        """The time control a game is created with: ``time_per_move`` and the
        ``time_control`` object (bank, increment and cap; days_off and timezone; or
        both), checked; ControlError names what is wrong. ``minimum``: the least time a
        move (or a bank) may have."""
        given = doc is not None
        doc = dict(doc or {})
        banked = [k for k in ("bank", "increment", "cap") if doc.get(k) is not None]
        off = [k for k in ("days_off", "timezone") if doc.get(k) is not None]
        if given and not banked and not off:
            raise ControlError("time_control", msg("a time_control gives bank, increment "
                                                   "and cap, or days_off and timezone, or "
                                                   "both"))
        if banked and len(banked) < 3:
            raise ControlError("time_control", msg("bank, increment and cap go together "
                                                   "(given: {given})",
                                                   given=", ".join(banked)))
        if off and len(off) < 2:
            raise ControlError("time_control", msg("days_off and timezone go together "
                                                   "(given: {given})", given=", ".join(off)))
        bank = cap = None
        increment = 0
        if banked:
            if time_per_move is not None:
                raise ControlError("time_per_move", msg("a game with a bank has no time per "
                                                        "move: give time_per_move or a bank, "
                                                        "not both"))
            bank, increment, cap = (int(doc[k]) for k in ("bank", "increment", "cap"))
            if bank < minimum:
                raise ControlError("time_control.bank", msg(
                    "the bank must be at least {seconds} seconds", seconds=minimum))
            if not 0 <= increment <= MAX_SECONDS:
                raise ControlError("time_control.increment", msg(
                    "the increment is 0 to {seconds} seconds", seconds=MAX_SECONDS))
            if cap < bank:
                raise ControlError("time_control.cap", msg(
                    "the cap ({cap} s) may not be below the bank ({bank} s)", cap=cap,
                    bank=bank))
            if bank > MAX_SECONDS or cap > MAX_SECONDS:
                raise ControlError("time_control.cap", msg(
                    "a bank and its cap are at most {seconds} seconds (a year)",
                    seconds=MAX_SECONDS))
            time_per_move = bank
        elif time_per_move is None:
            time_per_move = default_time_per_move
        if time_per_move < minimum:
            raise ControlError("time_per_move", msg(
                "time_per_move must be at least {seconds} seconds", seconds=minimum))
        days: tuple[str, ...] = ()
        zone = None
        if off:
            days = _days(doc["days_off"])
            zone = str(doc["timezone"])
            if zone not in _zones():
                raise ControlError("time_control.timezone", msg(
                    "unknown time zone {zone}: an IANA name such as Europe/Helsinki or UTC",
                    zone=repr(zone)))
        return cls(time_per_move, bank, increment, cap, days, zone)

    @classmethod
    def of(cls, time_per_move: int, doc: Mapping[str, Any] | None) -> TimeControl:
        """A stored game's control (checked when the game was created)."""
        doc = doc or {}
        return cls(time_per_move, doc.get("bank"), doc.get("increment") or 0, doc.get("cap"),
                   tuple(doc.get("days_off") or ()), doc.get("timezone"))

    def to_json(self) -> dict[str, Any] | None:
        """The ``time_control`` object as stored and shown (None: time per move only)."""
        out: dict[str, Any] = {}
        if self.bank is not None:
            out.update(bank=self.bank, increment=self.increment, cap=self.cap)
        if self.days_off:
            out.update(days_off=list(self.days_off), timezone=self.timezone)
        return out or None

    @property
    def initial(self) -> timedelta:
        """The time a seat has at its first turn."""
        return timedelta(seconds=self.bank if self.bank is not None else self.time_per_move)

    def after_turn(self, left: timedelta, used: timedelta) -> timedelta:
        """A seat's time after a turn in which its clock ran ``used``, from ``left``."""
        if self.bank is None:
            return timedelta(seconds=self.time_per_move)
        assert self.cap is not None
        return min(timedelta(seconds=self.cap),
                   max(ZERO, left - used) + timedelta(seconds=self.increment))

    # -- days off ------------------------------------------------------------------------

    def _day(self, t: datetime) -> tuple[bool, datetime]:
        """Is ``t`` on a day off, and when does its local day end?"""
        zone = ZoneInfo(self.timezone or "UTC")
        day = t.astimezone(zone).date()
        for fold in (0, 1):  # a midnight repeated by a change of the clocks: its 2nd one
            end = datetime.combine(day + timedelta(days=1), time(fold=fold), zone
                                   ).astimezone(UTC)
            if end > t:
                return DAYS[day.weekday()] in self.days_off, end
        raise AssertionError(f"no end of the day of {t} in {self.timezone}")

    def running(self, start: datetime, end: datetime) -> timedelta:
        """How long a clock runs from ``start`` to ``end`` (days off left out)."""
        if end <= start:
            return ZERO
        if not self.days_off:
            return end - start
        total, t = ZERO, start
        while t < end:
            off, day_end = self._day(t)
            upto = min(day_end, end)
            if not off:
                total += upto - t
            t = upto
        return total

    def day_off_until(self, at: datetime) -> datetime | None:
        """If ``at`` is on a day off, when the clocks run again (the end of that run of
        days off); None on a day the clocks run."""
        off, end = self._day(at) if self.days_off else (False, at)
        if not off:
            return None
        while True:
            off, later = self._day(end)
            if not off:
                return end
            end = later

    def advance(self, start: datetime, amount: timedelta) -> datetime:
        """The first instant at which a clock started at ``start`` has run ``amount``."""
        if amount <= ZERO:
            return start
        if not self.days_off:
            return start + amount
        t = start
        while True:
            off, day_end = self._day(t)
            if not off:
                if t + amount <= day_end:
                    return t + amount
                amount -= day_end - t
            t = day_end


def _days(names: Any) -> tuple[str, ...]:
    field = "time_control.days_off"
    if not isinstance(names, list | tuple) or not names:
        raise ControlError(field, msg("days_off is a list of day names: {days}",
                                      days=", ".join(DAYS)))
    days = [str(n).lower() for n in names]
    unknown = [n for n in days if n not in DAYS]
    if unknown:
        raise ControlError(field, msg("unknown day {day}; the days are {days}",
                                      day=repr(unknown[0]), days=", ".join(DAYS)))
    if len(set(days)) != len(days):
        raise ControlError(field, msg("a day is named twice in days_off"))
    if len(days) == len(DAYS):
        raise ControlError(field, msg("with every day off no clock would ever run"))
    return tuple(d for d in DAYS if d in days)


@dataclass(frozen=True)
class Turn:
    """``seat`` is to act from ``start`` (until the next turn starts, or the game ends)."""

    seat: int
    start: datetime


def turns(timed: Iterable[tuple[int, Mapping[str, Any], datetime]]
          ) -> tuple[list[Turn], datetime | None]:
    """The turns of a log and when it ended, from its ``TIMED_EVENTS`` as (version,
    event, time appended). A clock event starts a turn of its seat, unless it comes
    right after one of the same seat (the tiles of one market space, given out at the
    game end, are one turn)."""
    out: list[Turn] = []
    ended = None
    last = None  # (version, seat) of the latest clock event
    for version, event, at in timed:
        if event["type"] == VACATION_EVENT:
            continue
        if event["type"] == END_EVENT:
            ended = at
            continue
        seat = event["seat"]
        # one turn: the seat's clock events in a row, or given out in one batch (its time)
        if last != (version - 1, seat) and not (out and out[-1] == Turn(seat, at)):
            out.append(Turn(seat, at))
        last = (version, seat)
    return out, ended


def vacations(timed: Iterable[tuple[int, Mapping[str, Any], datetime]]
              ) -> dict[int, list[Span]]:
    """Each seat's vacation spans from a log's ``vacation`` events (version, event, time
    appended): an event at ``at`` ends the seat's earlier spans at ``at`` at the latest
    (one not begun is dropped), then adds its own from ``at`` at the earliest (a clock
    is never stopped in the past)."""
    out: dict[int, list[Span]] = {}
    for _, event, at in timed:
        if event["type"] != VACATION_EVENT:
            continue
        spans = [(a, min(b, at)) for a, b in out.get(event["seat"], []) if a < at]
        if event.get("since") and event.get("until"):
            since, until = max(from_text(event["since"]), at), from_text(event["until"])
            if until > since:
                spans.append((since, until))
        out[event["seat"]] = spans
    return out


@dataclass(frozen=True)
class Clock:
    """A game's clock: its control, the number of seats, its turns and its end, and
    each seat's vacation spans (its clock stops in them)."""

    control: TimeControl
    players: int
    turns: Sequence[Turn] = ()
    ended_at: datetime | None = None
    away: Mapping[int, Sequence[Span]] = field(default_factory=dict)

    def _running(self, seat: int, start: datetime, end: datetime) -> timedelta:
        """How long ``seat``'s clock runs from ``start`` to ``end``: days off and its
        vacations left out."""
        total = self.control.running(start, end)
        for a, b in self.away.get(seat, ()):
            total -= self.control.running(max(a, start), min(b, end))
        return max(ZERO, total)

    def _advance(self, seat: int, start: datetime, amount: timedelta) -> datetime:
        """The first instant at which ``seat``'s clock started at ``start`` has run
        ``amount`` (days off and its vacations left out)."""
        t = start
        for a, b in sorted(self.away.get(seat, ())):
            if b <= t:
                continue
            if a > t:
                done = self.control.advance(t, amount)
                if done <= a:
                    return done
                amount -= self.control.running(t, a)
            t = b
        return self.control.advance(t, amount)

    def vacation_until(self, seat: int, at: datetime) -> datetime | None:
        """The end of ``seat``'s vacation going on at ``at`` (None: none)."""
        return next((b for a, b in self.away.get(seat, ()) if a <= at < b), None)

    def _end(self, i: int) -> datetime | None:
        """When turn ``i`` ended (None: it goes on)."""
        return self.turns[i + 1].start if i + 1 < len(self.turns) else self.ended_at

    def time_left(self, at: datetime) -> list[timedelta]:
        """Each seat's time left at instant ``at`` (never below 0)."""
        c = self.control
        left = [c.initial] * self.players
        for i, turn in enumerate(self.turns):
            if turn.start > at:
                break
            end = self._end(i)
            if end is not None and end == turn.start == self.ended_at:
                continue  # a tile given out as the game ended: no turn (no time, no increment)
            if end is not None and end <= at:
                left[turn.seat] = c.after_turn(left[turn.seat],
                                               self._running(turn.seat, turn.start, end))
            else:
                left[turn.seat] = max(ZERO, left[turn.seat] -
                                      self._running(turn.seat, turn.start, at))
                break
        return left

    def _current(self) -> tuple[Turn, timedelta] | None:
        """The turn going on, and the time its seat had when it started."""
        if self.ended_at is not None or not self.turns:
            return None
        turn = self.turns[-1]
        return turn, self.time_left(turn.start)[turn.seat]

    def deadline(self) -> datetime | None:
        """When the seat to act has no time left (None: nobody is to act)."""
        current = self._current()
        if current is None:
            return None
        turn, left = current
        return self._advance(turn.seat, turn.start, left)

    def reminder_times(self, fractions: Iterable[float]) -> list[datetime]:
        """When the seat to act has used each of ``fractions`` of the time it had as its
        turn started (0.5: half of it), in order."""
        current = self._current()
        if current is None:
            return []
        turn, left = current
        return [self._advance(turn.seat, turn.start, left * f) for f in sorted(fractions)]


def seconds(t: timedelta) -> int:
    """Time left as the API shows it: whole seconds, rounded up (0 only when none is
    left)."""
    return -(-t // timedelta(seconds=1))


def presets() -> list[dict[str, Any]]:
    """Time controls to offer when a game is created, each as the create request's
    fields (``time_per_move``, ``time_control``). Weekends off are in UTC: a client puts
    the players' zone in ``timezone``."""
    weekends = {"days_off": ["sat", "sun"], "timezone": "UTC"}
    out: list[dict[str, Any]] = []
    for days in (1, 2, 3, 5, 7, 10, 14):
        label = f"{days} day{'s' if days > 1 else ''} per move"
        out.append({"id": f"{days}d", "label": label, "time_per_move": days * DAY,
                    "time_control": None})
        out.append({"id": f"{days}d-weekends", "label": f"{label}, weekends off",
                    "time_per_move": days * DAY, "time_control": dict(weekends)})
    bank = {"bank": 10 * DAY, "increment": DAY, "cap": 10 * DAY}
    label = "a bank of 10 days, +1 day a move, at most 10 days"
    out.append({"id": "bank10d", "label": label, "time_per_move": None,
                "time_control": dict(bank)})
    out.append({"id": "bank10d-weekends", "label": f"{label}, weekends off",
                "time_per_move": None, "time_control": {**bank, **weekends}})
    return out
