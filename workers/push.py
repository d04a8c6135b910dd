"""Notices on an account's channels beyond e-mail (service/notify_channels.py): the jobs
of the due kinds ``notify``/``notify_deadline`` (one event of a seat: fanned out to the
channels of its account that want it, one ``push`` row each, so that each channel's
delivery is retried and counted on its own) and ``push`` (one delivery). The events: a
seat's turn, its deadline near, the game over (service/due.py plans them with the
batch), a table-talk message the seat reads (service/talk.py writes its ``notify`` row
with the message: told unless deleted or hidden meanwhile, with the writer's name and
at most ``MESSAGE_SHOWN`` characters of it), an invitation by handle
(service/invitations.py writes its ``push`` rows, of no game, with the invitation: told
while it is open), a tournament's round paired with the account's table, and the
tournament's end (``tournament_round``, ``tournament_finished``: service/tournaments.py
writes their rows, of no game, with the round or the end; the channel's event for both
is ``tournament_round``).

A delivery sends the JSON ``{"game_id", "version", "what", "url", "title", "body"}`` in
the account's language (an invitation: ``game_id`` and ``version`` null, its
``invitation_id``, the link to /me; a tournament's: its ``tournament_id`` and ``round``,
the table's ``game_id`` and a link to it, or at the end a link to the tournament):

- to a Web Push subscription: encrypted ``aes128gcm`` for its keys (RFC 8291, pywebpush's
  ``WebPusher.encode``), signed with the server's VAPID key (RFC 8292: ``Authorization:
  vapid t=…, k=…``), ``TTL`` the seconds left to move or to answer an invitation (a
  game over, a message: ``DEFAULT_TTL``),
  POSTed like a webhook (workers/webhooks.py ``send``: checked addresses only, no
  redirect); a 404 or 410 means the subscription is gone: it is removed;
- to an Apprise URL: its title and body (and the link) through Apprise, once the host
  the URL names resolves to addresses a webhook could call.

A failure counts on the channel (``failures``, ``last_error``: shown on ``GET /me/push``
and ``/me/notify-urls``) and is tried again after ``ALHAMBRA_WEBHOOK_RETRIES``.

A player who is watching is not told (the stream told them already): with ``/me/stream``
open, nothing of any game, invitation or tournament; with the game's stream open as the
seat, nothing of that game (service/presence.py; a stream counts ``presence.GRACE``
seconds after it ends, while a page reconnects). The check is made when the event is
fanned out (an invitation's or a tournament's: when it is delivered); e-mail is not
affected.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from pywebpush import WebPusher

from service import due as planned
from service import i18n, times
from service.errors import ChannelRefused, GameNotFound, WebhookUrlRefused
from service.i18n import Msg, msg
from service.invitations import Invitation, status
from service.links import open_path, tournament_path
from service.notify_channels import HOSTED_SCHEMES, check_apprise_url, vapid_key
from service.players import me_path
from service.presence import account_key, seat_key
from service.store import Channel, Claim, Due, DueRow, Finish, Message
from service.tournaments import Notice, Tournaments
from service.webhook_urls import Target, resolve

from . import webhooks
from .context import Context
from .webhooks import DeliveryFailed

log = logging.getLogger("alhambra.push")

DEFAULT_TTL = 7 * 86400  # seconds a push service keeps a notice without a deadline
MAX_TTL = 28 * 86400  # the most push services keep one
JWT_SECONDS = 12 * 3600  # how long a VAPID signature holds
MESSAGE_SHOWN = 300  # characters of a message a notice shows
TITLES: dict[str, Msg] = {
    "your_turn": msg("Your turn"),
    "deadline_near": msg("Reminder: your turn"),
    "game_over": msg("Game over"),
    "message": msg("New message"),
    "invitation": msg("Invitation"),
    "tournament_round": msg("Tournament round"),
    "tournament_finished": msg("Tournament over"),
}


def words(what: str, game_id: str, sender: str | Msg = "", text: str = ""
          ) -> tuple[Msg, Msg]:
    """The title and body of a notice of ``what`` (a message: its ``sender``'s name
    and its ``text``; an invitation: the inviter's handle as ``sender``; a tournament's:
    its name as ``sender``, the round or the rank as ``text``)."""
    bodies = {
        "your_turn": msg("Game {game}: it is your turn to move.", game=game_id),
        "deadline_near": msg("Game {game}: your time to move is running out.",
                                  game=game_id),
        "game_over": msg("Game {game} is over.", game=game_id),
        "message": msg("Game {game}, {sender}: {text}", game=game_id, sender=sender,
                       text=text),
        "invitation": msg("{inviter} invites you to a game.", inviter=sender),
        "tournament_round": msg("{name}: your table of round {round} is ready.",
                                name=sender, round=text),
        "tournament_finished": msg("{name} is over: your place is {rank}.", name=sender,
                                   rank=text),
    }
    return TITLES.get(what, TITLES["your_turn"]), bodies.get(what, bodies["your_turn"])


def invitation_of(ctx: Context, row: DueRow) -> Invitation | None:
    """The invitation an ``invitation`` notice tells; None once it is not open."""
    found = ctx.store.invitations.get(str((row.args or {}).get("invitation")))
    return found if found is not None and status(found, times.now()) == "open" else None


def tournament_of(ctx: Context, row: DueRow) -> Notice | None:
    """What a tournament's notice tells (None: the entrant withdrew or is gone)."""
    what = "finished" if (row.args or {}).get("what") == "tournament_finished" else "round"
    assert row.seat is not None and row.reply is not None
    return Tournaments(ctx.games).notice(row.reply, row.seat, row.version, what)


def message_of(ctx: Context, row: DueRow) -> Message | None:
    """The table-talk message a ``message`` notice tells; None once deleted or hidden."""
    number = (row.args or {}).get("message")
    if not isinstance(number, int):
        return None
    found = next((m for m in ctx.store.talk.messages(row.game_id, since=number - 1)
                  if m.id == number), None)
    return None if found is None or found.deleted_at else found


# -- fanning an event out --------------------------------------------------------------------

def fan_out(ctx: Context, row: DueRow, claim: Claim) -> Finish | None:
    """One ``push`` row for each channel of the seat's account that wants the event (the
    row done in the same transaction); nothing if the turn it tells is over already."""
    assert row.seat is not None
    what = (row.args or {}).get("what", "your_turn")
    try:
        game = ctx.games.game(row.game_id)
    except GameNotFound:
        return Finish("missing")
    if what in ("your_turn", "deadline_near") and (
            game.status != "active" or game.current_seat != row.seat):
        return Finish("moved")
    if what == "deadline_near" and (game.deadline is None or row.due_at >= game.deadline):
        return Finish("moved")
    if what == "message" and message_of(ctx, row) is None:
        return Finish("deleted")
    seat = next((s for s in game.seats if s.seat == row.seat), None)
    if seat is None or seat.claimed_by is None:
        return Finish("unclaimed")
    channels = [c for c in ctx.store.channels.of_account(seat.claimed_by)
                if what in c.events]
    if not channels:
        return Finish("no-channels")
    if ctx.presence.watching([account_key(seat.claimed_by), seat_key(game.id, seat.seat)]):
        return Finish("watching")
    ctx.store.add_due(row.game_id, [
        Due("push", row.version, times.now(), seat=row.seat, hook_id=c.id,
            from_version=row.from_version, percent=row.percent, reply=row.reply or what,
            args={**(row.args or {}), "what": what})
        for c in channels], done=claim)
    return None


# -- one delivery ----------------------------------------------------------------------------

def payload(ctx: Context, row: DueRow, channel: Channel) -> dict[str, Any]:
    """What a channel is told, in its account's language."""
    what = (row.args or {}).get("what") or row.reply or "your_turn"
    player = ctx.store.players.player(channel.email)
    lang = i18n.best(None, player.language if player else None)
    sender: str | Msg = ""
    said = ""
    if what == "message":
        found = message_of(ctx, row)
        if found is not None:
            said = found.text if len(found.text) <= MESSAGE_SHOWN else \
                found.text[:MESSAGE_SHOWN - 1] + "…"
            seats = ctx.games.game(row.game_id).seats
            sender = msg("the host") if found.sender is None else \
                seats[found.sender].name or msg("seat {seat}", seat=found.sender + 1)
    elif what == "invitation":
        invitation = invitation_of(ctx, row)
        inviter = ctx.store.players.player(invitation.inviter) if invitation else None
        sender = inviter.handle or "" if inviter else ""
        title, text = words(what, "", sender)
        return {"game_id": None, "version": None, "what": what,
                "invitation_id": invitation.id if invitation else None,
                "url": ctx.settings.link_url.rstrip("/") + me_path(),
                "title": i18n.say(title, lang), "body": i18n.say(text, lang)}
    elif what in ("tournament_round", "tournament_finished"):
        notice = tournament_of(ctx, row)
        assert notice is not None
        title, text = words(what, "", notice.name, str(
            notice.round if what == "tournament_round" else
            notice.mine[0] if notice.mine else "?"))
        return {"game_id": notice.game_id, "version": None, "what": what,
                "tournament_id": notice.tournament_id, "round": notice.round,
                "url": ctx.settings.link_url.rstrip("/") + (
                    open_path(notice.game_id) if notice.game_id and
                    what == "tournament_round" else tournament_path(notice.tournament_id)),
                "title": i18n.say(title, lang), "body": i18n.say(text, lang)}
    title, text = words(what, row.game_id, sender, said)
    return {"game_id": row.game_id, "version": row.version, "what": what,
            "url": ctx.settings.link_url.rstrip("/") + open_path(row.game_id),
            "title": i18n.say(title, lang), "body": i18n.say(text, lang)}


def ttl(row: DueRow, now: datetime) -> int:
    """Seconds a push service may keep the notice: no longer than the time left to move."""
    told = (row.args or {}).get("deadline")
    if not told:
        return DEFAULT_TTL
    return max(0, min(MAX_TTL, int(-times.seconds_since(times.from_text(told)))))


def deliver(ctx: Context, row: DueRow, claim: Claim) -> Finish:
    """Send one notice to one channel (``row.hook_id``); see the module's docstring."""
    assert row.hook_id is not None
    channel = ctx.store.channels.get(row.hook_id)
    if channel is None:
        return Finish("gone")
    what = (row.args or {}).get("what")
    if what == "message" and message_of(ctx, row) is None:
        return Finish("deleted")
    if what == "invitation" and invitation_of(ctx, row) is None:
        return Finish("closed")
    if what in ("tournament_round", "tournament_finished"):
        notice = tournament_of(ctx, row)
        if notice is None:
            return Finish("missing")
        if notice.waiting:
            return Finish(retry_at=times.later(5)) if row.attempts < 120 else \
                Finish("no-game")
    if what in ("invitation", "tournament_round", "tournament_finished") and \
            ctx.presence.watching([account_key(channel.email)]):
        return Finish("watching")  # the account's stream tells it
    body = payload(ctx, row, channel)
    try:
        if channel.kind == "push":
            status = web_push(ctx, channel, body, ttl(row, times.now()))
            if status in (404, 410):
                ctx.store.channels.delete(channel.id)
                log.info("push subscription %s is gone (%s): removed", channel.id, status)
                return Finish("expired")
            if not 200 <= status < 300:
                raise DeliveryFailed(f"the push service answered {status}")
        else:
            apprise_notify(ctx, channel, body)
    except (ChannelRefused, WebhookUrlRefused) as exc:
        error = f"refused: {i18n.say(exc.reason, i18n.DEFAULT)}"
        ctx.store.channels.attempt(channel.id, error)
        return Finish("refused", error=error[:500])
    except Exception as exc:  # noqa: BLE001 - counted on the channel, tried again later
        error = f"{type(exc).__name__}: {exc}"[:500]
        ctx.store.channels.attempt(channel.id, error)
        retry = planned.retry_at(row.attempts, ctx.settings.webhook_retries, times.now())
        log.warning("notice to channel %s failed: %s", channel.id, error)
        return Finish(error=error, retry_at=retry)
    ctx.store.channels.attempt(channel.id, None)
    return Finish("sent")


def web_push(ctx: Context, channel: Channel, body: dict[str, Any], seconds: int) -> int:
    """POST the notice to the subscription's push service; the answer's status."""
    settings = ctx.settings
    assert channel.p256dh is not None and channel.auth is not None
    pusher = WebPusher({"endpoint": channel.target,
                        "keys": {"p256dh": channel.p256dh, "auth": channel.auth}})
    data = json.dumps(body, separators=(",", ":")).encode()
    encrypted = pusher.encode(data, "aes128gcm")["body"]
    parts = urlsplit(channel.target)
    headers = vapid_key(settings.vapid_key_file, settings.secret_key).sign({
        "aud": f"{parts.scheme}://{parts.netloc}", "sub": settings.vapid_claims_subject,
        "exp": int(time.time()) + JWT_SECONDS})
    headers.update({"Content-Encoding": "aes128gcm", "TTL": str(seconds),
                    "Content-Type": "application/octet-stream",
                    "Urgency": "high" if body["what"] in ("your_turn", "deadline_near",
                                                          "message") else "normal",
                    "User-Agent": webhooks.USER_AGENT})
    return webhooks.send(channel.target, encrypted, headers,
                         connect_timeout=settings.webhook_connect_timeout,
                         read_timeout=settings.webhook_read_timeout,
                         allow_private=settings.webhook_allow_private)


def apprise_notify(ctx: Context, channel: Channel, body: dict[str, Any]) -> None:
    """The notice through Apprise; DeliveryFailed (with Apprise's words) if it failed."""
    import apprise

    allow = ctx.settings.webhook_allow_private
    target = check_apprise_url(channel.target, allow)
    scheme = urlsplit(channel.target).scheme.lower()
    host = str(getattr(target, "host", "") or "")
    if scheme in HOSTED_SCHEMES and host:
        port = getattr(target, "port", None) or (443 if getattr(target, "secure", False)
                                                 else 80)
        try:
            resolve(Target("https", host.strip("[]").lower(), int(port), "/"), allow)
        except OSError as exc:
            raise DeliveryFailed(f"{host} cannot be resolved: {exc}") from None
    notifier = apprise.Apprise()
    notifier.add(target)
    with apprise.LogCapture(level=logging.WARNING) as output:  # type: ignore[no-untyped-call]
        ok = notifier.notify(title=body["title"], body=f"{body['body']}\n{body['url']}")
    if not ok:
        said = output.getvalue().strip().splitlines() if hasattr(output, "getvalue") else []
        raise DeliveryFailed("Apprise could not send it" + (f": {said[-1]}" if said else ""))
