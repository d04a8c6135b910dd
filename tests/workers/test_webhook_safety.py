"""Webhooks safe on the public internet (issue 10, points 1 and 2): hostile URLs refused at
registration and, after DNS, at delivery; no redirect followed; limits per game and seat;
a hook failing again and again is disabled and its owner sees why; ten slow receivers do
not delay another game's mail. Real HTTP servers, a real SQLite file, real Redis and SMTP.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from service import create_app, times
from service.settings import Settings
from service.store import Due
from tests.support import auth, check_problem, make_stack, new_game, run_due_here, wait_until
from workers.context import Context

HOSTILE = [
    # (URL, words of the reason)
    ("ftp://example.org/hook", "only http and https"),
    ("file:///etc/passwd", "only http and https"),
    ("gopher://example.org/", "only http and https"),
    ("example.org/hook", "without a scheme"),
    ("http://user:pw@example.org/", "user info"),
    ("http://user@example.org/", "user info"),
    ("http://example.org@127.0.0.1/", "user info"),
    ("http://127.0.0.1/", "loopback"),
    ("http://127.0.0.1:6379/", "loopback"),
    ("http://0.0.0.0/", "unspecified"),
    ("http://10.1.2.3/", "private"),
    ("http://172.16.0.1/", "private"),
    ("http://192.168.1.1/", "private"),
    ("http://169.254.169.254/latest/meta-data/", "link-local"),
    ("http://100.64.0.1/", "not a public address"),
    ("http://224.0.0.1/", "multicast"),
    ("http://240.0.0.1/", "reserved"),
    ("http://255.255.255.255/", "reserved"),
    ("http://2130706433/", "odd form"),
    ("http://0x7f000001/", "odd form"),
    ("http://0177.0.0.1/", "odd form"),
    ("http://0x7f.0.0.1/", "odd form"),
    ("http://127.1/", "odd form"),
    ("http://017700000001/", "odd form"),
    ("http://0/", "odd form"),
    ("http://[::1]/", "loopback"),
    ("http://[::]/", "unspecified"),
    ("http://[::ffff:127.0.0.1]/", "loopback"),
    ("http://[::ffff:a9fe:a9fe]/", "link-local"),
    ("http://[2002:7f00:1::]/", "loopback"),  # 6to4 of 127.0.0.1
    ("http://[fe80::1]/", "link-local"),
    ("http://[fe80::1%25eth0]/", "zone"),
    ("http://[fc00::1]/", "private"),
    ("http://[ff02::1]/", "multicast"),
    ("http://localhost/", "private network"),
    ("http://LOCALHOST./", "private network"),
    ("http://api.localhost/", "private network"),
    ("http://metadata.google.internal/computeMetadata/v1/", "private network"),
    ("http://printer.local/", "private network"),
    ("http://metadata/", "private network"),
    ("http://exa mple.org/", "spaces"),
    ("http://example.org\\@127.0.0.1/", "backslashes"),
    ("http://example.org:99999/", "cannot be read"),
    ("http://-bad-.example.org/", "not a valid host name"),
    ("http:///nohost", "no host"),
]
ACCEPTED = ["http://example.org/hook", "https://hooks.example.com:8443/a?b=c",
            "http://93.184.216.34/x", "http://[2606:4700:4700::1111]/",
            "https://bücher.example/hook"]


@pytest.fixture(scope="module")
def public_app(tmp_path_factory):
    """An API as on a public host: private webhook targets refused (the default)."""
    tmp = tmp_path_factory.mktemp("public")
    app = create_app(Settings(data_dir=tmp, database=str(tmp / "a.db"), state_cache_size=0))
    return app


def test_hostile_urls_are_refused_at_registration(public_app):
    client = public_app.test_client()
    h = new_game(client, 2)
    refused = []
    for url, why in HOSTILE:
        r = client.post(f"/games/{h.id}/webhooks", headers=auth(h.tokens[0]),
                        json={"url": url})
        doc = check_problem(r, 422, "webhook_url_refused")
        assert why in doc["detail"], (url, doc["detail"])
        assert doc["field"] == "url" and doc["reason"] in doc["detail"]
        refused.append(url)
    assert len(refused) == len(HOSTILE)
    assert client.get(f"/games/{h.id}/webhooks", headers=auth(h.tokens[0])
                      ).get_json()["webhooks"] == []  # nothing was registered
    for i, url in enumerate(ACCEPTED):
        token = h.tokens[i % 2] if i < 4 else h.host_token
        r = client.post(f"/games/{h.id}/webhooks", headers=auth(token), json={"url": url})
        assert r.status_code == 201, (url, r.get_json())


def test_a_few_hooks_per_seat_and_per_game(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, database=str(tmp_path / "a.db"),
                              webhooks_per_seat=2, webhooks_per_game=5))
    client = app.test_client()
    h = new_game(client, 3)
    url = f"/games/{h.id}/webhooks"

    def add(token):
        return client.post(url, headers=auth(token), json={"url": "http://hook.example/"})

    assert [add(h.tokens[0]).status_code for _ in range(2)] == [201, 201]
    doc = check_problem(add(h.tokens[0]), 422, "too_many_webhooks")
    assert doc["limit"] == 2 and "a seat may have at most 2 webhooks" in doc["detail"]
    assert [add(t).status_code for t in (h.tokens[1], h.tokens[1], h.host_token)] == \
        [201, 201, 201]
    doc = check_problem(add(h.tokens[2]), 422, "too_many_webhooks")
    assert doc["limit"] == 5 and "a game may have at most 5" in doc["detail"]
    hook = client.get(url, headers=auth(h.tokens[0])).get_json()["webhooks"][0]
    assert client.delete(f"{url}/{hook['id']}", headers=auth(h.tokens[0])).status_code == 204
    assert add(h.tokens[2]).status_code == 201  # room again


class Server:
    """A local HTTP server answering each POST with ``answer(handler)`` (status, headers)
    after ``delay`` seconds."""

    def __init__(self, status: int = 204, headers: dict | None = None,
                 delay: float = 0.0) -> None:
        self.calls: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                self.rfile.read(int(self.headers["Content-Length"]))
                server.calls.append(self.path)
                time.sleep(delay)
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def game_ctx(tmp_path):
    """A game with events (through the API) and a workers Context on its database, the
    settings' private targets as the test says."""
    made: list[Context] = []

    def make(**changes):
        settings = Settings(data_dir=tmp_path, database=str(tmp_path / "a.db"), **changes)
        app = create_app(settings)
        h = new_game(app.test_client(), 2)
        ctx = Context(settings)
        made.append(ctx)
        return h, ctx

    yield make
    for ctx in made:
        ctx.close()


def deliver(ctx: Context, hook_id: int, game_id: str) -> str:
    """The hook's call for the game's first batch, as due work run here by the job's own
    code (again if it is due again); its result."""
    ctx.store.add_due(game_id, [Due("webhook", 1, times.now(), hook_id=hook_id,
                                    from_version=1)])
    (result,) = run_due_here(ctx, game_id, lambda d: d.hook_id == hook_id).values()
    return result


def last_error(ctx: Context, game_id: str, hook_id: int) -> str:
    (row,) = [d for d in ctx.store.due_rows(game_id) if d.hook_id == hook_id]
    return row.last_error or ""


def test_a_name_resolving_to_loopback_is_refused_at_delivery(game_ctx):
    receiver = Server()
    try:
        h, ctx = game_ctx()  # private targets refused
        # registered before the rules (an old database) or by a name that changed address
        hook = ctx.store.hooks.add(h.id, 0, f"http://localhost:{receiver.port}/x", "s" * 16)
        assert deliver(ctx, hook.id, h.id) == "refused"
        time.sleep(0.2)
        assert receiver.calls == []  # nothing was sent
        got = ctx.store.hooks.get(hook.id)
        assert got.failures == 1 and "loopback" in got.last_error or \
            "private network" in got.last_error
        (row,) = [d for d in ctx.store.due_rows(h.id) if d.kind == "webhook"]
        assert (row.state, row.last_error) == ("failed", got.last_error)  # not again
        # the same receiver, allowed on a closed network
        h2, open_ctx = game_ctx(webhook_allow_private=True)
        hook2 = open_ctx.store.hooks.add(h2.id, 0, f"http://localhost:{receiver.port}/y",
                                           "s" * 16)
        assert deliver(open_ctx, hook2.id, h2.id) == "sent"
        assert receiver.calls == ["/y"]
    finally:
        receiver.close()


def test_a_redirect_is_not_followed(game_ctx):
    second = Server()
    first = Server(status=302, headers={"Location": second.url + "/internal"})
    try:
        h, ctx = game_ctx(webhook_allow_private=True)
        hook = ctx.store.hooks.add(h.id, 0, first.url + "/hook", "s" * 16)
        assert deliver(ctx, hook.id, h.id) == "failed"
        assert "DeliveryFailed" in last_error(ctx, h.id, hook.id)
        assert "redirect" in last_error(ctx, h.id, hook.id)
        time.sleep(0.3)
        assert first.calls == ["/hook"] and second.calls == []
        assert "302" in ctx.store.hooks.get(hook.id).last_error
    finally:
        first.close()
        second.close()


def test_a_hook_failing_again_and_again_is_disabled_and_its_owner_sees_why(game_ctx):
    failing = Server(status=500)
    try:
        h, ctx = game_ctx(webhook_allow_private=True, webhook_max_failures=3,
                          webhook_retries=(0, 0, 0, 0))
        app = create_app(ctx.settings)
        client = app.test_client()
        r = client.post(f"/games/{h.id}/webhooks", headers=auth(h.tokens[1]),
                        json={"url": failing.url + "/down"})
        hook = r.get_json()
        for _ in range(3):
            assert deliver(ctx, hook["id"], h.id) == "failed"
            assert "answered 500" in last_error(ctx, h.id, hook["id"])
        assert deliver(ctx, hook["id"], h.id) == "disabled"
        assert len(failing.calls) == 3
        status = client.get(f"/games/{h.id}/webhooks/{hook['id']}",
                            headers=auth(h.tokens[1])).get_json()
        assert status["failures"] == 3 and "answered 500" in status["last_error"]
        assert status["disabled_at"] is not None
        assert client.get(f"/games/{h.id}/webhooks", headers=auth(h.tokens[1])
                          ).get_json()["webhooks"] == [status]
    finally:
        failing.close()


def test_a_slow_receiver_is_cut_off_by_the_read_timeout(game_ctx):
    slow = Server(delay=5)
    try:
        h, ctx = game_ctx(webhook_allow_private=True, webhook_read_timeout=0.5)
        hook = ctx.store.hooks.add(h.id, 0, slow.url, "s" * 16)
        assert deliver(ctx, hook.id, h.id) == "failed"  # cut off: the receiver waits 5 s
        assert "timed out" in last_error(ctx, h.id, hook.id)
    finally:
        slow.close()


def test_ten_slow_hooks_do_not_delay_another_games_mail(tmp_path, redis_server, smtp):
    """Issue 10.1: ten hooks to a receiver that sleeps held the only worker for 100 s."""
    slow = Server(delay=4)
    s = make_stack(tmp_path, redis_server.url, smtp.url, "slowhooks",
                   ALHAMBRA_WEBHOOKS_PER_SEAT="10", ALHAMBRA_WEBHOOK_READ_TIMEOUT="3")
    s.start_worker()
    try:
        a = new_game(s.client, 2)
        b = new_game(s.client, 2)
        smtp.wait(b.id, "started", 2, timeout=30)  # the worker is up
        for i in range(10):
            r = s.client.post(f"/games/{a.id}/webhooks", headers=auth(a.tokens[0]),
                              json={"url": f"{slow.url}/{i}"})
            assert r.status_code == 201, r.get_json()
        doc = a.get()
        seat = doc["current_seat"]
        assert a.submit(seat, a.notations(seat)[0], doc["version"]).status_code == 201
        wait_until(lambda: len(slow.calls) >= 1, 15, what="the slow hooks called")
        doc = b.get()
        seat = doc["current_seat"]
        take = next(m for m in b.notations(seat) if m.startswith("take"))  # ends the turn
        before = time.monotonic()
        r = b.submit(seat, take, doc["version"])
        assert r.status_code == 201
        version = r.get_json()["version"]
        (mail,) = smtp.wait(b.id, "your_turn", 1, timeout=30,
                            where=lambda m: m.version == version)
        delay = mail.at - before
        print(f"\nanother game's 'your turn' mail, 10 slow hooks busy: {delay:.2f} s")
        assert delay < 3.0
    finally:
        s.stop_worker()
        s.store.close()
        slow.close()
