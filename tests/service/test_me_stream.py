"""GET /me/stream (issue 33 point 6): one stream of all the account's games, resumable
with Last-Event-ID, as server-sent events or NDJSON. The test client's server handles one
request at a time, so each request answers what came after its id and ends."""

from __future__ import annotations

import json
import threading
import time

import pytest

from service import create_app
from service.settings import Settings
from tests.support import auth, check_problem, claimed, new_game, signed_in


@pytest.fixture
def app(app_on_each_store):
    return app_on_each_store


def sse(text: str) -> list[dict]:
    """The events of a server-sent stream: id, event, data (JSON); a lone id too."""
    out = []
    for block in text.split("\n\n"):
        fields: dict = {}
        for line in block.splitlines():
            if line.startswith(":"):
                continue
            name, _, value = line.partition(": ")
            fields[name] = json.loads(value) if name == "data" else value
        if "id" in fields or "event" in fields:
            out.append(fields)
    return out


def read(client, token: str, last: str | None = None, **kw) -> tuple[str, list[dict]]:
    """One look at the stream: the id to resume from, and the events."""
    headers = {**auth(token), **({"Last-Event-ID": last} if last is not None else {})}
    r = client.get("/me/stream", headers=headers, **kw)
    assert r.status_code == 200, r.get_json()
    assert r.mimetype == "text/event-stream"
    found = sse(r.get_data(as_text=True))
    events = [e for e in found if "event" in e]
    return (found[-1]["id"] if found else last), events


def opponent_moves(game, seat: int) -> int:
    """The seat (the opponent's token) takes money; the new version."""
    version = game.get()["version"]
    take = next(m for m in game.notations(seat) if m.startswith("take"))
    r = game.submit(seat, take, version)
    assert r.status_code == 201, r.get_json()
    return game.get()["version"]


def test_two_games_moves_in_order_and_resuming(app):
    """Issue 33: the opponent's moves in two games arrive as moved then your_turn, in the
    order they were made; a reconnect with Last-Event-ID gets only what came after; the
    same as NDJSON; a read-only personal token may follow, a talk-only one may not."""
    client = app.test_client()
    g = new_game(client, 2, emails=["bob@example.org", "ann@example.org"])
    h = new_game(client, 2, emails=["ann@example.org", "carl@example.org"])
    ann = claimed(app, g, {1: "ann@example.org"})[1]
    claimed(app, h, {0: "ann@example.org"})
    # both games: make it the opponent's turn first
    for game, mine in ((g, 1), (h, 0)):
        if game.get()["current_seat"] == mine:
            opponent_moves(game, mine)
    start, events = read(client, ann)
    assert events == [] and start.isdigit()  # a stream opened now starts now

    time.sleep(0.005)
    gv = opponent_moves(g, 0)
    time.sleep(0.005)
    hv = opponent_moves(h, 1)
    last, events = read(client, ann, start)
    assert [(e["event"], e["data"]["game_id"], e["data"]["version"]) for e in events] == [
        ("moved", g.id, gv), ("your_turn", g.id, gv), ("moved", h.id, hv),
        ("your_turn", h.id, hv)]
    assert events[0]["data"]["seat"] == 0 and events[0]["data"]["moves"][0].startswith(
        "take")
    assert events[1]["data"]["seat"] == 1 and events[1]["data"]["deadline"]
    ids = [e["id"] for e in events]
    assert last == ids[-1] and len(set(ids)) == 4

    # resuming after the first event: only the three after it; after the last: nothing
    assert [e["id"] for e in read(client, ann, ids[0])[1]] == ids[1:]
    assert read(client, ann, last)[1] == []
    # my own move is told as moved (no your_turn); then the opponent's
    mine = opponent_moves(g, 1)
    again = read(client, ann, last)[1]
    assert [(e["event"], e["data"]["version"], e["data"]["seat"]) for e in again] == [
        ("moved", mine, 1)]

    # table talk the seat may read
    r = client.post(f"/games/{h.id}/messages", json={"text": "good luck"},
                    headers=auth(h.tokens[1]))
    assert r.status_code == 201
    said = read(client, ann, again[-1]["id"])[1]
    assert [(e["event"], e["data"]["game_id"], e["data"]["text"]) for e in said] == [
        ("message", h.id, "good luck")]

    # NDJSON: the same events, one JSON object a line
    r = client.get("/me/stream", headers={**auth(ann), "Last-Event-ID": start,
                                          "Accept": "application/x-ndjson"})
    assert r.status_code == 200 and r.mimetype == "application/x-ndjson"
    first, *lines = [json.loads(x) for x in r.get_data(as_text=True).splitlines()
                     if x.strip()]
    assert first == {"id": start}  # where it began: a quiet stream resumes from there
    now = read(client, ann, start)[1]
    assert [(x["id"], x["event"], x["data"]) for x in lines] == [
        (e["id"], e["event"], e["data"]) for e in now]
    # g's your_turn is past (I moved there): it is told no more
    assert [e["id"] for e in now] == [ids[0], *ids[2:], again[0]["id"], said[0]["id"]]

    # tokens: read may follow; talk only may not; no token, a bad id
    session = client.post("/me/tokens", json={"description": "s", "scopes": ["read"]},
                          headers=auth(ann)).get_json()["token"]
    assert [e["id"] for e in read(client, session, start)[1]] == [e["id"] for e in now]
    talk = client.post("/me/tokens", json={"description": "t", "scopes": ["talk"]},
                       headers=auth(ann)).get_json()["token"]
    check_problem(client.get("/me/stream", headers=auth(talk)), 403, "missing_scope")
    check_problem(client.get("/me/stream"), 401)
    check_problem(client.get("/me/stream", headers={**auth(ann), "Last-Event-ID": "x"}),
                  400, "bad_request")


def test_invitations_and_a_game_that_starts(app):
    """Issue 33: a seat offered to my address is an invitation (the game and the seat);
    a game I joined signed in tells game_started."""
    client = app.test_client()
    ann = signed_in(app, "ann@example.org")
    start, _ = read(client, ann)
    time.sleep(0.005)
    offered = new_game(client, 2, emails=["bob@example.org", "ann@example.org"])
    r = client.post("/games", json={"players": 2, "seats": [{"name": "Bob"}]})
    game = r.get_json()
    r = client.post(f"/games/{game['game_id']}/join", json={
        "invite_code": game["invite_code"]}, headers=auth(ann))
    assert r.status_code == 201, r.get_json()
    _, events = read(client, ann, start)
    kinds = [(e["event"], e["data"]["game_id"]) for e in events]
    assert ("invitation", offered.id) in kinds
    invitation = next(e for e in events if e["event"] == "invitation")
    assert invitation["data"]["seat"] == 1 and invitation["data"]["version"] >= 1
    assert ("game_started", game["game_id"]) in kinds


def test_streams_per_account_are_capped_and_a_second_does_not_end_the_first(tmp_path):
    """Issue 33: on a threaded server the stream tells a move as it is made; each account
    holds a few streams at once (429 beyond), a second one leaving the first open; the
    per-address cap of the games' streams (1 here) does not count them."""
    app = create_app(Settings(database=str(tmp_path / "c.db"), streams_per_account=2,
                              streams_per_client=1, stream_seconds=1.5, stream_poll=0.05,
                              stream_keepalive=0.5, stream_settle=0.2))
    client = app.test_client()
    g = new_game(client, 2, emails=["bob@example.org", "ann@example.org"])
    ann = claimed(app, g, {1: "ann@example.org"})[1]
    if g.get()["current_seat"] == 1:
        opponent_moves(g, 1)
    threaded = {"wsgi.multithread": True}
    texts: list[str] = []

    def follow():
        r = client.get("/me/stream", headers=auth(ann), environ_overrides=threaded)
        texts.append(r.get_data(as_text=True))

    time.sleep(0.3)  # the game's start is older than the stream's settling time
    first = threading.Thread(target=follow)
    first.start()
    time.sleep(0.3)
    second = client.get("/me/stream", headers=auth(ann), environ_overrides=threaded,
                        buffered=False)
    assert second.status_code == 200
    check_problem(client.get("/me/stream", headers=auth(ann), environ_overrides=threaded),
                  429, "rate_limited")
    version = opponent_moves(g, 0)  # while both are open: the first is told live
    second.close()
    first.join(5)
    assert texts and ": keep-alive" in texts[0]  # the first ran its course
    told = [(e["event"], e["data"]["version"]) for e in sse(texts[0]) if "event" in e]
    assert told == [("moved", version), ("your_turn", version)]


def test_a_game_played_out_ends_with_game_over(app):
    """Issue 33: every batch with moves is told as moved, in version order, and the last
    one as game_over; your_turn is told only while it is still the seat's turn."""
    import random

    from tests.support import play_random

    client = app.test_client()
    g = new_game(client, 2, emails=["ann@example.org", "bob@example.org"])
    ann = claimed(app, g, {0: "ann@example.org"})[0]
    start, _ = read(client, ann)
    time.sleep(0.005)
    doc = play_random(g, random.Random(7))
    assert doc["status"] == "over"
    _, events = read(client, ann, start)
    versions = [e["data"]["version"] for e in events]
    assert versions == sorted(versions)
    assert events[-1]["event"] == "game_over"
    assert events[-1]["data"] == {"game_id": g.id, "version": doc["version"]}
    moved = [e for e in events if e["event"] == "moved"]
    assert {e["data"]["seat"] for e in moved} == {0, 1}
    # told after the end, no turn is anyone's any more: no your_turn at all
    assert [e for e in events if e["event"] == "your_turn"] == []
