"""Variants: a game's component data and the few rules that differ, as small classes.

The core (``rules``) asks its variant for the tile bags, the money deck, where the scoring
cards go, the face a new market tile shows, how placements may flip a tile and how to
score. ``Alhambra`` is Part A of RULES.md, ``Granada`` Part G and ``AlhambraGranada``
Part C.
"""

from __future__ import annotations

import random
from typing import Any

from .components import (
    ALHAMBRA_POINTS,
    ALHAMBRA_START,
    ALHAMBRA_TILES,
    ALHAMBRA_TYPES,
    CURRENCIES,
    CURRENCY_CODES,
    GRANADA_START,
    GRANADA_TILES,
    GRANADA_TYPES,
    TILES,
    card_currency,
    money_cards,
)
from .errors import RuleViolation
from .events import SCHEMA
from .grid import RULES_ALHAMBRA, Grid
from .moves import Move
from .scoring import best_values, ordered_places, shared_places, type_counts
from .state import Event, State

BAGS = {"alhambra": [t.id for t in ALHAMBRA_TILES], "granada": [t.id for t in GRANADA_TILES]}
FLIP_PRICE = 3  # G-3: at least 3 in one currency to build a tile on its other face
SIMPLE_POINTS = {1: [3], 2: [10, 3], 3: [18, 10, 3]}  # G-5 option simple_scoring


class OptionError(ValueError):
    """A bad variant, player count or option; ``field`` names the offending input."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class Alhambra:
    """Alhambra (RULES.md Part A), 2-6 players, Dirk for two."""

    name = "alhambra"
    kinds: tuple[str, ...] = ("alhambra",)
    min_players, max_players = 2, 6
    neutral_name = "Dirk"
    neutral_rule = "A-8"
    start_tile = ALHAMBRA_START
    grid_rules = RULES_ALHAMBRA
    types: tuple[str, ...] = ALHAMBRA_TYPES
    options: dict[str, Any] = {"dirk_third_draw_cap": False}
    # A-2 step 7: scoring card -> the pile (1-based, of 5) it is shuffled into; cards kept
    # aside until the first reshuffle go into pile 2 of the new deck (C-1).
    scoring_piles: dict[str, int] = {"S1": 2, "S2": 4}
    set_aside: tuple[str, ...] = ()

    def defaults(self, schema: int) -> dict[str, Any]:
        """The options' defaults for games of event schema ``schema``."""
        return dict(self.options)

    def check(self, players: int, options: dict[str, Any], schema: int = SCHEMA
              ) -> dict[str, Any]:
        """The options with defaults filled in; OptionError for anything not allowed."""
        if not self.min_players <= players <= self.max_players:
            raise OptionError("players", f"{self.name} is played by {self.min_players} to "
                              f"{self.max_players} players, not {players}")
        out = self.defaults(schema)
        for key, value in options.items():
            if key not in self.options:
                raise OptionError(f"options.{key}", f"{self.name} has no option {key!r}; "
                                  f"its options are {sorted(self.options) or 'none'}")
            if type(value) is not type(self.options[key]):
                raise OptionError(f"options.{key}", f"option {key!r} must be a "
                                  f"{type(self.options[key]).__name__}")
            out[key] = value
        return out

    def new_grid(self) -> Grid:
        return Grid(self.start_tile, self.grid_rules)

    def bag(self, kind: str) -> list[str]:
        return list(BAGS[kind])

    def money_deck(self, players: int, options: dict[str, Any]) -> list[str]:
        """108 cards, or 72 for two players (A-8)."""
        return money_cards(2 if players == 2 else 3)

    def stack_deck(self, cards: list[str], rng: random.Random) -> tuple[list[str], list[str]]:
        """A-2 step 7: five piles with the scoring cards shuffled in; returns (deck, cards
        set aside)."""
        return _stack(cards, rng, self.scoring_piles), list(self.set_aside)

    def reshuffle(self, state: State, cards: list[str], rng: random.Random
                  ) -> tuple[list[str], list[str]]:
        """A new deck from the discard (A-3.4 step 2), taking in any scoring card set aside
        (C-1); returns (deck, cards still set aside)."""
        rng.shuffle(cards)
        if state.set_aside:
            return _stack(cards, rng, {card: 2 for card in state.set_aside}), []
        return cards, []

    def setup_market(self, state: State, emit, rng: random.Random) -> None:
        """A-2 step 2: the first four market tiles."""
        from .rules import refill_market

        refill_market(state, emit)

    def refill_face(self, state: State, tile: str) -> int | None:
        """The face a tile drawn now comes up on (None: single-faced)."""
        return None

    def after_refill(self, state: State, emit, placed: set[str]) -> None:
        """What follows a market refill that placed tiles of the kinds ``placed``."""

    def neutral_draw(self, state: State) -> int:
        """How many tiles the neutral collector draws after the scoring just done (A-8)."""
        if state.scorings_done == 1:
            return 6
        third = sum(len(b) for b in state.bags.values()) // 3
        if state.options.get("dirk_third_draw_cap"):
            third = min(third, 6)
        return third

    def neutral_faces(self, state: State, tiles: list[str]) -> list[int] | None:
        """The faces of tiles drawn for the neutral collector (None: single-faced)."""
        return None

    def placement_extras(self, state: State, seat: int, move: Move, event: Event) -> None:
        """Check a placement's face and flip payment and add them to ``event``."""
        if move.face is not None or move.cards:
            raise RuleViolation("G-3", f"{move.tile} has one face: it cannot be flipped")

    def placement_moves(self, state: State, seat: int, tile: str) -> list[Move]:
        """Every legal placement of a tile waiting to be placed."""
        out = [Move("place", tile=tile, to="city", at=p)
               for p in state.grids[seat].legal_positions(tile)]
        out.append(Move("place", tile=tile, to="reserve"))
        if state.has_neutral and state.phase != "distribution":
            out.append(Move("place", tile=tile, to="neutral"))
        return out

    def faces(self, state: State) -> dict[Any, list]:
        """The faces that count in a scoring, per participant (seats, then neutral)."""
        out: dict[Any, list] = {
            seat: [state.face(t) for t in grid.tiles() if t != self.start_tile]
            for seat, grid in enumerate(state.grids)
        }
        if state.has_neutral:
            out["neutral"] = [state.face(t) for t in state.neutral]
        return out

    def majority_points(self, state: State, scoring: int, type_: str,
                        counts: dict[Any, int], best: dict[Any, int]) -> dict[Any, int]:
        """Points per participant for one building type (A-5.1)."""
        return shared_places(counts, ALHAMBRA_POINTS[type_][scoring])

    barrier_lines: tuple[tuple[str, tuple[str, ...]], ...] = (("wall", ("alhambra",)),)

    def awards(self, state: State, scoring: int) -> list[Event]:
        """Every award of scoring 1, 2 or 3: majorities type by type, then the longest
        barriers (A-5.3). Awards of 0 points are left out."""
        faces = self.faces(state)
        counts, best = type_counts(faces), best_values(faces)
        out = []
        for type_ in self.types:
            points = self.majority_points(state, scoring, type_, counts.get(type_, {}),
                                          best.get(type_, {}))
            for who, pts in sorted(points.items(), key=lambda kv: _order(kv[0])):
                if pts:
                    out.append(_award(scoring, who, "majority", type_, pts))
        for kind, tile_kinds in self.barrier_lines:
            for seat, grid in enumerate(state.grids):
                pts = grid.longest_barrier(tile_kinds)
                if pts:
                    out.append(_award(scoring, seat, kind, None, pts))
        return out


class Granada(Alhambra):
    """Granada (RULES.md Part G): double-sided tiles, moats, N-based majorities, Juan."""

    name = "granada"
    kinds = ("granada",)
    neutral_name = "Juan"
    neutral_rule = "G-7"
    start_tile = GRANADA_START
    grid_rules = {"empty": "G-4", "adjacent": "G-4", "match": "G-4", "reach": "G-4",
                  "hole": "G-4", "split": "G-4"}
    types = GRANADA_TYPES
    options = {"simple_scoring": False}
    barrier_lines = (("moat", ("granada",)),)

    def refill_face(self, state: State, tile: str) -> int | None:
        """New market tiles come up on the face the black marker shows (G-3)."""
        return state.marker if TILES[tile].kind == "granada" else None

    def after_refill(self, state: State, emit, placed: set[str]) -> None:
        """The marker switches after a refill that placed a Granada tile (G-2, Decision
        G-3a, C-2)."""
        if "granada" in placed:
            emit({"type": "marker_switched", "marker": 1 - state.marker})

    def neutral_faces(self, state: State, tiles: list[str]) -> list[int] | None:
        """Juan's first 6 tiles lie even side up, later ones on the marker's face (G-7)."""
        return [0 if state.scorings_done == 0 else state.marker] * len(tiles)

    def placement_extras(self, state: State, seat: int, move: Move, event: Event) -> None:
        """G-3: build on the face bought, or pay at least 3 in one currency to flip; turn
        freely into the reserve; never flip in the game-end distribution (G-6)."""
        tile = move.tile
        if TILES[tile].kind != "granada":
            return Alhambra.placement_extras(self, state, seat, move, event)
        current = state.faces.get(tile, 0)
        face = current if move.face is None else move.face
        flip = face != current
        side = "back" if face else "front"
        if flip and state.phase == "distribution":
            raise RuleViolation("G-6", f"a tile received at the game end is placed as it "
                                f"lies: {tile} cannot be turned to its {side}")
        if move.to == "reserve" or not flip:
            if move.cards:
                raise RuleViolation("G-3", f"nothing to pay: {tile} is not being flipped"
                                    if not flip else f"turning {tile} as it goes into the "
                                    f"reserve is free")
        else:
            if not move.cards:
                raise RuleViolation("G-3", f"to build {tile} on its {side} you first pay at "
                                    f"least {FLIP_PRICE} in one currency (add e.g. 'pay DE3')")
            from .rules import check_payment

            if len({card_currency(c) for c in move.cards}) > 1:
                raise RuleViolation("G-3", "a flip is paid in one currency only")
            total = check_payment(state, seat, move.cards, None, "G-3")
            if total < FLIP_PRICE:
                raise RuleViolation("G-3", f"a flip costs at least {FLIP_PRICE}; "
                                    f"{','.join(move.cards)} total {total}")
            event["cards"] = list(move.cards)
        if flip:
            event["face"] = face

    def placement_moves(self, state: State, seat: int, tile: str) -> list[Move]:
        """Placements as they lie, flipped ones with each minimal flip payment, and both
        faces into the reserve."""
        out = Alhambra.placement_moves(self, state, seat, tile)
        if TILES[tile].kind != "granada" or state.phase == "distribution":
            return out
        other = 1 - state.faces.get(tile, 0)
        payments = flip_payments(state, seat)
        for move in list(out):
            if move.to == "reserve":
                out.append(Move("place", tile=tile, to="reserve", face=other))
            else:
                out += [Move("place", tile=tile, to=move.to, at=move.at, face=other, cards=p)
                        for p in payments]
        return out

    def majority_points(self, state: State, scoring: int, type_: str,
                        counts: dict[Any, int], best: dict[Any, int]) -> dict[Any, int]:
        """G-5: 1st gets N, then 2N/N, then 3N/2N/N (N: tiles of the type in all cities,
        Juan's included, Decision G-5a), or the simple table; ties go to the highest tile."""
        if state.options.get("simple_scoring"):
            table = SIMPLE_POINTS[scoring]
        else:
            n = sum(counts.values())
            table = [n * (scoring - i) for i in range(scoring)]
        return ordered_places(counts, best, table)


class AlhambraGranada(Granada):
    """Alhambra + Granada (RULES.md Part C), 3-6 players, one grid holding both kinds."""

    name = "alhambra_granada"
    kinds = ("alhambra", "granada")
    min_players = 3  # Decision C-0: no two-player combined game
    start_tile = ALHAMBRA_START
    grid_rules = {"empty": "C-3", "adjacent": "C-3", "match": "C-3", "reach": "C-3",
                  "hole": "C-3", "split": "C-3a"}
    options = {"simple_scoring": False, "both_money_decks": False}
    types = ALHAMBRA_TYPES + GRANADA_TYPES
    scoring_piles = {"S1": 3}
    set_aside = ("S2",)
    barrier_lines = (("wall", ("alhambra",)), ("moat", ("granada",)),
                     ("combined", ("alhambra", "granada")))

    def defaults(self, schema: int) -> dict[str, Any]:
        """Games of schema 1 were played with both money decks."""
        return dict(super().defaults(schema), both_money_decks=schema < 2)

    def check(self, players: int, options: dict[str, Any], schema: int = SCHEMA
              ) -> dict[str, Any]:
        if players == 2:
            raise OptionError("players", "Alhambra + Granada is played by 3 to 6 players: "
                              "the rulebook has no two-player game (Decision C-0)")
        return super().check(players, options, schema)

    def money_deck(self, players: int, options: dict[str, Any]) -> list[str]:
        """One money deck of 108 cards, both games' 216 with ``both_money_decks``
        (Decision C-1a)."""
        return money_cards(6 if options["both_money_decks"] else 3)

    def setup_market(self, state: State, emit, rng: random.Random) -> None:
        """C-1: an Alhambra and a Granada tile on each space; a Granada tile without a moat
        goes back into the bag at a random place and the next one is drawn. (Schema 1
        took the first tile with a moat from below and left the others on top.)"""
        for i in range(4):
            emit({"type": "market_refilled", "space": i + 1, "tile": state.bags["alhambra"][0]})
            bag = state.bags["granada"]
            if state.schema < 2:
                granada = next(t for t in bag if TILES[t].mask)
            else:
                while not TILES[bag[0]].mask:
                    rest = bag[1:]
                    rest.insert(rng.randint(0, len(rest)), bag[0])
                    emit({"type": "tile_returned", "kind": "granada", "tile": bag[0],
                          "tiles": rest})
                    bag = state.bags["granada"]
                granada = bag[0]
            emit({"type": "market_refilled", "space": i + 1, "tile": granada,
                  "face": state.marker})
        self.after_refill(state, emit, {"alhambra", "granada"})

    def majority_points(self, state: State, scoring: int, type_: str,
                        counts: dict[Any, int], best: dict[Any, int]) -> dict[Any, int]:
        if type_ in ALHAMBRA_TYPES:
            return Alhambra.majority_points(self, state, scoring, type_, counts, best)
        return Granada.majority_points(self, state, scoring, type_, counts, best)


def flip_payments(state: State, seat: int) -> list[tuple[str, ...]]:
    """Every minimal payment of at least 3 in one currency from the seat's hand (G-3)."""
    from .rules import held, minimal_payments

    return [pay for currency in CURRENCIES
            for pay in minimal_payments(held(state, seat, CURRENCY_CODES[currency]),
                                        FLIP_PRICE)]


def _stack(cards: list[str], rng: random.Random, placements: dict[str, int]) -> list[str]:
    """Five piles as equal as possible, larger first (Decision A-2b), each scoring card
    shuffled into its pile (1-based), pile 1 on top."""
    size, extra = divmod(len(cards), 5)
    piles, start = [], 0
    for i in range(5):
        n = size + (1 if i < extra else 0)
        piles.append(cards[start : start + n])
        start += n
    for card, pile in placements.items():
        target = piles[pile - 1]
        target.insert(rng.randint(0, len(target)), card)
    return [c for pile in piles for c in pile]


def _order(participant: Any) -> int:
    return 99 if participant == "neutral" else participant


def _award(scoring: int, who: Any, kind: str, building: str | None, points: int) -> Event:
    return {"type": "points_awarded", "scoring": scoring, "seat": who, "kind": kind,
            "building": building, "points": points}


VARIANTS: dict[str, Alhambra] = {
    v.name: v for v in (Alhambra(), Granada(), AlhambraGranada())
}
