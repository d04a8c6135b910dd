"""What a batch of new events calls for: the due work written with it (``store.Due``).

Pure: the application layer (``Games``) hands in what it knows once the batch is decided
(the events, the state after them, the game row's new fields, the times the clock gives
for reminders, the seats with an address, the game's webhooks) and gets the rows its
append writes in the same transaction. The workers claim and run them (workers/jobs.py);
nothing else decides what a move is followed by.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import engine

from . import times
from .store import Due, Game, GameUpdate
from .store.base import MailKind

#: The kinds of a game's pending rows every batch replaces: its one alarm, its bot's move.
REPLACED = ("deadline", "bot")


@dataclass(frozen=True)
class Appended:
    """A batch as its append writes it: the game row before it, the batch's first
    version and events, the state after them, the row's new fields (``update``, with
    the batch's time), and ``reminders``: (percent of the seat's time used, when) of a
    turn this batch starts (None: the deadline is unchanged, its reminders stand)."""

    game: Game
    from_version: int
    events: Sequence[Mapping[str, Any]]
    after: engine.State
    update: GameUpdate
    at: datetime
    reminders: Sequence[tuple[int, datetime]] | None
    addressed: Collection[int]  # the seats with an e-mail address
    hooks: Sequence[int]  # the game's webhooks still enabled
    claimed: Collection[int] = ()  # the seats an account claimed: told on its channels


@dataclass(frozen=True)
class Plan:
    """The rows to add, and the kinds of the game's pending rows they replace."""

    due: list[Due]
    replaces: tuple[str, ...]


def clock_started(from_version: int, events: Sequence[Mapping[str, Any]],
                  after: engine.State) -> bool:
    """Did the batch hand the turn (or a tile to place) to the seat to act?"""
    if from_version == 1:
        return True
    mover = next((e.get("seat") for e in events if "move" in e), None)
    return engine.clock_started(events) or mover != after.current


def mails(from_version: int, events: Sequence[Mapping[str, Any]], after: engine.State
          ) -> list[tuple[MailKind, int]]:
    """The (kind, seat) of each mail the batch calls for, in sending order. One mail
    where one is meant: the seat to move's "game started" mail is its first "your turn"
    mail, and a seat that resigned gets no mail saying so (it did it)."""
    out: list[tuple[MailKind, int]] = []
    seats = range(len(after.seats))
    if from_version == 1:
        out += [("started", s) for s in seats]
    timed_out: set[int] = {e["seat"] for e in events if e.get("timeout")}
    out += [("timeout", s) for s in sorted(timed_out)]
    taken = [e for e in events if e["type"] == "seat_taken_over"]
    if taken:
        resigned = {e["seat"] for e in taken if e["reason"] == "resigned"}
        out += [("taken_over", s) for s in seats if s not in resigned]
    if after.phase == "over":
        out += [("game_over", s) for s in seats]
    elif from_version != 1 and clock_started(from_version, events, after) and \
            after.current not in after.bots:
        out.append(("your_turn", after.current))  # a bot's seat gets no turn mail
    return out


def notices(from_version: int, events: Sequence[Mapping[str, Any]], after: engine.State
            ) -> list[tuple[str, int]]:
    """The (event, seat) of each notice the batch calls for on the seats' accounts'
    channels (service/notify_channels.py): the game over to every seat, else the turn to
    the seat it starts (a bot's seat: none)."""
    if after.phase == "over":
        return [("game_over", s) for s in range(len(after.seats))]
    if clock_started(from_version, events, after) and after.current not in after.bots:
        return [("your_turn", after.current)]
    return []


def plan(batch: Appended) -> Plan:
    """The due work of ``batch``: its mails (to seats with an address, each with the
    deadline the batch set, which it tells), its notices to claimed seats' channels
    (``notify``; ``notify_deadline`` at the reminders' times), a call to each
    webhook, the ratings of a game it ends whose seats all have an address (and its
    tournament's runner: service/tournaments.py), and while the
    game goes on: the bot's move if a bot is to act, the game's
    one alarm (its deadline, under the ``default_move`` policy) and the reminders of a
    turn that starts. The game's pending alarm and bot move are replaced by every batch,
    its reminders by one that changes the deadline."""
    version, first, at = batch.after.version, batch.from_version, batch.at
    deadline = batch.update.deadline
    told = {"deadline": times.to_text(deadline)} if deadline else None  # the mails say it
    due = [Due(kind, version, at, seat=seat, from_version=first, args=told)
           for kind, seat in mails(first, batch.events, batch.after)
           if seat in batch.addressed]
    due += [Due("webhook", version, at, hook_id=h, from_version=first) for h in batch.hooks]
    due += [Due("notify", version, at, seat=seat, from_version=first,
                args={"what": what, **(told or {})})
            for what, seat in notices(first, batch.events, batch.after)
            if seat in batch.claimed]
    if batch.after.phase == "over" and len(batch.addressed) == len(batch.after.seats):
        due.append(Due("rating", version, at, from_version=first))  # every seat a person's
        due.append(Due("tournament", version, at, from_version=first))  # if a table's
    replaces: tuple[str, ...] = REPLACED
    update, after = batch.update, batch.after
    if batch.reminders is not None or update.status != "active":
        replaces = (*replaces, "reminder", "notify_deadline")
    if update.status != "active" or update.current_seat is None:
        return Plan(due, replaces)
    seat = update.current_seat
    if seat in after.bots:
        due.append(Due("bot", version, at, seat=seat, from_version=first))
    if update.deadline is not None and batch.game.timeout_policy == "default_move":
        due.append(Due("deadline", version, update.deadline, seat=seat, from_version=first))
    if seat in batch.addressed and seat not in after.bots:
        due += [Due("reminder", version, when, seat=seat, from_version=first,
                    percent=percent)
                for percent, when in batch.reminders or () if when > at]
    if seat in batch.claimed and seat not in after.bots:  # its deadline near, on its channels
        due += [Due("notify_deadline", version, when, seat=seat, from_version=first,
                    percent=percent, args={"what": "deadline_near", **(told or {})})
                for percent, when in batch.reminders or () if when > at]
    return Plan(due, replaces)


def retry_at(attempts: int, intervals: Sequence[float], now: datetime) -> datetime | None:
    """When work that failed at its ``attempts``-th try is tried again (None: never)."""
    if attempts > len(intervals):
        return None
    return now + timedelta(seconds=intervals[attempts - 1])
