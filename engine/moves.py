"""Moves and their text notation (documented in ``engine/NOTATION.md``).

``parse_move``/``format_move`` round-trip: ``format_move(parse_move(t))`` is the canonical
spelling of ``t`` and ``parse_move(format_move(m)) == m``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal, NoReturn, TypeVar, get_args

from .components import NEUTRAL_NAMES, TILES
from .errors import NotationError
from .words import Msg, listing, msg

Pos = tuple[int, int]
T = TypeVar("T")
#: What a move does (A-3): take money, buy a tile, end the actions, place a tile bought
#: or received, redesign the city.
Action = Literal["take", "buy", "end", "place", "redesign"]
ACTIONS: tuple[Action, ...] = get_args(Action)


# The fields of each kind of move, by action and target: (required, optional). ``action``
# and ``to`` themselves are the key; every other field must be one of these.
_SHAPES: dict[tuple[str, str | None], tuple[frozenset[str], frozenset[str]]] = {
    (action, to): (frozenset(required.split()), frozenset(optional.split()))
    for action, to, required, optional in (
        ("take", None, "positions", ""),
        ("buy", None, "tile cards", ""),
        ("end", None, "", ""),
        ("place", "city", "tile at", "face cards"),
        ("place", "reserve", "tile", "face cards"),
        ("place", "neutral", "tile", "face cards"),
        ("redesign", "city", "tile at", ""),
        ("redesign", "reserve", "tile", ""),
        ("redesign", "swap", "tile other", ""),
    )
}
_TARGETS = {"place": msg("city, reserve or neutral"),
            "redesign": msg("city, reserve or swap")}
_FIELDS = ("tile", "cards", "positions", "at", "other", "face")
# For speed: which fields may be set together, as tuples of booleans in _FIELDS order.
_PRESENT = {
    key: {tuple(f in required or (f in optional and bool(bits >> i & 1))
                for i, f in enumerate(_FIELDS))
          for bits in range(1 << len(_FIELDS))}
    for key, (required, optional) in _SHAPES.items()
}
# Money cards in their canonical order: by currency, highest value first.
_CARD_RANK = {f"{code}{value}": i for i, (code, value) in enumerate(
    (code, value) for code in ("DE", "DI", "DU", "FL") for value in range(9, 0, -1))}
_CARDS = frozenset(_CARD_RANK)


@dataclass(slots=True, unsafe_hash=True)
class Move:
    """One move, checked when it is made: ``action`` is take, buy, end, place or redesign,
    and exactly the fields of that action are set (else ValueError).

    - take: ``positions`` of money display cards (1-based), at least one.
    - buy: ``tile`` from the market, paid with ``cards``.
    - place (a bought or received tile) and redesign: ``tile`` goes ``to`` ``city`` (at
      ``at``), ``reserve``, ``neutral`` (Dirk/Juan, place only) or, for redesign only,
      ``swap``: city tile ``tile`` goes to the reserve and reserve tile ``other`` takes its
      place. ``face`` (Granada: 0 front, 1 back; place only) is the face to build on, None
      for the face it has; ``cards`` of a place move pay for flipping it (G-3).

    Moves are hashable values: treat them as immutable (not frozen only for speed).
    """

    action: Action
    tile: str | None = None
    cards: tuple[str, ...] = ()
    positions: tuple[int, ...] = ()
    to: str | None = None
    at: Pos | None = None
    other: str | None = None
    face: int | None = None

    def __post_init__(self) -> None:
        key = (self.action, self.to)
        present = (self.tile is not None, bool(self.cards), bool(self.positions),
                   self.at is not None, self.other is not None, self.face is not None)
        patterns = _PRESENT.get(key)
        if patterns is None or present not in patterns:
            raise _shape_error(self.action, self.to, present)
        if (self.tile is not None and self.tile not in TILES) or (
                self.other is not None and self.other not in TILES):
            raise ValueError(msg("'tile' and 'other' must be tile ids like A17"))
        if self.cards and not _all_cards(self.cards):
            raise ValueError(msg("'cards' must be money cards like DI5, not {cards}",
                                 cards=str(list(self.cards))))
        if self.positions and not all(type(p) is int for p in self.positions):
            raise ValueError(msg("'positions' must be whole numbers"))
        at = self.at
        if at is not None and not (len(at) == 2 and type(at[0]) is int
                                   and type(at[1]) is int):
            raise ValueError(msg("'at' must be a cell x, y of two whole numbers"))
        if self.face is not None and not (type(self.face) is int and self.face in (0, 1)):
            raise ValueError(msg("'face' must be 0 (front) or 1 (back)"))
        # One spelling per move: display positions ascending, cards by currency and value.
        if len(self.positions) > 1:
            self.positions = tuple(sorted(self.positions))
        if len(self.cards) > 1:
            self.cards = tuple(sorted(self.cards, key=_CARD_RANK.__getitem__))

    @classmethod
    def unchecked(cls, action: Action, tile: str | None = None, cards: tuple[str, ...] = (),
                  positions: tuple[int, ...] = (), to: str | None = None,
                  at: Pos | None = None, other: str | None = None,
                  face: int | None = None) -> Move:
        """A move the engine lists itself (``legal_moves``), valid and spelled canonically
        by construction: made without the checks (a random game lists some 5,000)."""
        move = object.__new__(cls)
        move.action, move.tile, move.cards, move.positions = action, tile, cards, positions
        move.to, move.at, move.other, move.face = to, at, other, face
        return move

    def __str__(self) -> str:
        return format_move(self)

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe dict of the fields that are set."""
        out = {k: v for k, v in asdict(self).items() if v not in (None, ())}
        if self.at is not None:
            out["at"] = list(self.at)
        for key in ("cards", "positions"):
            if key in out:
                out[key] = list(out[key])
        return out

    @classmethod
    def from_json(cls, data: Any) -> Move:
        """The move of a ``to_json`` dict; ValueError with a clear message if it is none."""
        if not isinstance(data, dict):
            raise ValueError(msg("a move is a JSON object"))
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(msg("unknown field(s) {fields}", fields=str(sorted(unknown))))
        for key in ("action", "tile", "other", "to"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise ValueError(msg("'{key}' must be a string", key=key))
        for key in ("cards", "positions", "at"):
            if data.get(key) is not None and not isinstance(data[key], list):
                raise ValueError(msg("'{key}' must be a list", key=key))
        return cls(action=data.get("action", ""), tile=data.get("tile"),
                   cards=tuple(data.get("cards") or ()),
                   positions=tuple(data.get("positions") or ()), to=data.get("to"),
                   at=tuple(data["at"]) if data.get("at") is not None else None,
                   other=data.get("other"), face=data.get("face"))


def _all_cards(cards: tuple[Any, ...]) -> bool:
    try:
        return _CARDS.issuperset(cards)
    except TypeError:  # something unhashable
        return False


def _shape_error(action: Any, to: Any, present: tuple[bool, ...]) -> ValueError:
    """What is wrong with a move's action, target or set of fields."""
    if action not in ACTIONS:
        return ValueError(msg("'action' must be take, buy, end, place or redesign"))
    if (action, to) not in _SHAPES:
        if action in _TARGETS:
            return ValueError(msg("'to' of a '{action}' move must be {targets}", action=action,
                                  targets=_TARGETS[action]))
        return ValueError(msg("'to' does not belong to a '{action}' move", action=action))
    required, optional = _SHAPES[action, to]
    kind = action if to is None else f"{action} to {to}"
    for name, given in zip(_FIELDS, present, strict=True):
        if given and name not in required | optional:
            return ValueError(msg("'{field}' does not belong to a '{kind}' move",
                                  field=name, kind=kind))
    missing = [name for name, given in zip(_FIELDS, present, strict=True)
               if not given and name in required]
    return ValueError(msg("a '{kind}' move needs {fields}", kind=kind,
                          fields=listing(map(repr, missing))))


FACE_WORDS = {0: "front", 1: "back"}


def _tile_face(move: Move) -> str:
    return f"{move.tile}" + (f":{FACE_WORDS[move.face]}" if move.face is not None else "")


def _target(move: Move) -> str:
    if move.at is not None:
        return f"at {move.at[0]},{move.at[1]}"
    if move.to == "neutral":
        return NEUTRAL_NAMES[TILES[str(move.tile)].kind].lower()
    return str(move.to)


def format_move(move: Move) -> str:
    """The canonical text of ``move``."""
    a = move.action
    if a == "take":
        return "take " + ",".join(map(str, move.positions))
    if a == "buy":
        return f"buy {move.tile} pay " + ",".join(move.cards)
    if a == "end":
        return "end"
    if a == "place":
        text = f"place {_tile_face(move)} {_target(move)}"
        return text + (" pay " + ",".join(move.cards) if move.cards else "")
    if a == "redesign":
        if move.to == "swap":
            return f"redesign swap {move.tile} with {move.other}"
        return f"redesign {move.tile} {_target(move)}"
    raise ValueError(f"unknown action {a!r}")


_TOKEN = re.compile(r"\s*(?:(-?\d+)|([A-Za-z][A-Za-z0-9]*)|([,;:]))")
_TILE = re.compile(r"^[AG]\d\d$")
_CARD = re.compile(r"^(DE|DI|DU|FL)([1-9])$")


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, int]] = []  # (token, 1-based column)
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                if text[pos:].strip() == "":
                    break
                col = pos + 1 + (len(text[pos:]) - len(text[pos:].lstrip()))
                raise NotationError(text, col, "a word, a number, ',' or ';'")
            group = m.lastindex or 0
            self.tokens.append((m.group(group), m.start(group) + 1))
            pos = m.end()
        self.i = 0

    def peek(self) -> str | None:
        return self.tokens[self.i][0].lower() if self.i < len(self.tokens) else None

    def column(self) -> int:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else len(self.text) + 1

    def fail(self, expected: Msg | str) -> NoReturn:
        raise NotationError(self.text, self.column(), expected)

    def next(self, expected: Msg | str) -> str:
        if self.i >= len(self.tokens):
            self.fail(expected)
        tok = self.tokens[self.i][0]
        self.i += 1
        return tok

    def word(self, *words: str) -> str:
        expected = listing((repr(w) for w in words), "or")
        if self.peek() not in words:
            self.fail(expected)
        return self.next(expected).lower()

    def integer(self, what: Msg) -> int:
        tok = self.peek()
        if tok is None or not re.fullmatch(r"-?\d+", tok):
            self.fail(what)
        return int(self.next(what))

    def tile(self) -> str:
        tok = self.peek()
        if tok is not None and _TILE.match(tok.upper()) and tok.upper() not in TILES:
            self.fail(msg("a tile of the game (there is no tile {tile})", tile=tok.upper()))
        if tok is None or not _TILE.match(tok.upper()):
            self.fail(msg("a tile id like A17 or G05"))
        return self.next(msg("a tile id like A17 or G05")).upper()

    def card(self) -> str:
        tok = self.peek()
        if tok is None or not _CARD.match(tok.upper()):
            self.fail(msg("a money card like DI5 (DE denar, DI dirham, DU ducat, FL florin; "
                          "1-9)"))
        return self.next(msg("a money card like DI5 (DE denar, DI dirham, DU ducat, FL "
                             "florin; 1-9)")).upper()

    def comma_list(self, item: Callable[[], T]) -> tuple[T, ...]:
        items = [item()]
        while self.peek() == ",":
            self.next("','")
            items.append(item())
        return tuple(items)

    def done(self) -> bool:
        return self.peek() in (None, ";")


def _read_target(r: _Reader, allowed: tuple[str, ...], tile: str) -> tuple[str, Pos | None]:
    if r.peek() in ("dirk", "juan") and "dirk" in allowed:
        # one spelling: an Alhambra tile goes to Dirk, a Granada tile to Juan (G-7)
        neutral = NEUTRAL_NAMES[TILES[tile].kind]
        if r.peek() != neutral.lower():
            r.fail(msg("'{word}' ({tile} is an Alhambra tile: it goes to Dirk)",
                       word=neutral.lower(), tile=tile) if TILES[tile].kind == "alhambra" else
                   msg("'{word}' ({tile} is a Granada tile: it goes to Juan)",
                       word=neutral.lower(), tile=tile))
    word = r.word(*allowed)
    if word == "at":
        x = r.integer(msg("an x coordinate"))
        r.word(",")
        y = r.integer(msg("a y coordinate"))
        return "city", (x, y)
    if word in ("dirk", "juan"):
        return "neutral", None
    return word, None


def _read_move(r: _Reader) -> Move:
    action = r.word(*ACTIONS)
    if action == "take":
        positions = r.comma_list(lambda: r.integer(msg("a money display position (1-4)")))
        return Move("take", positions=positions)
    if action == "buy":
        tile = r.tile()
        r.word("pay")
        return Move("buy", tile=tile, cards=r.comma_list(r.card))
    if action == "end":
        return Move("end")
    if action == "place":
        tile = r.tile()
        face = None
        if r.peek() == ":":
            r.next("':'")
            face = {"front": 0, "back": 1}[r.word("front", "back")]
        to, at = _read_target(r, ("at", "reserve", "dirk", "juan"), tile)
        cards: tuple[str, ...] = ()
        if r.peek() == "pay":
            r.next("'pay'")
            cards = r.comma_list(r.card)
        return Move("place", tile=tile, to=to, at=at, face=face, cards=cards)
    if r.peek() == "swap":
        r.next("'swap'")
        tile = r.tile()
        r.word("with")
        return Move("redesign", tile=tile, to="swap", other=r.tile())
    tile = r.tile()
    to, at = _read_target(r, ("at", "reserve"), tile)
    return Move("redesign", tile=tile, to=to, at=at)


def parse_move(text: str) -> Move:
    """Read one move; raises NotationError naming the column and what was expected."""
    r = _Reader(text)
    move = _read_move(r)
    if r.peek() is not None:
        r.fail(msg("the end of the move"))
    return move


def parse_moves(text: str) -> list[Move]:
    """Read a whole turn: moves separated by ';' or new lines."""
    r = _Reader(text.replace("\n", ";"))
    moves = []
    while True:
        while r.peek() == ";":
            r.next("';'")
        if r.peek() is None:
            break
        moves.append(_read_move(r))
        if not r.done():
            r.fail(msg("';' or the end of the turn"))
    if not moves:
        r.fail(msg("a move"))
    return moves


def format_moves(moves: list[Move]) -> str:
    return "; ".join(format_move(m) for m in moves)
