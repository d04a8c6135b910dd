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
"""

from __future__ import annotations

import logging
import threading
import time

from rq import Queue, Retry

from service import times

from .context import Context
from .jobs import JOB_TIMEOUT, apply_deadline, batch_job_id, deadline_job_id, process_batch

log = logging.getLogger("alhambra.relay")

CLAIM_LEASE = 30.0  # seconds before another relay may take a claimed row


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
    """Enqueue the deadline job of each game overdue by more than the grace period."""
    n = 0
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
