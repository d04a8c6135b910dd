"""Seating a tournament's entrants at tables of 2 to 6 players (issue 36): the sizes of
a round's tables, a Swiss round, a round robin's schedule, a knockout's tables. Pure: the
same entrants, history and seed give the same tables.

No Python library seats multi-player tables (the Swiss and round-robin packages pair two
players), so this is ours. A Swiss round seats the entrants in standing order, then moves
players between tables while that lowers the round's cost (then again from shaken
seatings, the seed's, keeping the cheapest): at each table the spread of
its players' points, and each pair that met before, weighted above any spread (the
square of their meetings: a repeat is taken only where no seating avoids it, and then
spread over many pairs). Local search finds a good seating, not always the best one:
the property tests (tests/service/test_pairing.py) bound what it may miss. Within a
table, who moved first least often moves first (ties: the higher standing).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: The most players at a table, and the fewest (Alhambra and Granada: 2 to 6).
SIZES = range(2, 7)
#: The cost of one repeat meeting, above any spread of points at a table.
REPEAT = 10_000.0
#: How many times the local search starts again from a shaken best seating.
KICKS = 40

Pair = frozenset[str]


@dataclass(frozen=True)
class Entrant:
    """An entrant as pairing sees it: its points so far, its rating (the first round's
    seeding: openskill's ordinal), the rounds it moved first and its byes."""

    id: str
    points: float = 0.0
    rating: float = 0.0
    firsts: int = 0
    byes: int = 0


@dataclass(frozen=True)
class Round:
    """A round's tables (each in seat order: the first moves first) and its byes."""

    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...] = ()


def met(rounds: Iterable[Round]) -> Counter[Pair]:
    """How often each pair of entrants shared a table in ``rounds``."""
    out: Counter[Pair] = Counter()
    for r in rounds:
        for table in r.tables:
            out.update(frozenset(p) for p in itertools.combinations(table, 2))
    return out


def table_sizes(players: int, size: int, least: int | None = None) -> list[int]:
    """The tables of a round of ``players`` at tables of ``size``: as many as needed,
    their sizes differing by one at most, none below ``least`` (default: ``size - 1``,
    or 2); the players beyond their seats get byes. Largest first."""
    if size not in SIZES:
        raise ValueError(f"a table seats 2 to 6 players, not {size}")
    least = max(2, size - 1 if least is None else least)
    if least > size:
        raise ValueError(f"the least table ({least}) is larger than a table ({size})")
    for count in range(-(-players // size), 0, -1):
        seated = min(players, count * size)
        if seated // count >= least:
            base, extra = divmod(seated, count)
            return [base + 1] * extra + [base] * (count - extra)
    return []


def standing_order(entrants: Iterable[Entrant], seed: int) -> list[Entrant]:
    """Entrants by points, then rating; equals in an order the seed decides."""
    shuffled = sorted(entrants, key=lambda e: e.id)
    random.Random(seed).shuffle(shuffled)
    return sorted(shuffled, key=lambda e: (-e.points, -e.rating))


def swiss_round(entrants: Sequence[Entrant], size: int, meetings: Mapping[Pair, int],
                seed: int, least: int | None = None) -> Round:
    """A Swiss round: byes to the lowest standings among those with the fewest byes,
    the others at tables of players close in points who met as little as possible."""
    order = standing_order(entrants, seed)
    sizes = table_sizes(len(order), size, least)
    idle = len(order) - sum(sizes)
    byes = sorted(order, key=lambda e: (e.byes, -order.index(e)))[:idle]
    seated = [e for e in order if e not in byes]
    tables, at = [], 0
    for n in sizes:
        tables.append(seated[at:at + n])
        at += n
    tables = _improve(tables, meetings, seed)
    rank = {e.id: i for i, e in enumerate(order)}
    return Round(tuple(tuple(e.id for e in sorted(t, key=lambda e: (e.firsts, rank[e.id])))
                       for t in tables), tuple(e.id for e in byes))


def _cost(table: Sequence[Entrant], meetings: Mapping[Pair, int]) -> float:
    points = [e.points for e in table]
    repeats = sum(meetings.get(frozenset((a.id, b.id)), 0) ** 2
                  for a, b in itertools.combinations(table, 2))
    return REPEAT * repeats + (max(points) - min(points))


def _improve(tables: list[list[Entrant]], meetings: Mapping[Pair, int], seed: int
             ) -> list[list[Entrant]]:
    """Local search from the seating in standing order, then from ``KICKS`` seatings
    shaken from the best so far (a few random swaps, the seed's): the cheapest found.
    Every step is the seed's, so the result is the same every time."""
    rng = random.Random(seed)
    best = _descend([list(t) for t in tables], meetings)
    best_cost = sum(_cost(t, meetings) for t in best)
    for _ in range(KICKS if len(best) > 1 and best_cost > 0 else 0):
        shaken = [list(t) for t in best]
        for _ in range(3):
            i, j = rng.sample(range(len(shaken)), 2)
            a, b = rng.randrange(len(shaken[i])), rng.randrange(len(shaken[j]))
            shaken[i][a], shaken[j][b] = shaken[j][b], shaken[i][a]
        found = _descend(shaken, meetings)
        cost = sum(_cost(t, meetings) for t in found)
        if cost < best_cost - 1e-9:
            best, best_cost = found, cost
    return best


def _descend(tables: list[list[Entrant]], meetings: Mapping[Pair, int]
             ) -> list[list[Entrant]]:
    """Swap two players of two tables while a swap lowers the cost, the best swap first
    (ties: the first found)."""
    costs = [_cost(t, meetings) for t in tables]
    for _ in range(10_000):
        best: tuple[float, int, int, int, int] | None = None
        for i, j in itertools.combinations(range(len(tables)), 2):
            for a, b in itertools.product(range(len(tables[i])), range(len(tables[j]))):
                ti, tj = list(tables[i]), list(tables[j])
                ti[a], tj[b] = tj[b], ti[a]
                gain = costs[i] + costs[j] - _cost(ti, meetings) - _cost(tj, meetings)
                if gain > 1e-9 and (best is None or gain > best[0]):
                    best = (gain, i, j, a, b)
        if best is None:
            break
        _, i, j, a, b = best
        tables[i][a], tables[j][b] = tables[j][b], tables[i][a]
        costs[i], costs[j] = _cost(tables[i], meetings), _cost(tables[j], meetings)
    return tables


def round_robin(ids: Sequence[str], size: int, seed: int, most_rounds: int = 30
                ) -> list[Round]:
    """A schedule in which every pair of ``ids`` shares a table at least once, in few
    rounds (from the least that could do, ``ceil((n - 1) / (size - 1))``, up): each
    round seats the players who met least; whoever sat out one round sits out no other
    while anyone has not."""
    if len(ids) < 2:
        return []
    pairs = len(ids) * (len(ids) - 1) // 2
    rounds: list[Round] = []
    byes: Counter[str] = Counter()
    firsts: Counter[str] = Counter()
    while len(rounds) < most_rounds:
        seen = met(rounds)
        if len(seen) == pairs:
            return rounds
        entrants = [Entrant(i, points=-sum(1 for p in seen if i in p), firsts=firsts[i],
                            byes=byes[i]) for i in ids]
        r = swiss_round(entrants, size, {p: 1 for p in seen}, seed + len(rounds))
        byes.update(r.byes)
        firsts.update(t[0] for t in r.tables)
        rounds.append(r)
    raise ValueError(f"no round robin of {len(ids)} at tables of {size} in {most_rounds} "
                     "rounds")


def knockout_round(seeded: Sequence[str], size: int) -> Round:
    """A knockout round: the players, best seed first, at tables of ``size`` (sizes
    differing by one, none below ``size - 1``), the seeds spread snake-wise so that the
    best meet as late as possible; seats as the snake goes."""
    sizes = table_sizes(len(seeded), size)
    tables: list[list[str]] = [[] for _ in sizes]
    order = [*range(len(sizes)), *reversed(range(len(sizes)))]
    turn = 0
    for player in seeded[:sum(sizes)]:
        while len(tables[order[turn % len(order)]]) >= sizes[order[turn % len(order)]]:
            turn += 1
        tables[order[turn % len(order)]].append(player)
        turn += 1
    return Round(tuple(tuple(t) for t in tables), tuple(seeded[sum(sizes):]))


def divisions(seeded: Sequence[str], size: int) -> list[list[str]]:
    """A league's first season: the entrants, best seed first, in divisions of ``size``
    (the top one first; the last takes the rest, or joins the one above it when the rest
    would be under half a division)."""
    if size < 2:
        raise ValueError("a division holds 2 players at least")
    out = [list(seeded[i:i + size]) for i in range(0, len(seeded), size)]
    if len(out) > 1 and len(out[-1]) < (size + 1) // 2:
        rest = out.pop()
        out[-1] += rest
    return out


def next_season(finished: Sequence[Sequence[str]], moves: int,
                leaving: Iterable[str] = (), joining: Sequence[str] = ()
                ) -> list[list[str]]:
    """The divisions of the next season from each division's final standings (best
    first): the best ``moves`` of each go up a division and the last ``moves`` down (no
    more than leaves a division half of its players); those ``leaving`` are gone and
    those ``joining`` (best seed first) start in the lowest division."""
    gone = set(leaving)
    kept = [[p for p in division if p not in gone] for division in finished]
    out: list[list[str]] = [list(d) for d in kept]
    for n in range(len(kept) - 1):
        k = min(moves, len(kept[n]) // 2, len(kept[n + 1]) // 2)
        if k <= 0:
            continue
        down, up = kept[n][-k:], kept[n + 1][:k]
        out[n] = [p for p in out[n] if p not in down]
        out[n + 1] = [p for p in out[n + 1] if p not in up]
        out[n] = [*out[n], *up]  # the promoted play the top division's lower places
        out[n + 1] = [*down, *out[n + 1]]
    if out:
        out[-1] += [p for p in joining if p not in gone]
    return [d for d in out if d]
