"""Idle ``/games/{id}/stream`` connections do not hold a real ``serve`` (issue 20.2): 48
idle streams from six client addresses (127.0.0.2-7, each at the cap of 8), then
``/health`` and a move are answered at once and every stream hears of the move; a ninth
stream from one address gets 429 ``rate_limited`` with ``Retry-After``. Raw sockets, a
real ``serve`` (gunicorn, its Redis and worker)."""

from __future__ import annotations

import json
import socket
import time
import urllib.request

import psutil
import pytest

from tests.support import start_serve, stop_serve, wait_until

ADDRESSES = [f"127.0.0.{i}" for i in range(2, 8)]
PER_ADDRESS = 8  # the default ALHAMBRA_STREAMS_PER_CLIENT


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
    except OSError:
        return False


def open_stream(port: int, game_id: str, token: str, source: str, since: int
                ) -> socket.socket:
    """A stream request from ``source`` (its answer is read later)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    s.sendall(f"GET /games/{game_id}/stream?since={since} HTTP/1.1\r\nHost: test\r\n"
              f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n".encode())
    return s


def read_until(s: socket.socket, needle: bytes, seconds: float, got: bytes = b"") -> bytes:
    """What ``s`` sent until ``needle`` came (or ``seconds`` passed, or it closed)."""
    end = time.monotonic() + seconds
    while needle not in got and time.monotonic() < end:
        s.settimeout(max(0.01, end - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except TimeoutError:
            break
        if not chunk:
            break
        got += chunk
    return got


@pytest.fixture
def served(tmp_path):
    proc, base, log = start_serve(tmp_path, "--workers", "2",
                                  env={"ALHAMBRA_STREAM_SECONDS": "60"})
    children: list[psutil.Process] = []
    try:
        wait_until(lambda: _healthy(base) or proc.poll() is not None, 40, 0.1, "the API")
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
        children = psutil.Process(proc.pid).children(recursive=True)
        yield base, int(base.rsplit(":", 1)[1])
    finally:
        stop_serve(proc, children, log)


def test_idle_streams_from_many_addresses_hold_neither_health_nor_a_move(served):
    base, port = served
    _, created = _call(base, "/games", {"seats": [{"name": "Ann"}, {"name": "Bob"}]})
    gid, version = created["game_id"], created["game"]["version"]
    seat = created["game"]["current_seat"]
    token = created["seats"][seat]["token"]
    streams = [open_stream(port, gid, token, source, version)
               for source in ADDRESSES for _ in range(PER_ADDRESS)]
    try:
        end = time.monotonic() + 10  # for all of them
        heads = [read_until(s, b"retry:", end - time.monotonic()) for s in streams]
        assert all(h.startswith(b"HTTP/1.1 200") for h in heads), \
            [h[:40] for h in heads if not h.startswith(b"HTTP/1.1 200")]
        assert all(b"Transfer-Encoding: chunked" in h for h in heads), heads[0]
        # the API answers beside them: within 2 s (/health) and 3 s (a move)
        assert _call(base, "/health", timeout=2)[0] == 200
        status, moved = _call(base, f"/games/{gid}/moves",
                              {"version": version, "move": "take 1"}, token, timeout=3)
        assert status == 201
        needle = f"id: {moved['version']}\n".encode()
        end = time.monotonic() + 5
        heard = [needle in read_until(s, needle, end - time.monotonic(), h)
                 for s, h in zip(streams, heads, strict=True)]
        assert heard == [True] * len(streams)
        # a ninth stream from one address is refused; another address still gets one
        extra = open_stream(port, gid, token, ADDRESSES[0], version)
        answer = read_until(extra, b"}", 5)
        extra.close()
        assert answer.startswith(b"HTTP/1.1 429"), answer[:200]
        head, _, body = answer.partition(b"\r\n\r\n")
        assert b"Retry-After: " in head and b"application/problem+json" in head
        assert json.loads(body[body.index(b"{"):])["code"] == "rate_limited"
        other = open_stream(port, gid, token, "127.0.0.8", version)
        assert read_until(other, b"retry:", 5).startswith(b"HTTP/1.1 200")
        other.close()
    finally:
        for s in streams:
            s.close()
    # the streams' places are given back as they close
    fresh = wait_until(lambda: read_until(s := open_stream(port, gid, token, ADDRESSES[0],
                                                           version), b"\r\n", 2)
                       .startswith(b"HTTP/1.1 200") and s, 10, 0.2, "a stream again")
    fresh.close()
