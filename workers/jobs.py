"""The work of due rows (service/store: ``Due``), one RQ job per claimed row.

The claiming loop (dispatch.py) enqueues ``run_due(row_id, attempt)``; the job takes the
row (``store.start_due``: only the first job of a row's claims to start runs it, so a
row claimed again after its lease runs in one job only) and does what its kind says:

- a mail of a batch (``MAIL_KINDS``): rendered by notify.py at the batch's version;
- ``reminder``: to the seat to act, unless its turn is over;
- ``answer``: the answer to a mail reply (the reply's outcome, then the game now);
- ``webhook``: the batch's events POSTed to one webhook, redacted for its seat, signed;
- ``bot``: the bot's move (``Games.play_bot``), ``deadline``: the timeout policy
  (``Games.time_out``); both mark the row done in the move's own append;
- ``plan``: a batch from before due work, planned now (``Games.plan_batch``);
- ``rating``: a finished game's ratings (service/ratings.py);
- ``tournament``: a finished game's tournament records it and pairs its next round once
  the round is over (service/tournaments.py); ``tournament_mail``: its mail to an
  entrant of a round paired or of its end (tournament_mail.py);
- ``invitation_mail``: an invitation by handle mailed to an invitee while it is open and
  unanswered (invitation_mail.py);
- ``message``: table talk mailed at once to a seat that asked so (talk_mail.py);
- ``notify``, ``notify_deadline``: an event told to the channels of a seat's account,
  one ``push`` row each, ``push``: one delivery (push.py).

Every mail to a seat shows the table talk it was not shown yet (``send_talking``).

A row is finished in the store with its result; one that failed is due again later
(``service.due.retry_at``: ``ALHAMBRA_WEBHOOK_RETRIES`` for webhooks, ``Settings.retries``
for the rest), then failed for good.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from service import due as planned
from service import metrics, present, times
from service.auth import claim_code
from service.errors import GameNotFound, WebhookUrlRefused
from service.games import to_store
from service.invitations import status as invitation_status
from service.players import Players
from service.ratings import Ratings
from service.store import MAIL_KINDS, Claim, DueRow, Finish, Game, MailFailure
from service.tournaments import Tournaments

from . import notify, push, talk_mail, webhooks
from .context import Context, context
from .invitation_mail import invitation_mail
from .mail import Mail
from .mail_bounces import Refused
from .tournament_mail import invited_mail, tournament_mail

log = logging.getLogger("alhambra.jobs")

JOB_TIMEOUT = 120
MAX_BOT_MOVES = 20  # moves one bot job plays in a row (a turn has a few)
TABLE_WAIT = 5  # seconds a tournament's notice waits for its table's game to be made
TABLE_TRIES = 120  # and how many times (its game made at a later game's end: not told)


# -- RQ's entry point ----------------------------------------------------------------------

def run_due(row_id: int, attempt: int) -> str:
    """RQ's entry point (by this name): ``run`` with this process's context."""
    return run(context(), Claim(row_id, attempt))


def run(ctx: Context, claim: Claim) -> str:
    """Do the claimed row's work and finish it; returns its result (counted in the
    metrics by kind)."""
    row = ctx.store.start_due(claim, ctx.settings.claim_lease)
    if row is None:
        return "not-mine"  # run by another job of the row, or done meanwhile
    result = _run(ctx, row, Claim(row.id, row.attempts))
    metrics.due_run(row.kind, result)
    log.info("due %s of game %s v%s: %s", row.kind, row.game_id, row.version, result,
             extra={"row": row.id, "kind": row.kind, "result": result,
                    "game_id": row.game_id, "seat": row.seat, "version": row.version})
    return result


def _run(ctx: Context, row: DueRow, claim: Claim) -> str:
    try:
        finish = HANDLERS[row.kind](ctx, row, claim)
    except Exception as exc:  # noqa: BLE001 - recorded on the row, tried again later
        settings = ctx.settings
        error = f"{type(exc).__name__}: {exc}"[:500]
        intervals = settings.webhook_retries if row.kind in ("webhook", "push") else \
            settings.retries
        retry = planned.retry_at(row.attempts, intervals, times.now())
        log.warning("%s of game %s v%s (row %s, attempt %s) failed: %s; %s", row.kind,
                    row.game_id, row.version, row.id, row.attempts, error,
                    f"again at {times.to_text(retry)}" if retry else "given up")
        ctx.store.finish_due(claim, Finish(error=error, retry_at=retry, hook_failures=(
            settings.webhook_max_failures if row.kind == "webhook" else None)))
        return "failed"
    ctx.wake.set()  # a move or a plan may have added due work
    if finish is None:  # done in the result's own transaction
        return "done"
    ctx.store.finish_due(claim, finish)
    return finish.result or ("failed" if finish.retry_at is None else "later")


# -- mails ---------------------------------------------------------------------------------

def load_batch(ctx: Context, game_id: str, from_version: int, to_version: int,
               created_at: datetime) -> notify.Batch | None:
    """What a mail about versions ``from_version``..``to_version`` shows (the
    application layer's ``MailBatch``): the batch's events and the state at
    ``to_version`` exactly (the game may have moved on since)."""
    found = ctx.games.mail_batch(game_id, from_version, to_version)
    if found is None:
        return None
    return notify.Batch(game=found.game, seats=list(found.game.seats),
                        players=dict(found.players), away=dict(found.away),
                        events=list(found.events), from_version=from_version,
                        to_version=to_version, state=found.state, created_at=created_at,
                        public_url=ctx.settings.link_url,
                        read=lambda since, until: to_store(ctx.games.log(game_id, since,
                                                                         until)),
                        replies=bool(ctx.settings.mail_reply_to))


def send(ctx: Context, mail: Mail | None, row: DueRow | None = None) -> Finish:
    """Send one mail (None: the seat has no address), unless the seat's address was
    marked failing as it was rendered (``Mail.failing``). A refusal of the relay is
    recorded on the seat (``mail_bounces.py``): for good (5xx) the row fails at once,
    for now (4xx) it is due again later and says so in its error."""
    if mail is None:
        return Finish("no-address")
    if mail.failing:
        log.info("mail %s not sent: mails to %s fail (%s)", mail.key, mail.to_addr,
                 mail.failing)
        return Finish("address-failing")
    try:
        ctx.mailer.send(mail)
    except Refused as exc:
        settings = ctx.settings
        failing = ctx.store.mail.record_failure(MailFailure(
            mail.game_id, mail.seat, mail.to_addr, exc.reason, exc.permanent, times.now()),
            settings.mail_hard_failures)
        log.warning("mail %s to %s refused: %s%s", mail.key, mail.to_addr, exc.reason,
                    "; the address is failing now" if failing else "")
        if exc.permanent or row is None:
            return Finish(error=f"refused for good: {exc.reason}")
        retry = planned.retry_at(row.attempts, settings.retries, times.now())
        if retry is None:
            return Finish(error=f"refused for now, {row.attempts} times: {exc.reason}")
        return Finish(error=f"refused for now ({exc.reason}): attempt {row.attempts}, "
                            f"again at {times.to_text(retry)}", retry_at=retry)
    if mail.new_thread:  # the seat's first mail: its subject stays the thread's
        ctx.store.mail.keep_subject(mail.game_id, mail.seat, mail.subject)
    return Finish("sent")


#: The turn mails a player may choose not to get (``notify``: service/players.py).
TURN_KINDS = ("your_turn", "reminder")
#: A player on the digest still gets a turn's mail at once when its deadline is nearer.
DIGEST_URGENT = 86400


def wanted(batch: notify.Batch, kind: str, seat: int) -> bool:
    """Does the seat's player want this mail? Every mail but the turn mails; those as its
    ``notify`` says: ``turn`` (and a seat of no player) yes, ``none`` no, ``digest``
    only when the deadline is less than a day away (the digest lists the others)."""
    player = batch.players.get(seat)
    if kind not in TURN_KINDS or player is None or player.notify == "turn":
        return True
    if player.notify == "none":
        return False
    deadline = batch.deadline()
    return deadline is not None and times.seconds_since(deadline) > -DIGEST_URGENT


def batch_mail(ctx: Context, row: DueRow, claim: Claim) -> Finish:
    """A mail the batch ending at ``row.version`` calls for."""
    assert row.seat is not None and row.created_at is not None
    batch = load_batch(ctx, row.game_id, row.from_version or row.version, row.version,
                       row.created_at)
    if batch is None:
        return Finish("missing")
    told = (row.args or {}).get("deadline")
    batch.deadline_at = times.from_text(told) if told else None
    if not wanted(batch, row.kind, row.seat):
        return Finish("not-wanted")
    if row.kind == "started" or batch.over and not batch.game.replay_public:
        # secret links: in the started mail, and a private game's replay once over
        batch.tokens = {row.seat: ctx.games.seat_token(row.game_id, row.seat)}
    seat = batch.seats[row.seat] if row.seat < len(batch.seats) else None
    if row.kind == "started" and seat is not None and seat.email and not seat.claimed_by:
        # the seat is offered to its address: the link that claims it (issue 39)
        batch.claim_codes = {row.seat: claim_code(ctx.games.secret_key, row.game_id,
                                                  row.seat, seat.token_generation)}
    return send_talking(ctx, batch, row.kind, row.seat, row)


def send_talking(ctx: Context, batch: notify.Batch, kind: str, seat: int,
                 row: DueRow | None = None, **extra: Any) -> Finish:
    """Render and send a mail with the table talk the seat has not been shown yet."""
    talk = talk_mail.section(ctx, batch.game.id, seat)
    mail = notify.render(batch, kind, seat, talk=talk, **extra)
    return talk_mail.sent(ctx, mail, send(ctx, mail, row), talk)


def reminder(ctx: Context, row: DueRow, claim: Claim) -> Finish:
    """Remind the seat to act, unless its turn is over (the game moved to another seat,
    or to a new deadline: the reminders of that turn replaced this one)."""
    assert row.seat is not None
    try:
        game = ctx.games.game(row.game_id)
    except GameNotFound:
        return Finish("missing")
    if game.status != "active" or game.current_seat != row.seat or game.deadline is None \
            or row.due_at >= game.deadline:
        return Finish("moved")
    batch = load_batch(ctx, game.id, game.version, game.version, game.updated_at)
    if batch is None:
        return Finish("missing")
    if not wanted(batch, "reminder", row.seat):
        return Finish("not-wanted")
    return send_talking(ctx, batch, "reminder", row.seat, row,
                        mail_kind=f"reminder{row.percent}")


def answer(ctx: Context, row: DueRow, claim: Claim) -> Finish:
    """The answer to the mail reply ``row.reply``: its outcome, then the game as it is
    now (the legal moves, if it is the seat's turn), in the reply's thread."""
    assert row.seat is not None and row.args is not None and row.reply is not None
    outcome, seat = row.args["outcome"], row.seat
    try:
        game = ctx.games.game(row.game_id)
    except GameNotFound:
        return Finish("missing")
    batch = load_batch(ctx, game.id, game.version, game.version, game.updated_at)
    if batch is None:
        return Finish("missing")
    extra = dict(outcome)
    if outcome["result"] == "stale":
        extra["changes"] = notify.since(batch, outcome["answered"], seat)
    extra["turn_mail"] = outcome["result"] == "played" and _turn_mail(game, seat, outcome)
    talk = talk_mail.section(ctx, game.id, seat)
    mail = notify.render(batch, "answer", seat, mail_kind=answer_kind(row.reply), talk=talk,
                         **extra)
    if mail is not None:
        mail.in_reply_to = row.reply
        mail.references = tuple(row.args.get("references", ()))
    return talk_mail.sent(ctx, mail, send(ctx, mail, row), talk)


def message(ctx: Context, row: DueRow, claim: Claim) -> Finish:
    """The mail of a message to a seat that wants each at once (talk_mail.py): the talk
    it has not been shown yet; nothing if a mail showed it meanwhile, or it was deleted."""
    assert row.seat is not None
    try:
        game = ctx.games.game(row.game_id)
    except GameNotFound:
        return Finish("missing")
    talk = talk_mail.section(ctx, game.id, row.seat)
    if not talk["messages"]:
        return Finish("shown")
    batch = load_batch(ctx, game.id, game.version, game.version, game.updated_at)
    if batch is None:
        return Finish("missing")
    mail = notify.render(batch, "message", row.seat, mail_kind=row.reply, talk=talk)
    return talk_mail.sent(ctx, mail, send(ctx, mail, row), talk)


def answer_kind(message_id: str) -> str:
    """The mail kind (X-Alhambra-Kind) of the answer to the mail ``message_id``."""
    digest = hashlib.sha256(message_id.encode("utf-8", "surrogateescape")).hexdigest()
    return f"answer-{digest[:12]}"


def _turn_mail(game: Game, seat: int, outcome: dict[str, Any]) -> bool:
    """After a move played: does a "your turn" mail give the seat its moves (so that the
    answer need not)? Yes when the batch played mailed the seat its turn (a tile
    received at the game's end: decided as it was committed, ``Played.turn_mail``), or
    when the game moved on since and it is the seat's turn again."""
    if game.status != "active" or game.current_seat != seat:
        return False
    return outcome["played_version"] != game.version or bool(outcome.get("turn_mail"))


# -- webhooks ------------------------------------------------------------------------------

def webhook_job_timeout(ctx: Context) -> int:
    """Long enough for one delivery (a few reads), short enough to free the worker."""
    s = ctx.settings
    return int(s.webhook_connect_timeout + 4 * s.webhook_read_timeout) + 5


def webhook(ctx: Context, row: DueRow, claim: Claim) -> Finish:
    """POST the batch's events, redacted for the hook's seat, signed. Each attempt is
    counted on the hook with the row's end (failures in a row disable it); a URL
    refused at delivery (its name now resolves to a private address, say) is not
    retried."""
    assert row.hook_id is not None
    settings = ctx.settings
    first = row.from_version or row.version
    try:
        found = ctx.games.hook_batch(row.game_id, row.hook_id, first, row.version)
    except GameNotFound:
        found = None
    if found is None:
        return Finish("gone")
    hook = found.hook
    if hook.disabled_at is not None:
        return Finish("disabled")
    payload = present.webhook(row.game_id, hook.id, hook.seat, first, row.version,
                              list(found.items), found.language)
    try:
        webhooks.post(hook.url, hook.secret, payload,
                      f"{row.game_id}:{first}-{row.version}:{hook.id}",
                      connect_timeout=settings.webhook_connect_timeout,
                      read_timeout=settings.webhook_read_timeout,
                      allow_private=settings.webhook_allow_private)
    except WebhookUrlRefused as exc:
        log.warning("webhook %s of %s: %s", hook.id, row.game_id, exc)
        return Finish("refused", error=str(exc)[:500],
                      hook_failures=settings.webhook_max_failures)
    return Finish("sent", hook_failures=settings.webhook_max_failures)


# -- moves ---------------------------------------------------------------------------------

def bot(ctx: Context, row: DueRow, claim: Claim) -> Finish | None:
    """The bot's moves from ``row.version`` on while its seat is to act: a whole turn in
    one job (the first move marks the row done; each move's append replaces the bot row
    the one before planned); stale if the game moved on."""
    try:
        played = ctx.games.play_bot(row.game_id, row.version, done=claim)
        first = played
        for _ in range(MAX_BOT_MOVES - 1):
            if played is None or played.current != played.seat:
                break
            played = ctx.games.play_bot(row.game_id, played.version)
    except GameNotFound:
        return Finish("missing")
    if first is None:
        return Finish("stale")
    log.info("game %s: a bot played from version %s", row.game_id, row.version)
    return Finish("applied") if first.replayed else None


def deadline(ctx: Context, row: DueRow, claim: Claim) -> Finish | None:
    """The game's alarm: its timeout policy (``Games.time_out``); early (another host's
    clock): due again at the deadline. The bot's move due at the same version goes
    first (the mail queue, where deadlines run, is served before the bots'): the alarm
    waits a second while it is not done."""
    assert row.seat is not None
    if any(d.kind == "bot" and d.version == row.version and d.state in ("pending", "claimed")
           for d in ctx.store.due_rows(row.game_id)):
        return Finish(retry_at=times.later(1))
    try:
        result = ctx.games.time_out(row.game_id, row.version, row.seat, done=claim)
    except GameNotFound:
        return Finish("missing")
    if result.outcome == "early":
        return Finish(retry_at=result.deadline)
    if result.played is None:
        return Finish(result.outcome)
    log.info("game %s: time ran out for seat %s at version %s -> version %s", row.game_id,
             row.seat, row.version, result.played.version)
    return Finish("applied") if result.played.replayed else None


def plan(ctx: Context, row: DueRow, claim: Claim) -> Finish | None:
    """A batch appended before due work existed: plan its work now."""
    mails = bool((row.args or {}).get("mails", True))
    try:
        ctx.games.plan_batch(row.game_id, row.from_version or row.version, row.version,
                             mails, done=claim)
    except GameNotFound:
        return Finish("missing")
    return None


def rating(ctx: Context, row: DueRow, claim: Claim) -> Finish:
    """A finished game's ratings (service/ratings.py): rated once, or unrated."""
    try:
        return Finish(Ratings(ctx.games).rate_game(row.game_id))
    except GameNotFound:
        return Finish("missing")


def tournament(ctx: Context, row: DueRow, claim: Claim) -> Finish:
    """A finished game's tournament, if any (service/tournaments.py): its outcome
    recorded, the next round paired if this was the round's last game."""
    try:
        return Finish(Tournaments(ctx.games).game_over(row.game_id))
    except GameNotFound:
        return Finish("missing")


def tournament_notice(ctx: Context, row: DueRow, claim: Claim) -> Finish:
    """A tournament's mail to an entrant (tournament_mail.py): nothing if it withdrew or
    is gone; a little later while its table's game is being made. Or its mail to an
    account invited to enter it (nothing once it entered or the tournament started)."""
    assert row.seat is not None and row.reply is not None
    args = row.args or {}
    what = str(args.get("what", "round"))
    if what == "invited":
        invited = Tournaments(ctx.games).invited(row.reply, str(args.get("handle")))
        return Finish("closed") if invited is None else \
            send(ctx, invited_mail(invited, row.seat, ctx.settings.link_url), row)
    notice = Tournaments(ctx.games).notice(row.reply, row.seat, row.version, what)
    if notice is None:
        return Finish("missing")
    if notice.waiting:
        if row.attempts >= TABLE_TRIES:
            return Finish("no-game")
        return Finish(retry_at=times.later(TABLE_WAIT))
    return send(ctx, tournament_mail(notice, ctx.settings.link_url), row)


def invitation_notice(ctx: Context, row: DueRow, claim: Claim) -> Finish:
    """An invitation's mail to an invitee (invitation_mail.py): nothing once the
    invitation is not open, or the invitee answered already."""
    assert row.seat is not None and row.reply is not None
    found = ctx.store.invitations.get(row.reply)
    if found is None:
        return Finish("missing")
    now = times.now()
    invitee = next((n for n in found.invitees if n.position == row.seat), None)
    player = ctx.store.players.player(invitee.email) if invitee else None
    if invitee is None or player is None:
        return Finish("missing")
    if invitation_status(found, now) != "open" or invitee.answer is not None:
        return Finish("closed")
    handles = {}
    for email in (found.inviter, *(n.email for n in found.invitees)):
        known = ctx.store.players.player(email)
        handles[email] = known.handle if known else None
    return send(ctx, invitation_mail(found, row.seat, player, handles,
                                     ctx.settings.link_url, now), row)


def vacation(ctx: Context, row: DueRow, claim: Claim) -> Finish:
    """A seat's vacation begins: recorded in its game now (service/players.py)."""
    assert row.seat is not None
    try:
        return Finish(Players(ctx.games).begin_vacation(row.game_id, row.seat))
    except GameNotFound:
        return Finish("missing")


HANDLERS: dict[str, Callable[[Context, DueRow, Claim], Finish | None]] = {
    **dict.fromkeys(MAIL_KINDS, batch_mail), "reminder": reminder, "answer": answer,
    "webhook": webhook, "bot": bot, "deadline": deadline, "plan": plan,
    "message": message, "rating": rating, "vacation": vacation, "tournament": tournament,
    "tournament_mail": tournament_notice, "invitation_mail": invitation_notice,
    "notify": push.fan_out, "notify_deadline": push.fan_out, "push": push.deliver}
