"""Game state and ``evolve``: the state is a left fold of the events over an empty game.

``evolve(state, event)`` applies one recorded fact to ``state`` in place and returns it.
It decides nothing and draws nothing at random: every outcome is in the event. It checks
that outcome against the state (the card drawn is the deck's top card, the cards dealt
are the next ones, a bag's new order holds the same tiles...) and raises ``LogError`` on a
damaged log instead of replaying it to another game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from . import events as ev
from .components import SCORING_CARDS, TILES, Face
from .errors import LogError, OptionError
from .events import SCHEMA, Event
from .grid import Grid
from .kinds import KINDS
from .variants import VARIANTS, Alhambra


class State:
    """Everything about one game. Change it only through ``evolve``."""

    __slots__ = (
        "variant_name", "seed", "options", "seats", "version", "deck", "discard", "display",
        "hands", "bags", "market", "faces", "marker", "grids", "reserves", "neutral",
        "scores", "neutral_score", "current", "phase", "can_act", "acted", "pending",
        "scorings_due", "scorings_done", "shuffles", "set_aside", "distribution", "winners",
        "turn", "schema", "bots", "left", "timeouts", "timeout_turns", "takeover_after",
        "takeover_bot",
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
        # S-2, seats played by bots: seat -> level; seat -> why a bot took it over
        self.bots: dict[int, str] = {}
        self.left: dict[int, str] = {}
        self.timeouts: list[int] = []  # per seat: turns in a row its time ran out
        self.timeout_turns: list[int] = []  # per seat: the last turn counted there
        self.takeover_after = 0  # timed-out turns in a row before a bot takes over (0: never)
        self.takeover_bot: str | None = None  # the level of that bot

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
        new.bots = dict(self.bots)
        new.left = dict(self.left)
        new.timeouts = list(self.timeouts)
        new.timeout_turns = list(self.timeout_turns)
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

class _Damaged(Exception):
    """An event the state does not allow; ``evolve`` turns it into a LogError."""


def _same_cards(a: list[str], b: list[str]) -> bool:
    return sorted(a) == sorted(b)


def _take_from_bag(s: State, tile: str, top: bool) -> None:
    """Remove ``tile`` from its bag, where it must be the next draw if ``top``."""
    bag = s.bags.get(TILES[tile].kind, [])
    if tile not in bag:
        raise _Damaged(f"{tile} is not in the bag")
    if top and bag[0] != tile:
        raise _Damaged(f"{tile} is drawn but the bag's top tile is {bag[0]}")
    bag.remove(tile)


def _check_face(s: State, tile: str, face: int | None) -> None:
    if face is not None:
        if face != s.faces.get(tile, 0):
            raise _Damaged(f"{tile} shows face {s.faces.get(tile, 0)}, " f"not {face}")


# A hand is a Counter; these two change it by plain dict operations (a log folds some
# 400 of them; Counter's own update and deletion are written in Python).
def _receive(hand: Counter[str], cards: list[str]) -> None:
    for c in cards:
        hand[c] = hand.get(c, 0) + 1


def _pay(s: State, seat: int, cards: list[str]) -> None:
    hand = s.hands[seat]
    for c in dict.fromkeys(cards):
        n, has = cards.count(c), hand.get(c, 0)
        if has < n:
            raise _Damaged(f"seat {seat} pays {n} x {c} but holds {has}")
    for c in cards:
        if hand[c] == 1:
            hand.pop(c)
        else:
            hand[c] -= 1
    s.discard.extend(cards)


def _game_created(s: State, e: ev.GameCreated) -> None:
    if s.version:
        raise _Damaged("a game is created only by the log's first event")
    if e["variant"] not in VARIANTS:
        raise _Damaged(f"unknown variant {e['variant']!r}")
    variant = VARIANTS[e["variant"]]
    schema = e.get("schema", 1)
    if schema not in range(1, SCHEMA + 1):
        raise _Damaged(f"unknown event schema {schema!r}")
    try:
        options = variant.check(len(e["seats"]), e["options"], schema)
    except OptionError as exc:
        raise _Damaged(str(exc)) from None
    s.variant_name = variant.name
    s.seed = e["seed"]
    s.schema = schema
    s.options = options
    s.seats = list(e["seats"])
    n = len(s.seats)
    s.hands = [Counter() for _ in range(n)]
    s.grids = [variant.new_grid() for _ in range(n)]
    s.reserves = [[] for _ in range(n)]
    s.scores = [0] * n
    bots = e.get("bots") or [None] * n
    if len(bots) != n:
        raise _Damaged(f"{len(bots)} bot levels for {n} seats")
    s.bots = {i: level for i, level in enumerate(bots) if level}
    s.timeouts = [0] * n
    s.timeout_turns = [0] * n
    s.takeover_after = e.get("takeover_after_timeouts", 0)
    s.takeover_bot = e.get("takeover_bot")


def _bag_filled(s: State, e: ev.BagFilled) -> None:
    kind = e["kind"]
    if kind not in s.variant.kinds or kind in s.bags:
        raise _Damaged(f"no bag of {kind!r} to fill")
    if not _same_cards(e["tiles"], s.variant.bag(kind)):
        raise _Damaged(f"the {kind} bag holds other tiles than the game's")
    s.bags[kind] = list(e["tiles"])


def _tile_returned(s: State, e: ev.TileReturned) -> None:
    bag = s.bags.get(e["kind"], [])
    if not bag or bag[0] != e["tile"]:
        raise _Damaged(f"{e['tile']} is not on top of the bag")
    if s.variant.kept_at_setup(e["tile"]):
        raise _Damaged(f"{e['tile']} need not go back (C-1)")
    if not _same_cards(e["tiles"], bag):
        raise _Damaged("the bag's new order holds other tiles")
    s.bags[e["kind"]] = list(e["tiles"])


def _market_refilled(s: State, e: ev.MarketRefilled) -> None:
    tile = e["tile"]
    if not 1 <= e["space"] <= 4:
        raise _Damaged(f"there is no market space {e['space']}")
    face = KINDS[TILES[tile].kind].refill_face(s.marker)
    if e.get("face") != face:
        raise _Damaged(f"{tile} comes up on face {face}, not {e.get('face')}")
    # Schema 1 took a tile with a moat from below the top at setup (C-1).
    _take_from_bag(s, tile, top=s.schema > 1 or s.phase != "setup")
    s.market[e["space"] - 1].append(tile)
    if face is not None:
        s.faces[tile] = face


def _marker_switched(s: State, e: ev.MarkerSwitched) -> None:
    if e["marker"] != 1 - s.marker:
        raise _Damaged(f"the marker shows {s.marker} already")
    s.marker = e["marker"]


def _neutral_received(s: State, e: ev.NeutralReceived) -> None:
    tiles = e["tiles"]
    kind = KINDS[s.variant.kinds[-1]]
    if not s.has_neutral:
        raise _Damaged("there is no neutral collector")
    if tiles != s.bags[kind.name][: len(tiles)]:
        raise _Damaged("the tiles are not the bag's next ones")
    faces = kind.neutral_faces(s.scorings_done, s.marker, len(tiles))
    if e.get("faces") != faces:
        raise _Damaged(f"the tiles lie on faces {faces}, not {e.get('faces')}")
    del s.bags[kind.name][: len(tiles)]
    s.neutral.extend(tiles)
    for tile, face in zip(tiles, faces or (), strict=False):
        s.faces[tile] = face


def _money_shuffled(s: State, e: ev.MoneyShuffled) -> None:
    deck = s.variant.money_deck(s.players, s.options)
    if not _same_cards(e["deck"], deck):
        raise _Damaged("the money deck holds other cards than the game's")
    s.deck = list(e["deck"])


def _money_dealt(s: State, e: ev.MoneyDealt) -> None:
    cards = s.deck[: e["count"]]
    if e["cards"] != cards:
        raise _Damaged(f"the cards dealt are {cards}, not {e['cards']}")
    del s.deck[: e["count"]]
    _receive(s.hands[e["seat"]], cards)


def _display_refilled(s: State, e: ev.DisplayRefilled) -> None:
    cards = s.deck[: len(e["cards"])]
    if e["cards"] != cards:
        raise _Damaged(f"the cards drawn are {cards}, not {e['cards']}")
    s.display.extend(cards)
    del s.deck[: len(cards)]


def _deck_stacked(s: State, e: ev.DeckStacked) -> None:
    if not _same_cards(e["deck"] + e["set_aside"], s.deck + list(SCORING_CARDS)):
        raise _Damaged("the stacked deck holds other cards than the deck and the scoring cards")
    s.deck = list(e["deck"])
    s.set_aside = list(e["set_aside"])


def _deck_reshuffled(s: State, e: ev.DeckReshuffled) -> None:
    aside = e.get("set_aside", [])
    if s.deck:
        raise _Damaged("the deck is not empty")
    if not _same_cards(e["deck"] + aside, s.discard + s.set_aside):
        raise _Damaged("the new deck holds other cards than the discard")
    s.deck = list(e["deck"])
    s.discard.clear()
    s.shuffles += 1
    s.set_aside = list(aside)


def _card_drawn(s: State, e: ev.CardDrawn) -> None:
    if not s.deck or s.deck[0] != e["card"] or e["card"] in SCORING_CARDS:
        top = s.deck[0] if s.deck else "missing"
        raise _Damaged(f"the deck's top card is {top}, not {e['card']}")
    s.display.append(s.deck.pop(0))


def _scoring_card_drawn(s: State, e: ev.ScoringCardDrawn) -> None:
    if not s.deck or s.deck[0] != e["card"] or e["card"] not in SCORING_CARDS:
        top = s.deck[0] if s.deck else "missing"
        raise _Damaged(f"the deck's top card is {top}, not {e['card']}")
    due = s.scorings_done + len(s.scorings_due) + 1
    if e["scoring"] != due:
        raise _Damaged(f"the next scoring is {due}, not {e['scoring']}")
    s.deck.pop(0)
    s.scorings_due.append(e["scoring"])


def _turn_started(s: State, e: ev.TurnStarted) -> None:
    if not 0 <= e["seat"] < len(s.seats):
        raise _Damaged(f"there is no seat {e['seat']}")
    s.current = e["seat"]
    s.turn += 1
    s.phase = "action"
    s.can_act = True
    s.acted = False
    s.pending = []


def _seat_taken_over(s: State, e: ev.SeatTakenOver) -> None:
    seat = e["seat"]
    if not 0 <= seat < s.players or seat in s.bots or s.phase == "over":
        raise _Damaged(f"seat {seat} cannot be taken over")
    s.bots[seat] = e["bot"]
    s.left[seat] = e["reason"]


def _count_timeout(s: State, e: Event) -> None:
    """S-2: a move's first event (before it is applied): count the seat's turns in a row
    whose time ran out (several default moves of one turn count once)."""
    seat = e.get("seat")
    if not isinstance(seat, int) or not 0 <= seat < len(s.timeouts):
        return
    if not e.get("timeout"):
        s.timeouts[seat] = 0
    elif s.timeout_turns[seat] != s.turn:
        s.timeouts[seat] += 1
        s.timeout_turns[seat] = s.turn


def _end_actions(s: State) -> None:
    s.can_act = False
    s.phase = "placement"


def _money_taken(s: State, e: ev.MoneyTaken) -> None:
    positions, display = e["positions"], s.display
    size = len(display)
    if not all(1 <= p <= size for p in positions):
        raise _Damaged("no card at a position taken")
    cards = [display[p - 1] for p in positions]
    if e["cards"] != cards:
        raise _Damaged(f"the display holds {cards} there, not {e['cards']}")
    for pos in sorted(positions, reverse=True):
        del s.display[pos - 1]
    _receive(s.hands[e["seat"]], cards)
    s.acted = True
    _end_actions(s)


def _tile_bought(s: State, e: ev.TileBought) -> None:
    tile = e["tile"]
    space = s.market[e["space"] - 1]
    if tile not in space:
        raise _Damaged(f"{tile} is not on market space {e['space']}")
    _check_face(s, tile, e.get("face"))
    _pay(s, e["seat"], e["cards"])
    space.remove(tile)
    s.pending.append(tile)
    s.acted = True
    if not e["exact"]:
        _end_actions(s)


def _actions_ended(s: State, e: ev.ActionsEnded) -> None:
    _end_actions(s)


def _tile_placed(s: State, e: ev.TilePlaced) -> None:
    seat, tile, to = e["seat"], e["tile"], e["to"]
    if tile not in s.pending:
        raise _Damaged(f"{tile} is not waiting to be placed")
    if "at" in e:
        at = (e["at"][0], e["at"][1])
        if at in s.grids[seat].cells:
            raise _Damaged(f"cell {at} is not empty")
    if e.get("cards"):
        _pay(s, seat, e["cards"])
    s.pending.remove(tile)
    if "face" in e:
        s.faces[tile] = e["face"]
    if to == "city":
        s.grids[seat].put(tile, at)
    elif to == "reserve":
        s.reserves[seat].append(tile)
    else:
        s.neutral.append(tile)


def _redesigned(s: State, e: ev.Redesigned) -> None:
    seat, tile, to = e["seat"], e["tile"], e["to"]
    grid, reserve = s.grids[seat], s.reserves[seat]
    if to == "city":
        at = (e["at"][0], e["at"][1])
        if tile not in reserve or at in grid.cells:
            raise _Damaged(f"{tile} cannot go to {at}")
        reserve.remove(tile)
        grid.put(tile, at)
    elif to == "reserve":
        if tile not in grid.where:
            raise _Damaged(f"{tile} is not in the city")
        grid.take(tile)
        reserve.append(tile)
    else:
        other = e["other"]
        if tile not in grid.where or other not in reserve:
            raise _Damaged(f"{tile} and {other} cannot swap")
        pos = grid.take(tile)
        reserve.remove(other)
        grid.put(other, pos)
        reserve.append(tile)
    s.acted = True
    _end_actions(s)


def _points_awarded(s: State, e: ev.PointsAwarded) -> None:
    if e["seat"] == "neutral":
        s.neutral_score += e["points"]
    else:
        s.scores[e["seat"]] += e["points"]


def _scoring_done(s: State, e: ev.ScoringDone) -> None:
    s.scorings_done = e["scoring"]
    if e["scoring"] in s.scorings_due:
        s.scorings_due.remove(e["scoring"])


def _game_ending(s: State, e: ev.GameEnding) -> None:
    s.distribution = list(e["spaces"])
    s.phase = "distribution"
    s.pending = []


def _tile_awarded(s: State, e: ev.TileAwarded) -> None:
    space = s.market[e["space"] - 1]
    if e["tile"] not in space:
        raise _Damaged(f"{e['tile']} is not on market space {e['space']}")
    _check_face(s, e["tile"], e.get("face"))
    space.remove(e["tile"])
    s.pending.append(e["tile"])
    s.current = e["seat"]


def _space_resolved(s: State, e: ev.SpaceResolved) -> None:
    if e["space"] not in s.distribution:
        raise _Damaged(f"space {e['space']} is not being given out")
    s.distribution.remove(e["space"])


def _game_over(s: State, e: ev.GameOver) -> None:
    if e["scores"] != s.scores:
        raise _Damaged(f"the scores are {s.scores}, not {e['scores']}")
    s.phase = "over"
    s.winners = list(e["winners"])
    s.pending = []


def _vacation(s: State, e: Any) -> None:
    """A seat's vacation: nothing in the rules changes (the service's clock reads it)."""
    if not 0 <= e["seat"] < len(s.seats):
        raise _Damaged(f"no seat {e['seat']}")


EVOLVE: dict[str, Callable[[State, Any], None]] = {
    "game_created": _game_created,
    "bag_filled": _bag_filled,
    "tile_returned": _tile_returned,
    "market_refilled": _market_refilled,
    "marker_switched": _marker_switched,
    "neutral_received": _neutral_received,
    "money_shuffled": _money_shuffled,
    "money_dealt": _money_dealt,
    "display_refilled": _display_refilled,
    "deck_stacked": _deck_stacked,
    "deck_reshuffled": _deck_reshuffled,
    "card_drawn": _card_drawn,
    "scoring_card_drawn": _scoring_card_drawn,
    "turn_started": _turn_started,
    "seat_taken_over": _seat_taken_over,
    "vacation": _vacation,
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
    """Apply one event to ``state`` (in place) and return it; LogError if the state does
    not allow it (the state is then unusable)."""
    kind = event.get("type")
    handler = EVOLVE.get(kind) if isinstance(kind, str) else None
    try:
        if handler is None:
            raise _Damaged(f"unknown event type {kind!r}")
        if not state.variant_name and kind != "game_created":
            raise _Damaged("a log begins with game_created")
        if "move" in event:
            _count_timeout(state, event)
        handler(state, event)
    except _Damaged as exc:
        raise LogError(state.version + 1, str(kind), str(exc)) from None
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise LogError(state.version + 1, str(kind), f"malformed event: {exc!r}") from exc
    state.version += 1
    return state


def replay(events: list[Event]) -> State:
    """The state after ``events``: a fold of ``evolve`` over a new game."""
    state = State()
    for event in events:
        evolve(state, event)
    return state
