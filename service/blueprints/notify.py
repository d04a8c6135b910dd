"""/push/key, /me/push and /me/notify-urls: an account's notification channels beyond
e-mail (service/notify_channels.py), managed with the sign-in session's token."""

from __future__ import annotations

from typing import Any

from flask import current_app

from ..notify_channels import ChannelView, NotifyChannels
from ..notify_schemas import (
    NotifyUrlInSchema,
    NotifyUrlSchema,
    NotifyUrlsSchema,
    PushKeySchema,
    PushSubscriptionInSchema,
    PushSubscriptionSchema,
    PushSubscriptionsSchema,
)
from ..player_schemas import PageQuerySchema
from .common import (
    BEARER_REQUIRED,
    LINK_HEADER,
    Blueprint,
    bearer_token,
    errors,
    next_link,
    players,
)

blp = Blueprint("notify", __name__, url_prefix="",
                description="Notifications beyond e-mail: Web Push and Apprise URLs")


def channels() -> NotifyChannels:
    c: NotifyChannels = current_app.extensions["alhambra_channels"]
    return c


def _session() -> Any:
    """The signed-in player (its session's token only: 403 ``session_needed``)."""
    return players().session(bearer_token())


def _page(items: list[ChannelView], query: dict[str, Any], key: str
          ) -> tuple[dict[str, Any], int, dict[str, str]]:
    end = query["offset"] + query["limit"]
    more = next_link(offset=end) if len(items) > end else {}
    return {key: items[query["offset"]:end]}, 200, more


@blp.route("/push/key", methods=["GET"])
@blp.response(200, PushKeySchema)
def push_key() -> dict[str, Any]:
    """The server's Web Push key

    The VAPID public key a browser subscribes with (`pushManager.subscribe({userVisibleOnly:
    true, applicationServerKey})`), then hands its subscription to `POST /me/push`."""
    return {"public_key": channels().key_text}


@blp.route("/me/push", methods=["POST"])
@blp.arguments(PushSubscriptionInSchema())
@blp.response(201, PushSubscriptionSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 415, 422)
def subscribe(body: dict[str, Any]) -> tuple[ChannelView, int, dict[str, str]]:
    """Add a Web Push subscription

    The body is a browser's `PushSubscription.toJSON()` (`endpoint`, `keys.p256dh`,
    `keys.auth`), with the `events` to be told of. The same endpoint again replaces its
    keys and events. Notices are JSON `{"game_id", "version", "what", "url", "title",
    "body"}` (an invitation: `game_id` and `version` null, its `invitation_id`),
    encrypted `aes128gcm`, signed with the server's VAPID key, with a `TTL` no longer
    than the time left to move or to answer; a subscription the push service says is gone
    (404, 410) is removed. 422 `channel_refused`: an endpoint that is not https or not at
    a public address, or keys that are not a P-256 key and a 16-byte secret; 422
    `too_many_channels`. Only the sign-in session's token (403 `session_needed`)."""
    view = channels().subscribe(_session(), body["endpoint"], body["keys"]["p256dh"],
                                body["keys"]["auth"], body["events"])
    return view, 201, {"Location": f"/me/push/{view.id}"}


@blp.route("/me/push", methods=["GET"])
@blp.arguments(PageQuerySchema(), location="query")
@blp.response(200, PushSubscriptionsSchema, headers=LINK_HEADER)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 422)
def list_push(query: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """My Web Push subscriptions

    Each with its events and its failures in a row (`failures`, `last_error`), oldest
    first; paged as `/me/games`."""
    return _page(channels().channels(_session(), "push"), query, "subscriptions")


@blp.route("/me/push/<int:channel_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def unsubscribe(channel_id: int) -> None:
    """Remove a Web Push subscription

    404 `channel_not_found`: no subscription of the player's has this id."""
    channels().remove(_session(), "push", channel_id)


@blp.route("/me/notify-urls", methods=["POST"])
@blp.arguments(NotifyUrlInSchema())
@blp.response(201, NotifyUrlSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 415, 422)
def add_notify_url(body: dict[str, Any]) -> tuple[ChannelView, int, dict[str, str]]:
    """Add an Apprise URL

    Notices (a title, a line and the game's link) go through Apprise to ntfy
    (`ntfys://ntfy.sh/topic`), Telegram (`tgram://`), Discord (`discord://`), Matrix
    (`matrixs://`), Slack, Pushover, Gotify or a JSON POST (`json://`, `jsons://`). The URL
    is never shown back whole (its secrets hidden). 422 `channel_refused`: another
    scheme, or a host that is private, loopback or inside a network (unless the server
    allows private targets); 422 `too_many_channels`. Only the sign-in session's
    token."""
    view = channels().add_url(_session(), body["url"], body["events"])
    return view, 201, {"Location": f"/me/notify-urls/{view.id}"}


@blp.route("/me/notify-urls", methods=["GET"])
@blp.arguments(PageQuerySchema(), location="query")
@blp.response(200, NotifyUrlsSchema, headers=LINK_HEADER)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 422)
def list_notify_urls(query: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """My Apprise URLs

    Each with its secrets hidden, its events and its failures in a row; paged as
    `/me/games`."""
    return _page(channels().channels(_session(), "apprise"), query, "urls")


@blp.route("/me/notify-urls/<int:channel_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def delete_notify_url(channel_id: int) -> None:
    """Remove an Apprise URL

    404 `channel_not_found`: no URL of the player's has this id."""
    channels().remove(_session(), "apprise", channel_id)
