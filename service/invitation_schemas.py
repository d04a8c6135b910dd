"""Marshmallow schemas of the invitations' API (/invitations)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from engine.bots import LEVELS

from .player_schemas import PageQuerySchema
from .schemas import GameSettingsSchema, Timestamp

STATUSES = ("open", "started", "declined", "cancelled", "expired")
ANSWERS = ("accepted", "declined")


class InvitationInSchema(GameSettingsSchema):
    invitees = fields.List(
        fields.String(validate=validate.Length(1, 100)), required=True,
        validate=validate.Length(1, 5), metadata={
            "description": "The handles of the players invited, in the order of their "
                           "seats after the inviter's (unknown: 422 unknown_handle)"})
    bots = fields.List(fields.String(validate=validate.Length(1, 40), metadata={
        "enum": list(LEVELS)}), load_default=list, validate=validate.Length(max=5),
        metadata={"description": "Bots (levels) at the table, in the last seats"})
    expires_in = fields.Integer(strict=True, load_default=72 * 3600,
                                validate=validate.Range(60, 30 * 24 * 3600), metadata={
                                    "description": "Seconds the invitation waits for its "
                                                   "answers (default 72 hours)"})


class PlayerRefSchema(ma.Schema):
    handle = fields.String(allow_none=True, required=True, metadata={
        "description": "null: the account was deleted"})
    bot = fields.Boolean(required=True, metadata={"description": "A bot account's"})


class InviteeSchema(PlayerRefSchema):
    answer = fields.String(allow_none=True, required=True, metadata={
        "enum": list(ANSWERS), "description": "null: not answered yet"})
    answered_at = Timestamp(allow_none=True, required=True)


class InvitationSchema(ma.Schema):
    id = fields.String(required=True)
    status = fields.String(required=True, metadata={
        "enum": list(STATUSES), "description": "open until every invitee accepted "
        "(started: the game is game_id), one declined, the inviter cancelled or it expired"})
    game_id = fields.String(allow_none=True, required=True, metadata={
        "description": "The game, once started (every person's seat claimed by its "
                       "account: play it with your account's tokens)"})
    inviter = fields.Nested(PlayerRefSchema, required=True, metadata={
        "description": "Seat 0 of the game"})
    invitees = fields.List(fields.Nested(InviteeSchema), required=True, metadata={
        "description": "Seats 1, 2, … in this order"})
    bots = fields.List(fields.String(), required=True, metadata={
        "description": "The bots' levels, in the last seats"})
    players = fields.Integer(required=True)
    settings = fields.Nested(GameSettingsSchema, required=True)
    created_at = Timestamp(required=True)
    expires_at = Timestamp(required=True)
    closed_at = Timestamp(allow_none=True, required=True)


class InvitationsSchema(ma.Schema):
    invitations = fields.List(fields.Nested(InvitationSchema), required=True)


class InvitationsQuerySchema(PageQuerySchema):
    status = fields.String(validate=validate.OneOf(STATUSES), metadata={
        "description": "Only the invitations in this state"})
