"""Variants: a game's component data and the few rules that differ, as small classes.

The core (``rules``) asks its variant for the tile bags, the money deck, where the scoring
cards go, the face a new market tile shows and how to score. ``Alhambra`` is Part A of
RULES.md.
"""

from __future__ import annotations

import random
from typing import Any

from .components import (
    ALHAMBRA_POINTS,
    ALHAMBRA_START,
    ALHAMBRA_TILES,
    ALHAMBRA_TYPES,
    money_cards,
)
from .errors import RuleViolation
from .grid import RULES_ALHAMBRA, Grid
from .scoring import shared_places, type_counts
from .state import Event, State


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
    start_tile = ALHAMBRA_START
    grid_rules = RULES_ALHAMBRA
    types = ALHAMBRA_TYPES
    options: dict[str, Any] = {"dirk_third_draw_cap": False}
    # A-2 step 7: scoring card -> the pile (1-based, of 5) it is shuffled into.
    scoring_piles = {"S1": 2, "S2": 4}

    def check(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        """The options with defaults filled in; OptionError for anything not allowed."""
        if not self.min_players <= players <= self.max_players:
            raise OptionError("players", f"{self.name} is played by {self.min_players} to "
                              f"{self.max_players} players, not {players}")
        out = dict(self.options)
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
        return [t.id for t in ALHAMBRA_TILES]

    def money_deck(self, players: int) -> list[str]:
        """108 cards, or 72 for two players (A-8)."""
        return money_cards(2 if players == 2 else 3)

    def stack_deck(self, cards: list[str], rng: random.Random) -> tuple[list[str], list[str]]:
        """A-2 step 7: five piles as equal as possible, larger first (Decision A-2b), with
        each scoring card shuffled into its pile; returns (deck, cards set aside)."""
        piles, size, extra = [], *divmod(len(cards), 5)
        start = 0
        for i in range(5):
            n = size + (1 if i < extra else 0)
            piles.append(cards[start : start + n])
            start += n
        for card, pile in self.scoring_piles.items():
            target = piles[pile - 1]
            target.insert(rng.randint(0, len(target)), card)
        return [c for pile in piles for c in pile], []

    def reshuffle(self, state: State, cards: list[str], rng: random.Random
                  ) -> tuple[list[str], list[str]]:
        """A new deck from the discard (A-3.4 step 2); returns (deck, cards set aside)."""
        rng.shuffle(cards)
        return cards, list(state.set_aside)

    neutral_rule = "A-8"

    def setup_market(self, state: State, emit) -> None:
        """A-2 step 2: the first four market tiles."""
        from .rules import refill_market

        refill_market(state, emit)

    def after_refill(self, state: State, emit) -> None:
        """What follows a market refill that placed a tile (Granada's marker)."""

    def neutral_faces(self, state: State, tiles: list[str]) -> list[int] | None:
        """The faces of tiles drawn for the neutral collector (None: single-faced)."""
        return None

    def placement_extras(self, state: State, seat: int, move, event: Event) -> None:
        """Check a placement's face and flip payment and add them to ``event``."""
        if move.face is not None or move.cards:
            raise RuleViolation("G-3", f"{move.tile} has one face: it cannot be flipped")

    def placement_moves(self, state: State, seat: int, tile: str) -> list:
        """Every legal placement of a tile waiting to be placed."""
        from .moves import Move

        out = [Move("place", tile=tile, to="city", at=p)
               for p in state.grids[seat].legal_positions(tile)]
        out.append(Move("place", tile=tile, to="reserve"))
        if state.has_neutral and state.phase == "placement":
            out.append(Move("place", tile=tile, to="neutral"))
        return out

    def refill_face(self, state: State, tile: str) -> int | None:
        """The face a tile drawn now comes up on (None: single-faced)."""
        return None

    def neutral_draw(self, state: State) -> int:
        """How many tiles Dirk draws after the scoring just done (A-8)."""
        if state.scorings_done == 1:
            return 6
        third = sum(len(b) for b in state.bags.values()) // 3
        if state.options.get("dirk_third_draw_cap"):
            third = min(third, 6)
        return third

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
                        counts: dict[Any, int], faces: dict[Any, list]) -> dict[Any, int]:
        return shared_places(counts, ALHAMBRA_POINTS[type_][scoring])

    def barrier_awards(self, state: State, scoring: int) -> list[Event]:
        out = []
        for seat, grid in enumerate(state.grids):
            pts = grid.longest_barrier(("alhambra",))
            if pts:
                out.append(_award(scoring, seat, "wall", None, pts))
        return out

    def awards(self, state: State, scoring: int) -> list[Event]:
        """Every award of scoring 1, 2 or 3, in the order of A-5.3."""
        faces = self.faces(state)
        counts = type_counts(faces)
        out = []
        for type_ in self.types:
            points = self.majority_points(state, scoring, type_, counts.get(type_, {}), faces)
            for who, pts in sorted(points.items(), key=lambda kv: _order(kv[0])):
                if pts:
                    out.append(_award(scoring, who, "majority", type_, pts))
        return out + self.barrier_awards(state, scoring)


def _order(participant: Any) -> int:
    return 99 if participant == "neutral" else participant


def _award(scoring: int, who: Any, kind: str, building: str | None, points: int) -> Event:
    return {"type": "points_awarded", "scoring": scoring, "seat": who, "kind": kind,
            "building": building, "points": points}


VARIANTS: dict[str, Alhambra] = {"alhambra": Alhambra()}
