"""What a tournament does next, and its standings, from its entrants, the rounds played
and its seed (issue 36). Pure: service/tournaments.py keeps the records and makes the
games; this says which tables the next round has, or that the tournament is over.

Entrants are named by their entry numbers (as text); ``seeded`` lists them best seed
first (the first round's ratings, then later entries in the order they came); ``active``
are those who may be seated (not withdrawn, not inactive). The formats:

- ``swiss``: ``rounds`` rounds of ``pairing.swiss_round`` (the first one, all at 0
  points, in seed order); a bye scores ``bye_points``, an inactive entrant left out
  ``skip_points``.
- ``round_robin``: the seeded entrants dealt snake-wise into groups of ``group_size``
  at most (default: one group), each group's schedule ``pairing.round_robin``; the
  tournament's rounds are the groups' rounds side by side.
- ``knockout``: ``pairing.knockout_round`` of the seeded entrants, then of the best
  ``advance`` of each table and the byes, until one table has played with no more than
  ``table_size`` left at it; the standings: who went further first, then the rank at
  the last table played.
- ``league``: ``rounds`` seasons; the first season's divisions are
  ``pairing.divisions`` of ``division_size``; each division plays a round robin; a
  finished season's standings make the next one's divisions (``pairing.next_season``:
  ``moves`` up and down, the inactive and withdrawn leave, new entrants join the last).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import pairing
from .standings import Result, Standing, standings

FORMATS = ("swiss", "round_robin", "knockout", "league")


@dataclass(frozen=True)
class Spec:
    """A tournament's format and points rules."""

    format: str
    table_size: int
    least_size: int
    rounds: int
    seed: int
    rank_points: tuple[float, ...] | None = None
    bye_points: float = 0.5
    skip_points: float = 0.0
    group_size: int | None = None
    division_size: int | None = None
    moves: int = 1
    advance: int = 1


@dataclass(frozen=True)
class Table:
    """A table as planned or played: its division (group), seats, result once over."""

    division: int
    players: tuple[str, ...]
    result: Result | None = None


@dataclass(frozen=True)
class Played:
    """A round: its season (a league's; else 1), its ``seating`` (``seeded``, ``byes``,
    ``skipped``, a league's ``divisions``), its tables."""

    season: int
    seating: dict[str, Any]
    tables: tuple[Table, ...]


@dataclass(frozen=True)
class Next:
    """The next round to open."""

    season: int
    seating: dict[str, Any]
    tables: tuple[Table, ...]


def results(played: Sequence[Played]) -> list[Result]:
    return [t.result for r in played for t in r.tables if t.result is not None]


def counts(played: Sequence[Played], key: str) -> Counter[str]:
    """How often each entrant was in the rounds' ``seating[key]`` (byes, skipped)."""
    return Counter(p for r in played for p in r.seating.get(key, ()))


def table_of(spec: Spec, seeded: Sequence[str], played: Sequence[Played]
             ) -> list[Standing]:
    """The standings over ``played`` (points, game score, opponents, head to head)."""
    extra = counts(played, "skipped")
    byes = counts(played, "byes")
    lines = standings(seeded, results(played), byes, spec.bye_points,
                      list(spec.rank_points) if spec.rank_points else None)
    for line in lines:  # the skipped entrants' points, then ordered again
        line.points += extra[line.id] * spec.skip_points
    if spec.skip_points and extra:
        order = {line.id: n for n, line in enumerate(lines)}
        lines.sort(key=lambda s: (-s.points, order[s.id]))
    return lines


def next_round(spec: Spec, seeded: Sequence[str], active: set[str],
               played: Sequence[Played]) -> Next | None:
    """The next round, or None: the tournament is over."""
    plan = {"swiss": _swiss, "round_robin": _round_robin, "knockout": _knockout,
            "league": _league}[spec.format]
    return plan(spec, list(seeded), active, list(played))


def final(spec: Spec, seeded: Sequence[str], played: Sequence[Played]
          ) -> list[tuple[Standing, int]]:
    """The standings as shown: each line with its division (group; 0 for one)."""
    if spec.format == "league":
        return _league_standings(spec, seeded, played)
    lines = table_of(spec, seeded, played)
    if spec.format == "knockout":
        lines = _knockout_order(seeded, played, lines)
    group = {p: t.division for r in played[:1] for t in r.tables for p in t.players}
    return [(line, group.get(line.id, 0)) for line in lines]


# -- Swiss -------------------------------------------------------------------------------

def _swiss(spec: Spec, seeded: list[str], active: set[str], played: list[Played]
           ) -> Next | None:
    if len(played) >= spec.rounds:
        return None
    lines = {s.id: s for s in table_of(spec, seeded, played)}
    firsts = Counter(t.players[0] for r in played for t in r.tables)
    byes = counts(played, "byes")
    rank = {p: n for n, p in enumerate(seeded)}
    entrants = [pairing.Entrant(p, lines[p].points, -rank[p], firsts[p], byes[p])
                for p in seeded if p in active]
    if len(entrants) < 2:
        return None
    meetings = pairing.met(pairing.Round(tuple(t.players for t in r.tables))
                           for r in played)
    r = pairing.swiss_round(entrants, spec.table_size, meetings, spec.seed + len(played),
                            spec.least_size)
    return Next(1, {"seeded": seeded, "byes": list(r.byes),
                    "skipped": [p for p in seeded if p not in active]},
                tuple(Table(0, t) for t in r.tables))


# -- round robin in groups ---------------------------------------------------------------

def groups(seeded: Sequence[str], size: int | None) -> list[list[str]]:
    """The seeded entrants dealt snake-wise into as few groups of ``size`` at most."""
    if not size or size >= len(seeded):
        return [list(seeded)]
    count = -(-len(seeded) // size)
    out: list[list[str]] = [[] for _ in range(count)]
    order = [*range(count), *reversed(range(count))]
    for n, p in enumerate(seeded):
        out[order[n % len(order)]].append(p)
    return out


def _schedules(spec: Spec, seeded: Sequence[str], size: int | None, salt: int = 0
               ) -> list[list[pairing.Round]]:
    return [pairing.round_robin(g, spec.table_size, spec.seed + salt + n)
            for n, g in enumerate(groups(seeded, size))]


def _scheduled(spec: Spec, schedules: list[list[pairing.Round]], number: int,
               active: set[str]) -> tuple[list[Table], list[str]]:
    """Round ``number`` (0-based) of each schedule, without the inactive: a table left
    with one player is none (that player: a bye)."""
    tables, byes = [], []
    for group, schedule in enumerate(schedules):
        if number >= len(schedule):
            continue
        byes += [p for p in schedule[number].byes if p in active]
        for t in schedule[number].tables:
            seated = tuple(p for p in t if p in active)
            if len(seated) >= 2:
                tables.append(Table(group, seated))
            else:
                byes += seated
    return tables, byes


def _round_robin(spec: Spec, seeded: list[str], active: set[str], played: list[Played]
                 ) -> Next | None:
    first = played[0].seating["seeded"] if played else [p for p in seeded if p in active]
    schedules = _schedules(spec, first, spec.group_size)
    if len(played) >= max((len(s) for s in schedules), default=0):
        return None
    tables, byes = _scheduled(spec, schedules, len(played), active)
    return Next(1, {"seeded": first, "byes": byes,
                    "skipped": [p for p in first if p not in active]}, tuple(tables))


# -- knockout ----------------------------------------------------------------------------

def _best(table: Table, count: int, rank: dict[str, int]) -> list[str]:
    assert table.result is not None
    ranks = table.result.ranks()
    score = dict(zip(table.result.players, table.result.scores, strict=True))
    return sorted(table.players, key=lambda p: (ranks[p], -score[p], rank[p]))[:count]


def _knockout(spec: Spec, seeded: list[str], active: set[str], played: list[Played]
              ) -> Next | None:
    rank = {p: n for n, p in enumerate(seeded)}
    if not played:
        left = [p for p in seeded if p in active]
    else:
        last = played[-1]
        if len(last.tables) == 1 and not last.seating.get("byes"):
            return None  # the final table has played
        left = sorted({*(q for t in last.tables for q in _best(t, spec.advance, rank)),
                       *last.seating.get("byes", ())}, key=rank.__getitem__)
        left = [p for p in left if p in active]
    if len(left) < 2:
        return None
    r = pairing.knockout_round(left, spec.table_size)
    return Next(1, {"seeded": seeded, "byes": list(r.byes)},
                tuple(Table(0, t) for t in r.tables))


def _knockout_order(seeded: Sequence[str], played: Sequence[Played],
                    lines: list[Standing]) -> list[Standing]:
    """Who went further first; then by rank at the last table played; then points."""
    reached: dict[str, tuple[int, int]] = {}
    for n, r in enumerate(played):
        for t in r.tables:
            ranks = t.result.ranks() if t.result else {}
            for p in t.players:
                reached[p] = (n, ranks.get(p, 0))
        for p in r.seating.get("byes", ()):
            reached[p] = (n, 0)
    order = {line.id: i for i, line in enumerate(lines)}
    return sorted(lines, key=lambda s: (-reached.get(s.id, (-1, 0))[0],
                                        reached.get(s.id, (-1, 0))[1], order[s.id]))


# -- league ------------------------------------------------------------------------------

def _season(played: Sequence[Played], season: int) -> list[Played]:
    return [r for r in played if r.season == season]


def _league(spec: Spec, seeded: list[str], active: set[str], played: list[Played]
            ) -> Next | None:
    size = spec.division_size or spec.table_size
    season = played[-1].season if played else 1
    if played:
        divs = played[-1].seating["divisions"]
    else:
        divs = pairing.divisions([p for p in seeded if p in active], size)
    done = _season(played, season)
    schedules = [pairing.round_robin(d, spec.table_size, spec.seed + 1000 * season + n)
                 for n, d in enumerate(divs)]
    if played and len(done) >= max((len(s) for s in schedules), default=0):
        if season >= spec.rounds:
            return None
        finished = [[s.id for s in _division(spec, seeded, done, n, d)]
                    for n, d in enumerate(divs)]
        placed = {p for d in divs for p in d}
        leaving = [p for p in placed if p not in active]
        joining = [p for p in seeded if p in active and p not in placed]
        divs = pairing.next_season(finished, spec.moves, leaving, joining)
        season += 1
        done = []
        schedules = [pairing.round_robin(d, spec.table_size, spec.seed + 1000 * season + n)
                     for n, d in enumerate(divs)]
    tables, byes = _scheduled(spec, schedules, len(done), active)
    if not tables:
        return None
    return Next(season, {"seeded": seeded, "divisions": divs, "byes": byes}, tuple(tables))


def _league_standings(spec: Spec, seeded: Sequence[str], played: Sequence[Played]
                      ) -> list[tuple[Standing, int]]:
    """The latest season's standings, division by division (the top one first)."""
    if not played:
        return [(Standing(p), 0) for p in seeded]
    done = _season(played, played[-1].season)
    return [(s, n) for n, d in enumerate(played[-1].seating["divisions"])
            for s in _division(spec, seeded, done, n, d)]


def _division(spec: Spec, seeded: Sequence[str], rounds: Sequence[Played], n: int,
              division: Sequence[str]) -> list[Standing]:
    """Division ``n``'s standings over a season's ``rounds``."""
    mine = [Played(r.season, {**r.seating, "byes": [p for p in r.seating.get("byes", ())
                                                    if p in division]},
                   tuple(t for t in r.tables if t.division == n)) for r in rounds]
    return table_of(spec, [p for p in seeded if p in division], mine)


def pairs_met(played: Sequence[Played]) -> Counter[frozenset[str]]:
    """How often each pair of entrants shared a table."""
    out: Counter[frozenset[str]] = Counter()
    for r in played:
        for t in r.tables:
            out.update(frozenset(p) for p in itertools.combinations(t.players, 2))
    return out
