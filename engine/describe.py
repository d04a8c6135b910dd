"""What events mean to people and to the service's clocks, said once, here.

``describe(event, names, neutral)`` is the line a player reads for an event (in mails, on
the web page, in the API's event lists), in words, not notation: e.g. "Bob took 9 ducats",
"Bob bought a garden (8) with a 5 and a 3 denar, the exact price: another action", "Bob
placed a garden (8) north of the fountain" or "2nd scoring: Ann got 9 for pavilions";
``clock_started(events)`` tells whether a batch of events hands a seat its turn (or a tile
to place), so that its deadline starts again.
Both read redacted events as well as whole ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .components import ALHAMBRA_START, CURRENCIES, TILES, card_currency, card_value
from .events import Event
from .kinds import KINDS
from .state import State

#: Events that give a seat something to do: its clock starts (again).
CLOCK_EVENTS = ("turn_started", "tile_awarded")

# Building types in words: (one, with its article; several).
WORDS = {
    "pavilion": ("a pavilion", "pavilions"), "seraglio": ("a seraglio", "seraglios"),
    "arcades": ("arcades", "arcades"), "chambers": ("chambers", "chambers"),
    "garden": ("a garden", "gardens"), "tower": ("a tower", "towers"),
    "arena": ("an arena", "arenas"), "bath_house": ("a bath house", "bath houses"),
    "library": ("a library", "libraries"), "hostel": ("a hostel", "hostels"),
    "hospital": ("a hospital", "hospitals"), "market": ("a market", "markets"),
    "park": ("a park", "parks"), "school": ("a school", "schools"),
    "residential_area": ("a residential area", "residential areas"),
}
LINES = {"wall": "the longest wall", "moat": "the longest moat",
         "combined": "the longest line of walls and moats"}
ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
_DIRECTIONS = {(0, -1): "north", (1, -1): "north-east", (1, 0): "east", (1, 1): "south-east",
               (0, 1): "south", (-1, 1): "south-west", (-1, 0): "west", (-1, -1): "north-west"}


def _joined(parts: list[str], last: str = " and ") -> str:
    if len(parts) < 2:
        return "".join(parts)
    return ", ".join(parts[:-1]) + last + parts[-1]


def money_words(cards: Iterable[str]) -> str:
    """Money cards as a player says them, by currency, highest first: "9 ducats" (one
    card), "a 5 and a 3 denar" (several of one currency), "2 ducats and 3 dirhams"."""
    groups: dict[str, list[int]] = {c: [] for c in CURRENCIES}
    for code in cards:
        groups[card_currency(code)].append(card_value(code))
    parts = []
    for currency, values in groups.items():
        values.sort(reverse=True)
        if len(values) == 1:
            parts.append(f"{values[0]} {currency}{'' if values[0] == 1 else 's'}")
        elif values:
            parts.append(_joined([f"{'an' if v == 8 else 'a'} {v}" for v in values])
                         + f" {currency}")
    return _joined(parts, ", and " if any(" and " in p for p in parts) else " and ")


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


def tile_words(tile: str, face: int | None = None, state: State | None = None) -> str:
    """A tile as a player says it: "a garden (8)"; a double-sided tile on ``face`` (or as
    it lies in ``state``), else by its id."""
    faces = TILES[tile].faces
    if face is None and len(faces) == 2 and state is not None and tile in state.faces:
        face = state.faces[tile]
    if face is None and len(faces) == 2:
        return tile
    f = faces[face or 0]
    return f"{WORDS.get(f.type, (f.type,))[0]} ({f.value})"


def _cell(at: list[int], state: State | None) -> str:
    """Where a cell is, from the start tile: "north of the fountain", "2 east and 1 north
    of the fountain"."""
    x, y = at
    start = "start tile"
    if state is not None and state.variant.start_tile == ALHAMBRA_START:
        start = "fountain"
    if (x, y) in _DIRECTIONS:
        return f"{_DIRECTIONS[x, y]} of the {start}"
    steps = [f"{abs(x)} {'east' if x > 0 else 'west'}"] if x else []
    if y:
        steps.append(f"{abs(y)} {'south' if y > 0 else 'north'}")
    return f"{' and '.join(steps)} of the {start}"


def describe(event: Event | Mapping[str, Any], names: list[str], neutral: str | None = None,
             state: State | None = None) -> str | None:
    """One line for an event worth telling a player, None for the others (card draws and
    refills show in the market and the display instead). ``neutral`` names Dirk or Juan
    (else the event's tiles tell); ``state``, if given, is the game at or after the event,
    for the faces of double-sided tiles and the name of the start tile."""
    e: Mapping[str, Any] = event
    kind = e["type"]
    neutral = neutral or (state.variant.neutral_name if state is not None else None) \
        or neutral_of(e) or "the neutral player"

    def who(seat: Any) -> str:
        if seat == "neutral" or seat is None:
            return neutral
        return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else str(seat)

    def tile(name: str, face: int | None = None) -> str:
        return tile_words(name, face if face is not None else e.get("face"), state)

    line = _line(e, kind, who, tile, state)
    if line is not None and e.get("timeout"):
        line += " (time ran out: the default move)"
    if line is not None and "move" in e and e.get("bot") and \
            not who(e.get("seat")).endswith(f"({e['bot']})"):  # "Bot 2 (greedy)" says it
        line += f" ({e['bot']} bot)"
    return line


def _line(e: Mapping[str, Any], kind: str, who: Any, tile: Any, state: State | None
          ) -> str | None:
    seat = who(e.get("seat"))
    if kind == "money_dealt" and "cards" in e:
        return f"{seat} was dealt {money_words(e['cards'])}: {e['total']} in all"
    if kind == "tile_returned":
        return f"{tile(e['tile'], 0)} has no moat and goes back into the bag"
    if kind == "turn_started":
        return f"{seat}'s turn"
    if kind == "seat_taken_over":
        why = "resigned" if e["reason"] == "resigned" else "let the time run out too often"
        return f"{seat} {why}: a {e['bot']} bot plays the seat from now on"
    if kind == "money_taken":
        return f"{seat} took {money_words(e['cards'])}"
    if kind == "tile_bought":
        extra = ", the exact price: another action" if e["exact"] else ""
        return f"{seat} bought {tile(e['tile'])} with {money_words(e['cards'])}{extra}"
    if kind == "actions_ended":
        return f"{seat} ended the turn's actions" if "move" in e else None
    if kind == "tile_placed":
        what = tile(e["tile"])
        if e.get("cards"):
            what += f", turned over for {money_words(e['cards'])},"
        if e["to"] == "city":
            return f"{seat} placed {what} {_cell(e['at'], state)}"
        if e["to"] == "reserve":
            return f"{seat} put {what} into the reserve"
        return f"{seat} gave {what} to {who('neutral')}"
    if kind == "redesigned":
        if e["to"] == "city":
            return (f"{seat} moved {tile(e['tile'])} from the reserve into the city, "
                    f"{_cell(e['at'], state)}")
        if e["to"] == "reserve":
            return f"{seat} moved {tile(e['tile'])} into the reserve"
        return f"{seat} swapped {tile(e['tile'])} for {tile(e['other'])} from the reserve"
    if kind == "deck_reshuffled":
        return "the discard is shuffled into a new money deck"
    if kind == "scoring_card_drawn":
        return f"the {ORDINALS[e['scoring']]} scoring card is drawn: scoring after this turn"
    if kind == "points_awarded":
        what = WORDS.get(e["building"], (None, e["building"]))[1] if e["building"] \
            else LINES.get(e["kind"], e["kind"])
        return f"{ORDINALS[e['scoring']]} scoring: {seat} got {e['points']} for {what}"
    if kind == "game_ending":
        return "the market cannot be refilled: the game ends"
    if kind == "space_resolved" and e["seat"] is None:
        return f"nobody holds the most money for market space {e['space']}: its tiles stay"
    if kind == "tile_awarded":
        return f"{seat} receives {tile(e['tile'])} from market space {e['space']}"
    if kind == "neutral_received":
        faces = e.get("faces") or [None] * len(e["tiles"])
        tiles = ", ".join(tile(t, f) for t, f in zip(e["tiles"], faces, strict=True))
        return f"{who('neutral')} receives {tiles}"
    if kind == "game_over":
        scores = ", ".join(f"{who(i)} {s}" for i, s in enumerate(e["scores"]))
        if e.get("neutral_score") is not None:
            scores += f", {who('neutral')} {e['neutral_score']}"
        won = " and ".join(who(w) for w in e["winners"])
        return f"game over: {scores}; {won} won"
    return None
