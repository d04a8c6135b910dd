"""The game clock: how much time each seat has, and when the seat to act runs out.

Pure: no I/O and no ``now()``; every instant is an argument. A game's clocks are a fold
of its log (``Clock.after``: the turns' clock events, the game's end and the vacations,
each at the time its batch was appended), kept beside the game in its row and carried
forward by each batch: a move never reads the log for them. The application layer asks
the fold for the game row's deadline, the game document's ``time_left`` and the
reminders' times (``deadline``, ``time_left``, ``reminder_times``).

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
  ``vacation`` events): a deadline inside one moves out by the time left.

A game without a time control (every game before this module) has time per move and no
days off: its deadline is ``time_per_move`` after its turn started, as it always was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, time, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from engine.describe import CLOCK_EVENTS
from engine.words import Msg, msg

from .times import from_text, to_text

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
MICROSECOND = timedelta(microseconds=1)


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


#: (version, event, the time its batch was appended): what the clock reads of a log.
Timed = tuple[int, Mapping[str, Any], datetime]


@dataclass(frozen=True)
class Clock:
    """A game's clocks as the fold of its log's ``TIMED_EVENTS`` (``after``): each seat's
    time as its turn began (``left``), the turn going on, the end of the game, and each
    seat's vacation spans still to matter (its clock stops in them). Kept beside the game
    (the games row's ``clock``, ``to_json``) and carried forward by each batch, so no
    move reads the log for it. Its answers hold from the latest batch's time on."""

    control: TimeControl
    left: tuple[timedelta, ...]
    turn: Turn | None = None
    last: tuple[int, int] | None = None  # (version, seat) of the latest clock event
    ended_at: datetime | None = None
    away: Mapping[int, tuple[Span, ...]] = field(default_factory=dict)

    @classmethod
    def start(cls, control: TimeControl, players: int) -> Clock:
        """The clocks of a game before its first event: every seat has its initial time."""
        return cls(control, (control.initial,) * players)

    # -- the fold --------------------------------------------------------------------------

    def after(self, timed: Iterable[Timed]) -> Clock:
        """The clocks after the events ``timed`` (in order, times never going back; other
        types than ``TIMED_EVENTS`` are passed over). The one place that says what a
        batch does to the clocks:

        - a clock event starts a turn of its seat (and ends the turn going on: the seat
          keeps what its clock did not run, plus the increment), unless it comes right
          after one of the same seat, or in the same instant as the turn going on and for
          its seat (the tiles of one market space given out at the game end: one turn);
        - the end of the game ends the turn going on; a turn that begins in the instant
          the game ends is none (no time, no increment: A-6's last tiles);
        - a ``vacation`` event ends the seat's spans at its time at the latest (one not
          begun is dropped), then adds its own from that time at the earliest: a clock is
          never stopped in the past.
        """
        clock = self
        batch: list[Timed] = []
        for item in timed:
            if batch and item[2] != batch[0][2]:
                clock, batch = clock._instant(batch), []
            batch.append(item)
        return clock._instant(batch) if batch else clock

    def _instant(self, timed: list[Timed]) -> Clock:
        """``after`` for events of one instant."""
        at = timed[0][2]
        ends = any(e["type"] == END_EVENT for _, e, _ in timed)
        left, turn, last = list(self.left), self.turn, self.last
        ended, away = self.ended_at, {s: list(spans) for s, spans in self.away.items()}

        def finish(turn: Turn) -> None:
            if not (ends and turn.start == at):  # a turn of no instant at the end: none
                left[turn.seat] = self.control.after_turn(
                    left[turn.seat], self._running(turn.seat, turn.start, at))

        for version, event, _ in timed:
            kind = event["type"]
            if kind == VACATION_EVENT:
                seat = event["seat"]
                spans = [(a, min(b, at)) for a, b in away.get(seat, []) if a < at]
                if event.get("since") and event.get("until"):
                    since, until = max(from_text(event["since"]), at), from_text(event["until"])
                    if until > since:
                        spans.append((since, until))
                away[seat] = spans
            elif kind == END_EVENT:
                if turn is not None:
                    finish(turn)
                ended, turn = at, None
            elif kind in CLOCK_EVENTS:
                seat = event["seat"]
                if last != (version - 1, seat) and turn != Turn(seat, at):
                    if turn is not None:
                        finish(turn)
                    turn = Turn(seat, at)
                last = (version, seat)
        # spans over before the turn going on began can matter no more
        keep = turn.start if turn is not None else at
        return replace(self, left=tuple(left), turn=turn, last=last, ended_at=ended,
                       away={s: tuple(k) for s, spans in sorted(away.items())
                             if (k := [(a, b) for a, b in spans if b > keep])})

    # -- what the clocks say ---------------------------------------------------------------

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

    def away_until(self, at: datetime) -> dict[int, datetime]:
        """The seats on vacation at ``at``, with its end."""
        return {s: b for s in self.away if (b := self.vacation_until(s, at)) is not None}

    def time_left(self, at: datetime) -> list[timedelta]:
        """Each seat's time left at instant ``at`` (never below 0)."""
        left = list(self.left)
        if self.turn is not None:
            seat = self.turn.seat
            left[seat] = max(ZERO, left[seat] - self._running(seat, self.turn.start, at))
        return left

    def deadline(self) -> datetime | None:
        """When the seat to act has no time left (None: nobody is to act)."""
        if self.turn is None:
            return None
        return self._advance(self.turn.seat, self.turn.start, self.left[self.turn.seat])

    def reminder_times(self, fractions: Iterable[float]) -> list[datetime]:
        """When the seat to act has used each of ``fractions`` of the time it had as its
        turn started (0.5: half of it), in order."""
        if self.turn is None:
            return []
        seat, start, had = self.turn.seat, self.turn.start, self.left[self.turn.seat]
        return [self._advance(seat, start, had * f) for f in sorted(fractions)]

    # -- kept beside the game --------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The fold as the games row keeps it (times in ``times``' text form, durations in
        microseconds); ``from_json`` reads it back, the control given."""
        return {"left": [t // MICROSECOND for t in self.left],
                "turn": [self.turn.seat, to_text(self.turn.start)] if self.turn else None,
                "last": list(self.last) if self.last else None,
                "ended": to_text(self.ended_at) if self.ended_at else None,
                "away": {str(s): [[to_text(a), to_text(b)] for a, b in spans]
                         for s, spans in self.away.items()}}

    @classmethod
    def from_json(cls, control: TimeControl, doc: Mapping[str, Any]) -> Clock:
        turn, last = doc.get("turn"), doc.get("last")
        return cls(control, tuple(t * MICROSECOND for t in doc["left"]),
                   Turn(turn[0], from_text(turn[1])) if turn else None,
                   (last[0], last[1]) if last else None,
                   from_text(doc["ended"]) if doc.get("ended") else None,
                   {int(s): tuple((from_text(a), from_text(b)) for a, b in spans)
                    for s, spans in (doc.get("away") or {}).items()})


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
