"""The clocks as they were computed before they became a fold (issue 32): from the whole
log at every question. Kept as the property tests' reference (``test_clock.py``): the
fold kept beside the game (``service.clock.Clock.after``) must say what this says."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from service.clock import END_EVENT, VACATION_EVENT, ZERO, Clock, Span, TimeControl, Turn
from service.times import from_text


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
class Reference:
    """The whole-log clock: its control, the number of seats, its turns and its end, and
    each seat's vacation spans (its clock stops in them)."""

    control: TimeControl
    players: int
    turns: Sequence[Turn] = ()
    ended_at: datetime | None = None
    away: Mapping[int, Sequence[Span]] = field(default_factory=dict)

    # a seat's running time and deadline within its vacation spans are the fold's own
    # (what the test holds the fold to is the turns and the spans it keeps)
    _running = Clock._running
    _advance = Clock._advance

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


