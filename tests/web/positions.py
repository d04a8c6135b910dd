"""Positions set up through the public API (not the page), for browser tests that check one
interaction: a game is created, then moves chosen from its legal moves are played until the
position wanted; the page is opened only then."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Moves = list[dict[str, Any]]


@dataclass
class Position:
    """A game on the test server and its seats' tokens and links."""

    server: Any
    game_id: str
    tokens: list[str]
    urls: list[str]
    rng: random.Random = field(default_factory=lambda: random.Random(1))

    def game(self) -> dict[str, Any]:
        return self.server.call(f"/games/{self.game_id}")

    def view(self, seat: int) -> dict[str, Any]:
        """The game as ``seat`` sees it (its hand too)."""
        return self.server.call(f"/games/{self.game_id}", token=self.tokens[seat])["view"]

    def legal(self, seat: int) -> Moves:
        return self.server.call(f"/games/{self.game_id}/legal-moves",
                                token=self.tokens[seat])["moves"]

    def play(self, seat: int, notation: str) -> dict[str, Any]:
        version = self.game()["version"]
        return self.server.call(f"/games/{self.game_id}/moves",
                                {"version": version, "move": notation}, self.tokens[seat])

    def until(self, stop: Callable[[dict[str, Any], int, Moves], bool],
              choose: Callable[[random.Random, Moves], dict[str, Any]],
              limit: int = 400) -> tuple[int, Moves]:
        """Play ``choose``'s move for the seat to act until ``stop(game, seat, moves)``;
        then the seat to act and its moves. AssertionError if the game ends first."""
        for _ in range(limit):
            game = self.game()
            assert game["status"] != "over", "the game ended before the position"
            seat = game["current_seat"]
            moves = self.legal(seat)
            if stop(game, seat, moves):
                return seat, moves
            pick = choose(self.rng, moves)
            self.server.call(f"/games/{self.game_id}/moves",
                             {"version": game["version"], "move": pick["notation"]},
                             self.tokens[seat])
        raise AssertionError("the set-up never reached the position")


def new_game(server, variant: str, names: list[str], **options: Any) -> Position:
    body: dict[str, Any] = {"variant": variant, "seats": [{"name": n} for n in names]}
    if options:
        body["options"] = options
    created = server.call("/games", body)
    return Position(server, created["game_id"], [s["token"] for s in created["seats"]],
                    [s["join_url"] for s in created["seats"]])


def by_action(moves: Moves) -> dict[str, Moves]:
    out: dict[str, Moves] = {}
    for m in moves:
        out.setdefault(m["move"]["action"], []).append(m)
    return out


def builder(rng: random.Random, moves: Moves) -> dict[str, Any]:
    """Build when a tile waits (into the city if it fits), buy when one can, else take."""
    kinds = by_action(moves)
    places = kinds.get("place", [])
    to_city = [m for m in places if m["move"]["to"] == "city" and "face" not in m["move"]]
    if to_city:
        return rng.choice(to_city)
    if places:
        return next((m for m in places if m["move"]["to"] == "reserve"), places[0])
    return rng.choice(kinds.get("buy") or kinds.get("take") or moves)


def taker(rng: random.Random, moves: Moves) -> dict[str, Any]:
    """Take the most money there is, place bought tiles in the reserve."""
    kinds = by_action(moves)
    if "place" in kinds:
        return next((m for m in kinds["place"] if m["move"]["to"] == "reserve"),
                    kinds["place"][0])
    takes = kinds.get("take")
    if takes:
        return max(takes, key=lambda m: len(m["move"]["positions"]))
    return rng.choice(moves)


def exact_buys(game: dict[str, Any], moves: Moves) -> Moves:
    """The buy moves that pay the tile's price exactly (A-3.2)."""
    prices = {t["id"]: t["value"] for space in game["view"]["market"] for t in space["tiles"]}
    return [m for m in moves if m["move"]["action"] == "buy"
            and sum(int(c[2:]) for c in m["move"]["cards"]) == prices[m["move"]["tile"]]]


def after_exact_purchase(server) -> tuple[Position, int, str]:
    """Alhambra, two seats: the seat to act has just bought a tile paying exactly, so it may
    act again or place it (A-3.2, A-3c). The position, the seat and the tile."""
    pos = new_game(server, "alhambra", ["Ann", "Bob"])
    seat, moves = pos.until(lambda g, s, ms: bool(exact_buys(g, ms)), taker)
    buy = exact_buys(pos.game(), moves)[0]
    pos.play(seat, buy["notation"])
    return pos, seat, buy["move"]["tile"]


def granada_tile_without_cell(server) -> tuple[Position, int, str]:
    """Alhambra + Granada, three seats: the seat to act has bought its first Granada tile
    over the price while its city is the fountain alone, so it fits no cell (C-3)."""
    pos = new_game(server, "alhambra_granada", ["Ann", "Bob", "Cy"])

    def granada_buy(game, seat, moves):
        return [m for m in moves if m["move"]["action"] == "buy"
                and m["move"]["tile"].startswith("G") and m not in exact_buys(game, moves)]

    seat, moves = pos.until(lambda g, s, ms: bool(granada_buy(g, s, ms)), taker)
    buy = granada_buy(pos.game(), seat, moves)[0]
    pos.play(seat, buy["notation"])
    return pos, seat, buy["move"]["tile"]


def after_first_scoring(server, variant: str = "alhambra",
                        names: tuple[str, ...] = ("Ann", "Bob")) -> Position:
    """Tiles built in the cities, then the first scoring (A-5): stops right after it."""
    pos = new_game(server, variant, list(names))
    pos.until(lambda g, s, ms: g["view"]["scorings_done"] >= 1, builder)
    return pos


def after_a_city_placement(server) -> tuple[Position, int, list[int]]:
    """Alhambra, two seats: the last turn ended with a tile built in the city. The
    position, the seat that built it and the cell."""
    pos = new_game(server, "alhambra", ["Ann", "Bob"])
    for _ in range(200):
        game = pos.game()
        seat = game["current_seat"]
        pick = builder(pos.rng, pos.legal(seat))
        answer = pos.play(seat, pick["notation"])
        ended = any(e["event"]["type"] == "turn_started" for e in answer["events"])
        if pick["move"].get("to") == "city" and ended:
            return pos, seat, pick["move"]["at"]
    raise AssertionError("no tile was built")


def with_city_and_reserve(server) -> tuple[Position, int]:
    """Alhambra, two seats: the seat to act has city tiles it may redesign and a market
    tile it cannot afford."""
    pos = new_game(server, "alhambra", ["Ann", "Bob"])

    def ready(game, seat, moves):
        return (any(m["move"]["action"] == "redesign" and m["move"]["to"] == "reserve"
                    for m in moves)
                and len({m["move"]["tile"] for m in moves if m["move"]["action"] == "buy"})
                < sum(len(s["tiles"]) for s in game["view"]["market"]))

    seat, _ = pos.until(ready, builder)
    return pos, seat


def flippable(server) -> tuple[Position, int, str]:
    """Granada, two seats: the seat to act has bought a tile it may build turned over, for
    a payment (G-3). The position, the seat and the tile."""
    pos = new_game(server, "granada", ["Ann", "Bob"])

    def flip(moves):
        return [m for m in moves if m["move"]["action"] == "place" and "face" in m["move"]
                and m["move"]["to"] == "city"]

    def choose(rng, moves):
        kinds = by_action(moves)
        if "place" in kinds:  # not flippable: keep it out of the way
            return next(m for m in kinds["place"] if m["move"]["to"] == "reserve"
                        and "face" not in m["move"])
        cheap = sorted(kinds.get("buy", []), key=lambda m: len(m["move"]["cards"]))
        return cheap[0] if cheap and rng.random() < 0.5 else taker(rng, moves)

    seat, moves = pos.until(lambda g, s, ms: bool(flip(ms)), choose)
    return pos, seat, flip(moves)[0]["move"]["tile"]
