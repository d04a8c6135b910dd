"""/games/{id}/events, /legal-moves, /moves and /moves/preview: follow and play a game."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from flask import current_app, request
from werkzeug.sansio.response import Response

from .. import present
from ..games import read_moves
from ..i18n import msg
from ..problems import ApiError
from ..schemas import (
    EventsPageQuerySchema,
    EventsSchema,
    LegalMovesSchema,
    PreviewedSchema,
    PreviewSchema,
    SubmitSchema,
    SubmittedSchema,
)
from .common import (
    BEARER,
    BEARER_REQUIRED,
    ETAG_HEADER,
    LINK_HEADER,
    Blueprint,
    caller,
    conditional,
    errors,
    etag,
    next_link,
    service,
)

blp = Blueprint("play", __name__, url_prefix="/games",
                description="Playing: events, legal moves, moves")


@blp.route("/<string:game_id>/events", methods=["GET"])
@conditional(blp)
@blp.arguments(EventsPageQuerySchema(), location="query")
@blp.response(200, EventsSchema, headers=ETAG_HEADER | LINK_HEADER)
@blp.doc(security=BEARER)
@errors(blp, 401, 403, 404, 422)
def list_events(query: dict[str, Any], game_id: str
                ) -> tuple[dict[str, Any], int, dict[str, str]]:
    """The events since a version

    Redacted for the caller: other seats' hands, the deck and bag order (and the seed, until
    the game is over) are left out. A finished game whose host created it with
    `replay_public: false` answers 403 to anyone but its seats and host. At most `limit`
    events; when there are more, `Link: <…?since=<last version shown>…>; rel="next"`
    (`version` stays the game's). `ETag` `"<version>.<hash>"` and `If-None-Match` as for
    the game (304 while nothing new)."""
    games = service()
    page = games.events(games.game(game_id), caller(), query["since"])
    headers = {"ETag": etag(page.version)}
    if len(page.items) > query["limit"]:
        page = replace(page, items=page.items[:query["limit"]])
        headers |= next_link(since=page.items[-1].version)
    return present.events(page), 200, headers


@blp.route("/<string:game_id>/legal-moves", methods=["GET"])
@conditional(blp)
@blp.response(200, LegalMovesSchema, headers=ETAG_HEADER)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def legal_moves(game_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    """The caller's legal moves now

    In notation and as structured JSON; empty when it is not the caller's turn. `ETag`
    `"<version>.<hash>"` and `If-None-Match` as for the game."""
    games = service()
    moves = games.legal_moves(games.game(game_id), caller())
    return present.legal_moves(moves), 200, {"ETag": etag(moves.version)}


#: ``If-Match``: the game's version, plain (``"278"``, as moves and creation answer) or as
#: the ETag of a GET (``"278.3f9a1c2b04"``: the version is the part before the dot).
_ETAG = re.compile(r'^\s*(?:W/)?"?(\d{1,10})(?:\.[0-9a-f]{1,64})?"?\s*$')


def _expected_version(body: dict[str, Any], header: str | None) -> int:
    body_version = body.get("version")
    header_version = None
    if header is not None:
        m = _ETAG.match(header)
        if not m:
            raise ApiError("bad_request", msg("If-Match must be the game's ETag, e.g. "
                                                   '"42"'))
        header_version = int(m.group(1))
    if body_version is not None and header_version is not None and \
            body_version != header_version:
        raise ApiError("bad_request", msg("the body's version and If-Match differ"))
    expected = body_version if body_version is not None else header_version
    if expected is None:
        raise ApiError("precondition_required", msg(
            "say which version of the game the move was made against: the body's 'version' "
            "or If-Match"))
    return expected


@blp.route("/<string:game_id>/moves", methods=["POST"])
@blp.arguments(SubmitSchema())
@blp.response(201, SubmittedSchema, headers={
    "ETag": {"description": "The game's new version", "schema": {"type": "string"}},
    "Idempotent-Replayed": {"description": "true when this is the stored first answer",
                            "schema": {"type": "string"}}})
@blp.doc(security=BEARER_REQUIRED, parameters=[
    {"in": "header", "name": "If-Match", "required": False, "schema": {"type": "string"},
     "description": "The version the move was made against: `\"<version>\"` or an ETag "
                    "of a GET, `\"<version>.<hash>\"` (its hash is not checked)"},
    {"in": "header", "name": "Idempotency-Key", "required": False,
     "schema": {"type": "string", "minLength": 1, "maxLength": 200},
     "description": "A retry with the same key returns the first answer"}])
@errors(blp, 400, 401, 403, 404, 409, 415, 422, 428)
def submit_moves(body: dict[str, Any], game_id: str) -> Response:
    """Submit a move or a whole turn

    `move` in notation (a turn: moves separated by `;`) or `moves` as JSON, made against
    `version` (or `If-Match`). 201 with the new events and the caller's view. Stale
    version: 409 `version_conflict` with `current_version`. Not your turn or not your seat:
    403. A rule broken: 422 `rule_violation` with the `rule` id. Nothing is written on any
    error; a retry with the same `Idempotency-Key` returns the first answer."""
    games = service()
    game = games.game(game_id)
    seat = caller().player(game)
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= 200:
        raise ApiError("bad_request", msg("Idempotency-Key must have 1 to 200 "
                                               "characters"))
    expected = _expected_version(body, request.headers.get("If-Match"))
    moves = read_moves(body.get("move"), body.get("moves"))
    played = games.submit(game, seat, moves, expected, key)
    # The answer is built to SubmittedSchema already: skip the second serialisation pass.
    resp = current_app.json.response(present.played(played))
    resp.status_code = 201
    resp.headers["ETag"] = etag(played.version)
    if played.replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    return resp


@blp.route("/<string:game_id>/moves/preview", methods=["POST"])
@blp.arguments(PreviewSchema())
@blp.response(200, PreviewedSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 404, 409, 415, 422)
def preview_moves(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Plan moves without sending them

    With the seat's token: the events the moves would record and the seat's view after
    them, or the same refusal a submission would get (403, 409, 422 `rule_violation`
    with the `rule`). Nothing is recorded, and nothing drawn is shown: the view stops
    before the refill that ends a turn (`turn_ends`), so a planned turn reveals no card
    or tile a real one has not drawn yet. With `version`, a plan made on an older
    version gets 409 `version_conflict`. Then send the whole plan to `/moves`."""
    games = service()
    game = games.game(game_id)
    seat = caller().player(game)
    moves = read_moves(body.get("move"), body.get("moves"))
    return present.previewed(games.preview(game, seat, moves, body.get("version")))


@blp.route("/<string:game_id>/resign", methods=["POST"])
@blp.response(201, SubmittedSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404, 409, 422)
def resign(game_id: str) -> dict[str, Any]:
    """Resign

    With the seat token: a bot (the game's `takeover_bot`) plays the seat from now on so
    the game goes on (rule S-2); everyone is told by mail and the final result marks the
    seat resigned. The token can no longer move (409 `seat_played_by_bot`); resigning
    again: 422 `rule_violation` (S-2)."""
    games = service()
    game = games.game(game_id)
    return present.played(games.resign(game, caller().player(game)))
