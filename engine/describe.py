"""What events mean to people and to the service's clocks, said once, here.

``describe(event, names, neutral)`` is the line a player reads for an event (in mails, on
the web page, in the API's event lists); ``clock_started(events)`` tells whether a batch of
events hands a seat its turn (or a tile to place), so that its deadline starts again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .events import Event

#: Events that give a seat something to do: its clock starts (again).
CLOCK_EVENTS = ("turn_started", "tile_awarded")


def clock_started(events: Iterable[Event]) -> bool:
    """Do ``events`` hand the turn (or a tile received at the game end) to a seat?"""
    return any(e["type"] in CLOCK_EVENTS for e in events)


def describe(event: Event, names: list[str], neutral: str | None = None) -> str | None:
    """One line for an event worth telling a player, None for the others (card draws and
    refills show in the market and the display instead). ``neutral`` is Dirk's or Juan's
    name in a two-player game."""
    kind = event["type"]

    def who(seat: Any) -> str:
        if seat == "neutral" or seat is None:
            return neutral or "the neutral player"
        return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else str(seat)

    if "move" in event:
        line = f"{who(event.get('seat'))}: {event['move']}"
        return line + " (time ran out: the default move)" if event.get("timeout") else line
    if kind == "turn_started":
        return f"{who(event['seat'])}'s turn"
    if kind == "scoring_card_drawn":
        return f"scoring card {event['scoring']} drawn"
    if kind == "points_awarded":
        what = " ".join(x for x in (event.get("building"), event.get("kind")) if x)
        return f"scoring {event['scoring']}: {who(event['seat'])} +{event['points']} ({what})"
    if kind == "game_ending":
        return "the market cannot be refilled: the game ends"
    if kind == "tile_awarded":
        return f"{who(event['seat'])} receives {event['tile']} from market space {event['space']}"
    if kind == "neutral_received":
        return f"{neutral or 'the neutral player'} receives {', '.join(event['tiles'])}"
    if kind == "game_over":
        return "game over"
    return None
