"""An account's notification channels (issue 37) on both stores, SQLite and PostgreSQL:
adding, listing, replacing, deleting, the refusals and the limit through the API; a
push service's 410 removes the subscription (the due work run in-process through the
jobs' own code on the same store)."""

from __future__ import annotations

import time

import pytest

from service.app import create_app
from service.notify_channels import MAX_CHANNELS
from service.settings import Settings
from tests.support import auth, check_problem, claimed, new_game, run_due_now, signed_in

ENDPOINT = "https://push.example.org/sub/"
KEYS = {"p256dh": "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBU"
                  "YIHBQFLXYp5Nksh8U",
        "auth": "tBHItJI5svbpez7KI4CCXg"}


def test_channels_on_each_store(app_on_each_store):
    app = app_on_each_store
    client = app.test_client()
    ann, bob = signed_in(app, "ann@example.org"), signed_in(app, "bob@example.org")
    r = client.post("/me/push", json={"endpoint": ENDPOINT + "1", "keys": KEYS},
                    headers=auth(ann))
    assert r.status_code == 201, r.get_json()
    first = r.get_json()
    assert r.headers["Location"] == f"/me/push/{first['id']}"
    assert "your_turn" in first["events"] and "message" not in first["events"]
    # the same endpoint again: its events replaced, no second subscription
    r = client.post("/me/push", json={"endpoint": ENDPOINT + "1", "keys": KEYS,
                                      "events": ["message", "game_over"]}, headers=auth(ann))
    assert r.status_code == 201 and r.get_json()["id"] == first["id"]
    assert r.get_json()["events"] == ["game_over", "message"]
    r = client.post("/me/notify-urls", headers=auth(ann), json={
        "url": "tgram://123456789:abcdefg_hijklmnop/12345", "events": ["your_turn"]})
    assert r.status_code == 201, r.get_json()
    url = r.get_json()
    assert "abcdefg_hijklmnop" not in url["url"]

    [sub] = client.get("/me/push", headers=auth(ann)).get_json()["subscriptions"]
    assert sub["id"] == first["id"] and sub["failures"] == 0 and sub["last_error"] is None
    assert sub["created_at"] and sub["last_sent_at"] is None
    [listed] = client.get("/me/notify-urls", headers=auth(ann)).get_json()["urls"]
    assert listed == url
    assert client.get("/me/push", headers=auth(bob)).get_json() == {"subscriptions": []}

    # refusals change nothing: another's channel, the other kind's id, bad keys, no session
    check_problem(client.delete(f"/me/push/{first['id']}", headers=auth(bob)), 404,
                  "channel_not_found")
    check_problem(client.delete(f"/me/notify-urls/{first['id']}", headers=auth(ann)), 404,
                  "channel_not_found")
    check_problem(client.delete(f"/me/push/{1 << 62}", headers=auth(ann)), 404,
                  "channel_not_found")
    r = client.post("/me/push", headers=auth(ann), json={
        "endpoint": ENDPOINT + "2", "keys": {**KEYS, "auth": "AAAA"}})
    assert check_problem(r, 422, "channel_refused")["field"] == "keys.auth"
    check_problem(client.post("/me/notify-urls", json={"url": "syslog://"},
                              headers=auth(ann)), 422, "channel_refused")
    check_problem(client.post("/me/notify-urls", json={"url": "json://127.0.0.1/x"},
                              headers=auth(ann)), 422, "channel_refused")
    check_problem(client.get("/me/push"), 401)
    assert len(client.get("/me/push", headers=auth(ann)).get_json()["subscriptions"]) == 1

    # the limit counts both kinds; paging
    for i in range(2, MAX_CHANNELS):
        r = client.post("/me/push", json={"endpoint": f"{ENDPOINT}{i}", "keys": KEYS},
                        headers=auth(ann))
        assert r.status_code == 201, r.get_json()
    r = client.post("/me/push", json={"endpoint": ENDPOINT + "x", "keys": KEYS},
                    headers=auth(ann))
    check_problem(r, 422, "too_many_channels")
    r = client.get("/me/push?limit=5", headers=auth(ann))
    assert len(r.get_json()["subscriptions"]) == 5 and "next" in r.headers["Link"]
    ids = [s["id"] for s in client.get("/me/push?limit=50",
                                       headers=auth(ann)).get_json()["subscriptions"]]
    assert ids == sorted(ids) and len(ids) == MAX_CHANNELS - 1

    assert client.delete(f"/me/push/{first['id']}", headers=auth(ann)).status_code == 204
    assert client.delete(f"/me/notify-urls/{url['id']}",
                         headers=auth(ann)).status_code == 204
    assert client.get("/me/notify-urls", headers=auth(ann)).get_json() == {"urls": []}
    assert first["id"] not in [s["id"] for s in client.get(
        "/me/push?limit=50", headers=auth(ann)).get_json()["subscriptions"]]


def pushes(done: dict) -> dict:
    """The push deliveries among the due work run."""
    return {k: v for k, v in done.items() if k[0] == "push"}


@pytest.fixture(params=["sqlite", "postgres"])
def push_app(request, tmp_path):
    """An app allowing local push services, on SQLite then PostgreSQL, and a workers
    Context on the same store."""
    from workers.context import Context

    extra = {"webhook_allow_private": True, "data_dir": tmp_path,
             "public_url": "http://alhambra.test", "webhook_retries": (1,)}
    if request.param == "sqlite":
        settings = Settings(database=str(tmp_path / "each.db"), **extra)
    else:
        from service.store import open_store

        url = request.getfixturevalue("pg_database").schema()
        store = open_store(Settings(database_url=url, secret="s"), check_schema=False)
        store.migrate()
        store.close()
        settings = Settings(database_url=url, secret="s", **extra)
    app = create_app(settings)
    ctx = Context(settings)
    try:
        yield app, ctx
    finally:
        ctx.close()
        app.extensions["alhambra"].store.close()


def test_a_410_removes_the_subscription_on_each_store(push_app, push_service):
    app, ctx = push_app
    client = app.test_client()
    h = new_game(client, 2, emails=["cy@example.org", "di@example.org"])
    players = claimed(app, h, {0: "cy@example.org", 1: "di@example.org"})
    run_due_now(ctx, h.id)
    waiting = 1 - h.get()["current_seat"]
    r = client.post("/me/push", json=push_service.subscription(),
                    headers=auth(players[waiting]))
    assert r.status_code == 201, r.get_json()
    push_service.answers = [500, 410]
    doc = h.get()
    current = doc["current_seat"]
    r = h.submit(current, h.notations(current)[0], doc["version"])
    assert r.status_code == 201, r.get_json()
    run_due_now(ctx, h.id)
    [sub] = client.get("/me/push", headers=auth(players[waiting])).get_json()[
        "subscriptions"]
    assert sub["failures"] == 1 and "500" in sub["last_error"]
    [row] = [d for d in ctx.store.due_rows(h.id) if d.kind == "push"]
    assert row.state == "pending"
    time.sleep(1.1)  # due again (webhook_retries)
    run_due_now(ctx, h.id)
    assert [r["status"] for r in push_service.received] == [500, 410]
    assert client.get("/me/push", headers=auth(players[waiting])).get_json() == {
        "subscriptions": []}
    [row] = [d for d in ctx.store.due_rows(h.id) if d.kind == "push"]
    assert (row.state, row.result) == ("done", "expired")


def account(app, email: str, handle: str) -> str:
    token = signed_in(app, email)
    r = app.test_client().patch("/me", json={"handle": handle}, headers=auth(token))
    assert r.status_code == 200, r.get_json()
    return token


def test_an_invitation_is_told_to_the_invitees_channels_on_each_store(push_app,
                                                                      push_service):
    """The channels of an invitee that chose ``invitation`` (a default) are told as it
    is sent, through due rows of no game; one that did not choose it, and an account not
    invited, are not; an invitation cancelled before its notice went is not told."""
    app, ctx = push_app
    client = app.test_client()
    ann = account(app, "ann@example.org", "ann")
    tokens = {h: account(app, f"{h}@example.org", h) for h in ("bob", "cy", "dan")}
    for name, events in (("bob", None), ("cy", ["your_turn"]), ("dan", None)):
        r = client.post("/me/push", headers=auth(tokens[name]), json={
            **push_service.subscription(f"/{name}"),
            **({"events": events} if events else {})})
        assert r.status_code == 201, r.get_json()
    r = client.post("/invitations", headers=auth(ann), json={
        "variant": "alhambra", "invitees": ["bob", "cy"], "time_per_move": 3600})
    assert r.status_code == 201, r.get_json()
    sent = r.get_json()
    rows = [d for d in ctx.store.due_rows("") if d.kind != "invitation_mail"]  # mailed too
    assert [(d.kind, d.game_id, d.reply) for d in rows] == [("push", "", sent["id"])]
    assert pushes(run_due_now(ctx, "")) == {("push", 1, 0): "sent"}
    [got] = push_service.received
    assert got["vapid_ok"] and got["path"] == "/bob"
    payload = got["payload"]
    assert payload == {"game_id": None, "version": None, "what": "invitation",
                       "invitation_id": sent["id"], "url": "http://alhambra.test/me",
                       "title": "Invitation", "body": "ann invites you to a game."}
    assert 0 < int(got["headers"]["TTL"]) <= 7 * 86400

    r = client.post("/invitations", headers=auth(ann), json={
        "variant": "alhambra", "invitees": ["bob"], "time_per_move": 3600})
    later = r.get_json()
    assert client.delete(f"/invitations/{later['id']}",
                         headers=auth(ann)).status_code == 200
    assert pushes(run_due_now(ctx, "")) == {("push", 1, 0): "closed"}
    assert len(push_service.received) == 1
