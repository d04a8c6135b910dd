"""Notices beyond e-mail through a running ``alhambra-pbem serve`` (issue 37's "Done
when"): two accounts signed in over HTTP, a Web Push subscription to a local stand-in
push service (which checks the VAPID JWT with py-vapid and decrypts with http_ece) and an
Apprise ``json://`` URL to a local receiver; moves played through the API give an account
its turn, and serve's own workers deliver both; the push service answers 410 once and the
subscription is gone from ``GET /me/push``."""

from __future__ import annotations

import http.client
import json
import threading
import urllib.parse

import pytest

from tests.support import play_until, wait_until
from tests.workers.test_serve_identity import bearer, running


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with running(tmp_path_factory.mktemp("serve_push"), env={
            "ALHAMBRA_WEBHOOK_ALLOW_PRIVATE": "1", "ALHAMBRA_LIMIT_SIGN_IN": "200/hour",
            "PUBLIC_URL": "http://alhambra.test"}) as served:
        yield served


def claimed_game(served, *names: str):
    """A game of ``names`` (addresses ``<name>@example.org``), each seat claimed by its
    signed-in account: ({seat: player token}, the game)."""
    mails = [f"{name.lower()}@example.org" for name in names]
    accounts = {seat: served.sign_in(mail) for seat, mail in enumerate(mails)}
    game = served.game([{"name": n, "email": m} for n, m in zip(names, mails, strict=True)])
    for seat, token in accounts.items():
        r = served.http.post(f"/games/{game.id}/seats/{seat}/claim", {},
                             headers=bearer(token))
        assert r.status_code == 201, r.get_json()
        game.tokens[seat] = r.get_json()["token"]
    return accounts, game


def test_a_turn_reaches_a_push_subscription_and_an_apprise_url_through_serve(
        served, push_service, json_receiver):
    http = served.http
    accounts, game = claimed_game(served, "Ann", "Bob")
    key = http.get("/push/key").get_json()["public_key"]
    waiting = 1 - game.get()["current_seat"]
    token = accounts[waiting]
    r = http.post("/me/push", push_service.subscription(), headers=bearer(token))
    assert r.status_code == 201, r.get_json()
    r = http.post("/me/notify-urls", {"url": f"json://127.0.0.1:{json_receiver.port}/turns",
                                      "events": ["your_turn"]}, headers=bearer(token))
    assert r.status_code == 201, r.get_json()

    play_until(game, waiting)
    version = game.get()["version"]
    got = wait_until(lambda: push_service.received or None, 30, what="a push")[0]
    assert got["vapid_ok"] and got["path"] == "/sub/1"
    assert got["headers"]["Authorization"].endswith("k=" + key)
    assert got["headers"]["Content-Encoding"] == "aes128gcm"
    payload = got["payload"]
    assert (payload["game_id"], payload["version"], payload["what"]) == \
        (game.id, version, "your_turn")
    assert payload["url"] == f"http://alhambra.test/me#open={game.id}"
    told = wait_until(lambda: json_receiver.bodies or None, 30, what="the json:// notice")
    assert told[0]["title"] == "Your turn" and game.id in told[0]["message"]
    [sub] = http.get("/me/push", headers=bearer(token)).get_json()["subscriptions"]
    assert sub["failures"] == 0 and sub["last_sent_at"]

    # the push service answers 410 once: serve's worker removes the subscription
    push_service.answers = [410]
    play_until(game, 1 - waiting)
    play_until(game, waiting)
    wait_until(lambda: len(push_service.received) == 2 or None, 30, what="the second push")
    assert push_service.received[1]["status"] == 410
    wait_until(lambda: http.get("/me/push", headers=bearer(token)).get_json()
               == {"subscriptions": []} or None, 30, what="the subscription removed")
    wait_until(lambda: len(json_receiver.bodies) == 2 or None, 30, what="the second notice")
    assert len(push_service.received) == 2
    assert served.due(game.id, "push", "result").count(("expired",)) == 1


class Watching:
    """An open ``/me/stream`` (NDJSON) of an account, read in a thread: its events."""

    def __init__(self, base: str, token: str) -> None:
        url = urllib.parse.urlsplit(base)
        self.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        self.conn.request("GET", "/me/stream", headers={
            **bearer(token), "Accept": "application/x-ndjson"})
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200
        self.events: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self.resp:
                if line.strip():
                    self.events.append(json.loads(line).get("event", ""))
        except (OSError, ValueError):
            pass

    def close(self) -> None:
        self.conn.close()


def test_a_player_watching_the_stream_is_not_pushed_the_other_is(
        served, push_service):
    """Issue 37: "a player who is on the page right now is not pushed (the stream
    already told them)": Cy keeps /me/stream open and gets his turn there, no push; Di,
    watching nothing, is pushed."""
    http_ = served.http
    accounts, game = claimed_game(served, "Cy", "Di")
    for seat, token in accounts.items():
        r = http_.post("/me/push", push_service.subscription(f"/seat{seat}"),
                       headers=bearer(token))
        assert r.status_code == 201, r.get_json()
    first = game.get()["current_seat"]
    watcher, other = 1 - first, first
    stream = Watching(http_.base, accounts[watcher])
    try:
        play_until(game, watcher)
        wait_until(lambda: "your_turn" in stream.events or None, 30,
                   what="the turn told on the stream")
        wait_until(lambda: ("watching",) in served.due(game.id, "notify", "result") or None,
                   30, what="the notice left out")
        play_until(game, other)
        wait_until(lambda: push_service.received or None, 30, what="the other's push")
    finally:
        stream.close()
    paths = {p["path"] for p in push_service.received}
    assert paths == {f"/seat{other}"}, "the watching player was pushed"
    assert {p["payload"]["what"] for p in push_service.received} == {"your_turn"}
