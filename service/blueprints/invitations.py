"""/invitations: a game proposed to players by their handles, answered by each
(service/invitations.py)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ..invitation_schemas import (
    InvitationInSchema,
    InvitationSchema,
    InvitationsQuerySchema,
    InvitationsSchema,
)
from ..invitations import Invitation, Invitations
from .common import (
    BEARER_REQUIRED,
    LINK_HEADER,
    Blueprint,
    bearer_token,
    errors,
    next_link,
    players,
)

blp = Blueprint("invitations", __name__, url_prefix="/invitations",
                description="Invitations: a game proposed to players by their handles")


def answer(invitation: Invitation) -> dict[str, Any]:
    return Invitations(players().games).document(invitation)


@blp.route("", methods=["POST"])
@blp.arguments(InvitationInSchema())
@blp.response(201, InvitationSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 415, 422)
def send_invitation(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Invite players to a game

    The game's settings as a create request's (no seats), the `invitees` by handle and
    the `bots` at the table. The inviter (who needs a handle: 422 `handle_needed`) takes
    seat 0, the invitees the next seats in order, the bots the last. The game is made
    when the last invitee accepts, every person's seat claimed by its account from the
    start (played with the account's tokens; rated as any game); a decline, a
    cancellation or `expires_in` seconds without every answer close it. Each invitee's
    `/me/stream` tells an `invitation` event. An unknown handle: 422 `unknown_handle`; a
    player twice or the inviter invited: 422 `invalid_option`; two players one of whom
    blocked the other: 403 `blocked`; at most 50 open
    invitations sent (422 `too_many_invitations`). The sign-in session's token, or a
    personal token with the `play` scope."""
    p = players()
    inviter = p.player(bearer_token(), scope="play")
    invitation = Invitations(p.games).send(inviter, body, body["invitees"], body["bots"],
                                           timedelta(seconds=body["expires_in"]))
    return answer(invitation), 201, {"Location": f"/invitations/{invitation.id}"}


@blp.route("", methods=["GET"])
@blp.arguments(InvitationsQuerySchema(), location="query")
@blp.response(200, InvitationsSchema, headers=LINK_HEADER)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 422)
def list_invitations(query: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """My invitations

    The invitations the player sent or was sent (of `status` only, if given), the newest
    first. `limit` of them from `offset`; more: `Link: <…?offset=…>; rel="next"`. Seats
    offered in games already made are at `GET /me/invitations`."""
    p = players()
    found = Invitations(p.games).of(p.player(bearer_token()), query.get("status"))
    end = query["offset"] + query["limit"]
    more = next_link(offset=end) if len(found) > end else {}
    return {"invitations": [answer(i) for i in found[query["offset"]:end]]}, 200, more


@blp.route("/<string:invitation_id>", methods=["GET"])
@blp.response(200, InvitationSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def get_invitation(invitation_id: str) -> dict[str, Any]:
    """An invitation

    Sent by or to the player (404 `invitation_not_found` otherwise)."""
    p = players()
    return answer(Invitations(p.games).get(p.player(bearer_token()), invitation_id))


@blp.route("/<string:invitation_id>/accept", methods=["POST"])
@blp.response(200, InvitationSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404, 409, 422)
def accept_invitation(invitation_id: str) -> dict[str, Any]:
    """Accept an invitation

    The last acceptance makes the game: the answer's `game_id` (and everyone's
    `/me/stream` tells `game_started`). 403 `not_invited`: the inviter's own; 409
    `invitation_closed`: started, declined, cancelled or expired (see `state`). A
    personal token needs the `play` scope."""
    p = players()
    return answer(Invitations(p.games).accept(p.player(bearer_token(), scope="play"),
                                              invitation_id))


@blp.route("/<string:invitation_id>/decline", methods=["POST"])
@blp.response(200, InvitationSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404, 409)
def decline_invitation(invitation_id: str) -> dict[str, Any]:
    """Decline an invitation

    The invitation closes (`declined`): no game is made. 403 `not_invited`: the
    inviter's own (cancel it instead); 409 `invitation_closed`."""
    p = players()
    return answer(Invitations(p.games).decline(p.player(bearer_token(), scope="play"),
                                               invitation_id))


@blp.route("/<string:invitation_id>", methods=["DELETE"])
@blp.response(200, InvitationSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404, 409)
def cancel_invitation(invitation_id: str) -> dict[str, Any]:
    """Cancel an invitation I sent

    An open invitation closes (`cancelled`): no game. 404 `invitation_not_found`: not
    the player's to cancel; 409 `invitation_closed`: not open any more."""
    p = players()
    return answer(Invitations(p.games).cancel(p.player(bearer_token(), scope="play"),
                                              invitation_id))
