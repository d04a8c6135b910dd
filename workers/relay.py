"""The outbox relay: moves the store's undelivered outbox rows into RQ.

Every worker process runs a relay, on one host or many. A relay claims rows in the store
(``claim_outbox``: relays at once get disjoint rows; PostgreSQL skips rows another relay
has locked), enqueues their jobs, then marks them delivered. A Redis outage (or a crash
between the two steps) leaves the rows undelivered: the relay gives them back at once
when Redis refuses them, and the rows of a relay that died are claimed again when its
lease (``CLAIM_LEASE``) ends. Mail is late, never lost; a row relayed twice makes a job
that runs twice, which sends once (see jobs.py).

The relay also sweeps for overdue deadlines now and then: a game whose deadline passed
more than ``sweep_grace`` seconds ago gets its deadline job again, in case the scheduled
one was lost (a Redis without persistence restarted, say). A marker in Redis (one per
game and version, under ``ALHAMBRA_REDIS_PREFIX``) keeps the relays from sweeping a game
twice.

The sweep also re-drives notifications left "sending" past their lease
(``ALHAMBRA_MAIL_LEASE``): the worker that claimed them died mid-send. Their batch (or
reminder, or webhook delivery) is enqueued again; it sends what is not sent yet, once
(a marker per notification keeps the relays from doing it twice within a lease). A
reminder whose seat has moved since is given up; an answer to a reply is marked failed,
so the retry of its own job sends it.
"""

from __future__ import annotations

import logging
import threading
import time

from rq import Queue, Retry

from service import times

from .context import Context
from .jobs import (
    JOB_TIMEOUT,
    apply_deadline,
    batch_job_id,
    batch_retry,
    deadline_job_id,
    enqueue_webhooks,
    process_batch,
    send_reminder,
)
from .notify import SUBJECT_KINDS

log = logging.getLogger("alhambra.relay")

CLAIM_LEASE = 30.0  # seconds before another relay may take a claimed row
BATCH_KINDS = set(SUBJECT_KINDS) - {"reminder"}  # the mails a batch job sends


def relay_once(ctx: Context, limit: int = 200) -> int:
    """Relay up to ``limit`` rows; returns how many. Raises if Redis cannot be reached."""
    store = ctx.store
    rows = store.claim_outbox(limit, CLAIM_LEASE)
    if not rows:
        return 0
    ids = [r.id for r in rows]
    try:
        intervals = list(ctx.settings.batch_retries)
        jobs = [Queue.prepare_data(
            process_batch, args=(r.game_id, r.from_version, r.to_version,
                                 times.to_text(r.created_at)),
            job_id=batch_job_id(r.game_id, r.from_version, r.to_version),
            timeout=JOB_TIMEOUT, result_ttl=3600, failure_ttl=86400 * 7,
            retry=Retry(max=len(intervals), interval=intervals)) for r in rows]
        ctx.queue().enqueue_many(jobs)
    except BaseException:
        store.release_outbox(ids)
        raise
    store.mark_delivered(ids)
    return len(rows)


def sweep(ctx: Context) -> int:
    """Enqueue the deadline job of each game overdue by more than the grace period, and
    re-drive the notifications left "sending" past their lease."""
    n = redrive(ctx)
    for game in ctx.store.overdue(times.later(-ctx.settings.sweep_grace)):
        if game.timeout_policy != "default_move" or game.current_seat is None:
            continue
        marker = f"{ctx.settings.redis_prefix}swept:{game.id}:{game.version}"
        if not ctx.redis.set(marker, 1, nx=True, ex=600):
            continue
        ctx.queue().enqueue(apply_deadline, game.id, game.version, game.current_seat,
                            job_id=deadline_job_id(game.id, game.version) + "-swept",
                            job_timeout=JOB_TIMEOUT)
        n += 1
    return n


def redrive(ctx: Context) -> int:
    """Enqueue again the jobs of notifications left "sending" past their lease; returns
    how many jobs."""
    store, settings = ctx.store, ctx.settings
    batches: set[tuple[str, int, int, str]] = set()
    n = 0
    for stale in store.stale_notifications(times.later(-settings.mail_lease)):
        key = (stale.game_id, stale.version, stale.recipient, stale.kind)
        marker = f"{settings.redis_prefix}redrive:" + ":".join(map(str, key))
        if not ctx.redis.set(marker, 1, nx=True, ex=max(1, round(settings.mail_lease))):
            continue  # re-driven already, within the lease
        if stale.kind == "webhook" and stale.from_version is not None:
            enqueue_webhooks(ctx, stale.game_id, stale.from_version, stale.version,
                             only=int(stale.recipient.partition(":")[2]))
            n += 1
        elif stale.kind.startswith("reminder"):
            n += _remind_again(ctx, *key)
        elif stale.kind in BATCH_KINDS and stale.from_version is not None and \
                stale.batch_created_at is not None:
            batches.add((stale.game_id, stale.from_version, stale.version,
                         times.to_text(stale.batch_created_at)))
        else:  # an answer to a reply: failed, so the retry of its own job claims it
            store.finish_notification(*key, error="abandoned by a worker that died")
        log.warning("sweep: %s to %s of %s v%s was left sending by a worker that died",
                    stale.kind, stale.recipient, stale.game_id, stale.version)
    for game_id, from_version, to_version, created_at in sorted(batches):
        ctx.queue().enqueue(process_batch, game_id, from_version, to_version, created_at,
                            job_timeout=JOB_TIMEOUT, result_ttl=3600,
                            failure_ttl=86400 * 7, retry=batch_retry(ctx))
    return n + len(batches)


def _remind_again(ctx: Context, game_id: str, version: int, recipient: str, kind: str
                  ) -> int:
    game = ctx.store.game(game_id)
    seat = int(recipient.partition(":")[2])
    if game.status != "active" or game.version != version or game.current_seat != seat \
            or game.deadline is None:
        ctx.store.finish_notification(game_id, version, recipient, kind,
                                      error="abandoned: the seat has moved since")
        return 0
    ctx.queue().enqueue(send_reminder, game_id, seat, version, times.to_text(game.deadline),
                        int(kind.removeprefix("reminder")) / 100, job_timeout=JOB_TIMEOUT,
                        result_ttl=3600, failure_ttl=86400, retry=batch_retry(ctx))
    return 1


def run(ctx: Context, stop: threading.Event) -> None:
    """Relay until ``stop`` is set, backing off while Redis cannot be reached."""
    interval = ctx.settings.relay_interval
    wait = interval
    last_sweep = 0.0
    down = False
    while not stop.is_set():
        try:
            n = relay_once(ctx)
            if time.monotonic() - last_sweep >= ctx.settings.sweep_interval:
                sweep(ctx)
                last_sweep = time.monotonic()
            if down:
                log.info("relay: Redis is back")
            down, wait = False, interval
            if n >= 200:
                continue
        except Exception as exc:  # noqa: BLE001 - keep relaying; rows stay in the outbox
            if not down:
                log.warning("relay: cannot hand the outbox to Redis (%s); retrying", exc)
            down = True
            wait = min(max(wait * 2, 0.5), 5.0)
        stop.wait(wait)
