"""Drawing from the bags and the money deck: the building market, the money display and
the neutral collector's tiles (A-2, A-3.4 steps 2-3, A-8, C-1).

Each function emits the events of what it draws through ``emit``, which also folds them
into the state, so each draw sees the one before. Shuffles use generators seeded by the
game's seed and a purpose, and are recorded, so a log replays without them.
"""

from __future__ import annotations

import random

from . import events as ev
from .components import DISPLAY_SIZE, SCORING_CARDS, TILES
from .events import Emit, Event
from .kinds import KINDS
from .state import State, evolve


def rng(seed: int, purpose: str) -> random.Random:
    """The generator of one kind of draw in a game."""
    return random.Random(f"{seed}:{purpose}")


def emitter(state: State, events: list[Event]) -> Emit:
    """An ``emit`` that records each event in ``events`` and folds it into ``state``."""
    def emit(event: Event) -> None:
        events.append(event)
        evolve(state, event)
    return emit


def refill_market(state: State, emit: Emit, returns: random.Random | None = None) -> None:
    """Put a tile of each of the variant's kinds on each space lacking one, from that
    kind's bag, lowest space first (A-3.4 step 3); then switch the black marker if a kind
    that switches it was placed (G-3, Decision G-3a).

    At setup, ``returns`` mixes a tile that may not lie on the market then back into the
    bag at a random place (C-1); a game of schema 1 took the next allowed tile instead.
    """
    variant = state.variant
    kinds = [KINDS[k] for k in variant.kinds]
    placed: set[str] = set()
    for i, space in enumerate(state.market):
        present = {TILES[t].kind for t in space}
        if len(present) == len(kinds):
            continue  # a tile of each kind already
        for kind in kinds:
            bag = state.bags[kind.name]
            if kind.name in present or not bag:
                continue
            tile = bag[0]
            if returns is not None:
                if state.schema < 2:
                    tile = next(t for t in bag if variant.kept_at_setup(t))
                while not variant.kept_at_setup(tile):
                    rest = bag[1:]
                    rest.insert(returns.randint(0, len(rest)), tile)
                    emit({"type": "tile_returned", "kind": kind.name, "tile": tile,
                          "tiles": rest})
                    bag = state.bags[kind.name]
                    tile = bag[0]
            event: ev.MarketRefilled = {"type": "market_refilled", "space": i + 1,
                                        "tile": tile}
            face = kind.refill_face(state.marker)
            if face is not None:
                event["face"] = face
            emit(event)
            placed.add(kind.name)
    if any(KINDS[k].switches_marker for k in placed):
        emit({"type": "marker_switched", "marker": 1 - state.marker})


def refill_display(state: State, emit: Emit) -> None:
    """Refill the money display to 4 cards (A-3.4 step 2): a scoring card drawn is set
    aside for its scoring; an empty deck is replaced by the shuffled discard."""
    while len(state.display) < DISPLAY_SIZE:
        if not state.deck:
            if not state.discard:
                return
            deck, aside = state.variant.reshuffle(
                list(state.discard), list(state.set_aside),
                rng(state.seed, f"shuffle{state.shuffles}"))
            emit({"type": "deck_reshuffled", "deck": deck, "set_aside": aside})
            continue
        top = state.deck[0]
        if top in SCORING_CARDS:
            scoring = state.scorings_done + len(state.scorings_due) + 1
            emit({"type": "scoring_card_drawn", "card": top, "scoring": scoring})
        else:
            emit({"type": "card_drawn", "card": top})


def neutral_draw(state: State, emit: Emit, count: int) -> None:
    """The neutral collector draws ``count`` tiles from the bag (A-8, G-7)."""
    kind = KINDS[state.variant.kinds[-1]]
    tiles = state.bags[kind.name][:count]
    if tiles:
        event: ev.NeutralReceived = {"type": "neutral_received", "tiles": tiles}
        faces = kind.neutral_faces(state.scorings_done, state.marker, len(tiles))
        if faces is not None:
            event["faces"] = faces
        emit(event)
