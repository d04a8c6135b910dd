"""What events mean to people and to the service's clocks, said once, here.

``describe(event, names, neutral)`` is the line a player reads for an event (in mails, on
the web page, in the API's event lists), in words, not notation: e.g. "Bob took 9 ducats",
"Bob bought a garden (8), walls north and east, with a 5 and a 3 denar, the exact price:
another action", "Bob placed a garden (8) north of the fountain" or "2nd scoring: Ann got 9
for pavilions";
``clock_started(events)`` tells whether a batch of events hands a seat its turn (or a tile
to place), so that its deadline starts again.
Both read redacted events as well as whole ones. The lines are ``Msg`` objects
(``engine/words.py``): English, and what the service needs to say them in other languages;
the game's vocabulary is in ``engine/terms.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .components import (
    ALHAMBRA_START,
    BARRIERS,
    TILES,
    E,
    N,
    S,
    W,
)
from .events import Event
from .kinds import KINDS
from .state import State
from .terms import (
    FACES,
    LINES,
    NEAR_FOUNTAIN,
    NEAR_START,
    PLURALS,
    SCORINGS,
    a_tile,
    barriers,
    money_words,
    steps,
)
from .terms import bot as bot_words
from .terms import neutral as neutral_words
from .words import Msg, listing, msg, nmsg

#: Events that give a seat something to do: its clock starts (again).
CLOCK_EVENTS = ("turn_started", "tile_awarded")
_SIDE_KEYS = ((N, "n"), (E, "e"), (S, "s"), (W, "w"))


def clock_started(events: Iterable[Mapping[str, Any]]) -> bool:
    """Do ``events`` hand the turn (or a tile received at the game end) to a seat?"""
    return any(e["type"] in CLOCK_EVENTS for e in events)


def neutral_of(event: Mapping[str, Any]) -> str | None:
    """Dirk or Juan, as told by the tiles or building an event names (None: it names none)."""
    tiles = event.get("tiles") or ([event["tile"]] if "tile" in event else [])
    if tiles and tiles[0] in TILES:
        return KINDS[TILES[tiles[0]].kind].neutral_name
    for kind in KINDS.values():
        if event.get("building") in kind.types:
            return kind.neutral_name
    return None


def sides_of(tile: str) -> list[str]:
    """The sides (``n``, ``e``, ``s``, ``w``) where ``tile`` has a wall or a moat."""
    mask = TILES[tile].mask
    return [key for bit, key in _SIDE_KEYS if mask & bit]


def tile_words(tile: str, face: int | None = None, state: State | None = None,
               sides: bool = False, other: bool = False) -> Msg | str:
    """A tile as a player says it: "a garden (8)"; a double-sided tile on ``face`` (or as
    it lies in ``state``), else by its id. With ``sides``: its walls or moats too (and
    the face it shows, if it has two): "a garden (8), walls north and east"; with
    ``other``: what it shows turned over."""
    faces = TILES[tile].faces
    if face is None and len(faces) == 2 and state is not None and tile in state.faces:
        face = state.faces[tile]
    if face is None and len(faces) == 2:
        return tile
    f = faces[face or 0]
    words: Msg = a_tile(f.type, f.value)
    if sides and f.type != "start":
        walls = barriers(BARRIERS[TILES[tile].kind], sides_of(tile))
        words = msg("{tile}, {face}, {sides}", tile=words, face=FACES[face or 0],
                    sides=walls) if len(faces) == 2 else \
            msg("{tile}, {sides}", tile=words, sides=walls)
    if other and len(faces) == 2:
        back = faces[1 - (face or 0)]
        words = msg("{tile}; turned over: {other}", tile=words,
                    other=a_tile(back.type, back.value))
    return words


def cell_words(at: list[int] | tuple[int, int], state: State | None) -> Msg:
    """Where a cell is, from the start tile: "north of the fountain", "2 east and 1 north
    of the fountain"."""
    x, y = at
    fountain = state is not None and state.variant.start_tile == ALHAMBRA_START
    near = (NEAR_FOUNTAIN if fountain else NEAR_START).get((x, y))
    if near is not None:
        return near
    far = listing(steps(x, y))
    return msg("{steps} of the fountain", steps=far) if fountain else \
        msg("{steps} of the start tile", steps=far)


def describe(event: Event | Mapping[str, Any], names: list[str], neutral: str | None = None,
             state: State | None = None) -> Msg | None:
    """One line for an event worth telling a player, None for the others (card draws and
    refills show in the market and the display instead). ``neutral`` names Dirk or Juan
    (else the event's tiles tell); ``state``, if given, is the game at or after the event,
    for the faces of double-sided tiles and the name of the start tile."""
    e: Mapping[str, Any] = event
    kind = e["type"]
    neutral_name = neutral_words(neutral or (state.variant.neutral_name if state is not None
                                             else None) or neutral_of(e))

    def who(seat: Any) -> Msg | str:
        if seat == "neutral" or seat is None:
            return neutral_name
        return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else str(seat)

    def tile(name: str, face: int | None = None, sides: bool = False) -> Msg | str:
        return tile_words(name, face if face is not None else e.get("face"), state, sides)

    line = _line(e, kind, who, tile, state)
    if line is not None and e.get("timeout"):
        line = msg("{line} (time ran out: the default move)", line=line)
    if line is not None and "move" in e and e.get("bot") and \
            not str(who(e.get("seat"))).endswith(f"({e['bot']})"):  # "Bot 2 (greedy)"
        line = msg("{line} ({bot} bot)", line=line, bot=bot_words(e["bot"]))
    return line


def _when(text: str) -> str:
    """An ISO 8601 UTC time as a vacation's words show it: ``2026-12-24 18:00``."""
    return text[:16].replace("T", " ")


def _line(e: Mapping[str, Any], kind: str, who: Any, tile: Any, state: State | None
          ) -> Msg | None:
    seat = who(e.get("seat"))
    if kind == "money_dealt" and "cards" in e:
        return msg("{seat} was dealt {money}: {total} in all", seat=seat,
                   money=money_words(e["cards"]), total=e["total"])
    if kind == "tile_returned":
        return msg("{tile} has no moat and goes back into the bag", tile=tile(e["tile"], 0))
    if kind == "turn_started":
        return msg("{seat}'s turn", seat=seat)
    if kind == "seat_taken_over":
        if e["reason"] == "resigned":
            return msg("{seat} resigned: a {bot} bot plays the seat from now on", seat=seat,
                       bot=bot_words(e["bot"]))
        return msg("{seat} let the time run out too often: a {bot} bot plays the seat from "
                   "now on", seat=seat, bot=bot_words(e["bot"]))
    if kind == "vacation":
        if e["until"] is None:
            return msg("{seat} is back from vacation", seat=seat)
        return msg("{seat} is on vacation from {since} until {until} (UTC): that seat's "
                   "clock stops meanwhile", seat=seat, since=_when(e["since"]),
                   until=_when(e["until"]))
    if kind == "money_taken":
        return msg("{seat} took {money}", seat=seat, money=money_words(e["cards"]))
    if kind == "tile_bought":
        what, money = tile(e["tile"], sides=True), money_words(e["cards"])
        if e["exact"]:
            return msg("{seat} bought {tile}, with {money}, the exact price: another action",
                       seat=seat, tile=what, money=money)
        return msg("{seat} bought {tile}, with {money}", seat=seat, tile=what, money=money)
    if kind == "actions_ended":
        return msg("{seat} ended the turn's actions", seat=seat) if "move" in e else None
    if kind == "tile_placed":
        return _placed(e, seat, tile(e["tile"]), who, state)
    if kind == "redesigned":
        what = tile(e["tile"])
        if e["to"] == "city":
            return msg("{seat} moved {tile} from the reserve into the city, {where}",
                       seat=seat, tile=what, where=cell_words(e["at"], state))
        if e["to"] == "reserve":
            return msg("{seat} moved {tile} into the reserve", seat=seat, tile=what)
        return msg("{seat} swapped {tile} for {other} from the reserve", seat=seat, tile=what,
                   other=tile(e["other"]))
    if kind == "deck_reshuffled":
        return msg("the discard is shuffled into a new money deck")
    if kind == "scoring_card_drawn":
        return msg("the {scoring} card is drawn: scoring after this turn",
                   scoring=SCORINGS[e["scoring"]])
    if kind == "points_awarded":
        what = PLURALS.get(e["building"], e["building"]) if e["building"] \
            else LINES.get(e["kind"], e["kind"])
        return nmsg("{scoring}: {seat} got {n} for {what}",
                    "{scoring}: {seat} got {n} for {what}", e["points"],
                    scoring=SCORINGS[e["scoring"]], seat=seat, what=what)
    if kind == "game_ending":
        return msg("the market cannot be refilled: the game ends")
    if kind == "space_resolved" and e["seat"] is None:
        return msg("nobody holds the most money for market space {space}: its tiles stay",
                   space=e["space"])
    if kind == "tile_awarded":
        return msg("{seat} receives {tile} from market space {space}", seat=seat,
                   tile=tile(e["tile"], sides=True), space=e["space"])
    if kind == "neutral_received":
        faces = e.get("faces") or [None] * len(e["tiles"])
        return msg("{neutral} receives {tiles}", neutral=who("neutral"), tiles=listing(
            tile(t, f) for t, f in zip(e["tiles"], faces, strict=True)))
    if kind == "game_over":
        scores = [msg("{name} {points}", name=who(i), points=s)
                  for i, s in enumerate(e["scores"])]
        if e.get("neutral_score") is not None:
            scores.append(msg("{name} {points}", name=who("neutral"),
                              points=e["neutral_score"]))
        return nmsg("game over: {scores}; {winners} won", "game over: {scores}; {winners} won",
                    len(e["winners"]), scores=listing(scores, "unit"),
                    winners=listing(who(w) for w in e["winners"]))
    return None


def _placed(e: Mapping[str, Any], seat: Any, what: Any, who: Any, state: State | None
            ) -> Msg:
    """A placed tile: into the city (where), the reserve or to the neutral; turned over
    for money (G-3) or not."""
    if e.get("cards"):
        money = money_words(e["cards"])
        if e["to"] == "city":
            return msg("{seat} placed {tile}, turned over for {money}, {where}", seat=seat,
                       tile=what, money=money, where=cell_words(e["at"], state))
        if e["to"] == "reserve":
            return msg("{seat} put {tile}, turned over for {money}, into the reserve",
                       seat=seat, tile=what, money=money)
        return msg("{seat} gave {tile}, turned over for {money}, to {neutral}", seat=seat,
                   tile=what, money=money, neutral=who("neutral"))
    if e["to"] == "city":
        return msg("{seat} placed {tile} {where}", seat=seat, tile=what,
                   where=cell_words(e["at"], state))
    if e["to"] == "reserve":
        return msg("{seat} put {tile} into the reserve", seat=seat, tile=what)
    return msg("{seat} gave {tile} to {neutral}", seat=seat, tile=what, neutral=who("neutral"))
