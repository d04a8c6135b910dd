"""``legal_moves``: every move a seat may make now, the one source for bots, timeouts,
clients and tests. Payments are listed minimal (no card could be left out)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from .components import DISPLAY_SIZE, SPACE_CURRENCY, TILES, card_value
from .kinds import KINDS
from .moves import ACTIONS, Move
from .payments import holdings, minimal_payments
from .state import State

# The moves listed here are valid and spelled canonically by construction (payments highest
# card first, positions ascending): they are made without Move's checks of client input.
_move = Move.unchecked

# Every group of two or more cards by display size: its indices and its positions (1-based).
_GROUPS = {n: [(c, tuple(i + 1 for i in c)) for size in range(2, n + 1)
               for c in itertools.combinations(range(n), size)]
           for n in range(DISPLAY_SIZE + 1)}


def take_moves(state: State) -> list[Move]:
    """A-3.1: one card, or several totalling at most 5."""
    values = [card_value(c) for c in state.display]
    out = [_move("take", positions=(i + 1,)) for i in range(len(values))]
    for group, positions in _GROUPS[len(values)]:
        if sum(map(values.__getitem__, group)) <= 5:
            out.append(_move("take", positions=positions))
    return out


def buy_moves(state: State, seat: int) -> list[Move]:
    """A-3.2: each market tile with each minimal payment in its space's currency."""
    out = []
    hand = holdings(state.hands[seat])
    for i, space in enumerate(state.market):
        if not space:
            continue
        cards = hand[SPACE_CURRENCY[i + 1]]
        for tile in space:
            out += [_move("buy", tile=tile, cards=pay)
                    for pay in minimal_payments(cards, state.face(tile).value)]
    return out


def redesign_moves(state: State, seat: int, leaving: bool = True) -> list[Move]:
    """A-3.3: a reserve tile in, a city tile out (unless not ``leaving``: a bot never takes
    one out, ``bots.progress``), or one of each swapped."""
    grid, reserve = state.grids[seat], state.reserves[seat]
    out: list[Move] = []
    for tile in reserve:
        out.extend(_move("redesign", tile=tile, to="city", at=p)
                   for p in grid.legal_positions(tile))
    if leaving:
        removable = grid.removable()
        out.extend(_move("redesign", tile=t, to="reserve") for t in grid.where
                   if t in removable)
    out.extend(_move("redesign", tile=t, to="swap", other=o) for t, o in grid.swaps(reserve))
    return out


def place_moves(state: State, seat: int) -> list[Move]:
    """A-3.4 step 1: each tile waiting to be placed into the city, the reserve or (two
    players, not at the game end) to the neutral; turned over as its kind allows."""
    game_end = state.phase == "distribution"
    out = []
    for tile in state.pending:
        moves = [_move("place", tile=tile, to="city", at=p)
                 for p in state.grids[seat].legal_positions(tile)]
        moves.append(_move("place", tile=tile, to="reserve"))
        if state.has_neutral and not game_end:
            moves.append(_move("place", tile=tile, to="neutral"))
        kind = KINDS[TILES[tile].kind]
        out += moves + kind.flipped_placements(moves, state.faces.get(tile, 0),
                                               state.hands[seat], game_end)
    return out


def can_act(state: State, seat: int) -> bool:
    """Has ``seat`` any action at all: money to take, a tile to buy, a redesign? If not,
    it may end its turn without one (Part S)."""
    return bool(state.display or buy_moves(state, seat) or redesign_moves(state, seat))


def legal_moves(state: State, seat: int, kinds: Iterable[str] | None = None,
                timeout: bool = False) -> list[Move]:
    """Every move ``seat`` may make now (payments listed minimal), optionally only of the
    actions in ``kinds``; with ``timeout``, the moves allowed when its time ran out (then
    ending the turn without an action is one, Part S)."""
    if state.phase in ("over", "setup") or seat != state.current:
        return []
    want = set(kinds) if kinds is not None else set(ACTIONS)
    if state.phase in ("placement", "distribution"):
        return place_moves(state, seat) if "place" in want else []
    out: list[Move] = []
    if "take" in want:
        out += take_moves(state)
    if "buy" in want:
        out += buy_moves(state, seat)
    if "redesign" in want:
        out += redesign_moves(state, seat)
    if "end" in want and (state.acted or timeout or not can_act(state, seat)):
        out.append(Move("end"))
    if state.pending and "place" in want:
        out += place_moves(state, seat)
    return out
