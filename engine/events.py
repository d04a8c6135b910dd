"""The events of a game log, each type declared once, and the version of their schema.

A game's log is a list of events, each a plain JSON object with a ``type``; the classes
below (TypedDicts) say which fields each type has, so code that builds or reads events
can be checked. Events are facts: every random outcome (the tile or card drawn, the order
of a shuffle) is in the event that records it, so a log replays without the generator.
Seats are 0-based indexes into ``game_created.seats``; ``"neutral"`` is Dirk or Juan.

The first event a move causes carries the move's notation (``move``) and, when the
service played it for a seat whose time ran out, ``timeout: true`` (docs/rules.md Part S),
and when a bot played it, ``bot``: the bot's level (S-2).

Seats played by bots (S-2): ``game_created`` may name the seats created as bots
(``bots``) and the takeover rule (``takeover_after_timeouts``, ``takeover_bot``);
``seat_taken_over`` records a seat that a bot plays from then on. A log without these
fields has no bots and no takeover (they are optional: no schema change).

``SCHEMA`` is the version of the event shapes and of the setup rules that produce them;
``game_created`` records it with the engine version, and a log without it is version 1.

Schema versions:
- 1: engine 0.1.0. The combined game used both money decks (216 cards); a Granada tile
  without a moat drawn at setup stayed on top of the bag and the next tile with a moat
  was taken from below it.
- 2: ``game_created`` records ``schema`` and ``engine_version``; the combined game uses one
  money deck unless ``both_money_decks`` (Decision C-1a); a moatless Granada tile drawn at
  setup goes back into the bag at a random place (``tile_returned``, C-1);
  ``tile_bought`` and ``tile_awarded`` name the face of a double-sided tile.
(No ``from __future__ import annotations`` here: TypedDict must see ``NotRequired``.)
"""

from collections.abc import Callable
from typing import Any, Literal, NotRequired, TypedDict, get_args, get_type_hints

SCHEMA = 2

Seat = int
Participant = int | Literal["neutral"]
AwardKind = Literal["majority", "wall", "moat", "combined"]
PlaceTarget = Literal["city", "reserve", "neutral"]
RedesignTarget = Literal["city", "reserve", "swap"]
TakeoverReason = Literal["resigned", "abandoned"]


# -- setup -------------------------------------------------------------------------------

class GameCreated(TypedDict):
    """The first event: the variant, the seed of every draw, the seats and the options
    (with their defaults filled in)."""

    type: Literal["game_created"]
    variant: str
    seed: int
    seats: list[str]
    options: dict[str, Any]
    schema: NotRequired[int]  # missing: 1
    engine_version: NotRequired[str]  # the engine that set the game up
    bots: NotRequired[list[str | None]]  # per seat: the level of a bot seat, None a person
    takeover_after_timeouts: NotRequired[int]  # S-2: timed-out turns in a row (0: never)
    takeover_bot: NotRequired[str]  # S-2: the level of the bot that takes a seat over


class BagFilled(TypedDict):
    """A bag of one kind of tile (``alhambra``/``granada``), shuffled: ``tiles`` in the
    order they will be drawn (secret, A-7)."""

    type: Literal["bag_filled"]
    kind: str
    tiles: list[str]


class TileReturned(TypedDict):
    """C-1: ``tile``, drawn from the top of the bag at setup, has no moat and goes back
    in at a random place; ``tiles`` is the bag's new order (secret)."""

    type: Literal["tile_returned"]
    kind: str
    tile: str
    tiles: list[str]


class MarketRefilled(TypedDict):
    """The top tile of its bag goes onto market space ``space`` (1-4), on ``face``
    (0 front, 1 back) if it has two (G-3)."""

    type: Literal["market_refilled"]
    space: int
    tile: str
    face: NotRequired[int]


class MarkerSwitched(TypedDict):
    """Granada's black marker now shows ``marker`` (0 even/front, 1 odd/back)."""

    type: Literal["marker_switched"]
    marker: int


class NeutralReceived(TypedDict):
    """Dirk or Juan draws ``tiles`` from the top of the bag, lying on ``faces``."""

    type: Literal["neutral_received"]
    tiles: list[str]
    faces: NotRequired[list[int]]


class MoneyShuffled(TypedDict):
    """The money deck, shuffled, top card first (secret)."""

    type: Literal["money_shuffled"]
    deck: list[str]


class MoneyDealt(TypedDict):
    """A-2 step 4: ``seat`` gets the top ``count`` cards, face up (public, Part S)."""

    type: Literal["money_dealt"]
    seat: Seat
    count: int
    total: int
    cards: list[str]


class DisplayRefilled(TypedDict):
    """A-2 step 6: the top cards of the deck become the money display."""

    type: Literal["display_refilled"]
    cards: list[str]


class DeckStacked(TypedDict):
    """A-2 step 7: the rest of the deck in five piles with the scoring cards shuffled in
    (secret); ``set_aside`` holds the scoring cards kept out until a reshuffle (C-1)."""

    type: Literal["deck_stacked"]
    deck: list[str]
    set_aside: list[str]


# -- the end of a turn -------------------------------------------------------------------

class DeckReshuffled(TypedDict):
    """A-3.4 step 2: the discard, shuffled, is the new deck (secret), with any scoring
    card set aside shuffled in (C-1)."""

    type: Literal["deck_reshuffled"]
    deck: list[str]
    set_aside: NotRequired[list[str]]


class CardDrawn(TypedDict):
    """The top card of the deck goes onto the money display."""

    type: Literal["card_drawn"]
    card: str


class ScoringCardDrawn(TypedDict):
    """The top card of the deck is scoring card ``card``: scoring ``scoring`` (1 or 2)
    comes at the end of this turn (A-3.4 step 4)."""

    type: Literal["scoring_card_drawn"]
    card: str
    scoring: int


class TurnStarted(TypedDict):
    """``seat`` is to play; its clock starts."""

    type: Literal["turn_started"]
    seat: Seat


class SeatTakenOver(TypedDict):
    """S-2: a bot of level ``bot`` plays ``seat`` from now on; ``reason``: the seat
    ``resigned`` or ``abandoned`` the game (its time ran out too often in a row)."""

    type: Literal["seat_taken_over"]
    seat: Seat
    bot: str
    reason: TakeoverReason


class Vacation(TypedDict):
    """The player of ``seat`` is on vacation from ``since`` until ``until`` (ISO 8601
    UTC; both null: a vacation called off). Nothing in the rules changes: the service's
    clock stops the seat's time during it (service/clock.py). A later one for the seat
    replaces what had not begun of the earlier one."""

    type: Literal["vacation"]
    seat: Seat
    since: str | None
    until: str | None


# -- moves -------------------------------------------------------------------------------

class MoveFields(TypedDict, total=False):
    """Carried by the first event of each move."""

    move: str  # the move in notation (engine/NOTATION.md)
    timeout: bool  # played by the service when the seat's time ran out
    bot: str  # played by a bot of this level (S-2)


class MoneyTaken(MoveFields):
    """A-3.1: ``seat`` takes the display cards at ``positions`` (1-based)."""

    type: Literal["money_taken"]
    seat: Seat
    positions: list[int]
    cards: list[str]


class TileBought(MoveFields):
    """A-3.2: ``seat`` buys ``tile`` from ``space`` (showing ``face`` if it has two),
    paying ``cards``; ``exact`` payments allow another action."""

    type: Literal["tile_bought"]
    seat: Seat
    space: int
    tile: str
    cards: list[str]
    exact: bool
    face: NotRequired[int]


class ActionsEnded(MoveFields):
    """``seat``'s actions are over: by ``end`` (a move), or because it placed a tile."""

    type: Literal["actions_ended"]
    seat: Seat


class TilePlaced(MoveFields):
    """A-3.4 step 1 (or A-6 step 3): ``seat`` puts a bought or received ``tile`` ``to``
    ``city`` (at cell ``at``), ``reserve`` or ``neutral``; ``face`` if turned over,
    ``cards`` if the turn was paid for (G-3)."""

    type: Literal["tile_placed"]
    seat: Seat
    tile: str
    to: PlaceTarget
    at: NotRequired[list[int]]
    face: NotRequired[int]
    cards: NotRequired[list[str]]


class Redesigned(MoveFields):
    """A-3.3: ``seat`` moves ``tile`` from the reserve ``to`` ``city`` (at ``at``), to the
    ``reserve``, or ``swap``s it (in the city) with reserve tile ``other``."""

    type: Literal["redesigned"]
    seat: Seat
    tile: str
    to: RedesignTarget
    at: NotRequired[list[int]]
    other: NotRequired[str]


# -- scorings and the game end -----------------------------------------------------------

class PointsAwarded(TypedDict):
    """Scoring ``scoring`` gives ``points`` to ``seat`` for a ``majority`` of
    ``building``, or for its longest ``wall``, ``moat`` or ``combined`` line."""

    type: Literal["points_awarded"]
    scoring: int
    seat: Participant
    kind: AwardKind
    building: str | None
    points: int


class ScoringDone(TypedDict):
    """Scoring ``scoring`` (1-3) is complete."""

    type: Literal["scoring_done"]
    scoring: int


class GameEnding(TypedDict):
    """A-6: the market cannot be refilled; the tiles of ``spaces`` are given out."""

    type: Literal["game_ending"]
    spaces: list[int]


class SpaceResolved(TypedDict):
    """A-6 step 2: ``seat`` holds the most money of ``space``'s currency (None: a tie or
    nobody, the tiles stay)."""

    type: Literal["space_resolved"]
    space: int
    seat: Seat | None


class TileAwarded(TypedDict):
    """A-6 step 2: ``seat`` receives ``tile`` from ``space`` and places it at once."""

    type: Literal["tile_awarded"]
    space: int
    seat: Seat
    tile: str
    face: NotRequired[int]


class GameOver(TypedDict):
    """The final scores; ``winners`` share the victory (the neutral cannot win)."""

    type: Literal["game_over"]
    scores: list[int]
    neutral_score: int | None
    winners: list[Seat]


MoveEvent = MoneyTaken | TileBought | ActionsEnded | TilePlaced | Redesigned
Event = (GameCreated | BagFilled | TileReturned | MarketRefilled | MarkerSwitched
         | NeutralReceived | MoneyShuffled | MoneyDealt | DisplayRefilled | DeckStacked
         | DeckReshuffled | CardDrawn | ScoringCardDrawn | TurnStarted | SeatTakenOver
         | Vacation | MoneyTaken
         | TileBought | ActionsEnded | TilePlaced | Redesigned | PointsAwarded | ScoringDone
         | GameEnding | SpaceResolved | TileAwarded | GameOver)

#: Every event type, by its ``type``.
EVENT_TYPES: dict[str, type] = {
    get_args(get_type_hints(cls)["type"])[0]: cls
    for cls in (GameCreated, BagFilled, TileReturned, MarketRefilled, MarkerSwitched,
                NeutralReceived, MoneyShuffled, MoneyDealt, DisplayRefilled, DeckStacked,
                DeckReshuffled, CardDrawn, ScoringCardDrawn, TurnStarted, SeatTakenOver,
                Vacation, MoneyTaken,
                TileBought, ActionsEnded, TilePlaced, Redesigned, PointsAwarded, ScoringDone,
                GameEnding, SpaceResolved, TileAwarded, GameOver)
}

#: Fields that only the seed's owner may see: replaced by their ``size`` (A-7).
SECRET_FIELDS = {"bag_filled": "tiles", "tile_returned": "tiles", "money_shuffled": "deck",
                 "deck_stacked": "deck", "deck_reshuffled": "deck"}

Emit = Callable[[Event], None]
