"""Idempotent retries, open seats joined with an invite code, listing games."""

from __future__ import annotations

import threading
import time

from service import create_app
from service.settings import Settings
from tests.support import auth, new_game, stored


def test_a_retry_with_the_same_key_returns_the_first_answer(client, game, games):
    doc = game.get()
    seat, v = doc["current_seat"], doc["version"]
    key = {"Idempotency-Key": "k-1"}
    first = game.submit(seat, "take 1", v, headers=key)
    assert first.status_code == 201
    due = stored(games.store, "due")
    events = stored(games.store, "events")
    again = game.submit(seat, "take 1", v, headers=key)
    assert again.status_code == 201
    assert again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert (stored(games.store, "due"), stored(games.store, "events")) == (due, events)
    # the same key for another submission is an error, and writes nothing
    other = game.submit(seat, "take 2", v, headers=key)
    assert other.status_code == 422 and other.get_json()["code"] == "idempotency_key_reused"
    # without the key, the same request is stale
    assert game.submit(seat, "take 1", v).status_code == 409
    assert stored(games.store, "events") == events


def test_concurrent_retries_with_one_key_write_once(db_path):
    apps = [create_app(Settings(database=str(db_path))) for _ in range(2)]
    handle = new_game(apps[0].test_client(), 3)
    doc = handle.get()
    seat, v = doc["current_seat"], doc["version"]
    barrier = threading.Barrier(4)
    out = [None] * 4

    def run(i):
        c = apps[i % 2].test_client()
        barrier.wait()
        out[i] = c.post(f"/games/{handle.id}/moves", headers={
            **auth(handle.tokens[seat]), "Idempotency-Key": "same"},
            json={"move": "take 1", "version": v})

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.status_code for r in out] == [201] * 4
    assert len({r.get_data() for r in out}) == 1
    store = apps[0].extensions["alhambra"].store
    # the due work of two batches: the setup and this one (each has its deadline)
    assert {d.version for d in store.due_rows(handle.id)} == {v, out[0].get_json()["version"]}
    assert stored(store, "idempotency") == 1


def test_open_seats_are_joined_with_the_invite_code(client, games):
    r = client.post("/games", json={"players": 3, "seats": [{"name": "Ann"}, None],
                                    "time_per_move": 3600})
    assert r.status_code == 201
    created = r.get_json()
    gid, invite = created["game_id"], created["invite_code"]
    assert invite and [s["seat"] for s in created["seats"]] == [0]
    assert created["game"]["status"] == "open" and created["game"]["view"] is None
    assert created["seats"][0]["join_url"].endswith(f"/play/{gid}#token="
                                                    f"{created['seats'][0]['token']}")
    assert stored(games.store, "events") == 0
    j1 = client.post(f"/games/{gid}/join", json={"invite_code": invite, "name": "Bob",
                                                 "email": "Bob@Example.org"})
    assert j1.status_code == 201 and j1.get_json()["seat"] == 1
    assert client.get(f"/games/{gid}").get_json()["status"] == "open"
    j2 = client.post(f"/games/{gid}/join", json={"invite_code": invite, "name": "Cy"})
    assert j2.status_code == 201 and j2.get_json()["seat"] == 2
    game = client.get(f"/games/{gid}", headers=auth(j2.get_json()["token"])).get_json()
    assert game["status"] == "active" and game["your_seat"] == 2
    assert [s["name"] for s in game["seats"]] == ["Ann", "Bob", "Cy"]
    assert "hand" in game["view"]["seats"][2] and game["deadline"]
    full = client.post(f"/games/{gid}/join", json={"invite_code": invite, "name": "Dee"})
    assert full.status_code == 409 and full.get_json()["code"] == "game_full"
    # an e-mail address is shown to its own seat only (not to the host, not to others)
    hosted = client.get(f"/games/{gid}", headers=auth(created["host_token"])).get_json()
    assert "email" not in hosted["seats"][1] and "email" not in game["seats"][1]
    bob = client.get(f"/games/{gid}", headers=auth(j1.get_json()["token"])).get_json()
    assert bob["seats"][1]["email"] == "bob@example.org" and "email" not in bob["seats"][0]


def test_listing_games(client):
    a = new_game(client, 2)
    b = new_game(client, 3)
    client.post("/games", json={"players": 2})
    # anyone: the open games only (to join)
    assert client.get("/games").get_json()["total"] == 1
    assert client.get("/games?status=open").get_json()["total"] == 1
    assert client.get("/games?status=active").get_json() == {"total": 0, "games": []}
    # a seat token: its seat's game only, never the other games of its e-mail address
    # (p0@example.org plays in a and b)
    mine = client.get("/games", headers=auth(a.tokens[0])).get_json()
    assert [(g["game_id"], g["your_seat"]) for g in mine["games"]] == [(a.id, 0)]
    assert client.get("/games?status=open", headers=auth(a.tokens[0])).get_json()[
        "total"] == 0
    hosted = client.get("/games?limit=1", headers=auth(b.host_token)).get_json()
    assert [g["game_id"] for g in hosted["games"]] == [b.id] and hosted["total"] == 1


def test_an_answer_is_kept_for_the_retention_window_then_pruned_by_the_workers(db_path):
    """ALHAMBRA_IDEMPOTENCY_RETENTION: inside the window a retry gets the first answer
    (rebuilt from the batch: the same document, even after the game moved on); after it
    the key is forgotten and the retry, against a version the game has left, is refused
    (409 version_conflict), never played twice. The workers' prune removes the row."""
    from workers.context import Context
    from workers.dispatch import prune

    settings = Settings(database=str(db_path), idempotency_retention=0.3)
    app = create_app(settings)
    client, games = app.test_client(), app.extensions["alhambra"]
    game = new_game(client, 3)
    doc = game.get()
    seat, v = doc["current_seat"], doc["version"]
    first = game.submit(seat, "take 1", v, headers={"Idempotency-Key": "k"})
    assert first.status_code == 201
    following = game.get()  # the next seat moves: the retry's answer is of its batch
    nxt = game.submit(following["current_seat"], "take 1", following["version"])
    assert nxt.status_code == 201
    again = game.submit(seat, "take 1", v, headers={"Idempotency-Key": "k"})
    assert again.status_code == 201 and again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    events = stored(games.store, "events")
    time.sleep(0.35)
    late = game.submit(seat, "take 1", v, headers={"Idempotency-Key": "k"})
    assert late.status_code == 409 and late.get_json()["code"] == "version_conflict"
    assert stored(games.store, "events") == events and stored(games.store, "idempotency") == 1
    ctx = Context(settings)
    try:
        assert prune(ctx)["idempotency"] == 1
    finally:
        ctx.store.close()
    assert stored(games.store, "idempotency") == 0
    late = game.submit(seat, "take 1", v, headers={"Idempotency-Key": "k"})
    assert late.status_code == 409 and stored(games.store, "events") == events
