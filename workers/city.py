"""A seat's city as a small text picture, for plain-text mails (pbmserv style).

Each tile is a cell of two lines, its id and its building with its value (``gar 10``:
a garden worth 10, the building in three letters of the reader's language, a space
before the value; ``**`` the fountain or start tile); a compact picture (another
player's city) has the second line only. x grows east, y south, as in the notation.
Walls are drawn with ``-`` and ``|``, Granada's moats with ``=`` and ``:``, ``+`` at
their ends and turns; dots mark the other sides of the city's cells::

          -1      0      1
        +------+------+------+
     -1 | A16  . A40  . A05  |
        |arc  5.gar 10.pav  6|
        +....................+
      0        . A00  .
               .  **  .
               ........
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

WIDTH = 6
#: The characters of a barrier, by the key the view gives it: (horizontal, vertical).
BARRIERS = {"walls": ("-", "|"), "moats": ("=", ":")}
_OPPOSITE = {"n": "s", "s": "n", "e": "w", "w": "e"}
_STEP = {"n": (0, -1), "s": (0, 1), "e": (1, 0), "w": (-1, 0)}


def _barrier(cells: dict[tuple[int, int], dict[str, Any]], x: int, y: int, side: str
             ) -> str | None:
    """The barrier key (walls or moats) on ``side`` of cell (x, y), from either tile."""
    dx, dy = _STEP[side]
    for (cx, cy), s in (((x, y), side), ((x + dx, y + dy), _OPPOSITE[side])):
        tile = cells.get((cx, cy))
        if tile:
            for key in BARRIERS:
                if s in tile.get(key, ()):
                    return key
    return None


def _english(tile: dict[str, Any]) -> str:
    return str(tile["type"]).replace("_", "")


def _label(tile: dict[str, Any], name: Callable[[dict[str, Any]], str]) -> tuple[str, str]:
    if tile["type"] == "start" or tile["value"] == 0:
        return tile["id"].center(WIDTH), "**".center(WIDTH)
    return (tile["id"].center(WIDTH),
            f"{name(tile)[:WIDTH - 3]:<{WIDTH - 3}} {tile['value']:>2}")


def picture(city: list[dict[str, Any]], name: Callable[[dict[str, Any]], str] = _english,
            ids: bool = True) -> list[str]:
    """The lines of the picture of ``city`` (the view's tiles with x and y); ``name`` says
    a tile's building, ``ids`` draws each tile's id above it."""
    if not city:
        return []
    cells = {(t["x"], t["y"]): t for t in city}
    xs = range(min(x for x, _ in cells), max(x for x, _ in cells) + 1)
    ys = range(min(y for _, y in cells), max(y for _, y in cells) + 1)
    margin = 4

    def corner(x: int, y: int) -> str:
        """The corner at the top left of cell (x, y)."""
        sides = [(x - 1, y, "n"), (x, y, "n"), (x, y - 1, "w"), (x, y, "w")]
        if any(_barrier(cells, cx, cy, side) for cx, cy, side in sides):
            return "+"
        around = [(x - 1, y - 1), (x, y - 1), (x - 1, y), (x, y)]
        return "." if any(c in cells for c in around) else " "

    def border(y: int) -> str:
        """The line above row y."""
        out = " " * margin
        for x in xs:
            key = _barrier(cells, x, y, "n")
            fill = BARRIERS[key][0] if key else \
                ("." if (x, y) in cells or (x, y - 1) in cells else " ")
            out += corner(x, y) + fill * WIDTH
        return (out + corner(xs[-1] + 1, y)).rstrip()

    lines = [" " * margin + "".join(f"{x:^{WIDTH + 1}}" for x in xs).rstrip()]
    for y in ys:
        lines.append(border(y))
        for row in (0, 1) if ids else (1,):
            out = (f"{y:>{margin - 1}} " if row == 0 or not ids else " " * margin)
            for x in list(xs) + [xs[-1] + 1]:
                key = _barrier(cells, x, y, "w")
                sep = BARRIERS[key][1] if key else \
                    ("." if (x, y) in cells or (x - 1, y) in cells else " ")
                out += sep
                if x in xs:
                    tile = cells.get((x, y))
                    out += _label(tile, name)[row] if tile else " " * WIDTH
            lines.append(out.rstrip())
    lines.append(border(ys[-1] + 1))
    return lines
