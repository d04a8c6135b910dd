"""A seat's situation at a glance, for mails and pages: the hand by currency, the market
spaces it can pay exactly (A-3.2: an exact payment gives another action) and the
majorities as the next scoring would count them now (A-5, G-5). Only public facts and the
seat's own hand."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .components import CURRENCIES, SPACE_CURRENCY, card_value
from .events import Participant
from .majorities import best_values, type_counts
from .payments import held, minimal_payments
from .scoring import faces
from .state import State
from .words import Msg


@dataclass(frozen=True)
class Purse:
    """The cards of one currency in a hand, highest first."""

    currency: str
    values: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.values)


@dataclass(frozen=True)
class Majority:
    """One building type: how many tiles each participant has of it, and the points each
    would get if scoring ``scoring`` were now."""

    building: str
    scoring: int
    counts: dict[Participant, int]
    points: dict[Participant, int]


def purses(hand: Counter[str]) -> list[Purse]:
    """The hand by currency (currencies with no card left out)."""
    out = []
    for currency in CURRENCIES:
        values = tuple(sorted((card_value(c) for c in held(hand, currency)), reverse=True))
        if values:
            out.append(Purse(currency, values))
    return out


def exact_spaces(state: State, seat: int) -> list[int]:
    """The market spaces (1-4) holding a tile that ``seat`` can pay exactly from its hand."""
    hand = state.hands[seat]
    out = []
    for space, tiles in enumerate(state.market, start=1):
        cards = held(hand, SPACE_CURRENCY[space])
        prices = {state.face(t).value for t in tiles}
        if any(sum(card_value(c) for c in pay) == price
               for price in prices for pay in minimal_payments(cards, price)):
            out.append(space)
    return out


def next_scoring(state: State) -> int:
    """The scoring to come (1-3): one whose card was drawn is done at the turn's end; from
    the game end on (A-6) it is the final one, the 3rd, even if the 2nd never came (C-1a:
    with ``both_money_decks`` its card may never be drawn)."""
    if state.phase in ("distribution", "over"):
        return 3
    return min(3, state.scorings_done + 1)


def majorities(state: State) -> list[Majority]:
    """Every building type in scoring order, with its counts and the points the next
    scoring would give now (types nobody has are left out)."""
    scoring = next_scoring(state)
    by_participant = faces(state)
    counts, best = type_counts(by_participant), best_values(by_participant)
    out = []
    for type_ in state.variant.types:
        if not counts.get(type_):
            continue
        kind = state.variant.kind_of_type(type_)
        points = kind.majority_points(scoring, type_, counts[type_], best.get(type_, {}),
                                      state.options)
        out.append(Majority(type_, scoring, dict(counts[type_]),
                            {p: n for p, n in points.items() if n}))
    return out


@dataclass(frozen=True)
class NoCell:
    """Why a tile to place fits no free cell of the city: the rule most of the cells
    beside the city break (A-4, G-4, C-3) and the engine's sentence for one of them."""

    tile: str
    rule: str
    reason: Msg


def tiles_without_cell(state: State, seat: int) -> list[NoCell]:
    """The tiles ``seat`` is to place now (state.pending) that fit no cell of its city:
    they can only go to the reserve (or the neutral). Empty when it is not placing."""
    if state.current != seat or state.phase == "over":
        return []
    grid = state.grids[seat]
    around = sorted({(x + dx, y + dy) for x, y in grid.cells
                     for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0))} - set(grid.cells))
    out = []
    for tile in state.pending:
        if grid.legal_positions(tile):
            continue
        errors = [e for e in (grid.placement_error(tile, p) for p in around) if e]
        if not errors:
            continue
        rule = Counter(r for r, _ in errors).most_common(1)[0][0]
        out.append(NoCell(tile, rule, next(why for r, why in errors if r == rule)))
    return out
