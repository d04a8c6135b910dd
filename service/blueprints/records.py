"""/games/{id}/record and /records: game records (engine format), export and import."""

from __future__ import annotations

from typing import Any

from .. import present
from ..auth import Caller
from ..schemas import GameSchema, RecordInSchema, RecordSchema
from ..talk import TableTalk
from .common import Blueprint, caller, errors, service

blp = Blueprint("records", __name__, description="Game records: export and import")


@blp.route("/games/<string:game_id>/record", methods=["GET"])
@blp.response(200, RecordSchema)
@errors(blp, 401, 403, 404, 409)
def get_record(game_id: str) -> dict[str, Any]:
    """The record of a finished game

    The engine's record: options, seed, seats and every move in notation, with the result.
    Served only once the game is over (409 `record_unavailable` before: the seed would
    reveal every hand and draw); a game created with `replay_public: false` only to its
    seats and host (403). `messages`: the table talk the caller may read (a seat's own
    private messages only in its own record)."""
    talk = TableTalk(service())
    return present.record(talk.record(talk.games.game(game_id), caller()))


@blp.route("/records", methods=["POST"])
@blp.arguments(RecordInSchema())
@blp.response(201, GameSchema)
@errors(blp, 400, 415, 422, 429)
def import_record(doc: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Import a finished game for review

    The record is replayed and verified; 422 `invalid_record` names the first move that
    does not replay (`move_number`) and the rule it breaks. Its `messages`, if any, are
    kept, and spectators of the imported game read the table's."""
    games = service()
    game = TableTalk(games).import_record(doc)
    return present.document(games.document(game, Caller())), 201, {"Location": f"/games/{game.id}"}
