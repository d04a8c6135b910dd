"""A real ``serve``'s life (issue 20.5-7): it listens on IPv6 addresses; a SIGTERM to its
whole process group (systemd's default, ``docker stop``) ends an open stream and every
process within seconds, restarting nothing; after a ``kill -9`` of the master its children
die with it and a ``serve`` started again at once takes the port, with nothing lost."""

from __future__ import annotations

import json
import os
import signal
import smtplib
import socket
import time
import urllib.error
import urllib.request
from collections import Counter

import psutil
import pytest

from service import times
from tests.support import start_serve, stop_serve, wait_until
from tests.workers.test_serve_streams import open_stream, read_until
from workers.redis_server import free_port


def _call(base: str, path: str, body: dict | None = None, token: str | None = None,
          timeout: float = 10) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(base + path, data=json.dumps(body).encode() if body else None,
                                 method="POST" if body else "GET", headers=headers)
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.status, json.loads(resp.read())


def _healthy(base: str) -> bool:
    try:
        return _call(base, "/health", timeout=2)[0] == 200
    except (OSError, urllib.error.HTTPError):
        return False


def _up(proc, base: str, tmp_path, log_name: str = "serve.log") -> list[psutil.Process]:
    wait_until(lambda: _healthy(base) or proc.poll() is not None, 40, 0.1, "the API")
    assert proc.poll() is None, (tmp_path / log_name).read_text()[-3000:]
    return psutil.Process(proc.pid).children(recursive=True)


def _running(processes: list[psutil.Process]) -> list[str]:
    out = []
    for p in processes:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                out.append(" ".join(p.cmdline())[:80])
        except psutil.NoSuchProcess:
            pass
    return out


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_serve_listens_on_ipv6_and_builds_bracketed_urls(tmp_path):
    listen = free_port()
    proc, base, log = start_serve(tmp_path, "--host", "::1", "--workers", "1", env={
        "MAIL_REPLY_TO": "moves@example.org", "MAIL_IN_LISTEN": f"[::1]:{listen}"})
    children: list[psutil.Process] = []
    try:
        assert base.startswith("http://[::1]:")
        children = _up(proc, base, tmp_path)
        _, created = _call(base, "/games", {"seats": [{"name": "Ann"}, {"name": "Bob"}]})
        for seat in created["seats"]:
            assert seat["join_url"].startswith(f"{base}/play/"), seat["join_url"]
        def smtp_answers() -> bool:
            try:
                with smtplib.SMTP("::1", listen, timeout=3) as conn:
                    return conn.noop()[0] == 250
            except OSError:
                return False
        wait_until(smtp_answers, 20, 0.2, "the mail-in listener on [::1]")
    finally:
        code = stop_serve(proc, children, log)
    assert code == 0, (tmp_path / "serve.log").read_text()[-3000:]


def test_sigterm_to_the_process_group_ends_streams_and_stops_everything_at_once(tmp_path):
    proc, base, log = start_serve(tmp_path, "--workers", "2", session=True,
                                  env={"MAIL_REPLY_TO": "moves@example.org",
                                       "MAIL_IN_LISTEN": f"127.0.0.1:{free_port()}"})
    children: list[psutil.Process] = []
    try:
        children = _up(proc, base, tmp_path)
        wait_until(lambda: len(psutil.Process(proc.pid).children(recursive=True)) >= 6, 20,
                   0.1, "the workers, Redis and the listener")
        children = psutil.Process(proc.pid).children(recursive=True)
        _, created = _call(base, "/games", {"seats": [{"name": "Ann"}, {"name": "Bob"}]})
        port = int(base.rsplit(":", 1)[1])
        stream = open_stream(port, created["game_id"], created["seats"][0]["token"],
                             "127.0.0.1", created["game"]["version"])
        head = read_until(stream, b"retry:", 5)
        assert head.startswith(b"HTTP/1.1 200"), head
        os.killpg(proc.pid, signal.SIGTERM)
        rest = read_until(stream, b"0\r\n\r\n", 2, b"")  # ended within 2 s
        stream.close()
        wait_until(lambda: not _running([psutil.Process(proc.pid), *children]), 10, 0.05,
                   "every process to stop")
        assert rest.endswith(b"0\r\n\r\n"), rest
        assert proc.wait(1) == 0
    finally:
        stop_serve(proc, children, log)
    text = (tmp_path / "serve.log").read_text()
    assert "started again" not in text and "starting it again" not in text, text[-3000:]
    assert "Traceback" not in text, text[-3000:]


def test_a_killed_master_takes_its_children_along_and_a_new_serve_takes_the_port(tmp_path,
                                                                                  smtp):
    env = {"SMTP_URL": smtp.url}
    proc, base, log = start_serve(tmp_path, "--workers", "2", env=env)
    port = base.rsplit(":", 1)[1]
    children: list[psutil.Process] = []
    again = None
    try:
        children = _up(proc, base, tmp_path)
        _, created = _call(base, "/games", {"seats": [{"name": "Ann", "email": "a@x.org"},
                                                      {"name": "Bob", "email": "b@x.org"}]})
        gid, version = created["game_id"], created["game"]["version"]
        seat = created["game"]["current_seat"]
        stream = open_stream(int(port), gid, created["seats"][seat]["token"], "127.0.0.1",
                             version)
        assert read_until(stream, b"retry:", 5).startswith(b"HTTP/1.1 200")
        status, moved = _call(base, f"/games/{gid}/moves", {"version": version,
                                                            "move": "take 1"},
                              created["seats"][seat]["token"])
        assert status == 201  # acknowledged: it must be there after the crash
        children = psutil.Process(proc.pid).children(recursive=True)
        proc.kill()  # kill -9 of the master
        proc.wait(5)
        wait_until(lambda: not _running(children), 10, 0.05,  # (1-2 s on an idle machine)
                   "the master's children to die")
        rest = read_until(stream, b"0\r\n\r\n", 1)
        stream.close()
        assert rest.endswith(b"0\r\n\r\n"), rest  # the stream was ended, not left hanging
        again, base_again, log_again = start_serve(tmp_path, "--workers", "2", "--port", port,
                                                   env=env, log_name="again.log")
        children = _up(again, base_again, tmp_path, "again.log")
        assert _call(base_again, f"/games/{gid}")[1]["version"] == moved["version"]
        smtp.wait(gid, "your_turn", 1, timeout=30)
        time.sleep(1)  # a mail sent twice would come now
        ids = Counter(m.msg["Message-ID"] for m in smtp.of(gid))
        assert len(ids) == 3 and set(ids.values()) == {1}, ids  # 2 started, 1 your_turn
    finally:
        stop_serve(proc, [] if again is not None else children, log)
        if again is not None:
            stop_serve(again, children, log_again)


def test_a_deadline_due_right_after_a_restart_fires_at_once(tmp_path, smtp):
    """Issue 20.7 and 21: deadlines are due rows in the database, not jobs of RQ's
    scheduler (whose lock, left by a killed serve in the embedded Redis's append-only
    file, held them back 60-70 s): a deadline falling due just after ``serve`` and all
    it runs are killed at once and started again is played within seconds, once."""
    env = {"SMTP_URL": smtp.url, "ALHAMBRA_MIN_TIME_PER_MOVE": "1",
           "ALHAMBRA_REMINDERS": ""}
    proc, base, log = start_serve(tmp_path, "--workers", "1", env=env)
    port = base.rsplit(":", 1)[1]
    children: list[psutil.Process] = []
    again = None
    try:
        children = _up(proc, base, tmp_path)
        _, created = _call(base, "/games", {
            "seats": [{"name": "Ann", "email": "a@x.org"}, {"name": "Bob", "email": "b@x.org"}],
            "time_per_move": 12})
        gid = created["game_id"]
        smtp.wait(gid, "started", 2, timeout=20)  # the seat to move's is its first turn's
        for p in [psutil.Process(proc.pid), *children]:  # the host crashed: every process
            try:                                         # at once, Redis without a word
                p.kill()
            except psutil.NoSuchProcess:
                pass
        proc.wait(5)
        wait_until(lambda: not _running(children), 10, 0.05, "the master's children to die")
        again, base_again, log_again = start_serve(tmp_path, "--workers", "1", "--port", port,
                                                   env=env, log_name="again.log")
        children = _up(again, base_again, tmp_path, "again.log")
        doc = _call(base_again, f"/games/{gid}")[1]
        deadline = times.from_text(doc["deadline"])
        assert times.seconds_since(deadline) < 0, "serve took too long to start again"
        (mail,) = smtp.wait(gid, "timeout", timeout=60)
        late = times.seconds_since(deadline)
        print(f"\nthe deadline after a restart was played {late:.2f} s after it fell due")
        assert late < 10
        time.sleep(1.5)  # a second default move would come now
        assert len(smtp.of(gid, "timeout")) == 1
        events = _call(base_again, f"/games/{gid}/events")[1]["events"]
        timed_out = {i["version"] for i in events if i["event"].get("timeout")}
        assert timed_out and min(timed_out) == doc["version"] + 1
    finally:
        stop_serve(proc, [] if again is not None else children, log)
        if again is not None:
            stop_serve(again, children, log_again)
