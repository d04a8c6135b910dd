"""How good a position looks to a seat: the evaluation behind the ``greedy`` and ``strong``
bots. It reads only what every seat may see (A-7): cities, reserves, scores, the market,
the display and the hands, which follow from the public history (see ``knowledge``).

A seat's worth is its score plus, for each scoring still to come (weighted by how far
off it is), the majority points its city would take now (A-5.1, G-5, C-4, by each kind's
own point table) and its longest wall or moat (A-5.2, G-5, C-4); plus its money, valued
higher where it pays for a market tile it wants in that space's currency (A-3.2), and
higher still where it pays exactly (another action). A position is worth the seat's
worth minus its rivals', so a tile that feeds a rival's majority counts against it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ..components import SPACE_CURRENCY, TILES, Face, card_currency, card_value
from ..events import Participant
from ..grid import Grid
from ..moves import Move
from ..payments import held, minimal_payments
from ..rules import move_events
from ..state import State, evolve
from ..variants import Alhambra

#: Weight of a scoring by how many scorings away it is (0: the next one).
SCORING_WEIGHTS = (1.0, 0.7, 0.5)
MONEY = 0.4  # points per unit of money in hand at the start, less as the bags empty
PLENTY = 20  # money of one currency beyond this is worth a quarter
CAN_PAY = 0.35  # share of a wanted tile's worth for holding its price in its currency
EXACT = 0.2  # more for holding an exact payment (A-3.2: another action)
EXTRA_ACTION = 2.0  # an exact purchase made this turn: another action to take
RESERVE = 1.0  # a tile in the reserve (it may be built later, A-3.3)
RIVALS_MAX = 0.6  # with several rivals: weight of the leader against their mean


def after(state: State, seat: int, move: Move) -> State:
    """A copy of ``state`` after ``move`` itself, without the end-of-turn refills that
    would draw hidden cards and tiles."""
    work = state.copy()
    for event in move_events(work, seat, move):
        evolve(work, event)
    return work


def _remaining(state: State) -> list[tuple[int, float]]:
    """The scorings still to come with their weights."""
    first = state.scorings_done + 1
    return [(k, SCORING_WEIGHTS[k - first]) for k in range(first, 4)]


Summary = dict[str, tuple[int, int]]  # building type -> (tiles, highest value)


def _summary(faces: Iterable[Face]) -> Summary:
    out: Summary = {}
    for f in faces:
        n, top = out.get(f.type, (0, 0))
        out[f.type] = (n + 1, max(top, f.value))
    return out


class Cache:
    """Results worth keeping while one bot decides: standings, majority points, line
    lengths and money worth, each keyed by its whole input, so a hit is always right."""

    def __init__(self) -> None:
        self.points: dict[tuple[object, ...], dict[Participant, float]] = {}
        self.lines: dict[frozenset[tuple[tuple[int, int], str]], int] = {}
        self.summaries: dict[tuple[object, ...], Summary] = {}
        self.majorities: dict[tuple[object, ...], dict[Participant, float]] = {}
        self.money: dict[tuple[object, ...], float] = {}

    def line_points(self, state: State, seat: int) -> int:
        return self.grid_line_points(state.grids[seat], state.variant)

    def grid_line_points(self, grid: Grid, variant: Alhambra) -> int:
        """The points of ``grid``'s longest lines, every barrier line of ``variant``."""
        key = frozenset(grid.cells.items())
        got = self.lines.get(key)
        if got is None:
            got = self.lines[key] = sum(grid.longest_barrier(kinds)
                                        for _, kinds in variant.barrier_lines)
        return got

    def standing(self, state: State, who: Participant) -> Summary:
        """The tiles that would count now for ``who``: its city, plus the mover's tiles
        waiting to be placed where they fit; the neutral's tiles."""
        key: tuple[object, ...]
        if who == "neutral":
            key = ("neutral", tuple(state.neutral))
            tiles: list[str] = list(state.neutral)
        else:
            grid = state.grids[who]
            pending: tuple[tuple[str, int], ...] = ()
            if who == state.current and state.phase != "over":
                pending = tuple((t, state.faces.get(t, 0)) for t in state.pending
                                if grid.legal_positions(t))
            key = (frozenset(grid.cells.items()), pending)
            start = state.variant.start_tile
            tiles = [t for t in grid.tiles() if t != start] + [t for t, _ in pending]
        got = self.summaries.get(key)
        if got is None:
            got = self.summaries[key] = _summary(state.face(t) for t in tiles)
        return got


class Position:
    """Majority standings of one position, to value it and to price tiles against it."""

    def __init__(self, state: State, cache: Cache) -> None:
        self.state = state
        self.cache = cache
        self.parts: list[Participant] = [*range(state.players)]
        if state.has_neutral:
            self.parts.append("neutral")
        self.remaining = _remaining(state)
        self.counts: dict[str, dict[Participant, int]] = {}
        self.best: dict[str, dict[Participant, int]] = {}
        keys: list[object] = [state.scorings_done]
        for who in self.parts:
            summary = cache.standing(state, who)
            keys.append(frozenset(summary.items()))
            for type_, (n, top) in summary.items():
                self.counts.setdefault(type_, {})[who] = n
                self.best.setdefault(type_, {})[who] = top
        self.key = tuple(keys)

    def type_points(self, type_: str, counts: dict[Participant, int],
                    best: dict[Participant, int]) -> dict[Participant, float]:
        """Weighted points per participant for one building type over the scorings left."""
        key = (type_, self.state.scorings_done, *(counts.get(p, 0) for p in self.parts),
               *(best.get(p, 0) for p in self.parts))
        got = self.cache.points.get(key)
        if got is not None:
            return got
        kind = self.state.variant.kind_of_type(type_)
        out: dict[Participant, float] = {}
        for scoring, weight in self.remaining:
            pts = kind.majority_points(scoring, type_, counts, best, self.state.options)
            for who, p in pts.items():
                out[who] = out.get(who, 0.0) + weight * p
        self.cache.points[key] = out
        return out

    def majorities(self) -> dict[Participant, float]:
        out = self.cache.majorities.get(self.key)
        if out is None:
            out = self.cache.majorities[self.key] = {}
            for type_, counts in self.counts.items():
                for who, p in self.type_points(type_, counts, self.best[type_]).items():
                    out[who] = out.get(who, 0.0) + p
        return out

    def gain(self, seat: int, face: Face) -> float:
        """What one more tile showing ``face`` in ``seat``'s city adds to its majorities,
        less what it takes from everyone else."""
        counts = dict(self.counts.get(face.type, {}))
        best = dict(self.best.get(face.type, {}))
        before = self.type_points(face.type, counts, best)
        counts[seat] = counts.get(seat, 0) + 1
        best[seat] = max(best.get(seat, 0), face.value)
        now = self.type_points(face.type, counts, best)
        mine = now.get(seat, 0.0) - before.get(seat, 0.0)
        theirs = sum(now.get(w, 0.0) - before.get(w, 0.0) for w in now if w != seat)
        return mine - theirs / max(1, self.state.players - 1)


def tile_gain(position: Position, seat: int, tile: str) -> float:
    """``tile``'s worth to ``seat`` on the face it shows (Granada: or turned, G-3)."""
    state = position.state
    gain = position.gain(seat, state.face(tile))
    if len(TILES[tile].faces) == 2:
        other = TILES[tile].faces[1 - state.faces.get(tile, 0)]
        gain = max(gain, position.gain(seat, other) - 3 * money_rate(state))
    return gain


def money_rate(state: State) -> float:
    """Points per unit of money: money buys tiles only while tiles are left (A-6)."""
    variant = state.variant
    total = sum(len(variant.bag(k)) for k in variant.kinds)
    left = sum(map(len, state.bags.values())) + sum(map(len, state.market))
    return MONEY * (0.25 + 0.75 * left / total)


def money_worth(position: Position, seat: int) -> float:
    """Money in hand, more where it buys a wanted market tile in its currency."""
    state = position.state
    hand = state.hands[seat]
    key = (seat, frozenset(hand.items()), position.key,
           tuple((t, state.faces.get(t, 0)) for space in state.market for t in space))
    got = position.cache.money.get(key)
    if got is not None:
        return got
    by_currency: Counter[str] = Counter()
    for c, n in hand.items():
        by_currency[card_currency(c)] += card_value(c) * n
    worth = money_rate(state) * sum(min(v, PLENTY) + max(0, v - PLENTY) / 4
                                    for v in by_currency.values())
    for i, space in enumerate(state.market):
        currency = SPACE_CURRENCY[i + 1]
        for tile in space:
            price = state.face(tile).value
            if by_currency[currency] < price:
                continue
            want = tile_gain(position, seat, tile)
            if want <= 0:
                continue
            share = CAN_PAY
            cards = held(hand, currency)
            if any(sum(card_value(c) for c in p) == price
                   for p in minimal_payments(cards, price)):
                share += EXACT
            worth += share * want
    position.cache.money[key] = worth
    return worth


def worth(state: State, position: Position, majorities: dict[Participant, float],
          seat: int) -> float:
    """Everything ``seat`` has, in expected points."""
    grid = state.grids[seat]
    lines = position.cache.line_points(state, seat)
    value = state.scores[seat] + majorities.get(seat, 0.0)
    value += lines * sum(w for _, w in position.remaining)
    value += RESERVE * len(state.reserves[seat])
    if state.phase != "over":
        value += money_worth(position, seat)
        if seat == state.current:
            grid_fit = sum(1 for t in state.pending if not grid.legal_positions(t))
            value += RESERVE * grid_fit
            if state.phase == "action" and state.can_act and state.acted:
                value += EXTRA_ACTION
    return value


def evaluate(state: State, seat: int, cache: Cache | None = None) -> float:
    """How far ``seat`` is ahead of its rivals, in expected points."""
    if state.phase == "over":
        return float(state.scores[seat] - max(s for i, s in enumerate(state.scores)
                                              if i != seat))
    position = Position(state, cache or Cache())
    majorities = position.majorities()
    values = [worth(state, position, majorities, s) for s in range(state.players)]
    return values[seat] - _rivals(v for i, v in enumerate(values) if i != seat)


def _rivals(values: Iterable[float]) -> float:
    vals = list(values)
    return RIVALS_MAX * max(vals) + (1 - RIVALS_MAX) * sum(vals) / len(vals)
