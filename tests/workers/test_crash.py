"""A worker killed after claiming due work loses no mail and sends none twice (issues 10.4
and 21): its rows are claimed again when their lease runs out, and only the attempt that
holds a row runs it; a mail that failed is due again later. Real worker processes
(``kill -9``), real Redis, a real SMTP server that stalls on one message."""

from __future__ import annotations

import asyncio
import email
import email.policy
import signal
import threading
import time
from collections import Counter

import pytest
from aiosmtpd.controller import Controller
from rq import Queue

from service import times
from service.store import Claim
from tests.support import Inbox, make_stack, new_game, wait_until
from workers import dispatch, jobs
from workers.context import Context
from workers.redis_server import free_port


class StallingInbox(Inbox):
    """An SMTP sink that holds the first message ``stall`` picks without answering until
    ``release`` is set, then refuses it (451: the sender is gone, nothing was taken)."""

    def __init__(self, stall) -> None:
        super().__init__()
        self.stall = stall
        self.stalled = threading.Event()
        self.release = threading.Event()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        if not self.stalled.is_set() and self.stall(msg):
            self.stalled.set()
            while not self.release.is_set():
                await asyncio.sleep(0.05)
            return "451 4.3.0 the sender went away"
        return await super().handle_DATA(server, session, envelope)


@pytest.fixture
def stalling_smtp():
    inbox = StallingInbox(lambda m: m["X-Alhambra-Kind"] == "started" and
                          "p1@example.org" in str(m["To"]))
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    inbox.url = f"smtp://127.0.0.1:{controller.port}"
    try:
        yield inbox
    finally:
        inbox.release.set()
        controller.stop()


def test_a_worker_killed_mid_send_loses_no_mail_and_sends_none_twice(tmp_path, redis_server,
                                                                     stalling_smtp):
    """SIGKILL while a claimed row's mail is on the wire (the SMTP server has not taken
    it): after the lease the row is claimed again, and every mail arrives once."""
    inbox = stalling_smtp
    s = make_stack(tmp_path, redis_server.url, inbox.url, "crash", ALHAMBRA_CLAIM_LEASE="2")
    s.start_worker()
    try:
        h = new_game(s.client, 2)
        wait_until(inbox.stalled.is_set, 30, what="the worker sending the stalled mail")
        # seat 0's "started" went out before; seat 1's is on the wire: kill the worker now
        assert [m.kind for m in inbox.of(h.id)] == ["started"]
        s.process.send_signal(signal.SIGKILL)
        s.process.wait(10)
        s.log.close()
        s.process = None
        inbox.release.set()
        held = [(d.kind, d.seat, d.attempts) for d in s.store.due_rows(h.id)
                if d.state == "claimed" and d.kind == "started"]
        assert held == [("started", 1, 1)]

        s.start_worker()
        mails = inbox.wait(h.id, "started", 2, timeout=30)  # the first turn's: one of them
        time.sleep(3)  # past another lease: nothing comes twice
        ids = Counter(m.msg["Message-ID"] for m in inbox.of(h.id))
        assert sorted((m.kind, m.rcpt[0]) for m in inbox.of(h.id)) == \
            [("started", "p0@example.org"), ("started", "p1@example.org")]
        assert set(ids.values()) == {1} and len(mails) == 2
        rows = {(d.kind, d.seat): d for d in s.store.due_rows(h.id)}
        assert (rows["started", 1].state, rows["started", 1].attempts) == ("done", 2)
        assert {d.state for d in rows.values() if d.kind == "started"} == {"done"}
    finally:
        inbox.release.set()
        s.stop_worker()
        s.store.close()


def _jobs(ctx: Context) -> list:
    """The jobs the claiming loop put on the stack's queue (no worker serves it)."""
    return Queue(ctx.settings.queue, connection=ctx.redis).get_jobs()


def test_a_claimed_row_whose_job_is_lost_is_claimed_again_and_run_once(tmp_path,
                                                                      redis_server, smtp):
    """A worker that died holding a row before its job started (or Redis that lost the
    job): the lease runs out, the row is claimed again, and one job runs it."""
    s = make_stack(tmp_path, redis_server.url, smtp.url, "lost-unserved",
                   ALHAMBRA_CLAIM_LEASE="1")
    ctx = s.context()
    try:
        h = new_game(s.client, 2)
        assert dispatch.dispatch_once(ctx) == 2  # two "started" mails (one is a "your turn")
        lost = [job.args for job in _jobs(ctx)]
        Queue(ctx.settings.queue, connection=ctx.redis).empty()  # gone with the worker
        assert dispatch.dispatch_once(ctx) == 0  # within the lease: left alone
        time.sleep(1.1)
        assert dispatch.dispatch_once(ctx) == 2  # claimed again, as attempt 2
        again = [job.args for job in _jobs(ctx)]
        assert sorted(a for a, _ in again) == sorted(a for a, _ in lost)
        assert {n for _, n in again} == {2}
        # the new claim's jobs send; a job of the lost claim (come back late) does not
        assert [jobs.run(ctx, Claim(*args)) for args in again] == ["sent"] * 2
        assert [jobs.run(ctx, Claim(*args)) for args in lost] == ["not-mine"] * 2
        assert [jobs.run(ctx, Claim(*args)) for args in again] == ["not-mine"] * 2
        assert sorted(m.kind for m in smtp.of(h.id)) == ["started", "started"]
    finally:
        ctx.close()
        s.store.close()


def test_a_mail_smtp_refused_is_due_again_later_then_sent_once(tmp_path, redis_server,
                                                               smtp):
    """The retries are the row's: its due time moves on by the next interval, its
    attempts are counted, its error kept; after the last one it is failed for good."""
    s = make_stack(tmp_path, redis_server.url, smtp.url, "retry-unserved")
    away = Context(s.context().settings.replace(smtp_url=f"smtp://127.0.0.1:{free_port()}",
                                                retries=(0.3,)))
    try:
        h = new_game(s.client, 2)
        assert dispatch.dispatch_once(away) == 2
        claims = [Claim(*job.args) for job in _jobs(away)]
        Queue(away.settings.queue, connection=away.redis).empty()
        assert [jobs.run(away, c) for c in claims] == ["failed"] * 2
        rows = [d for d in s.store.due_rows(h.id) if d.id in {c.id for c in claims}]
        assert {(d.state, d.attempts) for d in rows} == {("pending", 1)}
        assert all("Error" in d.last_error and d.due_at > times.now() for d in rows)
        assert dispatch.dispatch_once(away) == 0  # not before its time
        time.sleep(0.35)
        assert dispatch.dispatch_once(away) == 2
        claims = [Claim(*job.args) for job in _jobs(away)]
        Queue(away.settings.queue, connection=away.redis).empty()
        assert [jobs.run(away, c) for c in claims[:1]] == ["failed"]  # out of retries
        assert s.store.due_rows(h.id)[0].state == "failed"
        back = s.context()  # SMTP is back for the others
        assert [jobs.run(back, c) for c in claims[1:]] == ["sent"]
        assert sorted(m.kind for m in smtp.of(h.id)) == ["started"]
        back.close()
    finally:
        away.close()
        s.store.close()
