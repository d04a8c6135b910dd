"""Variants: a game's tile kinds, component data and the few rules that differ.

A variant is a small class of data and hooks, like python-chess's variants: the core asks
it for the tile bags, the money deck, where the scoring cards go, how many tiles the
neutral draws and how the scorings run. What depends on a tile's kind is in ``kinds``.
``Alhambra`` is Part A of docs/rules.md, ``Granada`` Part G and ``AlhambraGranada`` Part C.
Hooks take plain values and return values; none sees the game state.
"""

from __future__ import annotations

import random
from typing import Any

from .components import (
    ALHAMBRA_START,
    ALHAMBRA_TILES,
    GRANADA_START,
    GRANADA_TILES,
    TILES,
    money_cards,
)
from .errors import OptionError
from .events import SCHEMA, AwardKind
from .grid import RULES_ALHAMBRA, Grid
from .kinds import KINDS, AlhambraTiles
from .terms import VARIANTS as VARIANT_WORDS
from .words import msg

BAGS = {"alhambra": [t.id for t in ALHAMBRA_TILES], "granada": [t.id for t in GRANADA_TILES]}


class Alhambra:
    """Alhambra (docs/rules.md Part A), 2-6 players, Dirk for two."""

    name = "alhambra"
    kinds: tuple[str, ...] = ("alhambra",)  # the kinds of tile played (keys of KINDS)
    min_players, max_players = 2, 6
    neutral_rule = "A-8"
    start_tile = ALHAMBRA_START
    grid_rules: dict[str, str] = RULES_ALHAMBRA
    options: dict[str, Any] = {"dirk_third_draw_cap": False}
    # A-2 step 7: scoring card -> the pile (1-based, of 5) it is shuffled into; cards kept
    # aside until the first reshuffle go into pile 2 of the new deck (C-1).
    scoring_piles: dict[str, int] = {"S1": 2, "S2": 4}
    set_aside: tuple[str, ...] = ()
    # The longest-line awards: (award kind, tile kinds whose barriers form the line).
    barrier_lines: tuple[tuple[AwardKind, tuple[str, ...]], ...] = (("wall", ("alhambra",)),)
    # C-1: kinds whose tiles go back into the bag at setup if they have no barrier.
    setup_needs_barrier: frozenset[str] = frozenset()

    @property
    def line_kinds(self) -> tuple[tuple[str, ...], ...]:
        """The tile kinds of each barrier line."""
        return tuple(kinds for _, kinds in self.barrier_lines)

    @property
    def neutral_name(self) -> str:
        """Dirk or Juan: the collector of the variant's (last) kind of tile."""
        return KINDS[self.kinds[-1]].neutral_name

    @property
    def types(self) -> tuple[str, ...]:
        """The building types in scoring order (A-5.3)."""
        return tuple(t for kind in self.kinds for t in KINDS[kind].types)

    def kind_of_type(self, type_: str) -> AlhambraTiles:
        """The rules of the kind of tile that shows building type ``type_``."""
        return next(KINDS[kind] for kind in self.kinds if type_ in KINDS[kind].types)

    def defaults(self, schema: int) -> dict[str, Any]:
        """The options' defaults for games of event schema ``schema``."""
        return dict(self.options)

    def check(self, players: int, options: dict[str, Any], schema: int = SCHEMA
              ) -> dict[str, Any]:
        """The options with defaults filled in; OptionError for anything not allowed."""
        if not self.min_players <= players <= self.max_players:
            raise OptionError("players", msg("{game} is played by {least} to {most} players, "
                                             "not {players}", game=VARIANT_WORDS[self.name],
                                             least=self.min_players, most=self.max_players,
                                             players=players))
        out = self.defaults(schema)
        for key, value in options.items():
            if key not in self.options:
                raise OptionError(f"options.{key}", msg(
                    "{game} has no option {option}; its options are {options}",
                    game=VARIANT_WORDS[self.name], option=repr(key),
                    options=str(sorted(self.options)) if self.options else msg("none")))
            if type(value) is not type(self.options[key]):
                raise OptionError(f"options.{key}", msg(
                    "option {option} must be a {kind}", option=repr(key),
                    kind=type(self.options[key]).__name__))
            out[key] = value
        return out

    def new_grid(self) -> Grid:
        return Grid(self.start_tile, self.grid_rules)

    def bag(self, kind: str) -> list[str]:
        """The tiles of one kind, in a fixed order."""
        return list(BAGS[kind])

    def money_deck(self, players: int, options: dict[str, Any]) -> list[str]:
        """108 cards, or 72 for two players (A-8)."""
        return money_cards(2 if players == 2 else 3)

    def stack_deck(self, cards: list[str], rng: random.Random) -> tuple[list[str], list[str]]:
        """A-2 step 7: five piles with the scoring cards shuffled in; returns (deck, cards
        set aside)."""
        return _stack(cards, rng, self.scoring_piles), list(self.set_aside)

    def reshuffle(self, cards: list[str], set_aside: list[str], rng: random.Random
                  ) -> tuple[list[str], list[str]]:
        """A new deck from the discard ``cards`` (A-3.4 step 2), taking in the scoring
        cards ``set_aside`` (C-1); returns (deck, cards still set aside)."""
        rng.shuffle(cards)
        if set_aside:
            return _stack(cards, rng, {card: 2 for card in set_aside}), []
        return cards, []

    def kept_at_setup(self, tile: str) -> bool:
        """May ``tile`` lie on the market at setup (C-1), or does it go back into the bag?"""
        return TILES[tile].kind not in self.setup_needs_barrier or bool(TILES[tile].mask)

    def neutral_draw(self, scorings_done: int, bag_size: int, options: dict[str, Any]) -> int:
        """How many tiles the neutral collector draws after scoring ``scorings_done``, with
        ``bag_size`` tiles left in the bags (A-8, Decision A-8a)."""
        if scorings_done == 1:
            return 6
        third = bag_size // 3
        if options.get("dirk_third_draw_cap"):
            third = min(third, 6)
        return third


class Granada(Alhambra):
    """Granada (docs/rules.md Part G): double-sided tiles, moats, N-based majorities, Juan."""

    name = "granada"
    kinds = ("granada",)
    neutral_rule = "G-7"
    start_tile = GRANADA_START
    grid_rules = {"empty": "G-4", "adjacent": "G-4", "match": "G-4", "reach": "G-4",
                  "hole": "G-4", "split": "G-4"}
    options = {"simple_scoring": False}
    barrier_lines = (("moat", ("granada",)),)


class AlhambraGranada(Alhambra):
    """Alhambra + Granada (docs/rules.md Part C), 3-6 players, one grid holding both kinds."""

    name = "alhambra_granada"
    kinds = ("alhambra", "granada")
    min_players = 3  # Decision C-0: no two-player combined game
    neutral_rule = "C-0"  # no two-player game: no neutral
    grid_rules = {"empty": "C-3", "adjacent": "C-3", "match": "C-3", "reach": "C-3",
                  "hole": "C-3", "split": "C-3a"}
    options = {"simple_scoring": False, "both_money_decks": False}
    scoring_piles = {"S1": 3}
    set_aside = ("S2",)
    barrier_lines = (("wall", ("alhambra",)), ("moat", ("granada",)),
                     ("combined", ("alhambra", "granada")))
    setup_needs_barrier = frozenset({"granada"})

    def defaults(self, schema: int) -> dict[str, Any]:
        """Games of schema 1 were played with both money decks."""
        return dict(super().defaults(schema), both_money_decks=schema < 2)

    def check(self, players: int, options: dict[str, Any], schema: int = SCHEMA
              ) -> dict[str, Any]:
        if players == 2:
            raise OptionError("players", msg("Alhambra + Granada is played by 3 to 6 "
                                             "players: the rulebook has no two-player game "
                                             "(Decision C-0)"))
        return super().check(players, options, schema)

    def money_deck(self, players: int, options: dict[str, Any]) -> list[str]:
        """One money deck of 108 cards, both games' 216 with ``both_money_decks``
        (Decision C-1a)."""
        return money_cards(6 if options["both_money_decks"] else 3)


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


VARIANTS: dict[str, Alhambra] = {
    v.name: v for v in (Alhambra(), Granada(), AlhambraGranada())
}
