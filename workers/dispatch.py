"""The claiming loop: hands due rows (service/store: ``Due``) to RQ as they fall due.

Every worker process of the mail queue runs one, on one host or many. A loop claims the
rows due now (``store.claim_due``: loops at once get disjoint rows; PostgreSQL skips
rows another loop has locked), each for ``ALHAMBRA_CLAIM_LEASE`` seconds, and enqueues
one job per row (``jobs.run_due``) on the queue of its kind: a bot's move on the bots'
queue, a webhook call or a notice's delivery (``push``) on the webhooks' queue, anything
else on the mail queue. A row
whose worker died (before or while running it) is claimed again when its lease runs out:
that is the whole of the crash recovery (of the jobs of a row claimed again, the first to
start runs it). Rows Redis refused are given back at once. While a queue holds ``LIMIT``
jobs or more (the workers are behind) the loop claims nothing: due work waits in the
database, where it is counted (``/health``'s lag), not in Redis, where its claims' leases
would run out and claim it again.

It looks for due work every ``ALHAMBRA_CLAIM_INTERVAL`` seconds (SQLite), or waits for
PostgreSQL's NOTIFY of new rows (``store.wait_for_due``) and for the next row's time; a
job of this process that added rows wakes it too (``Context.wake``). Deadlines and
reminders are rows like any other, so they need no scheduler: a deadline that fell due
while nothing ran is claimed as soon as a loop runs again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from typing import Any

from rq import Queue

from service import times
from service.store import Claim, DueRow

from .context import Context
from .digest import DigestTimer
from .jobs import JOB_TIMEOUT, run_due, webhook_job_timeout

log = logging.getLogger("alhambra.dispatch")

LIMIT = 200  # rows claimed at once
PRUNE_EVERY = 3600.0  # seconds between a loop's prunes of expired rows (store.prune)


def queue_name(ctx: Context, kind: str) -> str:
    """The RQ queue that runs due work of ``kind``."""
    settings = ctx.settings
    return {"bot": settings.bot_queue, "webhook": settings.webhook_queue,
            "push": settings.webhook_queue}.get(
        kind, settings.queue)


def dispatch_once(ctx: Context, limit: int = LIMIT) -> int:
    """Claim the rows due now (up to ``limit``) and enqueue their jobs; returns how
    many. Raises if Redis cannot be reached (the rows are given back)."""
    settings = ctx.settings
    waiting = [Queue(q, connection=ctx.redis).count
               for q in (settings.queue, settings.bot_queue, settings.webhook_queue)]
    if max(waiting) >= LIMIT:  # (this also fails while Redis is away: nothing claimed)
        return 0
    rows = ctx.store.claim_due(limit, settings.claim_lease)
    if not rows:
        return 0
    try:
        jobs: dict[str, list[Any]] = defaultdict(list)
        for row in rows:
            jobs[queue_name(ctx, row.kind)].append(job_data(ctx, row))
        for name, data in jobs.items():
            Queue(name, connection=ctx.redis).enqueue_many(data)
    except BaseException:
        ctx.store.release_due([Claim(r.id, r.attempts) for r in rows])
        raise
    return len(rows)


def job_data(ctx: Context, row: DueRow) -> Any:
    """The RQ job of one claimed row (this attempt's: a row claimed again gets another)."""
    return Queue.prepare_data(
        run_due, args=(row.id, row.attempts), job_id=f"due-{row.id}-{row.attempts}",
        timeout=webhook_job_timeout(ctx) if row.kind in ("webhook", "push")
        else JOB_TIMEOUT,
        result_ttl=3600, failure_ttl=86400 * 7)


def until_due(ctx: Context, longest: float) -> float:
    """Seconds until the next row's time, at most ``longest``."""
    due = ctx.store.next_due()
    return longest if due is None else min(longest, max(0.0, -times.seconds_since(due)))


def prune(ctx: Context) -> dict[str, int]:
    """Remove what outlived its retention (``store.prune``): idempotent answers older than
    ALHAMBRA_IDEMPOTENCY_RETENTION, due rows done longer ago than
    ALHAMBRA_DUE_RETENTION. Loops on several hosts may run it at once (deletes of rows
    by age: the same rows go)."""
    settings = ctx.settings
    pruned = ctx.store.prune(times.later(-settings.idempotency_retention),
                             times.later(-settings.due_retention))
    if any(pruned.values()):
        log.info("pruned %s", ", ".join(f"{n} {t}" for t, n in pruned.items()))
    return pruned


def run(ctx: Context, stop: threading.Event) -> None:
    """Claim and enqueue until ``stop`` is set, backing off while Redis is away; prune
    expired rows once an hour (first at start)."""
    backoff = ctx.settings.claim_interval
    down = False
    digests = DigestTimer()
    next_prune = 0.0
    while not stop.is_set():
        ctx.wake.clear()
        digests.tick(ctx)  # the players' daily digests, once a minute (digest.py)
        if time.monotonic() >= next_prune:
            next_prune = time.monotonic() + PRUNE_EVERY
            try:
                prune(ctx)
            except Exception as exc:  # noqa: BLE001 - the next hour tries again
                log.warning("prune failed: %s", exc)
        try:
            if dispatch_once(ctx) >= LIMIT:
                continue
            if down:
                log.info("claiming loop: Redis is back")
            down, backoff = False, ctx.settings.claim_interval
            # PostgreSQL: until told of new rows (or the next one's time, a second at
            # most); SQLite, which cannot tell: the interval, or a job of this process
            if not ctx.store.wait_for_due(until_due(ctx, 1.0)):
                ctx.wake.wait(until_due(ctx, ctx.settings.claim_interval))
        except Exception as exc:  # noqa: BLE001 - keep going; due rows stay due
            if not down:
                log.warning("claiming loop: cannot hand due work to Redis (%s); retrying",
                            exc)
            down = True
            backoff = min(max(backoff * 2, 0.5), 5.0)
            stop.wait(backoff)
