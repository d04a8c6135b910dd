"""The three scorings (A-5, G-5, C-4): majorities type by type, then the longest lines.

``awards(state, scoring)`` lists who gets what in scoring 1, 2 or 3; each building type's
points come from its tile kind (``kinds``), the lines from the variant's barrier lines.
"""

from __future__ import annotations

from typing import NamedTuple

from .components import Face
from .events import AwardKind, Participant
from .majorities import best_values, type_counts
from .state import State


class Award(NamedTuple):
    """Points for one participant: ``kind`` is majority, wall, moat or combined."""

    seat: Participant
    kind: AwardKind
    building: str | None
    points: int


def faces(state: State) -> dict[Participant, list[Face]]:
    """The faces that count in a scoring, per participant (seats, then the neutral):
    tiles in the cities (never the reserves, never a start tile) and the neutral's."""
    start = state.variant.start_tile
    out: dict[Participant, list[Face]] = {
        seat: [state.face(t) for t in grid.tiles() if t != start]
        for seat, grid in enumerate(state.grids)
    }
    if state.has_neutral:
        out["neutral"] = [state.face(t) for t in state.neutral]
    return out


def awards(state: State, scoring: int) -> list[Award]:
    """Every award of scoring 1, 2 or 3: majorities type by type, then the longest
    barrier lines seat by seat (A-5.3). Awards of 0 points are left out."""
    variant = state.variant
    by_participant = faces(state)
    counts, best = type_counts(by_participant), best_values(by_participant)
    out = []
    for type_ in variant.types:
        kind = variant.kind_of_type(type_)
        points = kind.majority_points(scoring, type_, counts.get(type_, {}),
                                      best.get(type_, {}), state.options)
        for who, pts in sorted(points.items(), key=lambda kv: _order(kv[0])):
            if pts:
                out.append(Award(who, "majority", type_, pts))
    for line, tile_kinds in variant.barrier_lines:
        for seat, grid in enumerate(state.grids):
            pts = grid.longest_barrier(tile_kinds)
            if pts:
                out.append(Award(seat, line, None, pts))
    return out


def _order(participant: Participant) -> int:
    return 99 if participant == "neutral" else participant
