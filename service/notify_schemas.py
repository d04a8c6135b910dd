"""Marshmallow schemas of an account's notification channels (/push/key, /me/push,
/me/notify-urls: service/notify_channels.py)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from .notify_channels import DEFAULT_EVENTS, EVENTS, MAX_URL
from .schemas import Strict, Timestamp

EVENTS_DOC = (f"What to be told of, of {', '.join(f'`{e}`' for e in EVENTS)} "
              "(`tournament_round`: the account's table of each round of a tournament, "
              "and its end); absent: "
              f"{', '.join(f'`{e}`' for e in DEFAULT_EVENTS)}")


def _events() -> fields.List[str]:
    return fields.List(fields.String(validate=validate.OneOf(EVENTS)), load_default=None,
                       validate=validate.Length(0, len(EVENTS)),
                       metadata={"description": EVENTS_DOC})


class PushKeySchema(ma.Schema):
    public_key = fields.String(required=True, metadata={
        "description": "The server's VAPID public key (the uncompressed P-256 point, "
                       "base64url): `applicationServerKey` of `pushManager.subscribe`"})


class PushKeysSchema(Strict):
    p256dh = fields.String(required=True, validate=validate.Length(1, 200))
    auth = fields.String(required=True, validate=validate.Length(1, 100))


class PushSubscriptionInSchema(Strict):
    endpoint = fields.String(required=True, validate=validate.Length(1, MAX_URL), metadata={
        "description": "The push service's URL for this browser (https)"})
    expirationTime = fields.Raw(load_default=None, allow_none=True, metadata={  # noqa: N815
        "description": "As `PushSubscription.toJSON()` gives it (ignored)"})
    keys = fields.Nested(PushKeysSchema, required=True)
    events = _events()


class ChannelFields(ma.Schema):
    id = fields.Integer(required=True, metadata={"description": "To remove it"})
    events = fields.List(fields.String(), required=True)
    created_at = Timestamp(required=True)
    failures = fields.Integer(required=True, metadata={
        "description": "Deliveries that failed in a row (0 after a success)"})
    last_error = fields.String(allow_none=True, required=True)
    last_sent_at = Timestamp(allow_none=True, required=True)


class PushSubscriptionSchema(ChannelFields):
    endpoint = fields.String(required=True, attribute="target")


class PushSubscriptionsSchema(ma.Schema):
    subscriptions = fields.List(fields.Nested(PushSubscriptionSchema), required=True)


class NotifyUrlInSchema(Strict):
    url = fields.String(required=True, validate=validate.Length(1, MAX_URL), metadata={
        "description": "An Apprise URL: `ntfys://ntfy.sh/topic`, `tgram://bot/chat`, "
                       "`discord://id/token`, `matrixs://user:pass@host/#room`, "
                       "`json://host/path`…"})
    events = _events()


class NotifyUrlSchema(ChannelFields):
    url = fields.String(required=True, attribute="target", metadata={
        "description": "The URL with its secrets hidden"})


class NotifyUrlsSchema(ma.Schema):
    urls = fields.List(fields.Nested(NotifyUrlSchema), required=True)
