"""Notices beyond e-mail (issue 37): a local stand-in push service checks the VAPID JWT
(py-vapid) and decrypts the payload with the subscription's private key (http_ece), the
way pywebpush's own tests do; a 410 removes the subscription; an Apprise ``json://`` URL
to a local receiver gets the turn; refusals change nothing."""

from __future__ import annotations

import base64
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid02

from tests.support import (
    auth,
    check_problem,
    claimed,
    make_stack,
    new_game,
    play_until,
    run_due_now,
)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class PushService:
    """A local push service: each POST's VAPID header checked, its body decrypted with
    the subscription's keys; answers ``answers`` in turn (then 201)."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.answers: list[int] = []
        self.received: list[dict] = []
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with service.lock:
                    status = service.answers.pop(0) if service.answers else 201
                    service.received.append({
                        "path": self.path, "headers": dict(self.headers), "raw": body,
                        "vapid_ok": Vapid02.verify(self.headers["Authorization"]),
                        "payload": json.loads(http_ece.decrypt(
                            body, private_key=service.key, auth_secret=service.auth,
                            version="aes128gcm")),
                        "status": status})
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def subscription(self, path: str = "/sub/1") -> dict:
        """What a browser's ``PushSubscription.toJSON()`` gives."""
        point = self.key.public_key().public_bytes(Encoding.X962,
                                                   PublicFormat.UncompressedPoint)
        return {"endpoint": self.url + path, "expirationTime": None,
                "keys": {"p256dh": b64(point), "auth": b64(self.auth)}}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class JsonReceiver:
    """Where Apprise's ``json://`` notices go: every POSTed body kept."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                receiver.bodies.append(json.loads(self.rfile.read(
                    int(self.headers["Content-Length"]))))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_turn_is_pushed_encrypted_and_signed_and_a_410_removes_the_subscription(
        unserved_stack, push_service, json_receiver):
    s = unserved_stack
    h = new_game(s.client, 2, emails=["ann@example.org", "bob@example.org"])
    players = claimed(s.app, h, {0: "ann@example.org", 1: "bob@example.org"})
    key = s.client.get("/push/key").get_json()["public_key"]
    assert len(base64.urlsafe_b64decode(key + "==")) == 65

    ctx = s.context()
    run_due_now(ctx, h.id)  # the game's start: before any channel
    waiting = 1 - h.get()["current_seat"]
    token = players[waiting]
    r = s.client.post("/me/push", json=push_service.subscription(), headers=auth(token))
    assert r.status_code == 201, r.get_json()
    sub = r.get_json()
    assert sub["endpoint"] == push_service.url + "/sub/1" and sub["failures"] == 0
    assert "message" not in sub["events"] and "your_turn" in sub["events"]
    r = s.client.post("/me/notify-urls", headers=auth(token), json={
        "url": f"json://127.0.0.1:{json_receiver.port}/hook", "events": ["your_turn"]})
    assert r.status_code == 201, r.get_json()

    play_until(h, waiting)
    version = h.get()["version"]
    done = run_due_now(ctx, h.id)
    assert done[("notify", waiting, version)] == "done"
    pushed = [d for d in s.store.due_rows(h.id) if d.kind == "push"]
    assert [d.result for d in pushed] == ["sent", "sent"]
    [got] = push_service.received
    assert got["vapid_ok"] and got["path"] == "/sub/1"
    assert got["headers"]["Content-Encoding"] == "aes128gcm"
    assert got["headers"]["Authorization"].endswith("k=" + key)
    deadline_left = 0 < int(got["headers"]["TTL"]) <= h.get()["time_per_move"]
    assert deadline_left, got["headers"]
    payload = got["payload"]
    assert payload["game_id"] == h.id and payload["version"] == version
    assert payload["what"] == "your_turn" and payload["title"] == "Your turn"
    assert payload["url"] == f"http://alhambra.test/me#open={h.id}" and h.id in payload["body"]
    [told] = json_receiver.bodies
    assert told["title"] == "Your turn" and h.id in told["message"]
    assert run_due_now(ctx, h.id) == {}  # once per event

    # the push service says the subscription is gone: it is removed
    push_service.answers = [410]
    play_until(h, 1 - waiting)
    play_until(h, waiting)
    run_due_now(ctx, h.id)
    assert push_service.received[-1]["status"] == 410
    r = s.client.get("/me/push", headers=auth(token))
    assert r.get_json() == {"subscriptions": []}
    assert len(json_receiver.bodies) == 2


def test_a_failing_push_service_is_counted_and_retried(unserved_stack, push_service):
    s = unserved_stack
    h = new_game(s.client, 2, emails=["cy@example.org", "di@example.org"])
    players = claimed(s.app, h, {0: "cy@example.org", 1: "di@example.org"})
    ctx = s.context()
    run_due_now(ctx, h.id)
    waiting = 1 - h.get()["current_seat"]
    r = s.client.post("/me/push", json=push_service.subscription("/flaky"),
                      headers=auth(players[waiting]))
    assert r.status_code == 201
    push_service.answers = [500]
    play_until(h, waiting)
    run_due_now(ctx, h.id)
    [sub] = s.client.get("/me/push", headers=auth(players[waiting])).get_json()[
        "subscriptions"]
    assert sub["failures"] == 1 and "500" in sub["last_error"]
    [row] = [d for d in s.store.due_rows(h.id) if d.kind == "push"]
    assert row.state == "pending" and row.attempts == 1  # due again (ALHAMBRA_WEBHOOK_RETRIES)


def test_refusals_change_nothing(unserved_stack, push_service):
    s = unserved_stack
    token = claimed_account(s, "eve@example.org")
    other = claimed_account(s, "fay@example.org")
    good = push_service.subscription()
    for body, field in (
            ({**good, "keys": {"p256dh": "AAAA", "auth": good["keys"]["auth"]}},
             "keys.p256dh"),
            ({**good, "keys": {"p256dh": good["keys"]["p256dh"], "auth": "AAAA"}},
             "keys.auth"),
            ({**good, "endpoint": "ftp://push.example/x"}, "endpoint")):
        check = check_problem(s.client.post("/me/push", json=body, headers=auth(token)),
                              422, "channel_refused")
        assert check["field"] == field
    check_problem(s.client.post("/me/push", json={"endpoint": good["endpoint"]},
                                headers=auth(token)), 422, "validation_error")
    check_problem(s.client.post("/me/push", json=good), 401)
    for url in ("windows://", "syslog://", "mailto://a:b@example.org"):
        check_problem(s.client.post("/me/notify-urls", json={"url": url},
                                    headers=auth(token)), 422, "channel_refused")
    assert s.client.get("/me/push", headers=auth(token)).get_json() == {"subscriptions": []}

    mine = s.client.post("/me/push", json=good, headers=auth(token)).get_json()
    check_problem(s.client.delete(f"/me/push/{mine['id']}", headers=auth(other)), 404,
                  "channel_not_found")
    check_problem(s.client.delete(f"/me/notify-urls/{mine['id']}", headers=auth(token)),
                  404, "channel_not_found")
    assert len(s.client.get("/me/push", headers=auth(token)).get_json()["subscriptions"]) == 1
    assert s.client.delete(f"/me/push/{mine['id']}", headers=auth(token)).status_code == 204


def test_private_targets_are_refused_unless_allowed(tmp_path, redis_server, smtp):
    s = make_stack(tmp_path, redis_server.url, smtp.url, "push-private",
                   ALHAMBRA_WEBHOOK_ALLOW_PRIVATE="0")
    try:
        token = claimed_account(s, "gus@example.org")
        r = s.client.post("/me/notify-urls", json={"url": "json://127.0.0.1:9/x"},
                          headers=auth(token))
        assert check_problem(r, 422, "channel_refused")["field"] == "url"
        for url in ("jsons://10.1.2.3/x", "json://localhost/x", "ntfy://metadata/topic",
                    "matrixs://u:p@[::1]/#room"):
            r = s.client.post("/me/notify-urls", json={"url": url}, headers=auth(token))
            check_problem(r, 422, "channel_refused")
        r = s.client.post("/me/push", headers=auth(token), json={
            "endpoint": "https://127.0.0.1/x", "keys": {"p256dh": "x", "auth": "y"}})
        assert check_problem(r, 422, "channel_refused")["field"] == "endpoint"
        r = s.client.post("/me/notify-urls", headers=auth(token), json={
            "url": "tgram://123456789:abcdefg_hijklmnop/12345", "events": ["game_over"]})
        assert r.status_code == 201, r.get_json()
        shown = r.get_json()["url"]
        assert "abcdefg_hijklmnop" not in shown and shown.startswith("tgram://")
        [listed] = s.client.get("/me/notify-urls", headers=auth(token)).get_json()["urls"]
        assert listed["url"] == shown and listed["events"] == ["game_over"]
    finally:
        s.store.close()


def claimed_account(s, email: str) -> str:
    """A signed-in account's session token."""
    from tests.support import signed_in

    return signed_in(s.app, email)


def test_a_message_is_told_to_the_channels_that_chose_it(unserved_stack, push_service,
                                                         json_receiver):
    """Table talk is off by default: only the channel that chose ``message`` is told,
    with the writer's name and the text; a message deleted before its notice went, a
    seat that muted its writer and the writer itself are told nothing."""
    s = unserved_stack
    h = new_game(s.client, 3, emails=["gil@example.org", "hal@example.org",
                                      "ivy@example.org"])
    players = claimed(s.app, h, {0: "gil@example.org", 1: "hal@example.org",
                                 2: "ivy@example.org"})
    ctx = s.context()
    run_due_now(ctx, h.id)
    for seat in (0, 1, 2):
        r = s.client.post("/me/push", headers=auth(players[seat]), json={
            **push_service.subscription(f"/sub/{seat}"), "events": ["message"]})
        assert r.status_code == 201, r.get_json()
    r = s.client.post("/me/notify-urls", headers=auth(players[1]), json={
        "url": f"json://127.0.0.1:{json_receiver.port}/talk"})  # the default: no message
    assert r.status_code == 201 and "message" not in r.get_json()["events"]
    assert s.client.put(f"/games/{h.id}/mutes/0",
                        headers=auth(h.tokens[2])).status_code in (200, 204)
    version = h.get()["version"]

    r = s.client.post(f"/games/{h.id}/messages", json={"text": "Good luck {all}!"},
                      headers=auth(h.tokens[0]))
    assert r.status_code == 201, r.get_json()
    done = run_due_now(ctx, h.id)
    assert done[("notify", 1, version)] == "done"
    assert ("notify", 0, version) not in done and ("notify", 2, version) not in done
    [got] = push_service.received
    assert got["vapid_ok"] and got["path"] == "/sub/1"
    payload = got["payload"]
    assert payload["what"] == "message" and payload["title"] == "New message"
    assert payload["body"] == f"Game {h.id}, {h.get()['seats'][0]['name']}: Good luck {{all}}!"
    assert got["headers"]["TTL"] == str(7 * 86400)
    assert json_receiver.bodies == []

    # a second message at the same version is told too; a deleted one is not
    r = s.client.post(f"/games/{h.id}/messages", json={"text": "x" * 1000, "to": 1},
                      headers=auth(h.tokens[2]))
    assert r.status_code == 201
    r = s.client.post(f"/games/{h.id}/messages", json={"text": "oops"},
                      headers=auth(h.tokens[2]))
    assert r.status_code == 201
    gone = r.get_json()["id"]
    assert s.client.delete(f"/games/{h.id}/messages/{gone}",
                           headers=auth(h.host_token)).status_code == 204
    run_due_now(ctx, h.id)
    assert len(push_service.received) == 2
    assert push_service.received[1]["payload"]["body"].endswith("x" * 299 + "…")
    told = [d.result for d in s.store.due_rows(h.id) if d.kind == "notify"]
    # seat 1 told twice (fanned out: "planned"), the deleted one to seats 0 and 1 not
    assert sorted(told) == ["deleted", "deleted", "planned", "planned"]
