"""/me/blocks and /reports: a player blocks another account, and reports a message or an
account to the server's operator (service/moderation.py)."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app

from ..moderation import Moderation
from ..player_schemas import (
    BlocksSchema,
    PageQuerySchema,
    ReportInSchema,
    ReportSchema,
)
from .common import (
    BEARER_REQUIRED,
    LINK_HEADER,
    Blueprint,
    bearer_token,
    errors,
    next_link,
    players,
)

blp = Blueprint("moderation", __name__, url_prefix="",
                description="Moderation: blocking players, reporting messages and players")


def moderation() -> Moderation:
    m: Moderation = current_app.extensions["alhambra_moderation"]
    return m


def signed_in() -> Any:
    """The player of the request's sign-in session token (403 `session_needed` for a
    personal token; 403 `account_suspended`)."""
    p = players()
    return p.session(bearer_token())


@blp.route("/me/blocks/<string:handle>", methods=["PUT"])
@blp.response(204, description="Blocked already: nothing changed")
@blp.alt_response(201, description="Blocked (no body)")
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404, 422)
def block_player(handle: str) -> Response:
    """Block a player

    From now on the player of `handle` and you cannot write to each other in private
    (403 `blocked`), you read none of its messages (table talk in every game, its
    streams and mails, as if you muted its seat), and neither of you may join a public
    game where the other sits (403 `blocked`). It is not told. 201: blocked; 204: it was
    already. 404 `player_not_found`: no player has this handle; 422 `block_refused`:
    yourself. The sign-in session's token only (403 `session_needed`)."""
    created = moderation().block(signed_in(), handle)
    return Response(status=201 if created else 204)


@blp.route("/me/blocks/<string:handle>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def unblock_player(handle: str) -> None:
    """Unblock a player

    The block of `handle` lifted (204 also if there was none). 404 `player_not_found`:
    no player has this handle."""
    moderation().unblock(signed_in(), handle)


@blp.route("/me/blocks", methods=["GET"])
@blp.arguments(PageQuerySchema(), location="query")
@blp.response(200, BlocksSchema, headers=LINK_HEADER)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 422)
def list_blocks(query: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """The players I blocked

    Their handles, the latest block first. A page of `limit` from `offset`; more:
    `Link: <…?offset=…>; rel="next"`."""
    found = moderation().blocks(signed_in(), query["limit"] + 1, query["offset"])
    more = next_link(offset=query["offset"] + query["limit"]) \
        if len(found) > query["limit"] else {}
    return {"blocks": [{"handle": b.handle, "created_at": b.created_at}
                       for b in found[:query["limit"]]]}, 200, more


@blp.route("/reports", methods=["POST"])
@blp.arguments(ReportInSchema())
@blp.response(201, ReportSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 404, 415, 422, 429)
def create_report(body: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """Report a message or a player

    To the server's operator, who reads every report and may hide a message, suspend an
    account or ban an address. A message: `game_id` and `message_id`, one you can read
    (404 `message_not_found` otherwise); a player: its `handle` (404
    `player_not_found`); and the `reason`. At most 20 reports a day per account (429
    `too_many_reports`) and `ALHAMBRA_LIMIT_REPORT` per client address (429
    `rate_limited`). The sign-in session's token only (403 `session_needed`)."""
    report_id = moderation().report(signed_in(), body["reason"], body.get("game_id"),
                                    body.get("message_id"), body.get("handle"))
    return {"id": report_id}, 201
