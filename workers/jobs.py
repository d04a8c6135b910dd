"""The RQ jobs. Each is idempotent: every notification is claimed in the store under
(game, version, recipient, kind) before it is sent, and a deadline re-checks the game's
version, so running any job twice has the effect of running it once.

RQ runs the entry points below by name, with plain arguments (queued and scheduled jobs
keep these names for months: they stay as they are). Each takes this process's context
(``context.context()``, set by the worker at start) and hands it to the logic, which
takes it explicitly:

- ``process_batch(game_id, from_version, to_version, created_at)`` → ``handle_batch``:
  one outbox row; its mails, the reminders and the deadline, the webhook deliveries.
- ``send_reminder(game_id, seat, version, deadline, fraction)`` → ``remind``
- ``apply_deadline(game_id, version, seat)`` → ``time_out``: the timeout policy, through
  ``service.games.Games.submit`` like any move.
- ``deliver_webhook(hook_id, game_id, from_version, to_version)`` → ``deliver``
- ``play_bot(game_id, version)`` → ``bot_move``: the move of the bot playing the seat to
  act at that version (docs/rules.md S-2), through ``Games.submit`` like any move; queued
  by ``handle_batch`` on the bots' queue (``Context.bot_queue``) when a batch leaves a
  bot to act.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime, timedelta
from typing import Any

from rq import Retry
from rq.job import Job

import engine
from service import times
from service.errors import (
    GameNotFound,
    GameOver,
    NotYourTurn,
    SeatPlayedByBot,
    VersionConflict,
    WebhookUrlRefused,
)

from . import notify, webhooks
from .context import Context, context

log = logging.getLogger("alhambra.jobs")

JOB_TIMEOUT = 120
MAX_BOT_MOVES = 20  # moves one bot job plays in a row (a turn has a few)


def batch_job_id(game_id: str, from_version: int, to_version: int) -> str:
    return f"batch-{game_id}-{from_version}-{to_version}"


def _load_batch(ctx: Context, game_id: str, from_version: int, to_version: int,
                created_at: datetime) -> notify.Batch | None:
    """The batch's events and the state at ``to_version`` exactly (the game may have moved
    on since: the mails announce this version), reading only what is needed."""
    store = ctx.store
    try:
        game = store.game(game_id)
    except GameNotFound:
        return None
    if game.version < to_version:
        return None
    events = store.read(game_id, since=from_version - 1, until=to_version)
    state = ctx.games.state(game_id, to_version)
    return notify.Batch(game=game, seats=store.seats(game_id), events=events,
                        from_version=from_version, to_version=to_version, state=state,
                        created_at=created_at, public_url=ctx.settings.link_url,
                        read=lambda since, until: store.read(game_id, since, until),
                        replies=bool(ctx.settings.mail_reply_to))


class MailHeld(Exception):
    """Another run holds the mail's claim (maybe a worker that died mid-send): the job
    fails and RQ runs it again later; by then the mail is sent or its lease is over (the
    relay's sweep also sends it again then)."""


def _send(ctx: Context, mail_or_none, recipient_seat: int, key: tuple[str, int, str]
          ) -> str:
    """Claim, send and record one mail. Returns sent / skipped / no-address; MailHeld if
    another run holds the claim."""
    game_id, version, kind = key
    recipient = f"seat:{recipient_seat}"
    if mail_or_none is None:
        return "no-address"
    if not ctx.store.claim_notification(game_id, version, recipient, kind,
                                        lease_seconds=ctx.settings.mail_lease):
        if any(n.version == version and n.recipient == recipient and n.kind == kind and
               n.status == "sending" for n in ctx.store.notifications(game_id)):
            raise MailHeld(f"{kind} to {recipient} of {game_id} v{version} is being sent "
                           "by another run")
        return "skipped"
    try:
        ctx.mailer.send(mail_or_none)
    except Exception as exc:
        ctx.store.finish_notification(game_id, version, recipient, kind,
                                      error=f"{type(exc).__name__}: {exc}"[:500])
        raise
    ctx.store.finish_notification(game_id, version, recipient, kind)
    return "sent"


# -- RQ's entry points ---------------------------------------------------------------------

def process_batch(game_id: str, from_version: int, to_version: int, created_at: str
                  ) -> dict[str, Any]:
    return handle_batch(context(), game_id, from_version, to_version, created_at)


def send_reminder(game_id: str, seat: int, version: int, deadline: str, fraction: float
                  ) -> str:
    return remind(context(), game_id, seat, version, deadline, fraction)


def apply_deadline(game_id: str, version: int, seat: int) -> str:
    return time_out(context(), game_id, version, seat)


def deliver_webhook(hook_id: int, game_id: str, from_version: int, to_version: int) -> str:
    return deliver(context(), hook_id, game_id, from_version, to_version)


def play_bot(game_id: str, version: int) -> str:
    return bot_move(context(), game_id, version)


# -- the jobs' logic -----------------------------------------------------------------------

def handle_batch(ctx: Context, game_id: str, from_version: int, to_version: int,
                 created_at: str) -> dict[str, Any]:
    """The mails of one appended batch, then its clock and its webhook deliveries."""
    batch = _load_batch(ctx, game_id, from_version, to_version, times.from_text(created_at))
    if batch is None:
        return {"status": "missing"}
    if from_version == 1 or batch.over and not batch.game.replay_public:
        # secret links: in the started mails, and a private game's replay once it is over
        batch.tokens = {s.seat: ctx.games.seat_token(game_id, s.seat)
                        for s in batch.seats if s.email}
    results: dict[str, str] = {}
    failed: Exception | None = None
    for kind, seat in notify.plan(batch):
        try:
            mail = notify.render(batch, kind, seat)
            results[f"{kind}:{seat}"] = _send(ctx, mail, seat, (game_id, to_version, kind))
        except MailHeld as exc:
            log.info("%s; trying again later", exc)
            results[f"{kind}:{seat}"] = "held"
            failed = failed or exc
        except Exception as exc:  # the others still go; the job is retried for this one
            log.exception("mail %s to seat %s of %s v%s failed", kind, seat, game_id,
                          to_version)
            results[f"{kind}:{seat}"] = "failed"
            failed = failed or exc
    schedule_clock(ctx, batch)
    enqueue_bot(ctx, batch)
    enqueue_webhooks(ctx, game_id, from_version, to_version)
    if failed is not None:
        raise failed
    return {"status": "done", "mails": results}


def not_before(t: datetime) -> datetime:
    """``t`` rounded up to the second: RQ's scheduler keeps whole seconds (rounded down),
    so a job due at 12:00:00.900 would otherwise run at 12:00:00."""
    return t + timedelta(microseconds=1_000_000 - t.microsecond) if t.microsecond else t


def schedule_clock(ctx: Context, batch: notify.Batch) -> None:
    """The reminders and the deadline of the seat to act after this batch, if the game is
    still at this batch's version (a later batch schedules its own)."""
    game = batch.game
    if batch.over or game.status != "active" or game.version != batch.to_version or \
            not game.deadline:
        return
    queue = ctx.queue()
    seat, due = game.current_seat, game.deadline
    deadline = times.to_text(due)
    now = times.now()
    for fraction in ctx.settings.reminders if seat not in batch.state.bots else ():
        at = times.later(-(1 - fraction) * game.time_per_move, due)
        if at > now:
            queue.enqueue_at(at, send_reminder, game.id, seat, batch.to_version, deadline,
                             fraction, job_id=f"reminder-{game.id}-{seat}-"
                                             f"{re.sub(r'[^0-9]', '', deadline)}-"
                                             f"{round(fraction * 100)}",
                             job_timeout=JOB_TIMEOUT, result_ttl=3600, failure_ttl=86400,
                             retry=batch_retry(ctx))
    if game.timeout_policy == "default_move":
        queue.enqueue_at(not_before(due), apply_deadline, game.id, batch.to_version, seat,
                         job_id=deadline_job_id(game.id, batch.to_version),
                         job_timeout=JOB_TIMEOUT, result_ttl=86400, failure_ttl=86400 * 7,
                         retry=Retry(max=5, interval=[5, 30, 120, 600, 1800]))


def enqueue_bot(ctx: Context, batch: notify.Batch) -> None:
    """Queue the move of the bot to act after this batch, if the game is still at this
    batch's version (a later batch queues its own)."""
    game, state = batch.game, batch.state
    if batch.over or game.status != "active" or game.version != batch.to_version or \
            state.current not in state.bots:
        return
    ctx.bot_queue().enqueue(play_bot, game.id, batch.to_version,
                            job_id=f"bot-{game.id}-{batch.to_version}",
                            job_timeout=JOB_TIMEOUT, result_ttl=3600, failure_ttl=86400,
                            retry=Retry(max=3, interval=[1, 5, 30]))


def batch_retry(ctx: Context) -> Retry:
    """The retries of a job that sends mail (SMTP away, a mail held by another run)."""
    intervals = list(ctx.settings.batch_retries)
    return Retry(max=len(intervals), interval=intervals)


def deadline_job_id(game_id: str, version: int) -> str:
    return f"deadline-{game_id}-{version}"


def enqueue_webhooks(ctx: Context, game_id: str, from_version: int, to_version: int,
                     only: int | None = None) -> None:
    """The batch's deliveries, on the webhooks' own queue (``only``: to that hook)."""
    hooks = [h for h in ctx.store.webhooks(game_id)
             if h.disabled_at is None and only in (None, h.id)]
    if not hooks:
        return
    queue = ctx.webhook_queue()
    intervals = list(ctx.settings.webhook_retries)
    for hook in hooks:
        job_id = f"hook-{hook.id}-{game_id}-{from_version}-{to_version}"
        if only is None and Job.exists(job_id, connection=ctx.redis):
            continue  # enqueued by an earlier run of this batch (maybe waiting to retry)
        queue.enqueue(deliver_webhook, hook.id, game_id, from_version, to_version,
                      job_id=job_id if only is None else f"{job_id}-again",
                      job_timeout=webhook_job_timeout(ctx), result_ttl=3600,
                      failure_ttl=86400 * 7,
                      retry=Retry(max=len(intervals), interval=intervals) if intervals
                      else None)


def webhook_job_timeout(ctx: Context) -> int:
    """Long enough for one delivery (a few reads), short enough to free the worker."""
    s = ctx.settings
    return int(s.webhook_connect_timeout + 4 * s.webhook_read_timeout) + 5


def remind(ctx: Context, game_id: str, seat: int, version: int, deadline: str,
           fraction: float) -> str:
    """Remind ``seat`` unless it has moved since ``version`` (or the clock changed)."""
    try:
        game = ctx.store.game(game_id)
    except GameNotFound:
        return "missing"
    if game.status != "active" or game.version != version or game.current_seat != seat \
            or game.deadline is None or times.to_text(game.deadline) != deadline:
        return "moved"
    batch = _load_batch(ctx, game_id, version, version, game.updated_at)
    if batch is None:
        return "missing"
    kind = f"reminder{round(fraction * 100)}"
    mail = notify.render(batch, "reminder", seat, mail_kind=kind)
    return _send(ctx, mail, seat, (game_id, version, kind))


def time_out(ctx: Context, game_id: str, version: int, seat: int) -> str:
    """The timeout policy: the engine's default moves for ``seat``, submitted through the
    service's path against ``version``. Does nothing if the game moved on: a move made in
    time always wins (the store's version check settles a race at the last moment)."""
    try:
        game = ctx.store.game(game_id)
    except GameNotFound:
        return "missing"
    if game.status != "active" or game.version != version or game.current_seat != seat:
        return "stale"
    if game.timeout_policy != "default_move" or not game.deadline:
        return "no-policy"
    due = game.deadline
    if times.now() < times.later(-0.5, due):  # early (clocks): come back
        ctx.queue().enqueue_at(not_before(due), apply_deadline, game_id, version, seat,
                               job_id=deadline_job_id(game_id, version) + "-again",
                               job_timeout=JOB_TIMEOUT)
        return "early"
    state = ctx.games.state(game_id, version)
    moves = engine.default_moves(state, seat)
    if not moves:
        return "no-move"
    try:
        answer, _ = ctx.games.submit(game, seat, moves, version, f"timeout-{version}",
                                     timeout=True)
    except (VersionConflict, GameOver, NotYourTurn):
        return "stale"
    log.info("game %s: time ran out for seat %s at version %s: %s -> version %s", game_id,
             seat, version, "; ".join(map(str, moves)), answer["version"])
    return "applied"


def bot_move(ctx: Context, game_id: str, version: int) -> str:
    """The bot's moves from ``version`` on while its seat is to act (a whole turn in one
    job; each move is Games.play_bot: chosen from the seat's view, keyed by the version,
    so running twice plays once); stale if the game moved on."""
    played = 0
    while played < MAX_BOT_MOVES:
        try:
            answer = ctx.games.play_bot(game_id, version)
        except (GameNotFound, VersionConflict, GameOver, NotYourTurn, SeatPlayedByBot):
            answer = None
        if answer is None:
            break
        played += 1
        log.info("game %s: a bot played at version %s -> version %s", game_id, version,
                 answer["version"])
        seat = next(i["event"]["seat"] for i in answer["events"] if "move" in i["event"])
        version = answer["version"]
        if answer["view"]["current"] != seat:
            break
    return "played" if played else "stale"


def deliver(ctx: Context, hook_id: int, game_id: str, from_version: int, to_version: int
            ) -> str:
    """POST the batch's events, redacted for the hook's seat, signed. Each attempt is
    counted on the hook (failures in a row disable it); a URL refused at delivery (its
    name now resolves to a private address, say) is not retried."""
    hook = ctx.store.webhook(hook_id)
    if hook is None or hook.game_id != game_id:
        return "gone"
    if hook.disabled_at is not None:
        return "disabled"
    settings = ctx.settings
    recipient = f"hook:{hook_id}"
    if not ctx.store.claim_notification(game_id, to_version, recipient, "webhook",
                                        lease_seconds=webhook_job_timeout(ctx) + 5):
        return "skipped"
    try:
        events = ctx.store.read(game_id, since=from_version - 1, until=to_version)
        payload = {
            "game_id": game_id, "webhook_id": hook_id, "seat": hook.seat,
            "from_version": from_version, "to_version": to_version,
            "events": ctx.games.event_items(ctx.store.game(game_id), events, from_version,
                                            hook.seat),
        }
        webhooks.post(hook.url, hook.secret, payload,
                      f"{game_id}:{from_version}-{to_version}:{hook_id}",
                      connect_timeout=settings.webhook_connect_timeout,
                      read_timeout=settings.webhook_read_timeout,
                      allow_private=settings.webhook_allow_private)
    except Exception as exc:
        error = str(exc) if isinstance(exc, WebhookUrlRefused) else \
            f"{type(exc).__name__}: {exc}"
        ctx.store.finish_notification(game_id, to_version, recipient, "webhook",
                                      error=error[:500])
        ctx.store.webhook_attempt(hook_id, error[:500], settings.webhook_max_failures)
        if isinstance(exc, WebhookUrlRefused):
            log.warning("webhook %s of %s: %s", hook_id, game_id, error)
            return "refused"
        raise
    ctx.store.finish_notification(game_id, to_version, recipient, "webhook")
    ctx.store.webhook_attempt(hook_id, None, settings.webhook_max_failures)
    return "sent"
