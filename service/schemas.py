"""Marshmallow schemas of every request body, parameter set and response."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

import email_validator
import marshmallow as ma
from marshmallow import fields, validate

from engine.bots import LEVELS

from . import i18n, names, times
from .clock import DAYS, MAX_SECONDS
from .engine_schemas import EventItemSchema, LegalMoveSchema, MoveJsonSchema, Shown, ViewSchema
from .games import TIMEOUT_POLICIES, variants
from .languages import Said

GAME_ID = r"^[0-9a-f]{16}$"
STATUSES = ("open", "active", "over")
VARIANT_NAMES = [v["name"] for v in variants()]

#: The JSON Schema of null alone (OpenAPI 3.0.3)
NULL_ONLY: dict[str, Any] = {"nullable": True, "enum": [None]}

_TAG = re.compile(r"[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*")


class Timestamp(fields.DateTime):
    """A time as the API writes it: ISO 8601 UTC with milliseconds and a Z."""

    def _serialize(self, value: datetime | None, attr: str | None, obj: Any,
                   **kwargs: Any) -> str | None:
        return None if value is None else times.to_text(value)


class Strict(ma.Schema):
    class Meta:
        unknown = ma.RAISE


# -- problems ----------------------------------------------------------------------------

class ProblemSchema(ma.Schema):
    """RFC 9457 problem details, with a stable ``code`` and, per code, more members."""

    class Meta:
        unknown = ma.INCLUDE

    type = fields.String(required=True, metadata={
        "example": "urn:alhambra-pbem:problem:version_conflict",
        "description": "urn:alhambra-pbem:problem:<code>; for rule_violation and "
                       "not_your_turn, the rule in the players' rules page: "
                       "<server>/rules#<rule id>"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    code = fields.String(required=True, metadata={"description": "Stable error code"})
    detail = fields.String(required=True)
    instance = fields.String()
    field = fields.String(metadata={"description": "invalid_option: the offending input"})
    rule = fields.String(metadata={"description": "rule_violation: the rule id (docs/rules.md)"})
    position = fields.Integer(metadata={"description": "notation_error: 1-based column"})
    expected = fields.String(metadata={"description": "notation_error: what was expected"})
    move_index = fields.Integer(metadata={"description": "which move of the submission"})
    move_number = fields.Integer(allow_none=True, metadata={
        "description": "invalid_record: 1-based move (null: not a move, its messages)"})
    current_version = fields.Integer(metadata={"description": "version_conflict: where "
                                                              "the game is now"})
    current_seat = fields.Integer(allow_none=True)
    allowed = fields.List(fields.String())
    errors = fields.Dict(metadata={"description": "validation_error: per field messages"})


# -- creating and joining ----------------------------------------------------------------

NAME_RULE = ("a name is 1 to 40 printable characters, not only spaces, that pass PRECIS "
             "Nickname (RFC 8266): no line breaks, tabs, control, format, bidi-control or "
             "blank characters, at most 2 accents on a letter, not the host's name")


class Name(fields.String):
    """A player's name: printable text of bounded length (it goes into mail headers and
    every page), trimmed of surrounding spaces."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("metadata", {}).setdefault("description", NAME_RULE)
        super().__init__(validate=validate.Length(1, 40, error=NAME_RULE), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        if not text.isprintable() or not text.strip():
            raise ma.ValidationError(NAME_RULE)
        try:
            return names.name(text)
        except names.NameRefused as exc:
            raise ma.ValidationError(f"{NAME_RULE}: {exc}") from None


def normal_address(text: str) -> str:
    """An address in the one form mail goes to and limits count: email-validator's
    normalisation (NFC, the domain in ASCII by IDNA, so that a fullwidth ``ｅxample.org``
    is ``example.org``) in lower case; EmailNotValidError."""
    checked = email_validator.validate_email(unicodedata.normalize("NFKC", text.strip()),
                                             check_deliverability=False,
                                             allow_smtputf8=False)
    return (checked.ascii_email or checked.normalized).lower()


class EmailAddress(fields.Email):
    """An e-mail address checked by email-validator (syntax and domain form, no DNS look-up),
    returned normalised with its domain in ASCII (IDNA). Mail to players goes to these
    addresses over plain SMTP: a local part beyond ASCII (it would need SMTPUTF8) is
    refused here rather than failing later in a worker."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> str:
        value = super()._deserialize(value, attr, data, **kwargs)
        try:
            return normal_address(value)
        except email_validator.EmailNotValidError as exc:
            raise ma.ValidationError(f"not a valid e-mail address: {exc}") from None


class Language(fields.String):
    """A BCP 47 language tag of a language this server speaks (``fi``, ``fi-FI``), read as
    its primary tag."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("metadata", {}).update({
            "enum": list(i18n.LANGUAGES), "example": "fi",
            "description": "A language of this server (BCP 47; a regional tag such as "
                           "fi-FI is read as fi): mails and the web page in it"})
        super().__init__(validate=validate.Length(1, 35), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None,
                     **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        lang = i18n.language(text) if _TAG.fullmatch(text) else None
        if lang is None:
            raise ma.ValidationError("not a language of this server: "
                                     + ", ".join(i18n.LANGUAGES))
        return lang


class SeatSpecSchema(Strict):
    name = Name(load_default=None)  # a person's seat needs one (_person_or_bot)
    email = EmailAddress(load_default=None, allow_none=True)
    language = Language(load_default=None, allow_none=True)
    bot = fields.String(load_default=None, allow_none=True, validate=validate.Length(1, 40),
                        metadata={"enum": list(LEVELS), "description": "A seat played by a "
                                  "bot of this level (no token, no e-mail; rule S-2; its "
                                  "name defaults to 'Bot <n> (<level>)'); another level: "
                                  "422 invalid_option"})

    #: _person_or_bot, in the document (service/spec.py): refused, a seat without a name or
    #: a bot, and a bot's seat with an address or a language
    JSON_SCHEMA: ClassVar[dict[str, Any]] = {
        "description": "A person's seat (a name) or a bot's (a level, and no e-mail or "
                       "language)", "not": {"anyOf": [
        {"properties": {"name": NULL_ONLY, "bot": NULL_ONLY}},
        *({"required": ["bot", other], "properties": {"bot": {"type": "string"},
                                                     other: {"type": "string"}}}
          for other in ("email", "language"))]}}

    @ma.validates_schema
    def _person_or_bot(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("bot") is None and data.get("name") is None:
            raise ma.ValidationError("a person's seat needs a name", "name")
        if data.get("bot") is not None and data.get("email") is not None:
            raise ma.ValidationError("a bot's seat has no e-mail address", "email")
        if data.get("bot") is not None and data.get("language") is not None:
            raise ma.ValidationError("a bot's seat has no language", "language")


class TimeControlSchema(Strict):
    """A game's clock beyond time per move (service/clock.py)."""

    bank = fields.Integer(strict=True, validate=validate.Range(0, MAX_SECONDS), metadata={
        "description": "Seconds each seat starts with; its clock runs it down while it is "
                       "to act; the deadline is when it is empty (with increment and cap)"})
    increment = fields.Integer(strict=True, validate=validate.Range(0, MAX_SECONDS),
                               metadata={"description": "Seconds added to a seat's bank "
                                                        "by each turn it completes"})
    cap = fields.Integer(strict=True, validate=validate.Range(0, MAX_SECONDS), metadata={
        "description": "The most a bank may hold (at least the bank)"})
    days_off = fields.List(fields.String(validate=validate.Length(1, 10)),
                           validate=validate.Length(1, 7), metadata={
        "description": f"Days on which no clock runs ({', '.join(DAYS)}), whole days of "
                       "timezone (with timezone)"})
    timezone = fields.String(validate=validate.Length(1, 64), metadata={
        "description": "The IANA time zone of the days off, e.g. Europe/Helsinki"})


class TimeControlPresetSchema(ma.Schema):
    id = fields.String(required=True)
    label = fields.String(required=True)
    time_per_move = fields.Integer(allow_none=True, required=True)
    time_control = fields.Nested(TimeControlSchema, allow_none=True, required=True)


class TimeControlPresetsSchema(ma.Schema):
    presets = fields.List(fields.Nested(TimeControlPresetSchema), required=True, metadata={
        "description": "As the create request's fields; weekends off are given in UTC: "
                       "put the players' zone in timezone"})


class GameSettingsSchema(Strict):
    """A game's settings, as a create request (or an invitation) gives them."""


    variant = fields.String(load_default="alhambra", validate=validate.Length(1, 40),
                            metadata={"enum": VARIANT_NAMES, "description":
                                      "The variant (GET /variants); another name: 422 "
                                      "invalid_option, field variant"})
    options = fields.Dict(keys=fields.String(), load_default=dict,
                          metadata={"description": "Variant options with their defaults: "
                                                   "GET /variants"})
    time_per_move = fields.Integer(strict=True, load_default=None, allow_none=True,
                                   validate=validate.Range(max=90 * 24 * 3600),
                                   metadata={"description": "Seconds per move (default 72 "
                                             "hours, none with a bank): at least the "
                                             "server's minimum (ALHAMBRA_MIN_TIME_PER_MOVE; "
                                             "422 invalid_option below it)"})
    time_control = fields.Nested(TimeControlSchema, load_default=None, allow_none=True,
                                 metadata={"description": "A bank (bank, increment, cap), "
                                           "days off (days_off, timezone), or both; presets: "
                                           "GET /time-controls. A control that cannot be: "
                                           "422 invalid_option naming the field"})
    replay_public = fields.Boolean(load_default=True, metadata={
        "description": "Once the game is over, may anyone replay it (its events and "
                       "record)? false: only its seats and host"})
    spectators_read_chat = fields.Boolean(load_default=False, metadata={
        "description": "May spectators read the table's messages (never the private "
                       "ones)? Default: only the seats and the host"})
    timeout_policy = fields.String(load_default="default_move",
                                   validate=validate.OneOf(TIMEOUT_POLICIES))
    takeover_after_timeouts = fields.Integer(
        strict=True, load_default=3, validate=validate.Range(0, 1000),
        metadata={"description": "A seat whose time runs out this many turns in a row is "
                                 "taken over by a bot (rule S-2); 0: never"})
    takeover_bot = fields.String(
        load_default=None, allow_none=True, validate=validate.Length(1, 40),
        metadata={"enum": list(LEVELS), "description": "The level of the bot that takes "
                  "over a seat that resigns or is abandoned; default: the server's "
                  "(ALHAMBRA_TAKEOVER_BOT, greedy unless set)"})


class CreateGameSchema(GameSettingsSchema):
    players = fields.Integer(strict=True, load_default=None,
                             validate=validate.Range(1, 64),
                             metadata={"description": "The number of seats, within the "
                                       "variant's min_players..max_players (GET /variants; "
                                       "else 422 invalid_option, field players). Default: "
                                       "the length of seats. Give players, seats or both."})
    seats = fields.List(fields.Nested(SeatSpecSchema, allow_none=True), load_default=list,
                        validate=validate.Length(max=64),
                        metadata={"description": "The seats in order, at most players "
                                  "(else 422 invalid_option, field seats). A seat with a name "
                                  "is filled now and gets its token in the answer; null "
                                  "leaves it open, as do the seats beyond the list: open "
                                  "seats are joined with the invite code. The game starts "
                                  "when every seat is filled."})
    public = fields.Boolean(load_default=False, metadata={
        "description": "May anyone join its open seats without the invite code (the "
                       "lobby's public games)?"})

    #: _players, in the document: a number of players, a seat, or both (service/spec.py)
    JSON_SCHEMA: ClassVar[dict[str, Any]] = {
        "description": "Give players, seats or both", "not": {
            "properties": {"players": NULL_ONLY, "seats": {"maxItems": 0}}}}

    @ma.validates_schema
    def _players(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("players") is None and not data.get("seats"):
            raise ma.ValidationError("give players, seats or both", "players")


class SeatTokenSchema(ma.Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "Secret bearer token"})
    join_url = fields.String(required=True)


class CreatedGameSchema(ma.Schema):
    game_id = fields.String(required=True)
    host_token = fields.String(required=True, metadata={"description": "Secret bearer token "
                                                                       "of the host"})
    invite_code = fields.String(allow_none=True, required=True,
                                metadata={"description": "Joins the open seats"})
    seats = fields.List(fields.Nested(SeatTokenSchema), required=True)
    game = fields.Nested(lambda: GameSchema(), required=True)


class JoinSchema(Strict):
    invite_code = fields.String(load_default=None, validate=validate.Length(1, 100),
                                metadata={"description": "The invite code; none for a "
                                          "public game"})
    name = Name(load_default=None, metadata={"description": "Needed, but for a signed-in "
                                              "player (its address's first part then)"})
    email = EmailAddress(load_default=None, allow_none=True)
    language = Language(load_default=None, allow_none=True)


class SeatLanguageSchema(Strict):
    language = Language(required=True)


class SeatLanguageSetSchema(ma.Schema):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    language = fields.String(required=True)


class SeatMailAddressSchema(Strict):
    email = EmailAddress(load_default=None, allow_none=True, metadata={
        "description": "The seat's new address; none: the seat confirms its address"})


class SeatMailAddressSetSchema(ma.Schema):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    email = fields.String(allow_none=True, required=True)
    mail_failing = fields.String(allow_none=True, required=True, metadata={
        "description": "Why mails to the address fail (null: they go)"})


class MailFailureSchema(ma.Schema):
    seat = fields.Integer(required=True)
    address = fields.String(required=True)
    reason = fields.String(required=True, metadata={
        "description": "The relay's answer at sending, or the bounce's diagnostic"})
    permanent = fields.Boolean(required=True, metadata={
        "description": "A hard failure (5xx, a bounce that failed), counted towards the "
                       "address's failing mark; else temporary (tried again later)"})
    at = fields.DateTime(required=True)


class MailFailuresSchema(ma.Schema):
    game_id = fields.String(required=True)
    failing = fields.Dict(keys=fields.String(), values=fields.String(), required=True,
                          metadata={"description": "Seat (as text) → why mails to its "
                                                   "address fail: mails to it stopped"})
    failures = fields.List(fields.Nested(MailFailureSchema), required=True, metadata={
        "description": "The game's failed mails, newest first (50 at most)"})


class AddBotSchema(Strict):
    level = fields.String(required=True, validate=validate.Length(1, 40),
                          metadata={"enum": list(LEVELS), "description": "The bot's level"})


class BotSeatedSchema(ma.Schema):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    bot = fields.String(required=True)


class RotatedTokenSchema(ma.Schema):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "The seat's new secret "
                                                                  "bearer token"})
    join_url = fields.String(required=True)


class JoinedSchema(ma.Schema):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    token = fields.String(required=True)
    join_url = fields.String(required=True)


# -- games -------------------------------------------------------------------------------

class SeatSchema(ma.Schema):
    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True, required=True)
    joined = fields.Boolean(required=True, metadata={"description": "Filled, by a person "
                                                                    "or a bot"})
    bot = fields.String(allow_none=True, required=True, metadata={
        "description": "The level of a seat created as a bot; a seat taken over later "
                       "shows in the view (view.seats[].bot, .left)"})
    email = fields.String(allow_none=True, metadata={"description": "Only to the seat's "
                                                                    "own token"})
    mail_failing = fields.String(allow_none=True, metadata={
        "description": "Only to the seat's own token and the host: why mails to the seat's "
                       "address fail (they stopped; a new address or the seat confirming "
                       "it clears it), null if they go"})
    language = fields.String(allow_none=True, required=True, metadata={
        "enum": list(i18n.LANGUAGES), "description": "The seat's language (its mails, its "
        "page; PUT /games/{id}/seats/{seat}/language), null if it chose none"})
    vacation_until = Timestamp(allow_none=True, metadata={
        "description": "The game document only: the end of the vacation its player is on "
                       "(its clock stopped; null: none)"})
    time_left = fields.Integer(metadata={
        "description": "The game document only: seconds left on the seat's clock now (the "
                       "seat to act: until its deadline; the others: what their next turn "
                       "starts with)"})


class GameSummarySchema(ma.Schema):
    game_id = fields.String(required=True)
    variant = fields.String(required=True)
    options = fields.Dict(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    phase = fields.String(allow_none=True, required=True)
    version = fields.Integer(required=True)
    players = fields.Integer(required=True)
    current_seat = fields.Integer(allow_none=True, required=True)
    time_per_move = fields.Integer(required=True, metadata={
        "description": "Seconds per move; with a bank, the bank a seat starts with"})
    timeout_policy = fields.String(required=True)
    takeover_after_timeouts = fields.Integer(required=True)
    takeover_bot = fields.String(allow_none=True, required=True)
    time_control = fields.Nested(TimeControlSchema, allow_none=True, required=True,
                                 metadata={"description": "The bank and days off; null: "
                                                          "time per move only"})
    replay_public = fields.Boolean(required=True, metadata={
        "description": "Whether anyone may replay the game once it is over"})
    public = fields.Boolean(required=True, metadata={
        "description": "Whether anyone may join its open seats without the invite code"})
    spectators_read_chat = fields.Boolean(required=True, metadata={
        "description": "Whether spectators read the table's messages"})
    deadline = Timestamp(allow_none=True, required=True,
                         metadata={"description": "When the current seat's time runs out"})
    imported = fields.Boolean(required=True)
    created_at = Timestamp(required=True)
    updated_at = Timestamp(required=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    your_seat = fields.Integer(allow_none=True, required=True)


class GameSchema(GameSummarySchema):
    view = Shown(ViewSchema, allow_none=True, required=True,
                 metadata={"description": "The engine's view for the caller (its own hand "
                                          "only); null until the game starts"})
    day_off_until = Timestamp(allow_none=True, required=True, metadata={
        "description": "While a day off of the time control runs (no clock runs), when "
                       "the clocks run again; null otherwise"})


class GameListSchema(ma.Schema):
    total = fields.Integer(required=True)
    games = fields.List(fields.Nested(GameSummarySchema), required=True)


class ListQuerySchema(Strict):
    status = fields.String(validate=validate.OneOf(STATUSES))
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 200))
    offset = fields.Integer(load_default=0, validate=validate.Range(0, 10**9))


class EventsQuerySchema(Strict):
    since = fields.Integer(load_default=0, validate=validate.Range(0, 10**9),
                           metadata={"description": "Events after this version"})


class EventsSchema(ma.Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventItemSchema), required=True)


# -- moves -------------------------------------------------------------------------------

class NoCellSchema(ma.Schema):
    tile = fields.String(required=True, metadata={"example": "G16"})
    rule = fields.String(required=True, metadata={"description": "The building rule most "
                                                  "free cells beside the city break",
                                                  "example": "C-3"})
    reason = Said(required=True, metadata={"description": "The engine's sentence for one of "
                                           "those cells, in the request's language"})


class LegalMovesSchema(ma.Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    your_turn = fields.Boolean(required=True)
    phase = fields.String(allow_none=True, required=True)
    moves = fields.List(fields.Nested(LegalMoveSchema), required=True)
    no_cell = fields.List(fields.Nested(NoCellSchema), required=True, metadata={
        "description": "The caller's tiles to place that fit no free cell of its city, and "
                       "why: they can only go to the reserve (or the neutral)"})


class SubmitSchema(Strict):
    version = fields.Integer(strict=True, validate=validate.Range(0, 10**9),
                             metadata={"description": "The version the move was made "
                                                      "against (or send If-Match)"})
    move = fields.String(validate=validate.Length(1, 2000),
                         metadata={"description": "Notation: one move or a turn, moves "
                                                  "separated by ';' or new lines"})
    moves = fields.List(fields.Nested(MoveJsonSchema), validate=validate.Length(1, 20),
                        metadata={"description": "The same as structured JSON"})

    #: _one, in the document: move or moves, not both (service/spec.py)
    JSON_SCHEMA: ClassVar[dict[str, Any]] = {
        "description": "Give move (notation) or moves (JSON), not both", "not": {"anyOf": [
        {"required": ["move", "moves"]},
        {"not": {"anyOf": [{"required": ["move"]}, {"required": ["moves"]}]}}]}}

    @ma.validates_schema
    def _one(self, data: dict[str, Any], **kwargs: Any) -> None:
        if ("move" in data) == ("moves" in data):
            raise ma.ValidationError("give either move (notation) or moves (JSON)", "move")


class PreviewSchema(SubmitSchema):
    """The moves of a submission, planned."""

    version = fields.Integer(strict=True, validate=validate.Range(0, 10**9),
                             metadata={"description": "The version the plan is made on "
                                                      "(optional: 409 version_conflict "
                                                      "once the game moved on)"})


class PreviewedSchema(ma.Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "The version the "
                                                      "plan was made on"})
    events = fields.List(fields.Nested(EventItemSchema), required=True, metadata={
        "description": "What the moves would record, up to the first card or tile drawn "
                       "(versions as they would be)"})
    view = Shown(ViewSchema, required=True, metadata={
        "description": "The caller's view after those events: nothing drawn yet"})
    turn_ends = fields.Boolean(required=True, metadata={
        "description": "The moves end the caller's turn (the refill and what follows are "
                       "shown once it is sent)"})
    moves = fields.List(fields.Nested(LegalMoveSchema), required=True, metadata={
        "description": "The caller's legal moves after the plan (none once its turn "
                       "ends)"})
    no_cell = fields.List(fields.Nested(NoCellSchema), required=True, metadata={
        "description": "As in the legal moves: the caller's tiles to place after the plan "
                       "that fit no free cell of its city, and why"})


class SubmittedSchema(ma.Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventItemSchema), required=True)
    view = Shown(ViewSchema, required=True)


# -- records and variants ----------------------------------------------------------------

class RecordSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    format = fields.String(required=True)
    format_version = fields.Integer(required=True)
    schema = fields.Integer(metadata={"description": "The event schema the game was "
                                                    "played under (its rules version)"})
    engine_version = fields.String(metadata={"description": "The engine that wrote it"})
    variant = fields.String(required=True)
    options = fields.Dict()
    seed = fields.Integer(required=True)
    seats = fields.List(fields.String(), required=True)
    bots = fields.List(fields.String(allow_none=True), metadata={
        "description": "Per seat: the level of a seat created as a bot, else null (S-2)"})
    takeover_after_timeouts = fields.Integer(metadata={"description": "S-2: timed-out "
                                                       "turns in a row before a takeover"})
    takeover_bot = fields.String(metadata={"description": "S-2: the takeover bot's level"})
    moves = fields.List(fields.Dict(), required=True, metadata={
        "description": "{seat, move[, timeout][, bot]}, and takeovers {seat, taken_over: "
                       "level, reason: resigned | abandoned}"})
    result = fields.Dict(metadata={"description": "scores, winners[, neutral][, left: per "
                                   "seat resigned | abandoned | null]"})
    messages = fields.List(fields.Dict(), metadata={
        "description": "The table talk the reader may see: {id, from, to, text, "
                       "created_at, version, deleted} (not game events)"})


class RecordInSchema(ma.Schema):
    """A game record (engine format); checked by replaying it."""

    class Meta:
        unknown = ma.INCLUDE

    format = fields.String(required=True)
    format_version = fields.Integer(required=True)
    variant = fields.String(required=True, metadata={"enum": VARIANT_NAMES})
    options = fields.Dict(allow_none=True)
    seed = fields.Integer(strict=True, required=True)
    seats = fields.List(Name(), required=True, validate=validate.Length(max=64))
    moves = fields.List(fields.Dict(), required=True)
    result = fields.Dict(allow_none=True)
    messages = fields.List(fields.Dict(), load_default=None, allow_none=True,
                           validate=validate.Length(max=10_000), metadata={
                               "description": "Table talk to keep with the game: {from, "
                                              "to, text, created_at, version, deleted}"})


class VariantSchema(ma.Schema):
    name = fields.String(required=True)
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    options = fields.Dict(required=True, metadata={"description": "Option name -> default"})


class VariantsSchema(ma.Schema):
    variants = fields.List(fields.Nested(VariantSchema), required=True)
    timeout_policies = fields.List(fields.String(), required=True)


class HealthSchema(ma.Schema):
    status = fields.String(required=True, metadata={"description": "ok or down"})
    parts = fields.Dict(keys=fields.String(), values=fields.Dict(), required=True, metadata={
        "description": "database, due, mail, mail_in (with MAIL_IN_AUTH), redis, worker, "
                       "webhook_worker: each with its status (ok, down, unknown; mail_in: "
                       "ok or failing, which is no 503) and details (error, lag_seconds, "
                       "count, failed_last_hour, unauthenticated_in_a_row, "
                       "last_refused_at)"})


# -- webhooks ----------------------------------------------------------------------------

class WebhookInSchema(Strict):
    url = fields.String(required=True, validate=validate.Length(max=2000), metadata={
        "format": "uri",
        "description": "Receives each new event as a signed JSON POST: http or https, "
                       "a public address (checked again at each delivery, after DNS), no "
                       "user info; redirects are not followed (a 3xx is a failure)"})
    secret = fields.String(load_default=None, allow_none=True,
                           validate=validate.Length(16, 200),
                           metadata={"description": "HMAC-SHA256 key of the signature "
                                                    "header; default: a new random one"})


class WebhookSchema(ma.Schema):
    id = fields.Integer(required=True)
    game_id = fields.String(required=True)
    seat = fields.Integer(allow_none=True, required=True,
                          metadata={"description": "Events are redacted for this seat; null: "
                                                   "the game's host (spectator view)"})
    url = fields.String(required=True)
    created_at = Timestamp(required=True)
    failures = fields.Integer(required=True, metadata={
        "description": "Failed delivery attempts in a row (0 after a success)"})
    last_error = fields.String(allow_none=True, required=True, metadata={
        "description": "Why the latest failed attempt failed"})
    disabled_at = Timestamp(allow_none=True, required=True, metadata={
        "description": "When the hook was disabled after too many failures in a row (no "
                       "more deliveries; delete it and register it again); null: active"})


class WebhookCreatedSchema(WebhookSchema):
    secret = fields.String(required=True, metadata={
        "description": "Shown once. Each delivery carries X-Alhambra-Signature: "
                       "sha256=<hex HMAC-SHA256 of the raw body with this key>"})


class WebhookListSchema(ma.Schema):
    webhooks = fields.List(fields.Nested(WebhookSchema), required=True)


# -- table talk (service/talk.py) --------------------------------------------------------

class MessageInSchema(Strict):
    text = fields.String(required=True, metadata={
        "description": "Plain text, 1 to 1,000 characters once trimmed, any script or "
                       "emoji; line breaks and tabs are the only control characters "
                       "allowed. Always shown as text, never as HTML"})
    to = fields.Integer(load_default=None, allow_none=True, metadata={
        "description": "A seat (a person's, not a bot's): a private message; null: the "
                       "whole table (the host writes to the table only)"})


class MessageSchema(ma.Schema):
    id = fields.Integer(required=True, metadata={"description": "Counts from 1 in each game"})
    sender = fields.Integer(data_key="from", allow_none=True, required=True, attribute="from",
                            metadata={"description": "The seat that wrote it; null: the "
                                                     "game's host"})
    from_name = fields.String(allow_none=True, required=True)
    to = fields.Integer(allow_none=True, required=True,
                        metadata={"description": "The seat it was written to; null: the "
                                                 "table"})
    to_name = fields.String(allow_none=True, required=True)
    text = fields.String(required=True, metadata={"description": "Empty once deleted"})
    created_at = Timestamp(required=True)
    version = fields.Integer(required=True, metadata={
        "description": "The game's version when it was written (messages are not events: "
                       "they never change it)"})
    deleted = fields.Boolean(required=True, metadata={
        "description": "The host deleted it: its text is gone from every view"})


class MessagesQuerySchema(Strict):
    since = fields.Integer(load_default=0, validate=validate.Range(min=0), metadata={
        "description": "Only the messages with a greater id"})


class MessageListSchema(ma.Schema):
    game_id = fields.String(required=True)
    messages = fields.List(fields.Nested(MessageSchema), required=True, metadata={
        "description": "What the caller may read, oldest first: a seat the table's and its "
                       "own private messages (not those of seats it muted); the host the "
                       "table's; a spectator the table's where the game allows it"})


class NotesSchema(Strict):
    text = fields.String(required=True, metadata={
        "description": "The seat's private notes (up to 10,000 characters): never shown "
                       "to anyone else"})


class TalkSettingsInSchema(Strict):
    muted = fields.List(fields.Integer(), metadata={
        "description": "The seats whose messages the caller does not see (page or mail)"})
    mail_messages = fields.String(validate=validate.OneOf(("with_next", "at_once")), metadata={
        "description": "with_next: messages come with the seat's next mail; at_once: a "
                       "mail for each message"})
    notes_in_mail = fields.Boolean(metadata={
        "description": "Show the seat's notes in its own mails"})


class TalkSettingsSchema(ma.Schema):
    muted = fields.List(fields.Integer(), required=True)
    mail_messages = fields.String(required=True)
    notes_in_mail = fields.Boolean(required=True)


# -- pages of lists (issue 33): limits and cursors; the next page in a Link header ------

#: Events a page holds unless ``limit`` says otherwise, and at most.
EVENTS_PAGE, EVENTS_MAX = 5000, 10000
#: Messages a page holds unless ``limit`` says otherwise, and at most.
MESSAGES_PAGE, MESSAGES_MAX = 2000, 5000


class EventsPageQuerySchema(EventsQuerySchema):
    limit = fields.Integer(load_default=EVENTS_PAGE, validate=validate.Range(1, EVENTS_MAX),
                           metadata={"description": f"At most this many events (default "
                                                    f"{EVENTS_PAGE}, at most {EVENTS_MAX}); "
                                                    "more: a Link rel=\"next\""})


class MessagesPageQuerySchema(MessagesQuerySchema):
    limit = fields.Integer(load_default=MESSAGES_PAGE,
                           validate=validate.Range(1, MESSAGES_MAX),
                           metadata={"description": f"At most this many messages (default "
                                                    f"{MESSAGES_PAGE}, at most "
                                                    f"{MESSAGES_MAX}); more: a Link "
                                                    "rel=\"next\""})
