"""/games/{id}/webhooks: a seat or the game's host registers URLs that receive new events."""

from __future__ import annotations

import secrets

from flask_smorest import Blueprint

from ..auth import Caller
from ..errors import ApiError
from ..schemas import WebhookCreatedSchema, WebhookInSchema, WebhookListSchema
from ..store import Game
from .common import BEARER_REQUIRED, caller, errors, game_or_404, service

blp = Blueprint("webhooks", __name__, url_prefix="/games",
                description="Webhooks: new events POSTed to a URL, signed")

def _owner(c: Caller, game: Game) -> int | None:
    """The seat a webhook of the caller is for (None: the host's); 401/403 otherwise."""
    if c.anonymous:
        raise ApiError(401, "unauthorized", "a seat token or the host token is needed: "
                       "'Authorization: Bearer <token>'",
                       headers={"WWW-Authenticate": 'Bearer realm="alhambra-pbem"'})
    if c.game_id == game.id and c.seat is not None:
        return c.seat
    if game.id in c.hosted:
        return None
    raise ApiError(403, "forbidden", "this token is neither a seat nor the host of this game")


@blp.route("/<string:game_id>/webhooks", methods=["POST"])
@blp.arguments(WebhookInSchema())
@blp.response(201, WebhookCreatedSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 404, 415, 422)
def create_webhook(body, game_id):
    """Register a webhook

    With a seat token, each new event is sent redacted for that seat (its own hand only);
    with the host token, as a spectator sees it. The workers POST JSON
    `{"game_id", "webhook_id", "seat", "from_version", "to_version", "events": [{"version",
    "event"}]}` with `X-Alhambra-Signature: sha256=<hex>` (HMAC-SHA256 of the raw body with
    the `secret`) and `X-Alhambra-Delivery` (the same on every retry of a delivery). A
    delivery answered other than 2xx is retried with backoff."""
    game = game_or_404(game_id)
    seat = _owner(caller(), game)
    secret = body["secret"] or secrets.token_urlsafe(24)
    hook = service().store.add_webhook(game.id, seat, body["url"], secret)
    return hook, 201, {"Location": f"/games/{game.id}/webhooks/{hook.id}"}


@blp.route("/<string:game_id>/webhooks", methods=["GET"])
@blp.response(200, WebhookListSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def list_webhooks(game_id):
    """The caller's webhooks on this game (without their secrets)"""
    game = game_or_404(game_id)
    seat = _owner(caller(), game)
    hooks = [h for h in service().store.webhooks(game.id) if h.seat == seat]
    return {"webhooks": hooks}


@blp.route("/<string:game_id>/webhooks/<int:hook_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def delete_webhook(game_id, hook_id):
    """Remove one of the caller's webhooks"""
    game = game_or_404(game_id)
    seat = _owner(caller(), game)
    hook = service().store.webhook(hook_id)
    if hook is None or hook.game_id != game.id or hook.seat != seat:
        raise ApiError(404, "webhook_not_found", f"this game has no webhook {hook_id} of yours")
    service().store.delete_webhook(game.id, hook_id)
    return None
