"""A bot account's program, written against the client generated from the API's document
only (issue 33). It accepts every invitation sent to its account and plays a random
legal move whenever it is its turn, told by one stream of all its games (``/me/stream``
as NDJSON), resuming with ``Last-Event-ID`` when a stream ends.

Generate the client, then run the bot with a personal token (scopes ``read`` and
``play``) of an account marked a bot (``PATCH /me {"bot": true}``)::

    openapi-python-client generate --path openapi/openapi.json --meta none \\
        --output-path alhambra_client
    python examples/bot.py --url http://127.0.0.1:8000 --token pat_…  [--games N]

It ends after ``--games`` of its games are over (never, without it). What it did goes
to standard output, one line a fact, and a summary at the end as JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, TextIO

from alhambra_client import AuthenticatedClient
from alhambra_client.api.invitations import accept_invitation, list_invitations
from alhambra_client.api.play import legal_moves, submit_moves
from alhambra_client.api.players import me, my_games
from alhambra_client.models import (
    Invitation,
    Invitations,
    LegalMoves,
    ListInvitationsStatus,
    MyGames,
    Player,
    Problem,
    Submit,
    Submitted,
)


@dataclass
class Bot:
    """What the bot knows: its client, its random moves, the games it saw end."""

    api: AuthenticatedClient
    rng: random.Random
    over: set[str] = field(default_factory=set)
    moves: int = 0
    events: int = 0
    streams: int = 0
    accepted: int = 0
    record: TextIO | None = None  # each event's id and kind, a line each

    def say(self, text: str) -> None:
        print(text, flush=True)

    def accept(self, invitation_id: str) -> None:
        answer = accept_invitation.sync(invitation_id, client=self.api)
        if isinstance(answer, Invitation):
            self.accepted += 1
            self.say(f"accepted {invitation_id} ({answer.status.value})")
        else:  # closed meanwhile, or answered before: nothing to do
            self.say(f"not accepted {invitation_id}: {problem(answer)}")

    def play(self, game_id: str) -> None:
        """A random legal move while it is the bot's turn (a version conflict: look
        again)."""
        for _ in range(10):
            legal = legal_moves.sync(game_id, client=self.api)
            if not isinstance(legal, LegalMoves) or not legal.your_turn or not legal.moves:
                return
            move = self.rng.choice(legal.moves).notation
            answer = submit_moves.sync(game_id, client=self.api,
                                       body=Submit(move=move, version=legal.version))
            if isinstance(answer, Submitted):
                self.moves += 1
                return
            self.say(f"{game_id}: {move} refused: {problem(answer)}")

    def catch_up(self) -> None:
        """What waited before the stream: open invitations, games at the bot's turn."""
        myself = me.sync(client=self.api)
        handle = myself.handle if isinstance(myself, Player) else None
        invitations = list_invitations.sync(client=self.api,
                                            status=ListInvitationsStatus.OPEN)
        if isinstance(invitations, Invitations):
            for invitation in invitations.invitations:
                if invitation.inviter.handle != handle:  # not one it sent
                    self.accept(invitation.id)
        games = my_games.sync(client=self.api, waiting=True)
        if isinstance(games, MyGames):
            for game in games.games:
                self.play(game.game_id)

    def on(self, item: dict[str, Any]) -> None:
        event, data = item["event"], item["data"]
        self.events += 1
        if self.record is not None:
            self.record.write(f"{item['id']} {event}\n")
        if event == "invitation" and "id" in data:
            self.accept(data["id"])
        elif event in ("your_turn", "game_started"):
            self.play(data["game_id"])
        elif event == "game_over":
            self.over.add(data["game_id"])
            self.say(f"{data['game_id']}: over")

    def follow(self, games: int | None, seconds: float | None) -> None:
        """Follow the stream until ``games`` of the bot's games are over (or ``seconds``
        passed); a stream that ends is opened again from the last event's id."""
        last: str | None = None
        ends = time.monotonic() + seconds if seconds else None
        while games is None or len(self.over) < games:
            if ends is not None and time.monotonic() > ends:
                return
            headers = {"Accept": "application/x-ndjson"}
            if last is not None:
                headers["Last-Event-ID"] = last
            self.streams += 1
            with self.api.get_httpx_client().stream("GET", "/me/stream", headers=headers,
                                                    timeout=None) as resp:
                if resp.status_code == 429:
                    time.sleep(float(resp.headers.get("Retry-After", "1")))
                    continue
                resp.raise_for_status()
                if last is None:  # what waited before: the stream holds what comes now
                    self.catch_up()
                for line in resp.iter_lines():
                    if not line.strip():
                        continue  # keep-alive
                    item = json.loads(line)
                    last = item.get("id", last)
                    if "event" in item:
                        self.on(item)
                    if games is not None and len(self.over) >= games:
                        return


def problem(answer: Any) -> str:
    return f"{answer.code}: {answer.detail}" if isinstance(answer, Problem) else repr(answer)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="a personal token (read, play)")
    parser.add_argument("--games", type=int, help="end after this many games are over")
    parser.add_argument("--seconds", type=float, help="end after this many seconds")
    parser.add_argument("--seed", type=int, default=1, help="its random moves' seed")
    parser.add_argument("--record", help="write each event's id and kind to this file")
    args = parser.parse_args(argv)
    bot = Bot(AuthenticatedClient(base_url=args.url, token=args.token,
                                  raise_on_unexpected_status=False), random.Random(args.seed))
    with open(args.record, "w") if args.record else nullcontext() as record:
        bot.record = record
        bot.follow(args.games, args.seconds)
    print(json.dumps({"over": len(bot.over), "moves": bot.moves, "events": bot.events,
                      "streams": bot.streams, "accepted": bot.accepted}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
