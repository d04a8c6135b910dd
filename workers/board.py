"""The game as a mail shows it to one seat, in the seat's language: every tile with its
walls or moats (and the face a Granada tile shows), the hand and the money display by
currency, the market, every city (a text picture and an HTML table drawn in the web page's
colours, walls as borders), the majorities and a scoring's points per building type.

Only what the seat may see (``engine.view``); words from the engine (``engine/terms.py``,
``engine.describe.tile_words``) said in the seat's language (``service.i18n.say``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import engine
from engine import overview, terms
from engine.components import CURRENCY_CODES, card_currency, card_value
from engine.describe import tile_words
from engine.words import Msg, msg, nmsg
from service.i18n import say

from . import city, colours

#: The sides of a cell and the CSS border of each (top, right, bottom, left).
_BORDERS = {"n": "top", "e": "right", "s": "bottom", "w": "left"}
_OPPOSITE = {"n": "s", "s": "n", "e": "w", "w": "e"}
_STEP = {"n": (0, -1), "s": (0, 1), "e": (1, 0), "w": (-1, 0)}


@dataclass
class Speaker:
    """Words in one language: ``speaker(text)`` says a ``Msg`` (or anything) in it."""

    lang: str

    def __call__(self, text: Any) -> str:
        return say(text, self.lang)

    def name(self, type_: str) -> str:
        return self(terms.NAMES.get(type_, type_))

    def short(self, type_: str) -> str:
        """A building in three letters, for the cells of a text picture."""
        return self(terms.SHORT_NAMES.get(type_, type_))[:3]


def tile_line(state: engine.State, tile: str, say_: Speaker) -> str:
    """``A43: a garden (12), walls north and east`` (a Granada tile: its face, and what it
    shows turned over)."""
    return f"{tile}: {say_(tile_words(tile, state=state, sides=True, other=True))}"


def card_words(code: str) -> Msg:
    """One money card: "dirham 5"."""
    return msg("{currency} {value}", currency=terms.CURRENCY_NAMES[card_currency(code)],
               value=card_value(code))


def cell_style(tile: dict[str, Any], neighbours: dict[str, dict[str, Any] | None]
               ) -> dict[str, Any]:
    """A city cell for the HTML part: its classes (``stylesheet``): the building's colour
    and each side's border, a wall or a moat when either tile on that side has one."""
    classes = ["cell", f"t-{tile['type']}"]
    for side, css in _BORDERS.items():
        for t, s in ((tile, side), (neighbours.get(side), _OPPOSITE[side])):
            if t and s in t.get("walls", ()):
                classes.append(f"{css}-wall")
                break
            if t and s in t.get("moats", ()):
                classes.append(f"{css}-moat")
                break
    return {"classes": " ".join(classes)}


_BASE_CSS = """
body { font-family: Georgia, serif; max-width: 46em; margin: auto; color: #1f1b16;
       background: #fbf7ef; }
h3 { margin: 1.2em 0 0.3em; }
.muted { color: #6b6259; }
pre { font-family: Menlo, Consolas, monospace; font-size: 13px; background: #ffffff;
      padding: 6px; }
table.board { border-collapse: collapse; margin: 4px 0 12px; }
.cell { width: 52px; height: 46px; text-align: center; vertical-align: middle; padding: 1px;
        font-family: Arial, sans-serif; font-size: 11px; line-height: 1.2;
        border: 1px dotted #d9cfbf; }
.void { width: 52px; height: 46px; border: 0; }
.id { font-size: 9px; }
.card { display: inline-block; min-width: 28px; padding: 3px 5px; margin: 2px;
        font-family: Arial, sans-serif; font-size: 13px; font-weight: bold;
        text-align: center; color: #ffffff; border-radius: 4px; }
table.scores { border-collapse: collapse; }
table.scores td, table.scores th { border-bottom: 1px solid #d9cfbf; padding: 2px 8px;
                                   text-align: right; }
table.scores .what { text-align: left; }
.exact { color: #0b6b2b; font-weight: bold; }
"""


@cache
def stylesheet() -> str:
    """The HTML part's stylesheet (css-inline moves it into style attributes): the web
    page's colours for buildings and currencies, walls and moats as borders."""
    rules = [_BASE_CSS]
    for type_, fill in colours.fills().items():
        rules.append(f".t-{type_} {{ background: {fill}; color: {colours.ink_on(fill)}; }}")
    for code, (_, colour) in colours.currencies().items():
        rules.append(f".c-{code} {{ background: {colour}; }}")
    for css in _BORDERS.values():
        rules.append(f".cell.{css}-wall {{ border-{css}: 4px solid #3b2a1a; }}")
        rules.append(f".cell.{css}-moat {{ border-{css}: 4px double #1f6fb2; }}")
    return "\n".join(rules)


@dataclass
class City:
    """One seat's city: its name, its points, the text picture and the HTML rows."""

    name: str
    seat: int | None
    points: str  # "12 points"
    cards: str  # "5 cards"
    picture: list[str]
    rows: list[list[dict[str, Any] | None]]
    reserve: list[str]
    reserve_cells: list[dict[str, Any]] = field(default_factory=list)


def city_of(state: engine.State, tiles: list[dict[str, Any]], say_: Speaker,
            ids: bool) -> tuple[list[str], list[list[dict[str, Any] | None]]]:
    """The text picture (with the tiles' ids if ``ids``) and the HTML rows of a city."""
    label: Callable[[dict[str, Any]], str] = lambda t: say_.short(t["type"])  # noqa: E731
    picture = city.picture(tiles, label, ids=ids)
    if not tiles:
        return picture, []
    cells = {(t["x"], t["y"]): t for t in tiles}
    xs = range(min(x for x, _ in cells), max(x for x, _ in cells) + 1)
    ys = range(min(y for _, y in cells), max(y for _, y in cells) + 1)
    rows: list[list[dict[str, Any] | None]] = []
    for y in ys:
        row: list[dict[str, Any] | None] = []
        for x in xs:
            t = cells.get((x, y))
            if t is None:
                row.append(None)
                continue
            near = {s: cells.get((x + dx, y + dy)) for s, (dx, dy) in _STEP.items()}
            row.append(dict(cell_style(t, near), id=t["id"], name=say_.name(t["type"]),
                            value=t["value"] if t["type"] != "start" else "",
                            title=say_(tile_words(t["id"], state=state, sides=True))))
        rows.append(row)
    return picture, rows


def reserve_cell(state: engine.State, tile: dict[str, Any], say_: Speaker) -> dict[str, Any]:
    return dict(cell_style(tile, {}), id=tile["id"], name=say_.name(tile["type"]),
                value=tile["value"], title=tile_line(state, tile["id"], say_))


def cities(state: engine.State, view: dict[str, Any], seat: int, say_: Speaker
           ) -> list[City]:
    """Every seat's city, the reader's first (its picture with the tiles' ids, the others'
    compact), each with its reserve."""
    order = [seat] + [s["seat"] for s in view["seats"] if s["seat"] != seat]
    out = []
    for i in order:
        s = view["seats"][i]
        picture, rows = city_of(state, s["city"], say_, ids=i == seat)
        out.append(City(s["name"], i, say_(points(s["score"])), say_(cards(s["hand_size"])),
                        picture, rows,
                        [tile_line(state, t["id"], say_) for t in s["reserve"]],
                        [reserve_cell(state, t, say_) for t in s["reserve"]]))
    return out


def points(n: int) -> Msg:
    return nmsg("{n} point", "{n} points", n)


def cards(n: int) -> Msg:
    return nmsg("{n} card", "{n} cards", n)


def hand(state: engine.State, seat: int, say_: Speaker) -> dict[str, Any]:
    """The seat's cards: how many, and by currency ("denar: 5 + 3 = 8"), with the cards
    for the HTML part."""
    held = state.hands[seat]
    purses = [say_(msg("{currency}: {values} = {total}",
                       currency=terms.CURRENCY_NAMES[p.currency],
                       values=" + ".join(map(str, p.values)), total=p.total)
                   if len(p.values) > 1 else
                   msg("{currency}: {values}", currency=terms.CURRENCY_NAMES[p.currency],
                       values=p.values[0]))
              for p in overview.purses(held)]
    count = sum(held.values())
    shown = [card_cell(code, say_) for p in overview.purses(held)
             for code in (f"{CURRENCY_CODES[p.currency]}{v}" for v in p.values)]
    return {"count": say_(cards(count)), "purses": purses,
            "cards": shown}


def card_cell(code: str, say_: Speaker) -> dict[str, Any]:
    symbol, _ = colours.currencies()[code[:2]]
    return {"code": code[:2], "symbol": symbol, "value": card_value(code),
            "words": say_(card_words(code))}


def display(view: dict[str, Any], say_: Speaker) -> list[dict[str, Any]]:
    """The money display: position, the card in words and for the HTML part."""
    return [dict(card_cell(c, say_), position=i) for i, c in enumerate(view["display"], 1)]


def market(state: engine.State, view: dict[str, Any], seat: int | None, say_: Speaker
           ) -> list[dict[str, Any]]:
    """The four market spaces: currency, tiles (with walls) and whether the seat can pay
    one exactly (A-3.2: another action)."""
    exact = overview.exact_spaces(state, seat) if seat is not None and \
        seat < len(state.hands) else []
    out = []
    for m in view["market"]:
        code = CURRENCY_CODES[m["currency"]]
        out.append({"space": m["space"], "currency": say_(terms.CURRENCY_NAMES[m["currency"]]),
                    "code": code, "symbol": colours.currencies()[code][0],
                    "tiles": [tile_line(state, t["id"], say_) for t in m["tiles"]],
                    "cells": [reserve_cell(state, t, say_) for t in m["tiles"]],
                    "exact": m["space"] in exact})
    return out


def majorities(state: engine.State, names: list[str], neutral: str | None, say_: Speaker
               ) -> list[dict[str, str]]:
    """The majorities as the next scoring would count them now, a line a building type:
    its name, who has how many, who would score what."""

    def who(p: Any) -> str:
        return say_(terms.neutral(neutral)) if p == "neutral" else names[p]

    def ranked(counts: dict[Any, int], plus: bool) -> str:
        items = sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))
        return ", ".join(f"{who(p)} {'+' if plus else ''}{n}" for p, n in items)

    return [{"building": say_(terms.PLURALS.get(m.building, m.building)),
             "counts": ranked(m.counts, False),
             "points": ranked(m.points, True) or say_(msg("nobody"))}
            for m in overview.majorities(state)]


def scoring_tables(events: Iterable[dict[str, Any]], names: list[str], neutral: str | None,
                   say_: Speaker) -> list[dict[str, Any]]:
    """A table for each scoring among ``events``: its points per building type (and the
    longest line) per player, with the totals (``text``: the same, as lines)."""
    by_scoring: dict[int, dict[str, Any]] = {}
    for e in events:
        if e["type"] != "points_awarded":
            continue
        table = by_scoring.setdefault(e["scoring"], {"rows": {}, "who": set()})
        what = ("type", e["building"]) if e["building"] else ("line", e["kind"])
        row = table["rows"].setdefault(what, {})
        row[e["seat"]] = row.get(e["seat"], 0) + e["points"]
        table["who"].add(e["seat"])
    out = []
    for number, table in sorted(by_scoring.items()):
        columns: list[int | str] = [*range(len(names))] + \
            (["neutral"] if "neutral" in table["who"] else [])
        heads = [names[i] if isinstance(i, int) else say_(terms.neutral(neutral))
                 for i in columns]
        rows = []
        for (what, key), points in table["rows"].items():
            label = say_(terms.PLURALS.get(key, key) if what == "type" else
                         terms.LINES.get(key, key))
            rows.append([label] + [points.get(c, 0) for c in columns])
        totals = [say_(msg("Total"))] + [sum(r[i + 1] for r in rows)
                                         for i in range(len(columns))]
        out.append({"title": say_(terms.SCORINGS.get(number, str(number))),
                    "what": say_(msg("Points for")), "heads": heads, "rows": rows,
                    "totals": totals, "text": text_table([say_(msg("Points for"))] + heads,
                                                          rows + [totals])})
    return out


def text_table(head: list[str], rows: list[list[Any]]) -> list[str]:
    """Rows as lines of aligned columns (the first left, the others right)."""
    cells = [head] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    return ["  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i])
                      for i, c in enumerate(r)).rstrip() for r in cells]
