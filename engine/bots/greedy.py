"""The ``greedy`` bot: each legal move judged by the position right after it (the rest
of the turn: the tiles bought counted where they fit, an exact purchase's extra action),
through ``evaluate``. Ties go to the earliest move, so it needs no randomness. Like every
bot it redesigns only to build (``progress``)."""

from __future__ import annotations

from ..components import card_value
from ..legal import legal_moves
from ..moves import Move
from ..state import State
from .evaluate import Cache, after, evaluate
from .progress import builds

PAYMENTS = 3  # payments kept per purchase or flip: the cheapest


def shortlist(moves: list[Move]) -> list[Move]:
    """``moves`` with, for each purchase or paid flip, only its ``PAYMENTS`` cheapest
    payments (least total, then fewest cards): a large hand has thousands of them."""
    groups: dict[tuple[object, ...], list[Move]] = {}
    out: list[Move] = []
    for m in moves:
        if m.cards:
            groups.setdefault((m.action, m.tile, m.to, m.at, m.face), []).append(m)
        else:
            out.append(m)
    for group in groups.values():
        group.sort(key=lambda m: (sum(card_value(c) for c in m.cards), len(m.cards)))
        out += group[:PAYMENTS]
    return out


def ranked(state: State, seat: int, cache: Cache | None = None
           ) -> list[tuple[float, Move]]:
    """Every legal move a bot may make (payments shortlisted; redesigns that build,
    unless there is nothing else) with its value, best first (stable on ties)."""
    cache = cache or Cache()
    moves = shortlist(legal_moves(state, seat))
    if not moves:
        raise ValueError(f"seat {seat} has no legal move")
    scored = []
    for i, m in enumerate(moves):
        result = after(state, seat, m)
        if builds(state, seat, m, cache, result):
            scored.append((evaluate(result, seat, cache), i, m))
    if not scored:  # only redesigns that do not build: the rules leave nothing else
        scored = [(evaluate(after(state, seat, m), seat, cache), i, m)
                  for i, m in enumerate(moves)]
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [(v, m) for v, _, m in scored]


def greedy_move(state: State, seat: int, cache: Cache | None = None) -> Move:
    """The move that leaves ``seat`` best placed."""
    return ranked(state, seat, cache)[0][1]
