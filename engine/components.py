"""Component data: tiles, money cards and scoring tables, loaded from ``engine/data``.

Sides are bit flags (``N``, ``E``, ``S``, ``W``); a tile's barrier mask tells which of its
sides carry a wall (Alhambra) or a moat (Granada). Positions are ``(x, y)`` grid cells with
``y`` growing southward.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

N, E, S, W = 1, 2, 4, 8
SIDES: tuple[tuple[int, int, int, int], ...] = (
    # (side, dx, dy, opposite side)
    (N, 0, -1, S),
    (E, 1, 0, W),
    (S, 0, 1, N),
    (W, -1, 0, E),
)
SIDE_NAMES = {N: "north", E: "east", S: "south", W: "west"}

CURRENCIES = ("denar", "dirham", "ducat", "florin")
CURRENCY_CODES = {"denar": "DE", "dirham": "DI", "ducat": "DU", "florin": "FL"}
CODE_CURRENCY = {code: name for name, code in CURRENCY_CODES.items()}
# Decision A-1a: market space 1 = denar, 2 = dirham, 3 = ducat, 4 = florin.
SPACE_CURRENCY = {1: "denar", 2: "dirham", 3: "ducat", 4: "florin"}

SCORING_CARDS = ("S1", "S2")
# Per kind of tile: what its barriers are called and who collects it in a two-player game.
BARRIERS = {"alhambra": "wall", "granada": "moat"}
NEUTRAL_NAMES = {"alhambra": "Dirk", "granada": "Juan"}  # A-8, G-7
DISPLAY_SIZE = 4  # cards in the money display (A-2 step 6)
ALHAMBRA_START = "A00"
GRANADA_START = "G00"


@dataclass(frozen=True, slots=True)
class Face:
    """One printed side of a tile: a building type and its price/value."""

    type: str
    value: int


@dataclass(frozen=True, slots=True)
class TileDef:
    """A building tile: its id, game (``alhambra``/``granada``), faces and barrier mask."""

    id: str
    kind: str
    faces: tuple[Face, ...]
    mask: int

    def face(self, index: int = 0) -> Face:
        return self.faces[index]


def _read(name: str) -> Any:
    return json.loads(resources.files("engine.data").joinpath(name).read_text("utf-8"))


def _mask(sides: dict[str, bool]) -> int:
    return sum(bit for key, bit in (("n", N), ("e", E), ("s", S), ("w", W)) if sides[key])


def card(currency: str, value: int) -> str:
    """The code of a money card, e.g. ``card("dirham", 5) == "DI5"``."""
    return f"{CURRENCY_CODES[currency]}{value}"


def card_currency(code: str) -> str:
    return CODE_CURRENCY[code[:2]]


def card_value(code: str) -> int:
    return int(code[2:])


def money_cards(copies: int) -> list[str]:
    """The money deck: 4 currencies x values 1-9 x ``copies``, in a fixed order."""
    return [card(c, v) for c in CURRENCIES for v in range(1, 10) for _ in range(copies)]


_scoring = _read("alhambra_scoring.json")
ALHAMBRA_TYPES: tuple[str, ...] = tuple(_scoring["scoring_order"])
ALHAMBRA_POINTS: dict[str, dict[int, list[int]]] = {
    t: {int(k): v for k, v in table.items()} for t, table in _scoring["points"].items()
}

ALHAMBRA_TILES: tuple[TileDef, ...] = tuple(
    TileDef(t["id"], "alhambra", (Face(t["type"], t["price"]),), _mask(t["walls"]))
    for t in _read("alhambra_tiles.json")
)

_granada = _read("granada_tiles.json")
GRANADA_TYPES: tuple[str, ...] = tuple(_granada["types"])
GRANADA_TILES: tuple[TileDef, ...] = tuple(
    TileDef(
        t["id"],
        "granada",
        tuple(Face(t[side]["type"], t[side]["value"]) for side in ("front", "back")),
        _mask(t["moats"]),
    )
    for t in _granada["tiles"]
)

TILES: dict[str, TileDef] = {t.id: t for t in (*ALHAMBRA_TILES, *GRANADA_TILES)}
TILES[ALHAMBRA_START] = TileDef(ALHAMBRA_START, "alhambra", (Face("start", 0),), 0)
TILES[GRANADA_START] = TileDef(GRANADA_START, "granada", (Face("start", 0),), 0)
