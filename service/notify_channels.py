"""An account's notification channels beyond e-mail (issue 37): a browser's Web Push
subscription (RFC 8030/8291/8292) or an Apprise URL (ntfy, Telegram, Discord, Matrix,
JSON…), each with the ``EVENTS`` it wants told.

The rules: what a subscription or a URL may be (``check_subscription``,
``check_apprise_url``: no private or loopback target unless
``ALHAMBRA_WEBHOOK_ALLOW_PRIVATE=1``, as for webhooks: service/webhook_urls.py), at most
``MAX_CHANNELS`` per account, an Apprise URL never shown back whole (``masked``). The
server's VAPID key pair (``vapid_key``) is made once, at first start, beside the secret
key (or derived from it). What is sent when: service/due.py plans a ``notify`` row for a
claimed seat's turn and its game's end, ``notify_deadline`` rows at its reminders'
times, service/talk.py a ``notify`` row for a message to a claimed seat whose account
has a channel that chose ``message``; workers/push.py fans each out to the channels
that want it (one ``push`` row each) and delivers them. service/invitations.py writes
the ``push`` rows of an invitation (of no game) as it is sent, service/tournaments.py
those of a round paired and of a tournament's end.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid02

from engine.words import msg

from . import times
from .errors import ChannelNotFound, ChannelRefused, TooManyChannels, WebhookUrlRefused
from .store import Channel, EventStore, Player
from .webhook_urls import check_address, check_name, check_url

log = logging.getLogger(__name__)

#: What a channel may ask to be told of (``tournament_round``: the account's table of a
#: tournament's round, and the tournament's end).
EVENTS = ("your_turn", "deadline_near", "game_over", "message", "invitation",
          "tournament_round")
#: The events of a channel that names none: every one but table talk.
DEFAULT_EVENTS = tuple(e for e in EVENTS if e != "message")
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
MAX_CHANNELS = 10  # per account, push subscriptions and URLs together
MAX_URL = 2000
#: The Apprise schemes served: those whose target is a fixed public service, and those
#: that name a host of the player's (checked as a webhook's would be).
FIXED_SCHEMES = ("tgram", "discord", "slack", "pover")
HOSTED_SCHEMES = ("json", "jsons", "ntfy", "ntfys", "matrix", "matrixs", "gotify", "gotifys")


# -- the server's VAPID key ------------------------------------------------------------------

@cache
def vapid_key(path: Path | None, secret: bytes = b"") -> Vapid02:
    """The VAPID key pair in the PEM file ``path``, made there (mode 0600) if missing,
    read once per process; with no ``path``, the key pair derived from the server's
    ``secret`` key (an HMAC as the P-256 private number: every host that shares the
    secret shares it)."""
    if path is None:
        digest = hmac.new(secret, b"alhambra-pbem vapid", hashlib.sha512).digest()
        number = int.from_bytes(digest, "big") % (P256_ORDER - 1) + 1
        return _lenient(Vapid02(ec.derive_private_key(number, ec.SECP256R1())))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        key = Vapid02()
        key.generate_keys()
        with os.fdopen(fd, "wb") as f:
            f.write(key.private_pem())
        log.info("made a VAPID key pair in %s", path)
    for _ in range(50):  # another process may be writing it right now
        pem = path.read_bytes()
        if b"END" in pem:
            return _lenient(Vapid02.from_pem(pem))
        time.sleep(0.01)
    raise ValueError(f"{path} does not hold a PEM private key")


def _lenient(key: Vapid02) -> Vapid02:
    """The key signing any ``sub`` claim the operator set (py-vapid's own check refuses
    a ``mailto:`` address whose domain has no dot)."""
    key.conf["no-strict"] = True
    return key


def public_key(key: Vapid02) -> str:
    """The key a browser subscribes with (``applicationServerKey``): the uncompressed
    P-256 point, base64url without padding."""
    raw = key.public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


# -- what a channel may be -------------------------------------------------------------------

def _b64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def check_subscription(endpoint: str, p256dh: str, auth: str,
                       allow_private: bool = False) -> None:
    """ChannelRefused unless this is a push subscription the server may send to: an
    https endpoint (http too with private targets allowed) at a public address, a
    P-256 public key and a 16-byte auth secret."""
    try:
        target = check_url(endpoint, allow_private)
    except WebhookUrlRefused as exc:
        raise ChannelRefused("endpoint", exc.reason) from None
    if target.scheme != "https" and not allow_private:
        raise ChannelRefused("endpoint", msg("a push endpoint is an https URL"))
    try:
        point = _b64(p256dh)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except (ValueError, binascii.Error):
        raise ChannelRefused("keys.p256dh", msg("keys.p256dh is not a P-256 public key "
                                                "(base64url)")) from None
    try:
        secret = _b64(auth)
    except (ValueError, binascii.Error):
        secret = b""
    if len(secret) != 16:
        raise ChannelRefused("keys.auth", msg("keys.auth is not a 16-byte secret "
                                              "(base64url)"))


def apprise_target(url: str) -> Any:
    """Apprise's object for ``url`` (its plugin, host parsed); ChannelRefused unless its
    scheme is served."""
    import apprise

    scheme = urlsplit(url).scheme.lower() if len(url) <= MAX_URL else ""
    if scheme not in FIXED_SCHEMES + HOSTED_SCHEMES:
        raise ChannelRefused("url", msg("the schemes served are {schemes}",
                                        schemes=", ".join(FIXED_SCHEMES + HOSTED_SCHEMES)))
    target = apprise.Apprise.instantiate(url, suppress_exceptions=True)
    if target is None:
        raise ChannelRefused("url", msg("Apprise cannot read this URL"))
    return target


def check_apprise_url(url: str, allow_private: bool = False) -> Any:
    """Apprise's object for ``url``; ChannelRefused unless its scheme is served and the
    host it names (if it names one) is one a webhook could call."""
    target = apprise_target(url)
    host = str(getattr(target, "host", "") or "").lower()
    if urlsplit(url).scheme.lower() in HOSTED_SCHEMES and host:
        try:
            address = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            address = None
        try:
            if address is None:
                check_name(host, allow_private)
            else:
                check_address(address, allow_private)
        except WebhookUrlRefused as exc:
            raise ChannelRefused("url", exc.reason) from None
    return target


def masked(url: str) -> str:
    """An Apprise URL with its secrets hidden (``url(privacy=True)``), as shown back."""
    try:
        target = apprise_target(url)
    except ChannelRefused:
        return urlsplit(url).scheme + "://…"
    return str(target.url(privacy=True))


# -- the application layer -------------------------------------------------------------------

@dataclass(frozen=True)
class ChannelView:
    """A channel as its owner sees it: an Apprise URL masked, a push endpoint whole (it
    is the browser's, and no secret of the player's)."""

    id: int
    kind: str
    target: str
    events: tuple[str, ...]
    created_at: datetime
    failures: int
    last_error: str | None
    last_sent_at: datetime | None


def view(channel: Channel) -> ChannelView:
    return ChannelView(channel.id, channel.kind,
                       masked(channel.target) if channel.kind == "apprise" else channel.target,
                       channel.events, channel.created_at, channel.failures,
                       channel.last_error, channel.last_sent_at)


class NotifyChannels:
    """The channels of each account, over the store; ``vapid_file``: the VAPID key."""

    def __init__(self, store: EventStore, vapid_file: Path | None, secret: bytes,
                 allow_private: bool = False) -> None:
        self.store, self.allow_private = store, allow_private
        self.key = vapid_key(vapid_file, secret)  # made here at the first start
        self.key_text = public_key(self.key)

    def subscribe(self, player: Player, endpoint: str, p256dh: str, auth: str,
                  events: Sequence[str] | None) -> ChannelView:
        """Keep a browser's push subscription (the same endpoint again: its new keys and
        events); ChannelRefused, TooManyChannels."""
        check_subscription(endpoint, p256dh, auth, self.allow_private)
        return self._add(Channel(0, player.email, "push", endpoint, _events(events),
                                 times.now(), p256dh, auth))

    def add_url(self, player: Player, url: str, events: Sequence[str] | None
                ) -> ChannelView:
        """Keep an Apprise URL; ChannelRefused, TooManyChannels."""
        check_apprise_url(url, self.allow_private)
        return self._add(Channel(0, player.email, "apprise", url, _events(events),
                                 times.now()))

    def _add(self, channel: Channel) -> ChannelView:
        kept = self.store.channels.add(channel, MAX_CHANNELS)
        if kept is None:
            raise TooManyChannels(MAX_CHANNELS)
        return view(kept)

    def channels(self, player: Player, kind: str) -> list[ChannelView]:
        """The player's channels of ``kind`` (push, apprise), oldest first."""
        return [view(c) for c in self.store.channels.of_account(player.email, (kind,))]

    def remove(self, player: Player, kind: str, channel_id: int) -> None:
        """Remove one of the player's channels of ``kind``; ChannelNotFound."""
        channel = self.store.channels.get(channel_id)
        if channel is None or channel.email != player.email or channel.kind != kind or \
                not self.store.channels.delete(channel_id, player.email):
            raise ChannelNotFound(channel_id)


def _events(events: Sequence[str] | None) -> tuple[str, ...]:
    """The events in ``EVENTS``' order (None: ``DEFAULT_EVENTS``); the schema checked
    each name."""
    if events is None:
        return DEFAULT_EVENTS
    return tuple(e for e in EVENTS if e in events)
