"""Marshmallow schemas of the players' API (/players, /me): sign-in, sessions,
preferences and a player's games."""

from __future__ import annotations

from datetime import UTC
from typing import Any, ClassVar

import marshmallow as ma
from marshmallow import fields, validate

from . import i18n
from .auth import SCOPES
from .players import NOTIFY
from .schemas import VARIANT_NAMES, EmailAddress, Language, Strict, Timestamp


class SignInSchema(Strict):
    email = EmailAddress(required=True, metadata={"description": "The player's address"})
    language = Language(load_default=None, allow_none=True, metadata={
        "description": "The sign-in mail's language (else the request's Accept-Language)"})


class SignInSentSchema(ma.Schema):
    expires_in = fields.Integer(required=True, metadata={
        "description": "Seconds the code in the mail works for (once)"})


class SessionInSchema(Strict):
    code = fields.String(required=True, validate=validate.Length(min=1, max=64), metadata={
        "description": "The code of the sign-in mail (case, spaces and dashes aside)"})


class SessionSchema(ma.Schema):
    token = fields.String(required=True, metadata={
        "description": "The player token: `Authorization: Bearer <token>` on /me"})
    email = fields.String(required=True)


class VacationInSchema(Strict):
    from_ = fields.AwareDateTime(data_key="from", required=True, default_timezone=UTC,
                                 metadata={"description": "When it begins (now at the "
                                           "earliest)"})
    until = fields.AwareDateTime(required=True, default_timezone=UTC)


class VacationSchema(ma.Schema):
    from_ = Timestamp(data_key="from", attribute="from", required=True)
    until = Timestamp(required=True)


class RatingSchema(ma.Schema):
    variant = fields.String(required=True)
    name = fields.String(allow_none=True, required=True, metadata={
        "description": "The name of the player's latest rated seat"})
    mu = fields.Float(required=True, metadata={"description": "openskill's mean skill"})
    sigma = fields.Float(required=True, metadata={"description": "its uncertainty"})
    ordinal = fields.Float(required=True, metadata={
        "description": "mu - 3 sigma: the leaderboard's order"})
    games = fields.Integer(required=True, metadata={"description": "Rated games played"})
    bot = fields.Boolean(required=True, metadata={
        "description": "A bot account's: a program plays for it"})


class RatingsQuerySchema(Strict):
    variant = fields.String(load_default="alhambra", validate=validate.OneOf(VARIANT_NAMES))
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 200))


class LeaderboardSchema(ma.Schema):
    variant = fields.String(required=True)
    ratings = fields.List(fields.Nested(RatingSchema), required=True)


class PlayerSchema(ma.Schema):
    email = fields.String(required=True)
    handle = fields.String(allow_none=True, required=True, metadata={
        "description": "The player's public name (ratings, lobbies); null: none chosen"})
    bot = fields.Boolean(required=True, metadata={
        "description": "A bot account: a program plays for it (shown so everywhere)"})
    language = fields.String(allow_none=True, required=True, metadata={
        "enum": list(i18n.LANGUAGES),
        "description": "The player's language (its seats' unless a seat chose one)"})
    notify = fields.String(required=True, metadata={"enum": list(NOTIFY), "description":
                           "turn: a mail for each turn; digest: one a day; none"})
    digest_hour = fields.Integer(required=True, metadata={
        "description": "The UTC hour of the daily digest (notify: digest)"})
    created_at = Timestamp(required=True)
    vacation = fields.Nested(VacationSchema, allow_none=True, required=True, metadata={
        "description": "The vacation going on or to come (null: none)"})
    ratings = fields.List(fields.Nested(RatingSchema), required=True, metadata={
        "description": "The player's ratings, per variant (rated games only)"})
    vacation_days_left = fields.Integer(required=True, metadata={
        "description": "Days of this year's allowance (ALHAMBRA_VACATION_DAYS) left"})


class PlayerPatchSchema(Strict):
    handle = fields.String(validate=validate.Length(1, 100), metadata={
        "description": "The player's public name: 2 to 30 letters, digits or punctuation "
                       "(PRECIS UsernameCaseMapped, RFC 8265: kept in lower case), reading "
                       "like no other player's (else 422 handle_refused)"})
    bot = fields.Boolean(metadata={
        "description": "true: a bot account, driven by a program with a personal token "
                       "(invited like anyone, shown as a bot; people's games against it "
                       "are not rated unless the host's ALHAMBRA_RATE_BOT_ACCOUNTS). Only "
                       "an account that has held no seat and has no rating changes kind "
                       "(else 409 bot_account_refused)"})
    language = Language(allow_none=True)
    notify = fields.String(validate=validate.OneOf(NOTIFY))
    digest_hour = fields.Integer(strict=True, validate=validate.Range(0, 23), metadata={
        "description": "The UTC hour of the daily digest (notify: digest)"})
    vacation = fields.Nested(VacationInSchema, allow_none=True, metadata={
        "description": "Go on vacation (null: call it off): the clocks of the player's "
                       "seats stop meanwhile, within the yearly allowance (else 422 "
                       "vacation_refused)"})


class MyGamesQuerySchema(Strict):
    status = fields.String(load_default=None, validate=validate.OneOf(["finished"]),
                           metadata={"description": "finished: the games that are over"})


class MySeatPlayerSchema(ma.Schema):
    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True, required=True)
    bot = fields.String(allow_none=True, required=True)


class MyGameSchema(ma.Schema):
    game_id = fields.String(required=True)
    variant = fields.String(required=True)
    status = fields.String(required=True)
    phase = fields.String(allow_none=True, required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True, metadata={"description": "The player's seat"})
    name = fields.String(allow_none=True, required=True)
    time_per_move = fields.Integer(required=True)
    players = fields.List(fields.Nested(MySeatPlayerSchema), required=True)
    current_seat = fields.Integer(allow_none=True, required=True)
    current_name = fields.String(allow_none=True, required=True)
    your_turn = fields.Boolean(required=True)
    deadline = Timestamp(allow_none=True, required=True, metadata={
        "description": "The player's deadline (null: not the player's turn)"})
    game_deadline = Timestamp(allow_none=True, required=True)
    updated_at = Timestamp(required=True, metadata={"description": "The last activity"})
    token = fields.String(allow_none=True, required=True, metadata={
        "description": "The seat's token, to open the game (null: a bot plays the seat)"})


class MyGamesSchema(ma.Schema):
    games = fields.List(fields.Nested(MyGameSchema), required=True)


class ClaimSchema(Strict):
    code = fields.String(load_default=None, allow_none=True,
                         validate=validate.Length(1, 100), metadata={
                             "description": "The claim code mailed to the seat's address; "
                                            "none for a signed-in player (its token)"})



# -- personal access tokens (issue 33) ----------------------------------------------------

class TokenInSchema(Strict):
    description = fields.String(required=True, validate=[
        validate.Length(1, 100), validate.Regexp(r"^(?=.*\S)[^\x00-\x1f\x7f]*$", error=(
            "some text, and no control characters"))], metadata={
        "description": "What the token is for (an app, a bot…), to tell it apart later"})
    scopes = fields.List(fields.String(validate=validate.OneOf(SCOPES)), required=True,
                         validate=validate.Length(1, len(SCOPES)), metadata={
        "description": "What the token may do in the account's claimed seats: `read` "
                       "(my games, a game as my seat sees it, its events and table talk, "
                       "the streams), `play` (moves, previews, resigning, the seat's own "
                       "settings, token and webhooks), `talk` (write table talk, mutes, "
                       "notes)"})


class TokenSchema(ma.Schema):
    id = fields.String(required=True, metadata={"description": "To delete it"})
    description = fields.String(required=True)
    scopes = fields.List(fields.String(), required=True)
    created_at = Timestamp(required=True)
    last_used_at = Timestamp(allow_none=True, required=True, metadata={
        "description": "Its last use, to the minute (null: never used)"})


class NewTokenSchema(TokenSchema):
    token = fields.String(required=True, metadata={
        "description": "The secret, shown this once (`pat_…`): send it as "
                       "`Authorization: Bearer <token>`"})


class TokensSchema(ma.Schema):
    tokens = fields.List(fields.Nested(TokenSchema), required=True)


class MyGamesWaitingQuerySchema(MyGamesQuerySchema):
    waiting = fields.Boolean(load_default=False, metadata={
        "description": "true: only the games where it is the player's turn (a cheap poll)"})


class AccountExportSchema(ma.Schema):
    exported_at = Timestamp(required=True)
    email = fields.String(required=True)
    tables = fields.Dict(keys=fields.String(), values=fields.List(fields.Dict()),
                         required=True, metadata={
                             "description": "Each table's rows about the account: players, "
                                            "player_sessions, player_tokens, sign_ins, "
                                            "player_vacations, ratings, seats, talk, "
                                            "messages, notify_channels, mail_failures, "
                                            "mail_answers, blocks, reports"})


# -- pages of lists (issue 33): limit and offset; the next page in a Link header --------

#: Games (or invitations) a page holds unless ``limit`` says otherwise, and at most.
MY_GAMES_PAGE, MY_GAMES_MAX = 100, 500


class PageQuerySchema(Strict):
    limit = fields.Integer(load_default=MY_GAMES_PAGE,
                           validate=validate.Range(1, MY_GAMES_MAX),
                           metadata={"description": f"At most this many (default "
                                                    f"{MY_GAMES_PAGE}, at most "
                                                    f"{MY_GAMES_MAX}); more: a Link "
                                                    "rel=\"next\""})
    offset = fields.Integer(load_default=0, validate=validate.Range(0, 10**9),
                            metadata={"description": "Skip this many"})


class MyGamesPageQuerySchema(MyGamesWaitingQuerySchema, PageQuerySchema):
    pass


class RatingsPageQuerySchema(RatingsQuerySchema):
    offset = fields.Integer(load_default=0, validate=validate.Range(0, 10**9),
                            metadata={"description": "Skip this many of the best"})


# -- moderation (issue 38): blocks and reports ----------------------------------------------

class BlockSchema(ma.Schema):
    handle = fields.String(allow_none=True, required=True, metadata={
        "description": "The blocked player's handle (null: it has none now)"})
    created_at = Timestamp(required=True)


class BlocksSchema(ma.Schema):
    blocks = fields.List(fields.Nested(BlockSchema), required=True, metadata={
        "description": "The players blocked, the latest first"})


class ReportInSchema(Strict):
    JSON_SCHEMA: ClassVar[dict[str, Any]] = {
        "description": "Give a message (game_id and message_id), a player (handle) or both",
        "anyOf": [{"required": ["game_id", "message_id"]}, {"required": ["handle"]}]}

    game_id = fields.String(validate=validate.Length(1, 64), metadata={
        "description": "The game of the message reported"})
    message_id = fields.Integer(strict=True, validate=validate.Range(1, (1 << 31) - 1),
                                metadata={"description": "The message reported (one you "
                                          "can read), with game_id"})
    handle = fields.String(validate=validate.Length(1, 100), metadata={
        "description": "The player reported, by handle"})
    reason = fields.String(required=True, validate=validate.Length(1, 1000), metadata={
        "description": "What is wrong, for the server's operator (at most 1,000 "
                       "characters)"})

    @ma.validates_schema
    def _target(self, data: dict[str, Any], **kwargs: Any) -> None:
        if ("game_id" in data) != ("message_id" in data):
            raise ma.ValidationError("a message is game_id and message_id together",
                                     "message_id" if "game_id" in data else "game_id")
        if "message_id" not in data and "handle" not in data:
            raise ma.ValidationError("report a message (game_id, message_id) or a player "
                                     "(handle)", "handle")


class ReportSchema(ma.Schema):
    id = fields.Integer(required=True, metadata={"description": "The report's number"})
