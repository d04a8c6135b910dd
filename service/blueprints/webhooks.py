"""/games/{id}/webhooks: a seat or the game's host registers URLs that receive new events."""

from __future__ import annotations

from typing import Any

from ..schemas import (
    WebhookCreatedSchema,
    WebhookInSchema,
    WebhookListSchema,
    WebhookSchema,
)
from .common import BEARER_REQUIRED, Blueprint, caller, errors, service

blp = Blueprint("webhooks", __name__, url_prefix="/games",
                description="Webhooks: new events POSTed to a URL, signed")

@blp.route("/<string:game_id>/webhooks", methods=["POST"])
@blp.arguments(WebhookInSchema())
@blp.response(201, WebhookCreatedSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 404, 415, 422)
def create_webhook(body: dict[str, Any], game_id: str) -> tuple[Any, int, dict[str, str]]:
    """Register a webhook

    With a seat token, each new event is sent redacted for that seat (its own hand only);
    with the host token, as a spectator sees it. The workers POST JSON
    `{"game_id", "webhook_id", "seat", "from_version", "to_version", "events": [{"version",
    "event"}]}` with `X-Alhambra-Signature: sha256=<hex>` (HMAC-SHA256 of the raw body with
    the `secret`) and `X-Alhambra-Delivery` (the same on every retry of a delivery). A
    delivery answered other than 2xx (a redirect too: none is followed), or not answered
    within the server's timeouts, is retried with backoff; after too many failures in a
    row the hook is disabled (see `failures`, `last_error`, `disabled_at`).

    The URL must be http or https without user info, and (unless the server allows private
    targets) reach public addresses only: loopback, private, link-local, multicast,
    reserved and unspecified addresses, in any form, are refused here
    (`webhook_url_refused`) and again at each delivery after DNS resolution. A game and
    each seat may have a few hooks only (`too_many_webhooks`)."""
    games = service()
    game = games.game(game_id)
    hook = games.add_webhook(game, caller(), body["url"], body["secret"])
    return hook, 201, {"Location": f"/games/{game.id}/webhooks/{hook.id}"}


@blp.route("/<string:game_id>/webhooks", methods=["GET"])
@blp.response(200, WebhookListSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def list_webhooks(game_id: str) -> dict[str, Any]:
    """The caller's webhooks on this game (without their secrets)"""
    games = service()
    return {"webhooks": games.webhooks(games.game(game_id), caller())}


@blp.route("/<string:game_id>/webhooks/<int:hook_id>", methods=["GET"])
@blp.response(200, WebhookSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def get_webhook(game_id: str, hook_id: int) -> Any:
    """One of the caller's webhooks: its status (failures in a row, last error, disabled)"""
    games = service()
    return games.webhook(games.game(game_id), caller(), hook_id)


@blp.route("/<string:game_id>/webhooks/<int:hook_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def delete_webhook(game_id: str, hook_id: int) -> None:
    """Remove one of the caller's webhooks"""
    games = service()
    games.delete_webhook(games.game(game_id), caller(), hook_id)
    return None
