"""serve's process plumbing (issue 20.5, 20.7): IPv6 ``HOST:PORT`` forms for gunicorn and
the links, and waiting for a port that a stopping server still holds (real sockets)."""

from __future__ import annotations

import argparse
import socket
import threading

from service import process
from service.cli import gunicorn_settings
from service.process import host_port, wait_for_port
from service.settings import Settings
from tests.support import FakeTime


def test_ipv6_hosts_are_bracketed_once():
    assert host_port("::1", 8000) == "[::1]:8000"
    assert host_port("[::]", 8000) == "[::]:8000"
    assert host_port("::", 8000) == "[::]:8000"
    assert host_port("127.0.0.1", 8000) == "127.0.0.1:8000"
    args = argparse.Namespace(host="::", port=8000, workers=1, threads=2, access_log=False)
    assert gunicorn_settings(args, Settings(database=":memory:"))["bind"] == "[::]:8000"
    assert Settings(database=":memory:", mail_reply_to="m@example.org",
                    mail_in_listen="[::1]:2525").mail_in_address == ("::1", 2525)


def test_waiting_for_a_port_until_its_listener_goes(monkeypatch):
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    waited = FakeTime()
    monkeypatch.setattr(process, "time", waited)
    assert not wait_for_port("127.0.0.1", port, timeout=30)  # on a fake clock: at once
    assert waited.slept >= 30 and waited.slept < 30.5  # it waited the whole timeout
    monkeypatch.undo()
    threading.Timer(0.3, holder.close).start()
    assert wait_for_port("127.0.0.1", port, timeout=5)
    assert wait_for_port("127.0.0.1", port, timeout=0)  # free: at once
