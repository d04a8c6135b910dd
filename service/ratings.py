"""Players' ratings per variant: openskill's Weng-Lin Plackett-Luce model (2 to 6 players,
ties), updated once per finished game by a worker job (the due kind ``rating``).

Which games count, and how:

- Every seat must have been a person's from the start, claimed by an account of its own
  (service/players.py: the rating belongs to the account, shown under its handle, never
  an address or a name someone else typed). A game with a seat nobody claimed is rated
  once its last seat is claimed; one with a bot seated at its creation is not rated: a
  bot has no rating, and beating one says little. Nor is a game between people and bot
  accounts (accounts a program plays: service/invitations.py), unless the operator
  chooses so (``ALHAMBRA_RATE_BOT_ACCOUNTS``); bot accounts among themselves are rated.
- A seat that a bot took over (its person resigned, or let the time run out too often:
  S-2) is rated as placing last, tied with any other such seat, whatever the bot scored
  after it: leaving a game never saves a rating, and the bot's play is not the person's.
- The others are ranked by their final scores, equal scores tied.

A game is rated at most once (the store records it); a rating changed by another game
meanwhile is read again and the game rated on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from openskill.models import PlackettLuce

import engine

from .store import EventStore, Rating, Seat

if TYPE_CHECKING:
    from .games import Games

MODEL = PlackettLuce()


def standings(state: engine.State, seats: Sequence[Seat]) -> list[tuple[str, str, int]] | None:
    """(account, name, rank) of each seat of a finished game, rank 1 the best; None if
    the game is not rated (not over, a seat not claimed by an account of its own or a
    bot from the start)."""
    emails = [s.claimed_by or "" for s in seats]
    if state.phase != "over" or len(seats) < 2 or any(s.bot for s in seats) or \
            not all(emails) or len(set(emails)) != len(emails):
        return None
    scores = list(state.scores)
    people = [i for i in range(len(seats)) if i not in state.bots]
    out = []
    for i, seat in enumerate(seats):
        if i in state.bots:  # taken over: last
            rank = len(people) + 1
        else:
            rank = 1 + sum(1 for j in people if scores[j] > scores[i])
        out.append((emails[i], seat.name or emails[i], rank))
    return out


class Ratings:
    """Rating finished games and reading ratings, over the games' store."""

    def __init__(self, games: Games) -> None:
        self.store: EventStore = games.store
        self.state = games.state  # (game_id) -> engine.State at its latest version
        self.rate_bot_accounts = games.rate_bot_accounts

    def rate_game(self, game_id: str) -> str:
        """Rate a finished game: ``rated``, ``already``, or ``unrated`` (see the module)."""
        game = self.store.game(game_id)
        if game.status != "over":
            return "unrated"
        places = standings(self.state(game_id), list(game.seats))
        if places is None:
            return "unrated"
        emails = [e for e, _, _ in places]
        if not self.rate_bot_accounts and len({self._is_bot(e) for e in emails}) > 1:
            return "unrated"  # people against bot accounts (ALHAMBRA_RATE_BOT_ACCOUNTS)
        for _ in range(10):
            known = self.store.players.ratings(game.variant, emails)
            before = [known.get(e) or Rating(e, game.variant, n, MODEL.mu, MODEL.sigma, 0)
                      for e, n, _ in places]
            teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
            new = MODEL.rate(teams, ranks=[rank for _, _, rank in places])
            after = [Rating(e, game.variant, n, t[0].mu, t[0].sigma, b.games + 1)
                     for (e, n, _), t, b in zip(places, new, before, strict=True)]
            result = self.store.players.rate(game_id, before, after)
            if result != "conflict":
                return result
        return "conflict"

    def _is_bot(self, email: str) -> bool:
        player = self.store.players.player(email)
        return player is not None and player.is_bot

    @staticmethod
    def document(r: Rating, email: bool = False) -> dict[str, Any]:
        doc: dict[str, Any] = {"variant": r.variant, "name": r.name, "mu": round(r.mu, 3),
                               "sigma": round(r.sigma, 3), "ordinal": round(r.ordinal, 3),
                               "games": r.games, "bot": bool(r.is_bot)}
        if email:
            doc["email"] = r.email
        return doc

    def leaderboard(self, variant: str, limit: int = 50) -> list[dict[str, Any]]:
        """The best first, by ordinal (no addresses: names only)."""
        return [self.document(r) for r in self.store.players.leaderboard(variant, limit)]

    def of(self, email: str) -> list[dict[str, Any]]:
        return [self.document(r) for r in self.store.players.ratings_of(email)]
