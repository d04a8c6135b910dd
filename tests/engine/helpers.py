"""Building blocks for engine tests: start a game, shape a state, play moves by text."""

from __future__ import annotations

import random
from collections import Counter

from engine import Event, State, decide, evolve, new_game, parse_moves, play, replay
from engine.bots import random_move
from engine.components import TILES


def start(players: int = 3, seed: int = 1, variant: str = "alhambra", **options) -> State:
    return replay(new_game(variant, [f"p{i}" for i in range(players)], seed, options))


def apply(state: State, seat: int, text: str) -> list[Event]:
    """Decide ``text`` (one move or a turn) for ``seat`` and fold the events into ``state``."""
    events = decide(state, seat, parse_moves(text))
    for e in events:
        evolve(state, e)
    return events


def set_hand(state: State, seat: int, cards: list[str]) -> None:
    state.hands[seat] = Counter(cards)


def take_out(state: State, tile: str, face: int | None = None) -> str:
    """Take ``tile`` out of the bag or the market (showing ``face`` if double-sided)."""
    for place in (*state.bags.values(), *state.market):
        if tile in place:
            place.remove(tile)
    if len(TILES[tile].faces) == 2:
        state.faces[tile] = face if face is not None else state.faces.get(tile, 0)
    return tile


def set_market(state: State, tiles: list[str | None]) -> None:
    """Put ``tiles`` (None: empty) on spaces 1-4; tiles leave the bag, old ones go back."""
    for space in state.market:
        for tile in space:
            state.bags[TILES[tile].kind].append(tile)
        space.clear()
    for i, tile in enumerate(tiles):
        if tile is not None:
            state.market[i].append(take_out(state, tile))


def build(state: State, seat: int, layout: dict[tuple[int, int], str],
          faces: dict[str, int] | None = None) -> None:
    """Put tiles straight into a seat's grid (no rule checks), from the bag or market."""
    for pos, tile in layout.items():
        state.grids[seat].put(take_out(state, tile, (faces or {}).get(tile)), pos)


def types_of(events: list[Event]) -> list[str]:
    return [e["type"] for e in events]


def play_random(seed: int, players: int, variant: str = "alhambra", options=None,
                steps: int | None = None) -> tuple[State, list[Event]]:
    """A game between random legal-move bots (or its first ``steps`` moves)."""
    events = new_game(variant, [f"p{i}" for i in range(players)], seed, options)
    state = replay(events)
    rng = random.Random(seed)
    n = 0
    while state.phase != "over" and (steps is None or n < steps):
        events += play(state, state.current, random_move(state, state.current, rng))
        n += 1
    return state, events
