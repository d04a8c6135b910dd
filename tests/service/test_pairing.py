"""Seating a tournament's tables (service/pairing.py) and its standings
(service/standings.py), issue 36: properties over many entrant counts and table sizes
(hypothesis), and small tournaments checked by hand."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.pairing import (
    Entrant,
    Round,
    divisions,
    knockout_round,
    met,
    next_season,
    round_robin,
    swiss_round,
    table_sizes,
)
from service.standings import Result, rank_points, standings, table_points


def most_seated(players: int, size: int, least: int) -> int:
    """The most players any round can seat (tables within [least, size], sizes differing
    by one at most): by brute force."""
    best = 0
    for count in range(1, players + 1):
        for seated in range(count * least, min(players, count * size) + 1):
            base, extra = divmod(seated, count)
            if base >= least and (base + (extra > 0)) <= size:
                best = max(best, seated)
    return best


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 80), st.integers(2, 6), st.data())
def test_table_sizes_seat_as_many_as_any_round_could(players, size, data):
    least = data.draw(st.integers(2, size))
    sizes = table_sizes(players, size, least)
    assert all(least <= n <= size for n in sizes)
    assert not sizes or max(sizes) - min(sizes) <= 1
    assert sum(sizes) == most_seated(players, size, least)


def test_ten_at_tables_of_four_sit_four_three_three():
    assert table_sizes(10, 4) == [4, 3, 3]
    assert table_sizes(5, 4) == [4]  # and a bye: a table of 2 is below the least, 3
    assert table_sizes(1, 3) == [] and table_sizes(7, 6, 2) == [4, 3]


def play_swiss(ids: list[str], size: int, rounds: int, seed: int, rng: random.Random
               ) -> tuple[list[Round], list[Result]]:
    """A Swiss tournament with random game scores."""
    played: list[Round] = []
    results: list[Result] = []
    byes: dict[str, int] = dict.fromkeys(ids, 0)
    for _ in range(rounds):
        lines = {s.id: s for s in standings(ids, results, byes)}
        firsts = {i: sum(1 for r in played for t in r.tables if t[0] == i) for i in ids}
        entrants = [Entrant(i, lines[i].points, firsts=firsts[i], byes=byes[i]) for i in ids]
        r = swiss_round(entrants, size, met(played), seed)
        for i in r.byes:
            byes[i] += 1
        played.append(r)
        results += [Result(t, tuple(rng.randrange(40, 120) for _ in t)) for t in r.tables]
    return played, results


@settings(max_examples=30, deadline=None)
@given(st.integers(4, 24), st.integers(3, 5), st.integers(0, 2**16))
def test_a_swiss_seats_everyone_once_a_round_and_scores_are_conserved(n, size, seed):
    ids = [f"p{i:02d}" for i in range(n)]
    played, results = play_swiss(ids, size, 3, seed, random.Random(seed))
    for r in played:
        seats = [p for t in r.tables for p in t] + list(r.byes)
        assert sorted(seats) == ids  # each at one table, or a bye
        assert sorted(map(len, r.tables), reverse=True) == table_sizes(n, size)
    byes = [p for r in played for p in r.byes]
    assert max(byes.count(p) for p in ids) - min(byes.count(p) for p in ids) <= 1
    for result in results:  # points conserved however the table ends
        assert sum(table_points(result).values()) == pytest.approx(
            sum(rank_points(len(result.players))))
    assert played == play_swiss(ids, size, 3, seed, random.Random(seed))[0]  # determinism


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.integers(2, 4), st.integers(0, 2**16))
def test_the_second_round_repeats_no_meeting_when_one_from_each_table_can_sit(size, extra,
                                                                            seed):
    """With at least as many tables as seats at one, round 2 can seat one player of each
    round-1 table at each table: no pair meets twice (BGA's tables repeat here)."""
    tables = size + extra
    ids = [f"p{i:02d}" for i in range(tables * size)]
    played, _ = play_swiss(ids, size, 2, seed, random.Random(seed))
    again = met(played)
    assert all(n == 1 for n in again.values()), [p for p, n in again.items() if n > 1]


def test_who_moves_first_rotates():
    """At each table the player who moved first least often so far moves first."""
    ids = [f"p{i}" for i in range(8)]
    played, _ = play_swiss(ids, 4, 4, 7, random.Random(7))
    firsts = dict.fromkeys(ids, 0)
    for r in played:
        for t in r.tables:
            assert firsts[t[0]] == min(firsts[p] for p in t)
        for t in r.tables:
            firsts[t[0]] += 1
    assert max(firsts.values()) <= 2


@pytest.mark.parametrize(("n", "size", "rounds"), [(6, 3, 4), (9, 3, 4), (7, 4, 4),
                                                   (5, 2, 5), (12, 4, 6)])
def test_a_round_robin_has_every_pair_meet(n, size, rounds):
    ids = [f"p{i}" for i in range(n)]
    schedule = round_robin(ids, size, seed=1)
    pairs = met(schedule)
    assert len(pairs) == n * (n - 1) // 2  # everyone met everyone
    assert len(schedule) <= rounds
    byes = [p for r in schedule for p in r.byes]
    assert max(byes.count(p) for p in ids) - min(byes.count(p) for p in ids) <= 1


def test_a_knockout_of_nine_at_three_spreads_the_seeds():
    seeded = [f"s{i}" for i in range(1, 10)]
    first = knockout_round(seeded, 3)
    assert first == Round((("s1", "s6", "s7"), ("s2", "s5", "s8"), ("s3", "s4", "s9")))
    assert knockout_round(["s1", "s2", "s3"], 3) == Round((("s1", "s2", "s3"),))


def test_ties_share_their_ranks_points_and_leavers_rank_last():
    result = Result(("a", "b", "c", "d"), (50, 70, 70, 90), left=frozenset({"d"}))
    assert result.ranks() == {"b": 0, "c": 0, "a": 2, "d": 3}
    assert table_points(result) == pytest.approx({"b": 5 / 6, "c": 5 / 6, "a": 1 / 3,
                                                  "d": 0.0})
    assert table_points(Result(("a", "b", "c"), (1, 2, 3)), [5, 2, 0]) == \
        {"c": 5, "b": 2, "a": 0}


def test_standings_by_hand():
    """Two rounds of six at tables of three, computed by hand:
    round 1: (a 90, b 60, c 30) (d 80, e 80, f 10); round 2: (a 50, d 70, f 20)
    (b 40, c 60, e 60). Rank points 1, 0.5, 0; tied players share.
    a: 1 + 0.5 = 1.5, score 140; d: 0.75 + 1 = 1.75, 150; e: 0.75 + 0.75 = 1.5, 140;
    b: 0.5 + 0 = 0.5, 100; c: 0 + 0.75 = 0.75, 90; f: 0 + 0 = 0, 30.
    a and e tie on points and score: opponents a met b, c, d, f = 0.5 + 0.75 + 1.75 + 0
    = 3.0; e met d, f, b, c = 1.75 + 0 + 0.5 + 0.75 = 3.0: still tied, never met: seed
    order (a before e)."""
    results = [Result(("a", "b", "c"), (90, 60, 30)), Result(("d", "e", "f"), (80, 80, 10)),
               Result(("a", "d", "f"), (50, 70, 20)), Result(("b", "c", "e"), (40, 60, 60))]
    table = standings(list("abcdef"), results)
    assert [(s.id, s.points, s.score) for s in table] == [
        ("d", 1.75, 150), ("a", 1.5, 140), ("e", 1.5, 140), ("c", 0.75, 90),
        ("b", 0.5, 100), ("f", 0.0, 30)]
    assert table[1].opponents == table[2].opponents == 3.0


def test_head_to_head_decides_between_players_tied_on_the_rest():
    """x and y: 1 point, 30 in scores and 2 in opponents' points each; x beat y at their
    table, so x ranks above y although y is the better seed."""
    results = [Result(("x", "y"), (20, 10)), Result(("y", "a"), (20, 10)),
               Result(("x", "b"), (10, 20)), Result(("a", "c"), (20, 10))]
    table = {s.id: s for s in standings(["y", "x", "a", "b", "c"], results)}
    assert (table["x"].points, table["x"].score, table["x"].opponents) == \
        (table["y"].points, table["y"].score, table["y"].opponents) == (1.0, 30, 2.0)
    order = [s.id for s in standings(["y", "x", "a", "b", "c"], results)]
    assert order.index("x") < order.index("y")


def fewest_repeats(players: list[str], sizes: list[int], before: list[Round]) -> int:
    """The fewest repeat meetings any seating of ``players`` at tables of ``sizes`` has
    after ``before`` (by brute force: small tournaments only)."""
    seen = met(before)

    def seatings(rest: list[str], sizes: list[int]):
        if not sizes:
            yield []
            return
        for table in itertools.combinations(rest, sizes[0]):
            if len(sizes) > 1 and sizes[0] == sizes[1] and rest[0] not in table:
                continue  # equal tables: each partition once
            left = [p for p in rest if p not in table]
            for more in seatings(left, sizes[1:]):
                yield [table, *more]
    return min(sum(seen[frozenset(p)] for t in seating for p in itertools.combinations(t, 2))
               for seating in seatings(players, sizes))


def test_ten_entrants_three_swiss_rounds_at_four():
    """The issue's Swiss: 10 entrants, 3 rounds at tables of 4 (sizes 4/3/3); each round
    repeats no more meetings than the fewest any seating could (checked by brute force;
    a table of 4 from three tables of the round before holds one repeat at least)."""
    ids = [f"p{i}" for i in range(10)]
    for seed in range(3):
        played, results = play_swiss(ids, 4, 3, seed, random.Random(seed))
        assert all(sorted(map(len, r.tables)) == [3, 3, 4] and not r.byes for r in played)
        for n in (1, 2):
            seen = met(played[:n])
            got = sum(seen[frozenset(p)] for t in played[n].tables
                      for p in itertools.combinations(t, 2))
            assert got == fewest_repeats(ids, [4, 3, 3], played[:n])
        assert len(standings(ids, results)) == 10


def test_a_league_promotes_and_relegates_across_two_seasons():
    """Two divisions of 4, one player up and one down each season: by hand."""
    first = divisions([f"s{i}" for i in range(1, 9)], 4)
    assert first == [["s1", "s2", "s3", "s4"], ["s5", "s6", "s7", "s8"]]
    # season 1's final standings in each division (best first)
    season1 = [["s2", "s1", "s4", "s3"], ["s7", "s5", "s8", "s6"]]
    second = next_season(season1, 1)
    assert second == [["s2", "s1", "s4", "s7"], ["s3", "s5", "s8", "s6"]]
    season2 = [["s7", "s2", "s1", "s4"], ["s6", "s3", "s5", "s8"]]
    third = next_season(season2, 1, leaving=["s8"], joining=["n1"])
    assert third == [["s7", "s2", "s1", "s6"], ["s4", "s3", "s5", "n1"]]
    assert sorted(p for d in third for p in d) == sorted(
        [f"s{i}" for i in range(1, 8)] + ["n1"])


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 40), st.integers(2, 8), st.integers(0, 3))
def test_a_league_season_keeps_everyone_once(players, size, moves):
    ids = [f"p{i}" for i in range(players)]
    first = divisions(ids, size)
    assert [p for d in first for p in d] == ids
    assert all(len(d) >= min(players, (size + 1) // 2) for d in first)
    standings_ = [list(reversed(d)) for d in first]  # the seeds finished upside down
    second = next_season(standings_, moves)
    assert sorted(p for d in second for p in d) == sorted(ids)
    assert [len(d) for d in second] == [len(d) for d in first]
