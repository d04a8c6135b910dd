"""GET /me/stream through a running ``alhambra-pbem serve`` with real HTTP (issue 33
point 6): an account's streams tell the opponent's moves in two games as they are made,
in order, and a reconnect with Last-Event-ID gets only what came after. The server has
one request thread: the open streams are the StreamHub's, not the thread's."""

from __future__ import annotations

import http.client
import json
import threading
import time
from urllib.parse import urlsplit

import pytest

from tests.support import wait_until
from tests.workers.test_serve_identity import Served, bearer, running


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with running(tmp_path_factory.mktemp("me_stream"), "--threads", "1",
                 env={"ALHAMBRA_STREAM_SECONDS": "4"}) as served:
        yield served


def stream(base: str, token: str, last: str | None, out: list[dict]) -> None:
    """Read /me/stream until it ends, appending each event (id, event, data) to out."""
    url = urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=20)
    conn.request("GET", "/me/stream", headers={
        **bearer(token), **({"Last-Event-ID": last} if last else {})})
    resp = conn.getresponse()
    assert resp.status == 200
    fields: dict = {}
    for raw in resp:
        line = raw.decode().rstrip("\n")
        if not line:
            if "event" in fields or "id" in fields:
                out.append(fields)
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(": ")
            fields[name] = json.loads(value) if name == "data" else value
    conn.close()


def opponent_moves(served: Served, game, seat: int) -> int:
    version = game.get()["version"]
    take = next(m for m in game.notations(seat) if m.startswith("take"))
    r = game.submit(seat, take, version)
    assert r.status_code == 201, r.get_json()
    return game.get()["version"]


def test_the_accounts_stream_tells_moves_live_and_resumes(served):
    """Issue 33: two games of Ann's; Bob and Carl move while her stream is open: moved
    and your_turn for each, in the order made; resuming after the first gets the rest."""
    ann = served.sign_in("ann@example.org")
    games = [served.game([{"name": "Bob", "email": "bob@example.org"},
                          {"name": "Ann", "email": "ann@example.org"}]),
             served.game([{"name": "Carl", "email": "carl@example.org"},
                          {"name": "Ann", "email": "ann@example.org"}])]
    for game in games:
        r = served.http.post(f"/games/{game.id}/seats/1/claim", {}, headers=bearer(ann))
        assert r.status_code == 201, r.get_json()
        game.tokens[1] = r.get_json()["token"]
        if game.get()["current_seat"] == 1:
            opponent_moves(served, game, 1)
    time.sleep(1.1)  # a stream opened now starts a second back (stream_settle): before
    told: list[dict] = []
    also: list[dict] = []  # a second stream of the same account, open at once
    readers = [threading.Thread(target=stream, args=(served.http.base, ann, None, out))
               for out in (told, also)]
    for reader in readers:
        reader.start()
    wait_until(lambda: told and also, 10, what="the streams' first ids")
    began = time.monotonic()
    versions = []
    for game in games:
        versions.append(opponent_moves(served, game, 0))
        time.sleep(0.01)
    # the one request thread was free for the moves while both streams stayed open
    assert time.monotonic() - began < 3
    for reader in readers:
        reader.join(15)
        assert not reader.is_alive()
    start, events = told[0]["id"], [e for e in told if "event" in e]
    assert [(e["event"], e["data"]["game_id"], e["data"]["version"]) for e in events] == [
        ("moved", games[0].id, versions[0]), ("your_turn", games[0].id, versions[0]),
        ("moved", games[1].id, versions[1]), ("your_turn", games[1].id, versions[1])]
    assert start.isdigit()
    assert [e["id"] for e in also if "event" in e] == [e["id"] for e in events]

    again: list[dict] = []
    stream(served.http.base, ann, events[0]["id"], again)
    assert [e["id"] for e in again if "event" in e] == [e["id"] for e in events[1:]]
