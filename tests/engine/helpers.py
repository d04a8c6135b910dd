"""Building blocks for engine tests: start a game, shape a state, play moves by text."""

from __future__ import annotations

from collections import Counter

from engine import Event, State, decide, evolve, new_game, parse_moves, replay


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


def set_market(state: State, tiles: list[str | None]) -> None:
    """Put ``tiles`` (None: empty) on spaces 1-4; tiles leave the bag, old ones go back."""
    bag = state.bags["alhambra"]
    for space in state.market:
        bag.extend(space)
        space.clear()
    for i, tile in enumerate(tiles):
        if tile is not None:
            bag.remove(tile)
            state.market[i].append(tile)


def build(state: State, seat: int, layout: dict[tuple[int, int], str]) -> None:
    """Put tiles straight into a seat's grid (no rule checks), from the bag or market."""
    for pos, tile in layout.items():
        for place in (state.bags["alhambra"], *state.market):
            if tile in place:
                place.remove(tile)
        state.grids[seat].put(tile, pos)


def types_of(events: list[Event]) -> list[str]:
    return [e["type"] for e in events]
