"""Webhooks: registered by a seat or the host, signed, redacted, retried with backoff."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support import auth, new_game, wait_until
from workers.webhooks import SIGNATURE_HEADER, sign, verify


class Receiver:
    """A local HTTP server: answers 500 to the first ``fail[path]`` attempts of each
    delivery to that path."""

    def __init__(self, fail: dict[str, int]) -> None:
        self.fail = dict(fail)
        self.calls: list[dict] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                key = (self.path, self.headers["X-Alhambra-Delivery"])
                with receiver.lock:
                    left = receiver.fail.get(key, receiver.fail.get(self.path, 0))
                    receiver.fail[key] = left - 1
                    status = 500 if left > 0 else 204
                    receiver.calls.append({"path": self.path, "body": body,
                                           "headers": dict(self.headers), "status": status})
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def of(self, path: str, delivery: str | None = None) -> list[dict]:
        with self.lock:
            return [c for c in self.calls if c["path"] == path and (
                delivery is None or c["headers"]["X-Alhambra-Delivery"].startswith(delivery))]


@pytest.fixture
def receiver():
    r = Receiver({"/flaky": 2})
    r.thread.start()
    try:
        yield r
    finally:
        r.server.shutdown()
        r.server.server_close()


def test_signed_redacted_events_and_a_receiver_failing_twice_gets_them_third(stack, receiver):
    h = new_game(stack.client, 3)
    doc = h.get()
    seat = doc["current_seat"]
    other = (seat + 1) % 3
    hooks = {}
    for name, token, path in (("seat", h.tokens[seat], "/flaky"),
                              ("host", h.host_token, "/host"),
                              ("other", h.tokens[other], "/other")):
        r = stack.client.post(f"/games/{h.id}/webhooks", headers=auth(token),
                              json={"url": receiver.url + path})
        assert r.status_code == 201, r.get_json()
        hooks[name] = r.get_json()
    assert hooks["seat"]["seat"] == seat and hooks["host"]["seat"] is None
    assert len(hooks["seat"]["secret"]) >= 16

    r = h.submit(seat, h.notations(seat)[0], doc["version"])
    assert r.status_code == 201
    version = r.get_json()["version"]

    # (the setup batch may reach the hooks too, if they came before it was processed)
    delivery = f"{h.id}:{doc['version'] + 1}-{version}:"
    calls = wait_until(lambda: len(receiver.of("/flaky", delivery)) >= 3 and
                       receiver.of("/flaky", delivery), 20,
                       what="three attempts at the flaky receiver")
    assert [c["status"] for c in calls] == [500, 500, 204]
    assert len({c["body"] for c in calls}) == 1  # the same delivery each time
    assert len({c["headers"]["X-Alhambra-Delivery"] for c in calls}) == 1
    for c in calls:
        assert verify(hooks["seat"]["secret"], c["body"], c["headers"][SIGNATURE_HEADER])
        assert not verify("another secret key!", c["body"], c["headers"][SIGNATURE_HEADER])
    payload = json.loads(calls[-1]["body"])
    assert payload["game_id"] == h.id and payload["seat"] == seat
    assert payload["from_version"] == doc["version"] + 1 and payload["to_version"] == version
    assert [e["version"] for e in payload["events"]] == list(range(doc["version"] + 1,
                                                                   version + 1))
    assert payload["events"] == r.get_json()["events"]  # as the API showed the mover

    for path, name in (("/host", "host"), ("/other", "other")):
        (call,) = wait_until(lambda p=path: receiver.of(p, delivery), 10,
                             what=f"the {name} hook")
        assert call["status"] == 204
        assert call["headers"][SIGNATURE_HEADER] == sign(hooks[name]["secret"], call["body"])
        body = json.loads(call["body"])
        api = stack.client.get(f"/games/{h.id}/events?since={doc['version']}",
                               headers=auth(h.tokens[other]) if name == "other" else {})
        assert body["events"] == api.get_json()["events"]  # redacted for that viewer
    rows = {d.hook_id: d for d in stack.store.due_rows(h.id)
            if d.kind == "webhook" and d.version == version}
    row = rows[hooks["seat"]["id"]]
    assert (row.attempts, row.state, row.result) == (3, "done", "sent")
    assert "answered 500" in row.last_error  # of the attempts before


def test_webhook_endpoints(stack):
    h = new_game(stack.client, 2)
    url = f"/games/{h.id}/webhooks"
    assert stack.client.post(url, json={"url": "http://x.test/"}).status_code == 401
    assert stack.client.post(url, headers=auth(h.tokens[0]),
                             json={"url": "ftp://x.test/"}).status_code == 422
    assert stack.client.post(url, headers=auth(h.tokens[0]),
                             json={"url": "http://x.test/", "secret": "short"}
                             ).status_code == 422
    other = new_game(stack.client, 2)
    assert stack.client.post(url, headers=auth(other.tokens[0]),
                             json={"url": "http://x.test/"}).status_code == 403
    r = stack.client.post(url, headers=auth(h.tokens[0]),
                          json={"url": "http://x.test/a", "secret": "s" * 20})
    assert r.status_code == 201 and r.get_json()["secret"] == "s" * 20
    hook = r.get_json()
    listed = stack.client.get(url, headers=auth(h.tokens[0])).get_json()["webhooks"]
    status = {k: hook[k] for k in ("id", "game_id", "seat", "url", "created_at")}
    status.update(failures=0, last_error=None, disabled_at=None)
    assert listed == [status]
    assert stack.client.get(f"{url}/{hook['id']}", headers=auth(h.tokens[0])
                            ).get_json() == status
    for token in (h.tokens[1], h.host_token):  # another seat's hook: not found
        assert stack.client.get(f"{url}/{hook['id']}", headers=auth(token)
                                ).status_code == 404
    assert stack.client.get(url, headers=auth(h.tokens[1])).get_json()["webhooks"] == []
    assert stack.client.get(url, headers=auth(h.host_token)).get_json()["webhooks"] == []
    assert stack.client.delete(f"{url}/{hook['id']}",
                               headers=auth(h.tokens[1])).status_code == 404
    assert stack.client.delete(f"{url}/{hook['id']}",
                               headers=auth(h.tokens[0])).status_code == 204
    assert stack.client.get(url, headers=auth(h.tokens[0])).get_json()["webhooks"] == []
