"""Scoring (A-5): majorities with shared places, the longest outer wall (Decision A-5a)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.grid import Grid, longest_trail
from engine.majorities import shared_places
from engine.scoring import Award, awards
from engine.variants import VARIANTS

from .helpers import build, start

ALHAMBRA = VARIANTS["alhambra"]
TOWERS = ["A44", "A45", "A46", "A47", "A48", "A49", "A50", "A51", "A52", "A53", "A54"]
PAVILIONS = ["A01", "A02", "A03", "A04", "A05", "A06", "A07"]


def _city(state, seat, tiles):
    """Tiles in a row south of the start (positions do not matter for majorities)."""
    build(state, seat, {(0, i + 1): t for i, t in enumerate(tiles)})


def _majority(state, scoring, building):
    return {a.seat: a.points for a in awards(state, scoring)
            if a.kind == "majority" and a.building == building}


def test_a5_1_rulebook_tie_two_players_with_4_towers_share_13_plus_6():
    s = start(3)
    _city(s, 0, TOWERS[:4])
    _city(s, 1, TOWERS[4:8])
    _city(s, 2, TOWERS[8:9])
    assert _majority(s, 2, "tower") == {0: 9, 1: 9}  # (13 + 6) / 2; third place gets nothing


def test_a5_1_rulebook_chambers_4_points_in_the_first_scoring():
    s = start(3)
    _city(s, 1, ["A24", "A25"])
    _city(s, 2, ["A26"])
    assert _majority(s, 1, "chambers") == {1: 4}


def test_a5_1_rulebook_pavilions_16_8_1_in_the_third_scoring():
    s = start(4)
    _city(s, 0, PAVILIONS[:1])
    _city(s, 1, PAVILIONS[1:4])
    _city(s, 2, PAVILIONS[4:6])
    assert _majority(s, 3, "pavilion") == {1: 16, 2: 8, 0: 1}


def test_a5_1_tied_second_places_share_1_plus_0_rounded_down():
    s = start(3)
    _city(s, 0, PAVILIONS[:3])
    _city(s, 1, PAVILIONS[3:4])
    _city(s, 2, PAVILIONS[4:5])
    assert _majority(s, 2, "pavilion") == {0: 8}  # seats 1 and 2: (1 + 0) // 2 = 0 each


def test_a5_1_shared_places_rule_in_general():
    assert shared_places({"a": 3, "b": 3, "c": 3}, [16, 8, 1]) == {"a": 8, "b": 8, "c": 8}
    assert shared_places({"a": 2, "b": 1, "c": 1, "d": 0}, [16, 8, 1]) == {
        "a": 16, "b": 4, "c": 4}
    assert shared_places({"a": 0}, [6]) == {}


def _rulebook_wall_grid() -> Grid:
    """A wall of 8 outer sides north of the start, and a wall of 2 south of it."""
    g = ALHAMBRA.new_grid()
    row = ["A04", "A05", "A21", "A40", "A51", "A09"]  # NW, N, N, N, N, NE
    for x, tile in enumerate(row):
        g.put(tile, (x, -1))
    g.put("A13", (0, 1))  # S
    g.put("A43", (1, 1))  # S
    return g


def test_a5_2_rulebook_wall_of_8_scores_8_and_the_shorter_wall_nothing():
    g = _rulebook_wall_grid()
    assert g.violations() == []
    assert g.longest_barrier(("alhambra",)) == 8


def test_a5_2_walls_between_two_tiles_are_not_outer():
    g = ALHAMBRA.new_grid()
    g.put("A06", (1, 0))  # east wall
    g.put("A12", (2, 0))  # west wall, facing it; reached from the south
    for x, tile in enumerate(["A14", "A22", "A23"]):  # open tiles
        g.put(tile, (x, 1))
    assert g.violations() == []
    assert g.barrier_edges(("alhambra",)) == {}
    assert g.longest_barrier(("alhambra",)) == 0


def _square(x: int, y: int) -> dict:
    return {((x, y), (x + 1, y)): 1, ((x + 1, y), (x + 1, y + 1)): 1,
            ((x, y + 1), (x + 1, y + 1)): 1, ((x, y), (x, y + 1)): 1}


def test_decision_a5a_a_closed_ring_of_n_sides_scores_n():
    ring = {}
    for x in (0, 1):
        ring[((x, 0), (x + 1, 0))] = 1
        ring[((x, 2), (x + 1, 2))] = 1
    for y in (0, 1):
        ring[((0, y), (0, y + 1))] = 1
        ring[((2, y), (2, y + 1))] = 1
    assert longest_trail(ring) == 8


def test_decision_a5a_the_trail_goes_on_through_a_corner_where_four_sides_meet():
    figure_eight = {**_square(0, 0), **_square(1, 1)}  # the squares share point (1, 1)
    assert longest_trail(figure_eight) == 8
    # A branch: the trail takes the longer way, each side once.
    t = {((0, 0), (1, 0)): 1, ((1, 0), (2, 0)): 1, ((1, 0), (1, 1)): 1, ((1, 1), (1, 2)): 1}
    assert longest_trail(t) == 3


def _heaviest_trail_from_anywhere(edges: dict) -> int:
    """Decision A-5a by brute force: every trail from every point."""
    def walk(p, used):
        return max([0] + [w + walk(q, used | {e}) for e, w in edges.items() if e not in used
                          for a, q in (e, e[::-1]) if a == p])
    return max([0] + [walk(p, frozenset()) for e in edges for p in e])


_SIDES = [((x, y), (x + 1, y)) for x in range(3) for y in range(4)] + \
         [((x, y), (x, y + 1)) for x in range(4) for y in range(3)]


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(_SIDES), st.integers(1, 2), max_size=9))
def test_decision_a5a_the_longest_trail_is_the_heaviest_from_any_start(edges):
    """Only points of odd degree are tried as starts, and lines, rings and Euler pieces
    are taken whole: the same answer as every trail from every point."""
    assert longest_trail(edges) == _heaviest_trail_from_anywhere(edges)


def test_a5_3_awards_come_in_type_order_then_walls():
    s = start(3)
    g = _rulebook_wall_grid()
    s.grids[0] = g
    given = awards(s, 1)
    order = [a.building for a in given if a.kind == "majority"]
    types = list(ALHAMBRA.types)
    assert order == sorted(order, key=types.index)
    assert given[-1] == Award(seat=0, kind="wall", building=None, points=8)
