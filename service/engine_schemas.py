"""Schemas of what the engine shows clients: the view of a game, its tiles, the events
and the legal moves (for the OpenAPI document and generated clients).

The engine owns these shapes and may add members: the schemas name every member known
today, allow more (``additionalProperties``), and the ``Shown`` field passes the engine's
JSON through unchanged, so nothing it adds is dropped.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from engine.events import EVENT_TYPES
from engine.moves import ACTIONS

from .languages import Said

SIDES = ("n", "e", "s", "w")
TARGETS = ("city", "reserve", "neutral", "swap")


class Shown(fields.Nested):
    """A nested engine document: documented by its schema, passed through as it is."""

    # (Nested and Field name the first argument differently: either name is an override)
    def _serialize(self, nested_obj: Any, attr: Any, obj: Any,  # type: ignore[override]
                   **kwargs: Any) -> Any:
        return nested_obj


class Open(ma.Schema):
    """An engine shape: the members below, maybe more."""

    class Meta:
        unknown = ma.INCLUDE


class FaceSchema(Open):
    type = fields.String(required=True)
    value = fields.Integer(required=True)


class TileSchema(Open):
    """A building tile with the face it shows."""

    id = fields.String(required=True, metadata={"example": "A17", "description":
                       "A.. Alhambra tiles, G.. Granada tiles, A00/G00 start tiles"})
    type = fields.String(required=True, metadata={"description": "The building type "
                         "(pavilion, seraglio, arcades, chambers, garden, tower; Granada's "
                         "own types; start)"})
    value = fields.Integer(required=True, metadata={"description": "Its price"})
    walls = fields.List(fields.String(validate=validate.OneOf(SIDES)), metadata={
        "description": "Alhambra tiles: the sides with a wall"})
    moats = fields.List(fields.String(validate=validate.OneOf(SIDES)), metadata={
        "description": "Granada tiles: the sides with a moat"})
    face = fields.String(validate=validate.OneOf(("front", "back")), metadata={
        "description": "Double-sided (Granada) tiles: the face up"})
    other_side = fields.Nested(FaceSchema, metadata={"description": "Double-sided tiles: "
                                                                    "the face down"})


class CityTileSchema(TileSchema):
    x = fields.Integer(required=True, metadata={"description": "Column; east is +1"})
    y = fields.Integer(required=True, metadata={"description": "Row; south is +1"})


class SeatViewSchema(Open):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    score = fields.Integer(required=True)
    hand_size = fields.Integer(required=True)
    hand = fields.List(fields.String(), metadata={
        "description": "The viewer's own seat only: its money cards, like DI5"})
    city = fields.List(fields.Nested(CityTileSchema), required=True)
    reserve = fields.List(fields.Nested(TileSchema), required=True)
    bot = fields.String(allow_none=True, metadata={
        "description": "The level of the bot playing the seat (rule S-2); null: a person"})
    left = fields.String(allow_none=True, validate=validate.OneOf(("resigned", "abandoned")),
                         metadata={"description": "resigned or abandoned: the seat's "
                                   "player left and a bot plays it (S-2)"})


class NeutralSchema(Open):
    name = fields.String(required=True, metadata={"example": "Dirk"})
    score = fields.Integer(required=True)
    tiles = fields.List(fields.Nested(TileSchema), required=True)


class MarketSpaceSchema(Open):
    space = fields.Integer(required=True, metadata={"description": "1 to 4"})
    currency = fields.String(required=True, metadata={"description": "What it is paid in"})
    tiles = fields.List(fields.Nested(TileSchema), required=True)


class ViewSchema(Open):
    """The game as one seat (or a spectator) may see it: other hands are sizes only; the
    deck and bag orders are hidden."""

    variant = fields.String(required=True)
    options = fields.Dict(required=True)
    version = fields.Integer(required=True)
    phase = fields.String(required=True, metadata={"description": "setup, action, "
                          "placement, distribution or over"})
    turn = fields.Integer(required=True, metadata={"description": "The turn number players "
                                                                  "count (1: the first)"})
    current = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The seat to act; null once the game is over"})
    can_act = fields.Boolean(required=True)
    seats = fields.List(fields.Nested(SeatViewSchema), required=True)
    neutral = fields.Nested(NeutralSchema, required=True, allow_none=True, metadata={
        "description": "Dirk (Alhambra) or Juan (Granada) in a two-player game"})
    market = fields.List(fields.Nested(MarketSpaceSchema), required=True)
    display = fields.List(fields.String(), required=True, metadata={
        "description": "The money display, positions 1-4"})
    deck_size = fields.Integer(required=True)
    discard_size = fields.Integer(required=True)
    bag_sizes = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    pending = fields.List(fields.Nested(TileSchema), required=True, metadata={
        "description": "Tiles bought or received and not placed yet"})
    scorings_done = fields.Integer(required=True)
    winners = fields.List(fields.Integer(), required=True)
    marker = fields.String(validate=validate.OneOf(("front", "back")), metadata={
        "description": "Granada's marker: the face the next refills show"})


class EventBodySchema(Open):
    """One event, redacted for the caller. Its ``type`` says which members it has
    (``engine/events.py`` declares each); the members common to many are named here."""

    type = fields.String(required=True, validate=validate.OneOf(sorted(EVENT_TYPES)))
    seat = fields.Raw(metadata={"description": "The seat concerned (a number; 'neutral' "
                                               "for Dirk or Juan in points_awarded)"})
    move = fields.String(metadata={"description": "A seat's move, in notation"})
    timeout = fields.Boolean(metadata={"description": "The move was played for the seat "
                                                      "when its time ran out"})
    tile = fields.String()
    space = fields.Integer()
    cards = fields.List(fields.String())
    scoring = fields.Integer()
    points = fields.Integer()


class EventItemSchema(ma.Schema):
    version = fields.Integer(required=True, metadata={"description": "The game's version "
                                                                     "after this event"})
    event = Shown(EventBodySchema, required=True)
    text = Said(required=True, allow_none=True, metadata={
        "description": "What the event means, in the words the mails and the web page use, "
                       "in the request's language (Accept-Language); null for events not "
                       "worth telling (a card drawn...)"})


class MoveJsonSchema(ma.Schema):
    """A move as structured JSON: the same fields as its notation (NOTATION.md)."""

    class Meta:
        unknown = ma.RAISE

    action = fields.String(required=True, validate=validate.OneOf(ACTIONS))
    tile = fields.String(validate=validate.Length(1, 10), metadata={
        "description": "buy, place, redesign: the tile"})
    cards = fields.List(fields.String(validate=validate.Length(1, 10)),
                        validate=validate.Length(max=40), metadata={
                            "description": "buy: the payment; place: paying a flip"})
    positions = fields.List(fields.Integer(strict=True), validate=validate.Length(max=10),
                            metadata={"description": "take: display positions (1-4)"})
    to = fields.String(validate=validate.OneOf(TARGETS), metadata={
        "description": "place, redesign: where the tile goes"})
    at = fields.List(fields.Integer(strict=True, validate=validate.Range(-100, 100)),
                     validate=validate.Length(2, 2), metadata={
                         "description": "to city: [x, y]"})
    other = fields.String(validate=validate.Length(1, 10), metadata={
        "description": "redesign swap: the reserve tile that takes the city tile's place"})
    face = fields.Integer(strict=True, validate=validate.OneOf((0, 1)), metadata={
        "description": "Granada: the face to build on (0 front, 1 back)"})


class LegalMoveSchema(ma.Schema):
    notation = fields.String(required=True, metadata={"example": "take 2"})
    move = fields.Nested(MoveJsonSchema, required=True)
