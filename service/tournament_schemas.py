"""Marshmallow schemas of the tournaments' API (/tournaments)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .player_schemas import PageQuerySchema
from .schemas import GameSettingsSchema, Strict, Timestamp
from .tournament_plan import FORMATS

STATUSES = ("open", "running", "finished")
POINTS = fields.Float(validate=validate.Range(-1000, 1000))


class TournamentInSchema(GameSettingsSchema):
    name = fields.String(required=True, validate=validate.Length(1, 100))
    format = fields.String(required=True, validate=validate.Length(1, 40), metadata={
        "enum": list(FORMATS), "description": "swiss (Swiss by tables), round_robin (in "
        "groups), knockout (the best of each table go on), league (seasons of divisions, "
        "promotion and relegation); another: 422 invalid_option, field format"})
    table_size = fields.Integer(strict=True, required=True, metadata={
        "description": "Players at a table, 2 to 6 (else 422 invalid_option)"})
    least_size = fields.Integer(strict=True, load_default=None, allow_none=True, metadata={
        "description": "The least table when the entrants do not divide (default: "
                       "table_size - 1, at least 2)"})
    rounds = fields.Integer(strict=True, load_default=3, validate=validate.Range(1, 50),
                            metadata={"description": "A Swiss's rounds, a league's "
                                      "seasons (round robin and knockout: as many as "
                                      "they need)"})
    seed = fields.Integer(strict=True, load_default=None, allow_none=True,
                          validate=validate.Range(0, 2**31 - 1), metadata={
                              "description": "The pairing's seed (default: a random one, "
                                             "shown)"})
    rank_points = fields.List(POINTS, load_default=None, allow_none=True,
                              validate=validate.Length(2, 6), metadata={
                                  "description": "Points of each rank at a table, first "
                                  "to last (default: 1 for the first, 0 for the last, "
                                  "evenly between); tied players share"})
    bye_points = fields.Float(load_default=0.5, validate=validate.Range(0, 1000))
    skip_points = fields.Float(load_default=0.0, validate=validate.Range(0, 1000), metadata={
        "description": "Points of a round for an inactive entrant left out"})
    group_size = fields.Integer(strict=True, load_default=None, allow_none=True,
                                validate=validate.Range(2, 30), metadata={
                                    "description": "round_robin: the largest group"})
    division_size = fields.Integer(strict=True, load_default=None, allow_none=True,
                                   validate=validate.Range(2, 30), metadata={
                                       "description": "league: a division's players "
                                                      "(default: table_size)"})
    moves = fields.Integer(strict=True, load_default=1, validate=validate.Range(0, 10),
                           metadata={"description": "league: how many of each division go "
                                                    "up, and down, each season"})
    advance = fields.Integer(strict=True, load_default=1, validate=validate.Range(1, 5),
                             metadata={"description": "knockout: how many of each table go "
                                                      "on"})
    cap = fields.Integer(strict=True, load_default=None, allow_none=True,
                         validate=validate.Range(2, 1000), metadata={
                             "description": "At most this many entrants"})
    min_rating = fields.Float(load_default=None, allow_none=True, metadata={
        "description": "Entry needs this rating (ordinal, the variant's) or more"})
    max_rating = fields.Float(load_default=None, allow_none=True)
    invited = fields.List(fields.String(validate=validate.Length(1, 100)),
                          load_default=None, allow_none=True,
                          validate=validate.Length(1, 1000), metadata={
                              "description": "Entry by invitation: the handles of the only "
                              "accounts that may enter (an unknown one: 422 "
                              "unknown_handle); others: 403 not_invited_to_enter"})
    max_timeouts = fields.Integer(strict=True, load_default=None, allow_none=True,
                                  validate=validate.Range(0, 1000), metadata={
                                      "description": "A record of moving in time: entry "
                                      "needs at most this many turns whose time ran out in "
                                      "the account's last timeout_games finished games "
                                      "(else 403 timeout_record)"})
    timeout_games = fields.Integer(strict=True, load_default=10,
                                   validate=validate.Range(1, 50), metadata={
                                       "description": "How many of the account's last "
                                       "finished games max_timeouts looks at"})
    vacations_pause = fields.Boolean(load_default=True, metadata={
        "description": "Does a player's vacation stop its clock in the tournament's games "
                       "(as in any game)? false: its time runs on. The games' clock: "
                       "time_per_move or time_control (a bank; days off such as weekends, "
                       "days_off and timezone), as a create request's"})


class TournamentTableSchema(ma.Schema):
    table = fields.Integer(required=True)
    division = fields.Integer(required=True, metadata={
        "description": "The group or division (0: the first)"})
    game_id = fields.String(allow_none=True, required=True)
    players = fields.List(fields.String(allow_none=True), required=True, metadata={
        "description": "Handles in seat order (the first moves first)"})
    scores = fields.List(fields.Integer(), allow_none=True, required=True, metadata={
        "description": "Final scores in seat order, once the game is over"})
    left = fields.List(fields.String(allow_none=True), required=True, metadata={
        "description": "Players whose seat a bot took (ranked last)"})


class TournamentRoundSchema(ma.Schema):
    round = fields.Integer(required=True)
    season = fields.Integer(required=True)
    started_at = Timestamp(required=True)
    finished_at = Timestamp(allow_none=True, required=True)
    byes = fields.List(fields.String(allow_none=True), required=True)
    tables = fields.List(fields.Nested(TournamentTableSchema), required=True)


class StandingSchema(ma.Schema):
    rank = fields.Integer(required=True)
    handle = fields.String(allow_none=True, required=True)
    division = fields.Integer(required=True)
    points = fields.Float(required=True)
    score = fields.Integer(required=True, metadata={
        "description": "Tie-break 1: the sum of the player's final scores"})
    opponents = fields.Float(required=True, metadata={
        "description": "Tie-break 2: the points of the opponents met"})
    played = fields.Integer(required=True)
    byes = fields.Integer(required=True)


class EntrySchema(ma.Schema):
    handle = fields.String(allow_none=True, required=True)
    joined_at = Timestamp(required=True)
    withdrawn = fields.Boolean(required=True)
    inactive = fields.Boolean(required=True, metadata={
        "description": "A bot took its seat: not seated again unless it enters again"})


class TournamentSettingsSchema(ma.Schema):
    options = fields.Dict(keys=fields.String())
    time_per_move = fields.Integer(allow_none=True)
    time_control = fields.Dict(allow_none=True)
    timeout_policy = fields.String(allow_none=True)
    takeover_after_timeouts = fields.Integer(allow_none=True)
    takeover_bot = fields.String(allow_none=True)
    replay_public = fields.Boolean(allow_none=True)
    spectators_read_chat = fields.Boolean(allow_none=True)
    rank_points = fields.List(fields.Float(), allow_none=True)
    bye_points = fields.Float(allow_none=True)
    skip_points = fields.Float(allow_none=True)
    group_size = fields.Integer(allow_none=True)
    division_size = fields.Integer(allow_none=True)
    moves = fields.Integer(allow_none=True)
    advance = fields.Integer(allow_none=True)
    cap = fields.Integer(allow_none=True)
    min_rating = fields.Float(allow_none=True)
    max_rating = fields.Float(allow_none=True)
    vacations_pause = fields.Boolean(allow_none=True)
    invited = fields.List(fields.String(), allow_none=True, metadata={
        "description": "Entry by invitation: the handles that may enter (null: anyone)"})
    max_timeouts = fields.Integer(allow_none=True)
    timeout_games = fields.Integer(allow_none=True)


class TournamentSummarySchema(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    organiser = fields.String(allow_none=True, required=True, metadata={
        "description": "The organiser's handle"})
    variant = fields.String(required=True)
    format = fields.String(required=True, metadata={"enum": list(FORMATS)})
    table_size = fields.Integer(required=True)
    least_size = fields.Integer(required=True)
    planned_rounds = fields.Integer(required=True, metadata={
        "description": "The rounds asked for (a league's: seasons)"})
    seed = fields.Integer(required=True)
    status = fields.String(required=True, metadata={"enum": list(STATUSES)})
    round = fields.Integer(required=True, metadata={"description": "The latest round "
                                                    "(0: not started)"})
    season = fields.Integer(allow_none=True, required=True)
    entrants = fields.Integer(required=True)
    settings = fields.Nested(TournamentSettingsSchema, required=True)
    created_at = Timestamp(required=True)
    started_at = Timestamp(allow_none=True, required=True)
    finished_at = Timestamp(allow_none=True, required=True)


class TournamentSchema(TournamentSummarySchema):
    entries = fields.List(fields.Nested(EntrySchema), required=True)
    rounds = fields.List(fields.Nested(TournamentRoundSchema), required=True)
    standings = fields.List(fields.Nested(StandingSchema), required=True, metadata={
        "description": "Best first: points, then score, opponents, head to head, seed "
                       "(a knockout: who went further first; a league: the latest "
                       "season, division by division)"})


class TournamentsSchema(ma.Schema):
    tournaments = fields.List(fields.Nested(TournamentSummarySchema), required=True)
    total = fields.Integer(required=True)


class TournamentsQuerySchema(PageQuerySchema):
    status = fields.String(load_default="open", validate=validate.OneOf(STATUSES))


class NoBodySchema(Strict):
    pass
