"""A player's grid (Alhambra or city): placement, redesign checks and the longest barrier.

The building rules (A-4, G-4, C-3) are checked here for the whole grid. Each tile has a
kind (``alhambra``/``granada``); its barriers are walls or moats. Two touching sides match
when, for tiles of one kind, both or neither carry a barrier, and, for tiles of different
kinds, both do (a wall against a moat, C-3). One walks between two tiles of the same kind
through sides with no barrier; every tile must be reachable from its kind's root (the start
tile, or in the combined game the first Granada tile). No empty cell may be cut off from
the outside (Decision A-4a).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import NamedTuple

from .components import SIDES, TILES, E, N, S, W
from .terms import SIDES as SIDE_WORDS
from .words import Msg, msg

Pos = tuple[int, int]
Point = tuple[int, int]  # a grid point: (x, y) is the north-west corner of cell (x, y)
Links = dict[Point, dict[Point, int]]  # barrier sides: point -> point beyond -> weight
LineKinds = tuple[tuple[str, ...], ...]  # the kinds of tile of each of some lines

RULES_ALHAMBRA = {"empty": "A-4.1", "adjacent": "A-4.2", "match": "A-4.3", "reach": "A-4.4",
                  "hole": "A-4.5", "split": "A-4.2"}


# The 8 cells around a cell, clockwise from north: even indices are the side neighbours.
_RING = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))
# For each pattern of those 8 cells (True: empty), whether the empty side cells among them
# form more than one run around the ring (a tile in the middle might then close a hole).
_PINCHED = {ring: sum(1 for i in range(0, 8, 2)
                      if ring[i] and not (ring[i - 1] and ring[i - 2])) > 1
            for ring in itertools.product((False, True), repeat=8)}
# Each side with its neighbour's offset and the grid-point edge along it (from the cell's
# north-west corner: x0, y0, x1, y1).
_SIDE_EDGES = tuple((side, dx, dy, edge) for (side, dx, dy, _), edge in zip(
    SIDES, ((0, 0, 1, 0), (1, 0, 1, 1), (0, 1, 1, 1), (0, 0, 0, 1)), strict=True))
# The same with the opposite side, which the neighbour shows along that edge.
_SIDE_PAIRS = tuple((side, dx, dy, opp, edge)
                    for (side, dx, dy, edge), (_, _, _, opp) in zip(_SIDE_EDGES, SIDES,
                                                                   strict=True))
MASK = {t.id: t.mask for t in TILES.values()}
KIND: dict[str | None, str] = {t.id: t.kind for t in TILES.values()}
# For the lines: by tile kinds, each tile's barrier sides if it is of those kinds (None: no
# tile); and each tile's kind, "" for no tile.
_BARRIERS: dict[tuple[str, ...], dict[str | None, int]] = {}
_KIND_OR_NONE: dict[str | None, str] = {**KIND, None: ""}
_NONE: dict[Point, int] = {}  # no sides at a point (never changed)


def fmt_pos(pos: Pos) -> str:
    return f"{pos[0]},{pos[1]}"


class Grid:
    """The tiles of one player's grid by position, with the roots walks start from.

    The empty cells along the grid (the frontier) are found when first asked for, then
    kept up to date as tiles come and go (a replay or a copy pays nothing until it asks).
    What does not depend on the tile being placed (where a tile of a kind could be walked
    to without closing a hole, which tiles may leave) is computed once per grid and kind,
    and dropped when the grid changes. The longest line of some kinds of tile is kept
    piece by piece (``_Lines``); when a tile of those kinds comes or goes, only the sides
    of its cell are weighed again and the pieces at the ends of those that changed walked
    again, when next asked for. The lines a swap would leave (a bot weighs them) are kept
    until the grid changes.
    """

    __slots__ = ("cells", "where", "roots", "rules", "_frontier", "_slots", "_removable",
                 "_lines", "_trials")

    def __init__(self, start: str, rules: dict[str, str]) -> None:
        self.cells: dict[Pos, str] = {(0, 0): start}
        self.where: dict[str, Pos] = {start: (0, 0)}
        self.roots: dict[str, str] = {KIND[start]: start}
        self.rules = rules
        self._frontier: dict[Pos, tuple[int, int, tuple[str, ...]]] | None = None
        self._slots: dict[str, list[tuple[Pos, int, int]]] = {}
        self._removable: set[str] | None = None
        self._lines: dict[tuple[str, ...], _Lines] = {}  # longest_barrier by kinds
        self._trials: dict[tuple[str, str, LineKinds], tuple[int, ...]] = {}  # swap_lines

    def copy(self) -> Grid:
        new = Grid.__new__(Grid)
        new.cells = dict(self.cells)
        new.where = dict(self.where)
        new.roots = dict(self.roots)
        new.rules = self.rules
        new._frontier = None  # found again if asked: most copies are looked at, not played
        new._slots = self._slots
        new._removable = self._removable
        new._lines = self._lines
        new._trials = self._trials
        return new

    def swap_lines(self, out: str, new: str, lines: LineKinds) -> tuple[int, ...]:
        """``longest_barrier`` of each of ``lines`` (kinds of tile) with reserve tile ``new``
        in the place of ``out`` (a swap, A-3.3 c, unchecked), as a bot weighs it: the grid's
        lines updated at that one cell. Kept until the grid changes."""
        key = (out, new, lines)
        got = self._trials.get(key)
        if got is None:
            pos = self.where[out]
            cells = {**self.cells, pos: new}
            kinds_in = (KIND[out], KIND[new])
            same = kinds_in[0] == kinds_in[1] and MASK[out] == MASK[new]  # the same sides
            got = self._trials[key] = tuple(
                self.longest_barrier(kinds)
                if same or (kinds_in[0] not in kinds and kinds_in[1] not in kinds) else
                _updated(self._line(kinds), cells, kinds, (pos,)).best
                for kinds in lines)
        return got

    # -- mutation (only through evolve) ------------------------------------------------
    def put(self, tile: str, pos: Pos) -> None:
        kind = KIND[tile]
        self.cells[pos] = tile
        self.where[tile] = pos
        self.roots.setdefault(kind, tile)
        self._changed(pos, kind)

    def take(self, tile: str) -> Pos:
        pos = self.where.pop(tile)
        del self.cells[pos]
        self._changed(pos, KIND[tile])
        return pos

    def _changed(self, pos: Pos, kind: str) -> None:
        """Bring the frontier (if found already) up to date around ``pos``, whose tile (of
        ``kind``) came or went, drop the cached checks and mark ``pos`` changed in the
        lines of ``kind``."""
        frontier = self._frontier
        if frontier is not None:
            x, y = pos
            for cell in (pos, *((x + dx, y + dy) for _, dx, dy, _ in SIDES)):
                entry = self._frontier_entry(cell)
                if entry is None:
                    frontier.pop(cell, None)
                else:
                    frontier[cell] = entry
        self._slots, self._removable, self._trials = {}, None, {}
        self._lines = {kinds: lines if kind not in kinds else
                       _Lines(lines.links, lines.pieces, lines.changed | {pos}, lines.best)
                       for kinds, lines in self._lines.items()} if self._lines else {}

    def frontier(self) -> dict[Pos, tuple[int, int, tuple[str, ...]]]:
        """Each empty cell sharing a side with a tile: (its sides facing a tile, of those
        the ones facing a barrier, the kinds of the tiles facing it with an open side)."""
        if self._frontier is None:
            cells = self.cells
            around = {(x + dx, y + dy) for x, y in cells for _, dx, dy, _ in SIDES}
            around.difference_update(cells)  # each empty cell left touches a tile
            self._frontier = {pos: self._neighbours(pos) for pos in around}
        return self._frontier

    def _frontier_entry(self, pos: Pos) -> tuple[int, int, tuple[str, ...]] | None:
        """The frontier entry of ``pos``; None if it holds a tile or touches none."""
        if pos in self.cells:
            return None
        entry = self._neighbours(pos)
        return entry if entry[0] else None

    def _neighbours(self, pos: Pos) -> tuple[int, int, tuple[str, ...]]:
        """What the tiles beside ``pos`` ask of a tile there: (its sides facing a tile, of
        those the ones facing a barrier, the kinds of the tiles facing it with an open
        side, which need an open side of their kind)."""
        cells = self.cells
        x, y = pos
        constrained = required = 0
        open_by: tuple[str, ...] = ()
        for side, dx, dy, opp in SIDES:
            other = cells.get((x + dx, y + dy))
            if other is None:
                continue
            constrained |= side
            if MASK[other] & opp:
                required |= side
            else:
                kind = KIND[other]
                if kind not in open_by:
                    open_by += (kind,)
        return constrained, required, open_by

    # -- queries -------------------------------------------------------------------------
    def tiles(self) -> Iterable[str]:
        return self.cells.values()

    def constraint(self, pos: Pos, kind: str) -> tuple[int, int, int] | None:
        """(constrained sides, sides that must carry a barrier, sides one could walk
        through) for a tile of ``kind`` at ``pos``; None if no tile of that kind fits."""
        cells = self.cells
        x, y = pos
        constrained = required = links = 0
        for side, dx, dy, opp in SIDES:
            other = cells.get((x + dx, y + dy))
            if other is None:
                continue
            constrained |= side
            barrier = MASK[other] & opp
            if KIND[other] == kind:
                if barrier:
                    required |= side
                else:
                    links |= side
            elif barrier:
                required |= side
            else:
                return None
        return constrained, required, links

    def _side_error(self, tile: str, pos: Pos) -> Msg:
        """Why ``tile`` at ``pos`` does not match its neighbours (A-4.3); called only when
        it does not."""
        x, y = pos
        for side, dx, dy, opp in SIDES:
            other = self.cells.get((x + dx, y + dy))
            if other is not None:
                why = _pair_error(tile, pos, side, other, opp)
                if why:
                    return why
        return msg("the sides of {tile} at {cell} do not match its neighbours", tile=tile,
                   cell=fmt_pos(pos))

    def _closes_hole(self, pos: Pos) -> bool:
        """True if a tile at empty ``pos`` would cut an empty cell off the outside (A-4a)."""
        cells = self.cells
        x, y = pos
        # Every empty cell reaches the outside now. If the empty cells among the 8 around
        # pos that touch it form one run around that ring, they stay joined without pos,
        # and one of them led pos outside, so all still reach it.
        if not _PINCHED[tuple([(x + dx, y + dy) not in cells for dx, dy in _RING])]:
            return False
        xs = [p[0] for p in cells] + [x]
        ys = [p[1] for p in cells] + [y]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        safe: set[Pos] = set()
        for _, dx, dy, _ in SIDES:
            start = (x + dx, y + dy)
            if start in cells or start in safe:
                continue
            seen = {start, pos}
            stack = [start]
            escaped = False
            while stack:
                cx, cy = stack.pop()
                if cx <= x0 or cx >= x1 or cy <= y0 or cy >= y1:
                    escaped = True
                    break
                for _, ddx, ddy, _ in SIDES:
                    p = (cx + ddx, cy + ddy)
                    if p not in cells and p not in seen:
                        seen.add(p)
                        stack.append(p)
            if not escaped:
                return True
            safe |= seen
        return False

    def slots(self, kind: str) -> list[tuple[Pos, int, int]]:
        """(cell, constrained, required) for every cell where some tile of ``kind`` could
        be built: adjacent, walkable to, closing no hole. A tile fits where
        ``mask & constrained == required``."""
        cached = self._slots.get(kind)
        if cached is None:
            # An open side needs an open side of the same kind beyond it (a wall or moat
            # only meets a barrier), and one of them to walk in by once the kind has a root.
            rooted = kind in self.roots
            cached = sorted((pos, c, r) for pos, (c, r, open_by) in self.frontier().items()
                            if (open_by == (kind,) if open_by else not rooted)
                            and not self._closes_hole(pos))
            self._slots[kind] = cached
        return cached

    def legal_positions(self, tile: str) -> list[Pos]:
        """Every cell where ``tile`` may be built now, sorted."""
        mask = MASK[tile]
        return [pos for pos, c, r in self.slots(KIND[tile]) if mask & c == r]

    def placement_error(self, tile: str, pos: Pos) -> tuple[str, Msg] | None:
        """(rule, reason) if ``tile`` may not be built at ``pos`` now, else None."""
        rules, cells = self.rules, self.cells
        if pos in cells:
            return rules["empty"], msg("cell {cell} already holds {tile}", cell=fmt_pos(pos),
                                       tile=cells[pos])
        kind = KIND[tile]
        c = self.constraint(pos, kind)
        if c is not None and not c[0]:
            return rules["adjacent"], msg("{tile} at {cell} would share no full side with a "
                                          "tile (a corner is not enough)", tile=tile,
                                          cell=fmt_pos(pos))
        if c is None or MASK[tile] & c[0] != c[1]:
            return rules["match"], self._side_error(tile, pos)
        if kind in self.roots and not c[2]:
            return rules["reach"], (msg(
                "{tile} at {cell} could not be reached on foot from the start: each side it "
                "shares with a tile of its kind is closed by a wall", tile=tile,
                cell=fmt_pos(pos)) if kind == "alhambra" else msg(
                "{tile} at {cell} could not be reached on foot from the start: each side it "
                "shares with a tile of its kind is closed by a moat", tile=tile,
                cell=fmt_pos(pos)))
        if self._closes_hole(pos):
            return rules["hole"], msg("{tile} at {cell} would close off an empty space "
                                      "inside the grid (a hole)", tile=tile,
                                      cell=fmt_pos(pos))
        return None

    def _links(self, pos: Pos) -> list[Pos]:
        """Cells one can walk to from the tile at ``pos`` (same kind, open sides)."""
        cells = self.cells
        tile = cells[pos]
        mask, kind = MASK[tile], KIND[tile]
        x, y = pos
        return [(x + dx, y + dy) for side, dx, dy, _ in SIDES
                if not mask & side and KIND.get(cells.get((x + dx, y + dy))) == kind]

    def _removals(self) -> tuple[set[str], set[str], set[str]]:
        """(tiles with an empty cell beside them, tiles whose removal would cut others off
        their root, tiles whose removal would split the grid in pieces, Decision C-3a), for
        a grid built by the rules.

        Since every empty cell reaches the outside, a freed cell is open to the outside
        (leaves no hole) iff an empty cell touches it. The cutting tiles are the
        articulation points of the walks. Without a tile that is none, each kind's tiles
        still hang together by their walks, so the grid stays in one piece iff tiles of the
        two kinds still touch: the splitting tiles are those in every contact between the
        kinds."""
        cells = self.cells
        edge: set[str] = set()
        walks: dict[Pos, list[Pos]] = {}
        contacts: set[str] | None = None  # the tiles common to every contact so far
        for (x, y), tile in cells.items():
            mask, kind = MASK[tile], KIND[tile]
            walk = walks[(x, y)] = []
            for side, dx, dy, _ in SIDES:
                pos = (x + dx, y + dy)
                other = cells.get(pos)
                if other is None:
                    edge.add(tile)
                elif KIND[other] == kind:
                    if not mask & side:
                        walk.append(pos)
                elif contacts is None:
                    contacts = {tile, other}
                elif contacts:  # once empty, it stays so
                    contacts &= {tile, other}
        cut = _cut_points(walks, [self.where[r] for r in self.roots.values()])
        return edge, {cells[p] for p in cut}, contacts or set()

    def removable(self) -> set[str]:
        """Tiles that may be moved to the reserve now (A-3.3 b)."""
        if self._removable is None:
            edge, cut, split = self._removals()
            self._removable = edge - cut - split - set(self.roots.values())
        return self._removable

    def removal_error(self, tile: str) -> tuple[str, Msg] | None:
        """(rule, reason) if ``tile`` may not be taken out of the grid, else None."""
        if tile not in self.where:
            return "A-3.3", msg("{tile} is not in your grid", tile=tile)
        if tile in self.roots.values():
            return "A-3.3", msg("{tile} is a start tile and can never be removed", tile=tile)
        if tile in self.removable():
            return None
        pos = self.where[tile]
        _, cut, split = self._removals()
        if tile in cut:
            return self.rules["reach"], msg("without {tile} at {cell}, other tiles could no "
                                            "longer be reached on foot from the start",
                                            tile=tile, cell=fmt_pos(pos))
        if tile in split:  # Decision C-3a
            return self.rules["split"], msg("without {tile} at {cell}, the grid would fall "
                                            "apart in pieces", tile=tile, cell=fmt_pos(pos))
        return self.rules["hole"], msg("taking {tile} away would leave a hole at {cell}",
                                       tile=tile, cell=fmt_pos(pos))

    def _reachable_all(self, cells: dict[Pos, str]) -> bool:
        """True if every tile of ``cells`` can be walked to from its kind's root."""
        trial = Grid.__new__(Grid)
        trial.cells = cells
        trial.where = {t: p for p, t in cells.items()}
        trial.roots = {k: r for k, r in self.roots.items() if r in trial.where}
        return len(trial._walkable()) == len(cells)

    def swaps(self, reserve: list[str]) -> list[tuple[str, str]]:
        """Every (grid tile, reserve tile) pair that may change places now (A-3.3 c)."""
        out: list[tuple[str, str]] = []
        if not reserve:
            return out
        roots = set(self.roots.values())
        for tile, pos in self.where.items():
            if tile in roots:
                continue
            constrained, required, open_by = self._neighbours(pos)
            if len(open_by) > 1:
                continue  # open sides of both kinds: no tile matches them all
            # Whether walks survive a newcomer of the other kind. With matching sides its
            # walks are fixed by its kind (it opens exactly towards the open neighbours of
            # its kind), so one check serves them all.
            walks: bool | None = None
            for new in reserve:
                kind = KIND[new]
                if (open_by and kind not in open_by) or MASK[new] & constrained != required:
                    continue
                if kind != KIND[tile]:
                    if walks is None:
                        walks = self._swap_keeps_walks(pos, new)
                    if not walks:
                        continue
                out.append((tile, new))
        return out

    def _swap_keeps_walks(self, pos: Pos, new: str) -> bool:
        """True if every tile can still be walked to with ``new`` in place of the tile at
        ``pos`` (matching its neighbours)."""
        cells = dict(self.cells)
        cells[pos] = new
        return self._reachable_all(cells)

    def swap_error(self, out: str, new: str) -> tuple[str, Msg] | None:
        """(rule, reason) if reserve tile ``new`` may not take the place of ``out``."""
        if out not in self.where:
            return "A-3.3", msg("{tile} is not in your grid", tile=out)
        if out in self.roots.values():
            return "A-3.3", msg("{tile} is a start tile and can never be swapped", tile=out)
        pos = self.where[out]
        c = self.constraint(pos, KIND[new])
        if c is None or MASK[new] & c[0] != c[1]:
            return self.rules["match"], self._side_error(new, pos)
        # With matching sides a tile of the same kind keeps every walk as it was.
        if KIND[new] != KIND[out] and not self._swap_keeps_walks(pos, new):
            return self.rules["reach"], msg("with {tile} in place of {other}, some tile "
                                            "could no longer be reached on foot from the "
                                            "start", tile=new, other=out)
        return None

    def violations(self) -> list[tuple[str, Msg]]:
        """Every building rule the grid as a whole breaks, as (rule, reason), for grids not
        built move by move (e.g. one given to ``analyze``)."""
        cells, rules = self.cells, self.rules
        out = []
        start = self.where[next(iter(self.roots.values()))]
        joined = {start}
        stack = [start]
        while stack:
            x, y = stack.pop()
            for _, dx, dy, _ in SIDES:
                p = (x + dx, y + dy)
                if p in cells and p not in joined:
                    joined.add(p)
                    stack.append(p)
        for pos, tile in sorted(cells.items()):
            if pos not in joined:
                out.append((rules["adjacent"], msg("{tile} at {cell} is not joined side by "
                                                   "side to the rest of the grid", tile=tile,
                                                   cell=fmt_pos(pos))))
        for (x, y), tile in sorted(cells.items()):
            for side, dx, dy, opp in SIDES[1:3]:  # east and south: each touching pair once
                other = cells.get((x + dx, y + dy))
                why = other and _pair_error(tile, (x, y), side, other, opp)
                if why:
                    out.append((rules["match"], why))
        seen = self._walkable()
        for pos, tile in sorted(cells.items()):
            if pos not in seen and pos in joined:
                out.append((rules["reach"], msg("{tile} at {cell} cannot be reached on foot "
                                                "from the start", tile=tile,
                                                cell=fmt_pos(pos))))
        xs = [p[0] for p in cells]
        ys = [p[1] for p in cells]
        for y in range(min(ys) + 1, max(ys)):
            for x in range(min(xs) + 1, max(xs)):
                if (x, y) not in cells and self._enclosed((x, y)):
                    out.append((rules["hole"], msg("the empty cell {cell} is closed in by "
                                                   "tiles (a hole)", cell=fmt_pos((x, y)))))
        return out

    def _walkable(self) -> set[Pos]:
        """The cells that can be walked to from the roots."""
        seen: set[Pos] = set()
        for root in self.roots.values():
            pos = self.where[root]
            seen.add(pos)
            stack = [pos]
            while stack:
                for npos in self._links(stack.pop()):
                    if npos not in seen:
                        seen.add(npos)
                        stack.append(npos)
        return seen

    def _enclosed(self, pos: Pos) -> bool:
        """True if the empty cell ``pos`` cannot reach the outside through empty cells."""
        cells = self.cells
        xs = [p[0] for p in cells]
        ys = [p[1] for p in cells]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        seen = {pos}
        stack = [pos]
        while stack:
            x, y = stack.pop()
            if x <= x0 or x >= x1 or y <= y0 or y >= y1:
                return False
            for _, dx, dy, _ in SIDES:
                p = (x + dx, y + dy)
                if p not in cells and p not in seen:
                    seen.add(p)
                    stack.append(p)
        return True

    # -- scoring -------------------------------------------------------------------------
    def barrier_edges(self, kinds: tuple[str, ...]) -> dict[tuple[Pos, Pos], int]:
        """Outer barrier sides of tiles of ``kinds`` as grid-point edges with weights.

        A side is outer when no tile lies beyond it, or a tile of the other kind does (a
        wall facing a moat, C-4). A side where a wall and a moat lie together weighs 2 when
        both kinds are asked for (the combined line).
        """
        cells = self.cells
        edges: dict[tuple[Pos, Pos], int] = {}
        for (x, y), tile in cells.items():
            kind, mask = KIND[tile], MASK[tile]
            if not mask or kind not in kinds:
                continue
            for side, dx, dy, (ax, ay, bx, by) in _SIDE_EDGES:
                if mask & side:
                    other = cells.get((x + dx, y + dy))
                    if other is None or KIND[other] != kind:
                        edge = ((x + ax, y + ay), (x + bx, y + by))
                        edges[edge] = edges.get(edge, 0) + 1
        return edges

    def longest_barrier(self, kinds: tuple[str, ...]) -> int:
        """Points of the longest continuous outer barrier (Decision A-5a: longest trail).
        It depends on the tiles of ``kinds`` only: a side facing another kind is outer."""
        return self._line(kinds).best

    def _line(self, kinds: tuple[str, ...]) -> _Lines:
        """The line of ``kinds`` as the grid is now: found whole the first time, then
        where cells changed only (``_updated``)."""
        lines = self._lines.get(kinds)
        if lines is None:
            links = _links(self.barrier_edges(kinds))
            pieces = _pieces(links, links)
            lines = _Lines(links, tuple(pieces), frozenset(), max((n for _, n in pieces),
                                                                   default=0))
            self._lines[kinds] = lines
        elif lines.changed:
            lines = self._lines[kinds] = _updated(lines, self.cells, kinds, lines.changed)
        return lines


class _Lines(NamedTuple):
    """A grid's line of some kinds of tile: its sides (``links``, never changed once
    made), each connected piece of them by its points with its longest trail, and the
    cells changed since (their sides, and the pieces those touch, may be out of date)."""

    links: Links
    pieces: tuple[tuple[frozenset[Point], int], ...]
    changed: frozenset[Pos]
    best: int  # the longest trail of all pieces, if no cell changed since


def _updated(lines: _Lines, cells: dict[Pos, str], kinds: tuple[str, ...],
             changed: Iterable[Pos]) -> _Lines:
    """``lines`` of ``kinds`` for ``cells``, which differ from the cells they were found in
    at ``changed`` cells only: those cells' sides weighed again, the pieces at the ends of
    the sides whose weight changed walked again (the other pieces have none of them)."""
    links, ends = _relinked(lines.links, cells, kinds, changed)
    if not ends:  # no side changed its weight: the same line
        return _Lines(links, lines.pieces, frozenset(), lines.best)
    pieces = [p for p in lines.pieces if p[0].isdisjoint(ends)] + _pieces(links, ends)
    return _Lines(links, tuple(pieces), frozenset(), max((n for _, n in pieces), default=0))


def _relinked(old: Links, cells: dict[Pos, str], kinds: tuple[str, ...],
              changed: Iterable[Pos]) -> tuple[Links, set[Point]]:
    """The sides ``old`` with those of the ``changed`` cells weighed again (each side
    counts the outer barriers along it, as ``barrier_edges``), and the ends of the sides
    whose weight changed. Shared dicts are replaced, never changed."""
    kind_of, barriers = _KIND_OR_NONE, _barriers(kinds)
    changes: dict[tuple[Point, Point], int] = {}  # a side of two changed cells: once
    for x, y in changed:
        tile = cells.get((x, y))
        mine, kind = barriers[tile], kind_of[tile]
        for side, dx, dy, opp, (ax, ay, bx, by) in _SIDE_PAIRS:
            other = cells.get((x + dx, y + dy))
            # A barrier is outer unless a tile of its own kind lies beyond it.
            weight = 0 if kind == kind_of[other] else \
                bool(mine & side) + bool(barriers[other] & opp)
            a, b = (x + ax, y + ay), (x + bx, y + by)
            if weight != old.get(a, _NONE).get(b, 0):
                changes[a, b] = weight
    if not changes:
        return old, set()
    links = dict(old)
    ends: set[Point] = set()
    for (a, b), weight in changes.items():
        for p, q in ((a, b), (b, a)):
            if p not in ends:
                ends.add(p)
                links[p] = dict(links.get(p, _NONE))
            if weight:
                links[p][q] = weight
            else:
                del links[p][q]
    for p in ends:
        if not links[p]:
            del links[p]
    return links, ends


def _barriers(kinds: tuple[str, ...]) -> dict[str | None, int]:
    """Each tile's barrier sides if it is of ``kinds``, else 0; 0 for None (no tile)."""
    got = _BARRIERS.get(kinds)
    if got is None:
        got = _BARRIERS[kinds] = {None: 0, **{t: MASK[t] if KIND[t] in kinds else 0
                                              for t in MASK}}
    return got


_SIDE_KEYS = {N: "n", E: "e", S: "s", W: "w"}


def _pair_error(tile: str, pos: Pos, side: int, other: str, opp: int) -> Msg | None:
    """Why the ``side`` of ``tile`` at ``pos`` does not match ``other`` beyond it, or None."""
    kind = KIND[tile]
    mine, theirs = bool(MASK[tile] & side), bool(MASK[other] & opp)
    if KIND[other] == kind:
        if mine == theirs:
            return None
        words = {"tile": tile, "cell": fmt_pos(pos), "other": other,
                 "side": SIDE_WORDS[_SIDE_KEYS[side]], "opposite": SIDE_WORDS[_SIDE_KEYS[opp]]}
        if kind == "alhambra":
            return msg("the {side} side of {tile} at {cell} has a wall but the tile {side} of "
                       "it, {other}, has none on its {opposite} side", **words) if mine else \
                msg("the {side} side of {tile} at {cell} has no wall but the tile {side} of "
                    "it, {other}, has one on its {opposite} side", **words)
        return msg("the {side} side of {tile} at {cell} has a moat but the tile {side} of "
                   "it, {other}, has none on its {opposite} side", **words) if mine else \
            msg("the {side} side of {tile} at {cell} has no moat but the tile {side} of "
                "it, {other}, has one on its {opposite} side", **words)
    if mine and theirs:
        return None
    return msg("{tile} at {cell} touches {other} on its {side} side: where an Alhambra tile "
               "meets a Granada tile the sides must be a wall and a moat", tile=tile,
               cell=fmt_pos(pos), other=other, side=SIDE_WORDS[_SIDE_KEYS[side]])


def _cut_points(links: dict[Pos, list[Pos]], starts: list[Pos]) -> set[Pos]:
    """The cells other than ``starts`` whose removal would cut some cell off every start
    in the graph ``links`` (articulation points: Tarjan's depth-first search)."""
    disc: dict[Pos, int] = {}  # the order in which the search found each cell
    cut: set[Pos] = set()

    def low(pos: Pos, parent: Pos | None) -> int:
        """The earliest cell found that the search from ``pos`` reaches by one back edge."""
        disc[pos] = found = len(disc)
        lowest = found
        for npos in links[pos]:
            if npos not in disc:
                below = low(npos, pos)
                lowest = min(lowest, below)
                if parent is not None and below >= found:
                    cut.add(pos)
            elif npos != parent:
                lowest = min(lowest, disc[npos])
        return lowest

    for start in starts:
        low(start, None)
    return cut


def _walk(p: Point, adj: dict[Point, list[tuple[Point, int, int]]], used: list[bool]
          ) -> int:
    """Weight of the heaviest trail from ``p`` over edges (other point, id, weight) not
    yet ``used``."""
    top = 0
    for q, i, weight in adj[p]:
        if not used[i]:
            used[i] = True
            top = max(top, weight + _walk(q, adj, used))
            used[i] = False
    return top


def _links(edges: dict[tuple[Point, Point], int]) -> Links:
    """The edges by point: each point's neighbours with the edge's weight."""
    links: Links = {}
    for (a, b), weight in edges.items():
        links.setdefault(a, {})[b] = weight
        links.setdefault(b, {})[a] = weight
    return links


def _pieces(links: Links, starts: Iterable[Point]) -> list[tuple[frozenset[Point], int]]:
    """The connected pieces of ``links`` holding any of ``starts``: the points of each,
    with the weight of its heaviest trail (no edge used twice; points may repeat).

    A line or a ring (no point with more than 2 edges), or a piece whose every point has
    an even number of edges (Euler), is walked whole. In a tree a trail is a path: the
    heaviest ends farthest from the point farthest from any point. Otherwise a heaviest
    trail starts at a point of odd degree: it cannot stop where an edge is left unused (it
    would go on), and a closed trail can be opened where an unused edge touches it; so
    only those points are tried as starts.
    """
    out = []
    seen: set[Point] = set()
    for start in starts:
        if start in seen or start not in links:
            continue
        seen.add(start)
        piece, odd, branched, total, ends = [start], [], False, 0, 0
        for p in piece:  # grows as it is read: every point joined to start
            near = links[p]
            degree = len(near)
            ends += degree  # each edge twice, once from each end
            if degree % 2:
                odd.append(p)
            if degree > 2:
                branched = True
            for q, weight in near.items():
                total += weight
                if q not in seen:
                    seen.add(q)
                    piece.append(q)
        if odd and branched and ends // 2 == len(piece) - 1:  # a tree: a trail is a path
            best = _farthest(_farthest(start, links)[1], links)[0]
        elif odd and branched:
            ids: dict[tuple[Point, Point], int] = {}
            adj = {p: [(q, ids.setdefault((p, q) if p < q else (q, p), len(ids)), weight)
                       for q, weight in links[p].items()] for p in piece}
            used = [False] * len(ids)
            best = max(_walk(p, adj, used) for p in odd)
        else:
            best = total // 2
        out.append((frozenset(piece), best))
    return out


def _farthest(start: Point, links: Links) -> tuple[int, Point]:
    """The weight of the heaviest path from ``start`` in a tree, and where it ends (from
    that end, the heaviest path is the tree's heaviest)."""
    far, end = 0, start
    stack: list[tuple[Point, Point | None, int]] = [(start, None, 0)]
    while stack:
        p, came, weight = stack.pop()
        if weight > far:
            far, end = weight, p
        for q, w in links[p].items():
            if q != came:
                stack.append((q, p, weight + w))
    return far, end


def longest_trail(edges: dict[tuple[Point, Point], int]) -> int:
    """Weight of the heaviest trail (no edge used twice; points may repeat): the heaviest
    of its connected pieces' (``_pieces``)."""
    links = _links(edges)
    return max((n for _, n in _pieces(links, links)), default=0)
