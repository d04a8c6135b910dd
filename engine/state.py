"""Game state and ``evolve``: the state is a left fold of the events over an empty game.

``evolve(state, event)`` applies one recorded fact to ``state`` in place and returns it.
It decides nothing and draws nothing at random: every outcome is in the event.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from .components import TILES, Face
from .events import SCHEMA, Event
from .grid import Grid
from .variants import VARIANTS, Alhambra


class State:
    """Everything about one game. Change it only through ``evolve``."""

    __slots__ = (
        "variant_name", "seed", "options", "seats", "version", "deck", "discard", "display",
        "hands", "bags", "market", "faces", "marker", "grids", "reserves", "neutral",
        "scores", "neutral_score", "current", "phase", "can_act", "acted", "pending",
        "scorings_due", "scorings_done", "shuffles", "set_aside", "distribution", "winners",
        "turn", "schema",
    )

    def __init__(self) -> None:
        self.variant_name = ""  # a key of VARIANTS, set by game_created
        self.seed: int = 0
        self.options: dict[str, Any] = {}
        self.seats: list[str] = []
        self.version = 0
        self.deck: list[str] = []  # money deck, top first
        self.discard: list[str] = []
        self.display: list[str] = []
        self.hands: list[Counter[str]] = []
        self.bags: dict[str, list[str]] = {}  # per tile kind, next draw first
        self.market: list[list[str]] = [[], [], [], []]  # spaces 1-4
        self.faces: dict[str, int] = {}  # face up of each double-sided tile out of the bag
        self.marker = 0  # Granada's black marker: 0 even (front) side, 1 odd (back) side
        self.grids: list[Grid] = []
        self.reserves: list[list[str]] = []
        self.neutral: list[str] = []  # Dirk's or Juan's tiles
        self.scores: list[int] = []
        self.neutral_score = 0
        self.current = 0
        self.phase = "setup"  # setup, action, placement, distribution, over
        self.can_act = False
        self.acted = False
        self.pending: list[str] = []  # tiles bought (or received) and not yet placed
        self.scorings_due: list[int] = []
        self.scorings_done = 0
        self.shuffles = 0
        self.set_aside: list[str] = []  # scoring cards kept out of the deck
        self.distribution: list[int] = []  # game end: spaces still to resolve
        self.winners: list[int] = []
        self.turn = 0  # the turn number players count: 1 for the first turn
        self.schema = SCHEMA  # the event schema of the game's log (events.py)

    @property
    def variant(self) -> Alhambra:
        """The variant's rules: ``VARIANTS[state.variant_name]``."""
        return VARIANTS[self.variant_name]

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def has_neutral(self) -> bool:
        return len(self.seats) == 2

    def copy(self) -> State:
        new = State.__new__(State)
        for name in State.__slots__:
            setattr(new, name, getattr(self, name))
        new.deck = list(self.deck)
        new.discard = list(self.discard)
        new.display = list(self.display)
        new.hands = [Counter(h) for h in self.hands]
        new.bags = {k: list(v) for k, v in self.bags.items()}
        new.market = [list(s) for s in self.market]
        new.faces = dict(self.faces)
        new.grids = [g.copy() for g in self.grids]
        new.reserves = [list(r) for r in self.reserves]
        new.neutral = list(self.neutral)
        new.scores = list(self.scores)
        new.pending = list(self.pending)
        new.scorings_due = list(self.scorings_due)
        new.set_aside = list(self.set_aside)
        new.distribution = list(self.distribution)
        new.winners = list(self.winners)
        return new

    def face(self, tile: str) -> Face:
        """The face of ``tile`` that is up now."""
        return TILES[tile].faces[self.faces.get(tile, 0)]

    def space_of(self, tile: str) -> int | None:
        for i, space in enumerate(self.market):
            if tile in space:
                return i + 1
        return None


# -- evolve ------------------------------------------------------------------------------

def _game_created(s: State, e: Event) -> None:
    variant = VARIANTS[e["variant"]]
    s.variant_name = variant.name
    s.seed = e["seed"]
    s.schema = e.get("schema", 1)
    s.options = {**variant.defaults(s.schema), **e["options"]}
    s.seats = list(e["seats"])
    n = len(s.seats)
    s.hands = [Counter() for _ in range(n)]
    s.grids = [variant.new_grid() for _ in range(n)]
    s.reserves = [[] for _ in range(n)]
    s.scores = [0] * n


def _pay(hand: Counter[str], cards: list[str]) -> None:
    for c in cards:
        if hand[c] == 1:
            del hand[c]
        else:
            hand[c] -= 1


def _money_shuffled(s: State, e: Event) -> None:
    s.deck = list(e["deck"])


def _bag_filled(s: State, e: Event) -> None:
    s.bags[e["kind"]] = list(e["tiles"])


def _tile_returned(s: State, e: Event) -> None:
    s.bags[e["kind"]] = list(e["tiles"])


def _market_refilled(s: State, e: Event) -> None:
    tile = e["tile"]
    s.bags[TILES[tile].kind].remove(tile)
    s.market[e["space"] - 1].append(tile)
    if "face" in e:
        s.faces[tile] = e["face"]


def _marker_switched(s: State, e: Event) -> None:
    s.marker = e["marker"]


def _neutral_received(s: State, e: Event) -> None:
    for tile in e["tiles"]:
        s.bags[TILES[tile].kind].remove(tile)
        s.neutral.append(tile)
    for tile, face in zip(e["tiles"], e.get("faces", ()), strict=False):
        s.faces[tile] = face


def _money_dealt(s: State, e: Event) -> None:
    cards = s.deck[: e["count"]]
    del s.deck[: e["count"]]
    s.hands[e["seat"]].update(cards)


def _display_refilled(s: State, e: Event) -> None:
    s.display.extend(s.deck[: len(e["cards"])])
    del s.deck[: len(e["cards"])]


def _deck_stacked(s: State, e: Event) -> None:
    s.deck = list(e["deck"])
    s.set_aside = list(e.get("set_aside", ()))


def _deck_reshuffled(s: State, e: Event) -> None:
    s.deck = list(e["deck"])
    s.discard.clear()
    s.shuffles += 1
    s.set_aside = list(e.get("set_aside", ()))


def _card_drawn(s: State, e: Event) -> None:
    s.display.append(s.deck.pop(0))


def _scoring_card_drawn(s: State, e: Event) -> None:
    s.deck.pop(0)
    s.scorings_due.append(e["scoring"])


def _turn_started(s: State, e: Event) -> None:
    s.current = e["seat"]
    s.turn += 1
    s.phase = "action"
    s.can_act = True
    s.acted = False
    s.pending = []


def _end_actions(s: State) -> None:
    s.can_act = False
    s.phase = "placement"


def _money_taken(s: State, e: Event) -> None:
    for pos in sorted(e["positions"], reverse=True):
        del s.display[pos - 1]
    s.hands[e["seat"]].update(e["cards"])
    s.acted = True
    _end_actions(s)


def _tile_bought(s: State, e: Event) -> None:
    tile = e["tile"]
    s.market[e["space"] - 1].remove(tile)
    s.pending.append(tile)
    _pay(s.hands[e["seat"]], e["cards"])
    s.discard.extend(e["cards"])
    s.acted = True
    if not e["exact"]:
        _end_actions(s)


def _actions_ended(s: State, e: Event) -> None:
    _end_actions(s)


def _tile_placed(s: State, e: Event) -> None:
    seat, tile = e["seat"], e["tile"]
    s.pending.remove(tile)
    if "face" in e:
        s.faces[tile] = e["face"]
    if e.get("cards"):
        _pay(s.hands[seat], e["cards"])
        s.discard.extend(e["cards"])
    to = e["to"]
    if to == "city":
        s.grids[seat].put(tile, tuple(e["at"]))
    elif to == "reserve":
        s.reserves[seat].append(tile)
    else:
        s.neutral.append(tile)


def _redesigned(s: State, e: Event) -> None:
    seat, tile, to = e["seat"], e["tile"], e["to"]
    grid, reserve = s.grids[seat], s.reserves[seat]
    if to == "city":
        reserve.remove(tile)
        grid.put(tile, tuple(e["at"]))
    elif to == "reserve":
        grid.take(tile)
        reserve.append(tile)
    else:
        pos = grid.take(tile)
        reserve.remove(e["other"])
        grid.put(e["other"], pos)
        reserve.append(tile)
    s.acted = True
    _end_actions(s)


def _points_awarded(s: State, e: Event) -> None:
    if e["seat"] == "neutral":
        s.neutral_score += e["points"]
    else:
        s.scores[e["seat"]] += e["points"]


def _scoring_done(s: State, e: Event) -> None:
    s.scorings_done = e["scoring"]
    if e["scoring"] in s.scorings_due:
        s.scorings_due.remove(e["scoring"])


def _game_ending(s: State, e: Event) -> None:
    s.distribution = list(e["spaces"])
    s.phase = "distribution"
    s.pending = []


def _tile_awarded(s: State, e: Event) -> None:
    s.market[e["space"] - 1].remove(e["tile"])
    s.pending.append(e["tile"])
    s.current = e["seat"]


def _space_resolved(s: State, e: Event) -> None:
    s.distribution.remove(e["space"])


def _game_over(s: State, e: Event) -> None:
    s.phase = "over"
    s.winners = list(e["winners"])
    s.pending = []


EVOLVE: dict[str, Callable[[State, Event], None]] = {
    "game_created": _game_created,
    "money_shuffled": _money_shuffled,
    "bag_filled": _bag_filled,
    "tile_returned": _tile_returned,
    "market_refilled": _market_refilled,
    "marker_switched": _marker_switched,
    "neutral_received": _neutral_received,
    "money_dealt": _money_dealt,
    "display_refilled": _display_refilled,
    "deck_stacked": _deck_stacked,
    "deck_reshuffled": _deck_reshuffled,
    "card_drawn": _card_drawn,
    "scoring_card_drawn": _scoring_card_drawn,
    "turn_started": _turn_started,
    "money_taken": _money_taken,
    "tile_bought": _tile_bought,
    "actions_ended": _actions_ended,
    "tile_placed": _tile_placed,
    "redesigned": _redesigned,
    "points_awarded": _points_awarded,
    "scoring_done": _scoring_done,
    "game_ending": _game_ending,
    "tile_awarded": _tile_awarded,
    "space_resolved": _space_resolved,
    "game_over": _game_over,
}


def evolve(state: State, event: Event) -> State:
    """Apply one event to ``state`` (in place) and return it."""
    EVOLVE[event["type"]](state, event)
    state.version += 1
    return state


def replay(events: list[Event]) -> State:
    """The state after ``events``: a fold of ``evolve`` over a new game."""
    state = State()
    for event in events:
        evolve(state, event)
    return state
