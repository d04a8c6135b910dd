"""A worker killed mid-send loses no mail (issue 10.4): a retried job that finds a mail held
by another run tries again later, and the relay's sweep sends again what a dead worker
left "sending" past its lease. Real worker processes (``kill -9``), real Redis, a real
SMTP server that stalls on one message."""

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

from service import times
from tests.support import Inbox, make_stack, new_game, wait_until
from workers import jobs, relay
from workers.context import set_context
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
    inbox = stalling_smtp
    s = make_stack(tmp_path, redis_server.url, inbox.url, "crash", ALHAMBRA_MAIL_LEASE="2")
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
        held = [n for n in s.store.notifications(h.id) if n.status == "sending"]
        assert [(n.recipient, n.kind) for n in held] == [("seat:1", "started")]

        s.start_worker()
        mails = inbox.wait(h.id, "started", 2, timeout=30)  # the first turn's: one of them
        time.sleep(4)  # past another lease and sweep: nothing comes twice
        ids = Counter(m.msg["Message-ID"] for m in inbox.of(h.id))
        assert sorted((m.kind, m.rcpt[0]) for m in inbox.of(h.id)) == \
            [("started", "p0@example.org"), ("started", "p1@example.org")]
        assert set(ids.values()) == {1} and len(mails) == 2
        assert {n.status for n in s.store.notifications(h.id)} == {"sent"}
    finally:
        inbox.release.set()
        s.stop_worker()
        s.store.close()


def test_a_job_finding_a_mail_held_tries_again_later(tmp_path, redis_server, smtp):
    s = make_stack(tmp_path, redis_server.url, smtp.url, "held-unserved",
                   ALHAMBRA_MAIL_LEASE="1")
    ctx = s.context()
    try:
        h = new_game(s.client, 2)
        (row,) = s.store.undelivered()
        # another run (a worker that died mid-send) holds seat 0's "started" mail
        assert s.store.claim_notification(h.id, row.to_version, "seat:0", "started")
        args = (ctx, h.id, row.from_version, row.to_version, times.to_text(row.created_at))
        with pytest.raises(jobs.MailHeld):  # RQ runs the job again later
            jobs.handle_batch(*args)
        assert sorted(m.kind for m in smtp.of(h.id)) == ["started"]
        time.sleep(1.1)  # the holder's lease is over
        assert jobs.handle_batch(*args)["status"] == "done"
        assert sorted((m.kind, m.rcpt[0]) for m in smtp.of(h.id))[:2] == \
            [("started", "p0@example.org"), ("started", "p1@example.org")]
        assert len(smtp.of(h.id)) == 2  # nothing twice
    finally:
        ctx.close()
        s.store.close()


def test_the_sweep_re_drives_what_a_dead_worker_left_sending(tmp_path, redis_server, smtp):
    s = make_stack(tmp_path, redis_server.url, smtp.url, "redrive-unserved",
                   ALHAMBRA_MAIL_LEASE="1")
    ctx = s.context()
    try:
        h = new_game(s.client, 2)
        (row,) = s.store.undelivered()
        for key in (("seat:0", "started"), ("seat:1", "answer-abc")):
            assert s.store.claim_notification(h.id, row.to_version, *key)  # then it died
        assert relay.redrive(ctx) == 0  # within the lease: left alone
        time.sleep(1.1)
        assert relay.redrive(ctx) == 1 and relay.redrive(ctx) == 0  # once per lease
        (job,) = ctx.queue().get_jobs()
        assert job.func_name == "workers.jobs.process_batch"
        assert job.args == (h.id, row.from_version, row.to_version,
                            times.to_text(row.created_at))
        status = {n.kind: n.status for n in s.store.notifications(h.id)}
        assert status == {"started": "sending", "answer-abc": "failed"}  # claimable again
        set_context(ctx)  # the job runs here, on the stack's database
        try:
            job.perform()
        finally:
            set_context(None)
        assert sorted(m.kind for m in smtp.of(h.id)) == ["started", "started"]
    finally:
        ctx.close()
        s.store.close()
