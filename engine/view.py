"""What a seat (or a spectator, ``None``) may see: A-7 secrets removed.

Hands other than the viewer's become sizes; the order of the money deck and of the bags
is hidden from everyone. Events are redacted the same way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from .components import BARRIERS, SIDE_NAMES, SPACE_CURRENCY, TILES
from .events import SECRET_FIELDS, Event
from .kinds import KINDS
from .state import State

_SIDE_KEYS = {1: "n", 2: "e", 4: "s", 8: "w"}


def tile_info(state: State, tile: str) -> dict[str, Any]:
    """A tile as clients see it: id, type, value, barrier sides (and faces if two)."""
    return _info(tile, state.faces.get(tile, 0))


def _info(tile: str, index: int) -> dict[str, Any]:
    """``tile_info`` of ``tile`` with face ``index`` up: a copy of the one kept, its
    lists new."""
    info, barrier, sides = _KEPT[tile][index]
    out = info.copy()
    out[barrier] = list(sides)
    if "other_side" in out:
        out["other_side"] = out["other_side"].copy()
    return out


def _kept(tile: str, index: int) -> tuple[dict[str, Any], str, tuple[str, ...]]:
    t = TILES[tile]
    face = t.faces[index]
    barrier = BARRIERS[t.kind] + "s"
    sides = tuple(_SIDE_KEYS[b] for b in SIDE_NAMES if t.mask & b)
    info: dict[str, Any] = {"id": tile, "type": face.type, "value": face.value,
                            barrier: None}
    if len(t.faces) == 2:
        other = t.faces[1 - index]
        info["face"] = "back" if index else "front"
        info["other_side"] = {"type": other.type, "value": other.value}
    return info, barrier, sides


#: Each tile as ``tile_info`` shows it, by the index of its face up: a view shows every
#: tile of every city, and making each anew was most of its time late in a game.
_KEPT = {tile: tuple(_kept(tile, i) for i in range(len(t.faces)))
         for tile, t in TILES.items()}


def _hand(hand: Counter[str]) -> list[str]:
    return sorted(c for c, n in hand.items() for _ in range(n))


def _row_major(cell: tuple[tuple[int, int], str]) -> tuple[int, int]:
    return cell[0][1], cell[0][0]


def _placed(tile: str, index: int, at: tuple[int, int]) -> dict[str, Any]:
    """``tile_info`` of a tile in a city, with its place."""
    out = _info(tile, index)
    out["x"], out["y"] = at
    return out


def view(state: State, seat: int | None = None, names: Sequence[str] | None = None
         ) -> dict[str, Any]:
    """A JSON-safe picture of the game for ``seat`` (None: a spectator); the seats called
    ``names`` where given (the service's: a deleted account's seat is no longer called by
    the name in the log), else as the log names them."""
    v = state.variant
    faces = state.faces
    seats = []
    for i, name in enumerate(names if names is not None else state.seats):
        grid = state.grids[i]
        entry: dict[str, Any] = {
            "seat": i, "name": name, "score": state.scores[i],
            "hand_size": sum(state.hands[i].values()),
            "city": [_placed(t, faces.get(t, 0), p)
                     for p, t in sorted(grid.cells.items(), key=_row_major)],
            "reserve": [tile_info(state, t) for t in state.reserves[i]],
            "bot": state.bots.get(i),  # S-2: the level of the bot playing the seat
            "left": state.left.get(i),  # S-2: resigned, abandoned (then a bot plays)
        }
        if i == seat:
            entry["hand"] = _hand(state.hands[i])
        seats.append(entry)
    out: dict[str, Any] = {
        "variant": v.name, "options": dict(state.options), "version": state.version,
        "phase": state.phase, "turn": state.turn,
        "current": None if state.phase == "over" else state.current,
        "can_act": state.can_act and state.phase == "action",
        "seats": seats,
        "neutral": ({"name": v.neutral_name, "score": state.neutral_score,
                     "tiles": [tile_info(state, t) for t in state.neutral]}
                    if state.has_neutral else None),
        "market": [{"space": i + 1, "currency": SPACE_CURRENCY[i + 1],
                    "tiles": [tile_info(state, t) for t in space]}
                   for i, space in enumerate(state.market)],
        "display": list(state.display),
        "deck_size": len(state.deck),
        "discard_size": len(state.discard),
        "bag_sizes": {k: len(b) for k, b in state.bags.items()},
        "pending": [tile_info(state, t) for t in state.pending],
        "scorings_done": state.scorings_done,
        "winners": list(state.winners),
    }
    if any(KINDS[kind].switches_marker for kind in v.kinds):
        out["marker"] = "back" if state.marker else "front"
    return out


def redact_event(event: Event, seat: int | None = None, over: bool = False
                 ) -> dict[str, Any]:
    """``event`` as ``seat`` may see it (a new dict; the original is left alone): a deck
    or bag order becomes its ``size`` (A-7); the seed is shown only once the game is
    ``over`` (the record then holds it anyway). Starting money is dealt face up (A-2 step
    4): every seat sees ``money_dealt`` whole."""
    kind = event["type"]
    out: dict[str, Any] = dict(event)
    if kind in SECRET_FIELDS:
        out["size"] = len(out.pop(SECRET_FIELDS[kind]))
    elif kind == "game_created" and not over:  # the seed reveals the deck and bag order
        del out["seed"]
    return out
