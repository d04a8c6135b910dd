"""What happened in an account's games, in one order (issue 33.6): the events of its
stream (blueprints/me_stream.py), each with its place (``Key``) among stored facts.

An event's place is the time of the fact it tells (an event batch's, a message's, the
game's creation for a seat offered, the invitation's for an invitation by handle, the
game's creation for a tournament's table, the tournament's end) in milliseconds, then the
game (a tournament's: its id), the kind (``KINDS``) and number of the fact (a
tournament's: the round), then which event of it; written ``<ms>-<game>-<b|m|i|t><n>.<k>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from . import present, times
from .auth import Caller
from .games import Games
from .talk import TableTalk
from .tournaments import Tournaments

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
KINDS = "bmit"  # a batch, a message, an invitation, a tournament's round or end
_KEY = re.compile(r"^\s*(\d{1,15})(?:-(.{1,100})-([bmit])(\d{1,10})\.(\d))?\s*$")


def ms(t: datetime) -> int:
    return (t - EPOCH) // timedelta(milliseconds=1)


@dataclass(frozen=True, order=True)
class Key:
    """An event's place: the fact's time (ms), its game, kind (KINDS), number and which
    event of the fact. ``Key(ms)`` alone: before everything at that millisecond."""

    ms: int
    game_id: str = ""
    kind: int = -1
    n: int = -1
    k: int = 0

    def __str__(self) -> str:
        if self.kind < 0:
            return str(self.ms)
        return f"{self.ms}-{self.game_id}-{KINDS[self.kind]}{self.n}.{self.k}"

    @classmethod
    def parse(cls, text: str) -> Key | None:
        """The key an id names (None: no id of this stream)."""
        m = _KEY.match(text)
        if not m:
            return None
        if m.group(2) is None:
            return cls(int(m.group(1)))
        return cls(int(m.group(1)), m.group(2), KINDS.index(m.group(3)), int(m.group(4)),
                   int(m.group(5)))


@dataclass(frozen=True, order=True)
class Item:
    key: Key
    event: str = field(compare=False)
    data: dict[str, Any] = field(compare=False)


class Feed:
    """What happened in an account's games from a time on, in the stream's order."""

    def __init__(self, games: Games, email: str) -> None:
        self.games, self.email = games, email
        self.who = Caller(token_hash="", account=email)
        self.talk = TableTalk(games)

    def since(self, start_ms: int) -> list[Item]:
        batches, messages = self.games.store.players.account_changes(
            self.email, EPOCH + timedelta(milliseconds=start_ms))
        items: list[Item] = []
        for game_id in sorted({b[0] for b in batches}):
            items += self._batches(game_id, sorted(b[1:] for b in batches if b[0] == game_id))
        for game_id in sorted({m[0] for m in messages}):
            items += self._messages(game_id, min(m[1] for m in messages if m[0] == game_id))
        for game, seat in self.games.store.seats_of(self.email, claimed=False):
            if ms(game.created_at) >= start_ms:
                items.append(Item(Key(ms(game.created_at), game.id, 2, seat.seat),
                                  "invitation", {"game_id": game.id, "version": game.version,
                                                 "seat": seat.seat, "name": seat.name,
                                                 "variant": game.variant}))
        since = EPOCH + timedelta(milliseconds=start_ms)
        for sent in self.games.store.invitations.of_account(self.email, since):
            if sent.inviter != self.email:  # an invitation to a game to come
                items.append(Item(Key(ms(sent.created_at), sent.id, 2, 0), "invitation", {
                    "id": sent.id, "variant": sent.settings["variant"],
                    "players": 1 + len(sent.invitees) + len(sent.settings["bots"]),
                    "expires_at": times.to_text(sent.expires_at)}))
        items += self._tournaments(since)
        return sorted(i for i in items if i.key.ms >= start_ms)

    def _tournaments(self, since: datetime) -> list[Item]:
        """``tournament_round``: the account's table of a round, once its game is made;
        ``tournament_finished``: a tournament it entered ended (its rank)."""
        tables, finished = self.games.store.tournaments.account_changes(self.email, since)
        if not tables and not finished:
            return []
        runner = Tournaments(self.games)
        items: list[Item] = []
        for table, made_at in tables:
            t = runner.get(table.tournament_id)
            entries = {e.entry: e.email for e in runner.records.entries(t.id)}
            items.append(Item(Key(ms(made_at), t.id, 3, table.round), "tournament_round", {
                "tournament_id": t.id, "name": t.name, "round": table.round,
                "table": table.tab, "game_id": table.game_id,
                "players": [runner.handle(entries[n]) for n in table.seating]}))
        for tournament_id, at in finished:
            t = runner.get(tournament_id)
            mine = {e.entry for e in runner.records.entries(t.id) if e.email == self.email}
            line = next((x for x in runner.standings(t) if x["entry"] in mine), None)
            items.append(Item(Key(ms(at), t.id, 3, t.round, 1), "tournament_finished", {
                "tournament_id": t.id, "name": t.name, "round": t.round,
                "rank": line and line["rank"], "points": line and line["points"],
                "division": line and line["division"]}))
        return items

    def _batches(self, game_id: str, batches: list[tuple[int, int, datetime]]
                 ) -> list[Item]:
        game = self.games.game(game_id)
        seat = self.who.seat_in(game)
        out: list[Item] = []
        for first, version, at in batches:
            events = [i.event for i in self.games.events(game, self.who, first - 1).items
                      if i.version <= version]  # redacted for the account's seat
            types = {e["type"] for e in events}
            key = Key(ms(at), game_id, 0, version)
            base = {"game_id": game_id, "version": version}
            moves = [e for e in events if "move" in e]
            if "game_created" in types:
                out.append(Item(key, "game_started", {**base, "seat": seat}))
            elif moves:
                out.append(Item(key, "moved", {**base, "seat": moves[0].get("seat"),
                                               "moves": [e["move"] for e in moves]}))
            if "game_over" in types:
                out.append(Item(replace(key, k=1), "game_over", base))
            if version == game.version and game.status == "active" and \
                    game.current_seat == seat:
                out.append(Item(replace(key, k=2), "your_turn", {
                    **base, "seat": seat, "deadline": game.deadline and
                    times.to_text(game.deadline)}))
        return out

    def _messages(self, game_id: str, first_id: int) -> list[Item]:
        game = self.games.game(game_id)
        seat = self.who.seat_in(game)
        if seat is None:
            return []
        reader = self.talk.seat_reader(game_id, seat)
        return [Item(Key(ms(m.created_at), game_id, 1, m.id), "message", {
            **present.message(m), "game_id": game_id, "version": m.version,
            "created_at": times.to_text(m.created_at)})
            for m in self.talk.items(game, reader, since=first_id - 1)]
