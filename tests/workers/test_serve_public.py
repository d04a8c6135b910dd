"""``alhambra-pbem serve`` on the public internet (points 3 and 10 of issue 10), with a
real server process and raw sockets: slow clients do not hold the API, a forged Host
header does not change join links, the data files are its owner's only, it has its own
gunicorn control socket, and HTML pages carry the security headers."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import redis

from tests.support import ROOT, wait_until
from workers.redis_server import free_port


def _request(base: str, path: str, body: dict | None = None, headers: dict | None = None,
             timeout: float = 10) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(base + path, method="POST" if body else "GET",
                                 data=json.dumps(body).encode() if body else None,
                                 headers={"Content-Type": "application/json",
                                          **(headers or {})})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.status, dict(resp.headers), resp.read()


def _healthy(base: str) -> bool:
    try:
        return _request(base, "/health")[0] == 200
    except OSError:
        return False


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A ``serve`` with two gunicorn worker processes, its data folder and base URL."""
    tmp = tmp_path_factory.mktemp("public")
    data = tmp / "data"
    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("REDIS_URL", "SMTP_URL", "PUBLIC_URL")}
    env.update(ALHAMBRA_DATA=str(data), ALHAMBRA_CLAIM_INTERVAL="0.05",
               PYTHONPATH=str(ROOT), ALHAMBRA_LIMIT_JOIN="2/minute",
               ALHAMBRA_LIMIT_BAD_TOKEN="30/minute")  # the default
    log = open(tmp / "serve.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port", str(port),
                             "--workers", "2"], env=env, cwd=ROOT, stdout=log,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: _healthy(base) or proc.poll() is not None, 30, 0.1, "the API")
        assert proc.poll() is None, (tmp / "serve.log").read_text()[-3000:]
        yield data, base, port
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()


def test_slow_clients_do_not_hold_the_api(served):
    _, base, port = served
    slow = []
    try:
        for _ in range(4):  # partial headers, never finished
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            slow.append(s)
        for _ in range(3):  # answers come at once beside them (a second at most)
            assert _request(base, "/health", timeout=1.0)[0] == 200
    finally:
        for s in slow:
            s.close()


def test_a_client_that_leaves_its_socket_open_holds_up_no_other(served):
    """A client that keeps its connection open after a "Connection: close" answer (the
    guesser below did, with urllib's unread refusals) held up its server process for 2 s
    each time: gunicorn's gthread waited for that client's close on its main thread.
    The answers stay whole and end with the server's FIN; the next ones come at once."""
    _, _, port = served
    held = []
    try:
        for _ in range(6):  # each whole within 1.5 s (held up: LINGER, 2 s, times out)
            s = socket.create_connection(("127.0.0.1", port), timeout=1.5)
            held.append(s)
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := s.recv(65536):  # up to the server's half-close
                answer += chunk
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 ")
            length = next(int(line.partition(b":")[2]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:"))
            assert len(body) == length
    finally:
        for s in held:
            s.close()


def test_a_forged_host_header_does_not_change_join_links(served):
    _, base, _ = served
    status, _, body = _request(base, "/games", {"seats": [{"name": "Ann"}, {"name": "Bob"}]},
                               {"Host": "evil.example", "X-Forwarded-Host": "evil.example"})
    assert status == 201
    for seat in json.loads(body)["seats"]:
        assert seat["join_url"].startswith(f"{base}/play/"), seat["join_url"]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_data_files_are_the_owners_only(served):
    data, base, _ = served
    _request(base, "/games", {"seats": [{"name": "Ann", "email": "a@example.org"},
                                        {"name": "Bob", "email": "b@example.org"}]})
    outbox = data / "outbox"
    mails = wait_until(lambda: list(outbox.glob("*.eml")), 20, what="a mail in the outbox")
    files = [data / "alhambra.db", data / "secret.key", *mails]
    files += [p for p in (data / "alhambra.db-wal", data / "alhambra.db-shm") if p.exists()]
    files += [p for p in (data / "redis").rglob("*") if p.is_file()]
    assert {str(p.relative_to(data)): oct(_mode(p)) for p in files
            if _mode(p) & 0o077} == {}
    folders = [data, outbox, data / "redis"]
    assert {str(p): oct(_mode(p)) for p in folders if _mode(p) & 0o077} == {}


def test_each_serve_has_its_own_control_socket(served):
    data, _, _ = served
    ctl = data / "gunicorn.ctl"
    wait_until(ctl.exists, 10, what="the control socket")
    assert stat.S_ISSOCK(ctl.stat().st_mode) and not _mode(ctl) & 0o077


def test_html_pages_carry_security_headers(served):
    _, base, _ = served
    for path in ("/", "/play/0123456789abcdef", "/docs", "/rules"):
        _, headers, _ = _request(base, path)
        csp = headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "no-referrer"


def test_limits_are_counted_in_serves_redis(served):
    data, base, _ = served
    _, _, body = _request(base, "/games", {"players": 4, "seats": [{"name": "Ann"}]})
    created = json.loads(body)
    join = f"/games/{created['game_id']}/join"
    for name in ("Bob", "Cy"):
        assert _request(base, join, {"invite_code": created["invite_code"], "name": name}
                        )[0] == 201
    with pytest.raises(urllib.error.HTTPError) as refused:
        _request(base, join, {"invite_code": created["invite_code"], "name": "Dee"})
    assert refused.value.code == 429 and int(refused.value.headers["Retry-After"]) > 0
    assert json.loads(refused.value.read())["code"] == "rate_limited"
    keys = redis.Redis(unix_socket_path=str(data / "redis" / "redis.sock")).keys("*limits*")
    assert any(b"join_game" in k for k in keys), keys


def test_a_guesser_does_not_lock_out_the_players_at_its_address(served):
    """Issue 20: 41 refused tokens from 127.0.0.1 (the default limit: 30 a minute), then a
    seat's valid token from the same address plays; the guesser's next try is 429."""
    _, base, _ = served
    _, _, body = _request(base, "/games", {"seats": [{"name": "Ann"}, {"name": "Bob"}]})
    created = json.loads(body)
    gid, tokens = created["game_id"], [s["token"] for s in created["seats"]]

    def guess() -> tuple[int, str | None]:
        with pytest.raises(urllib.error.HTTPError) as refused:
            _request(base, f"/games/{gid}", headers={
                "Authorization": f"Bearer {secrets.token_urlsafe(24)}"})
        return refused.value.code, refused.value.headers.get("Retry-After")

    answers = [guess() for _ in range(41)]
    assert [code for code, _ in answers] == [401] * 30 + [429] * 11
    assert all(0 < int(retry) <= 60 for _, retry in answers[30:])
    _, _, body = _request(base, f"/games/{gid}")
    seat = json.loads(body)["current_seat"]
    mine = {"Authorization": f"Bearer {tokens[seat]}"}
    _, _, body = _request(base, f"/games/{gid}/legal-moves", headers=mine)
    legal = json.loads(body)
    move = next(m["notation"] for m in legal["moves"] if m["notation"].startswith("take"))
    status, _, _ = _request(base, f"/games/{gid}/moves",
                            {"move": move, "version": legal["version"]}, mine)
    assert status == 201
    assert guess()[0] == 429
