"""A tournament's points and standings (issue 36). Pure.

A table's players are ranked by the game (its final scores; a seat that withdrew or that
a takeover bot took ranks last, below every player who played on). Rank points: by
default the first gets 1 and the last 0, evenly between (so tables of 3 and of 4 weigh
the same), or the organiser's list from first to last; players tied for a rank share the
points of the ranks they cover, so a table hands out the same points however it ends.
Standings order by points, then the tie-breaks in this order: game score (the sum of the
player's final scores), the opponents' standing (the sum of the points of everyone the
player met, once per meeting), head to head (the tied players' wins over each other at
shared tables), then the seed order.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Result:
    """One finished table: its players, their final scores, and who left (ranked last)."""

    players: tuple[str, ...]
    scores: tuple[int, ...]
    left: frozenset[str] = frozenset()

    def ranks(self) -> dict[str, int]:
        """Each player's rank (0: first); equals share one, the next comes after them
        all (1, 2, 2, 4 as 0, 1, 1, 3)."""
        key = {p: (p not in self.left, s) for p, s in zip(self.players, self.scores,
                                                           strict=True)}
        return {p: sum(1 for q in self.players if key[q] > key[p]) for p in self.players}


def rank_points(size: int, scheme: Sequence[float] | None = None) -> list[float]:
    """The points of each rank at a table of ``size``: the organiser's ``scheme`` (first
    to last), else 1 for the first and 0 for the last, evenly between."""
    if scheme is not None:
        if len(scheme) < size:
            raise ValueError(f"the rank points name {len(scheme)} ranks, a table has {size}")
        return list(scheme[:size])
    return [(size - 1 - r) / (size - 1) for r in range(size)] if size > 1 else [1.0]


def table_points(result: Result, scheme: Sequence[float] | None = None) -> dict[str, float]:
    """The points each player of ``result`` gets: its rank's, shared by the players tied
    with it (the average of the ranks they cover)."""
    points = rank_points(len(result.players), scheme)
    ranks = result.ranks()
    ties: dict[int, int] = defaultdict(int)
    for r in ranks.values():
        ties[r] += 1
    return {p: sum(points[r:r + ties[r]]) / ties[r] for p, r in ranks.items()}


@dataclass
class Standing:
    """An entrant's line of the standings."""

    id: str
    points: float = 0.0
    score: int = 0
    opponents: float = 0.0
    played: int = 0
    byes: int = 0
    met: list[str] = field(default_factory=list)


def standings(seeded: Sequence[str], results: Iterable[Result],
              byes: Mapping[str, int] | None = None, bye_points: float = 0.5,
              scheme: Sequence[float] | None = None) -> list[Standing]:
    """The standings of the entrants ``seeded`` (best seed first) after ``results``; a
    bye scores ``bye_points`` (default: half of a win's)."""
    results = list(results)
    lines = {i: Standing(i) for i in seeded}
    wins: dict[tuple[str, str], int] = defaultdict(int)
    for result in results:
        got = table_points(result, scheme)
        ranks = result.ranks()
        for p, s in zip(result.players, result.scores, strict=True):
            line = lines[p]
            line.points += got[p]
            line.score += s
            line.played += 1
            line.met += [q for q in result.players if q != p]
            for q in result.players:
                if ranks[p] < ranks[q]:
                    wins[p, q] += 1
    for p, n in (byes or {}).items():
        lines[p].byes += n
        lines[p].points += n * bye_points
    for line in lines.values():
        line.opponents = sum(lines[q].points for q in line.met)
    seed = {i: n for n, i in enumerate(seeded)}

    def key(line: Standing) -> tuple[float, int, float]:
        return (-line.points, -line.score, -line.opponents)

    ordered = sorted(lines.values(), key=lambda line: (key(line), seed[line.id]))
    out: list[Standing] = []
    for _, tied in itertools.groupby(ordered, key):  # head to head among the tied
        group = list(tied)
        out += sorted(group, key=lambda a: (-sum(wins[a.id, b.id] - wins[b.id, a.id]
                                                  for b in group), seed[a.id]))
    return out
