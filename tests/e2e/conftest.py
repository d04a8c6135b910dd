"""The e2e runs' SMTP sink."""

from __future__ import annotations

import pytest
from aiosmtpd.controller import Controller

from tests.support import Inbox
from workers.redis_server import free_port


@pytest.fixture
def inbox():
    sink = Inbox()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port())
    controller.start()
    sink.url = f"smtp://127.0.0.1:{controller.port}"
    try:
        yield sink
    finally:
        controller.stop()
