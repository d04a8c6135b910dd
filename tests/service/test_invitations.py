"""Invitations by handle (issue 33): a game proposed to accounts, made when the last
invitee accepts, every person's seat claimed by its account from the start; declines,
cancellations and expiry close it; only the inviter and the invited see it. Bot
accounts: marked, invited like anyone, and not rated against people."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from service import times
from tests.support import auth, check_problem, random_api_move, signed_in


@pytest.fixture
def app(app_on_each_store):
    return app_on_each_store


def account(app, email: str, handle: str) -> str:
    token = signed_in(app, email)
    r = app.test_client().patch("/me", json={"handle": handle}, headers=auth(token))
    assert r.status_code == 200, r.get_json()
    return token


def invite(client, token: str, **body) -> dict:
    r = client.post("/invitations", json={"variant": "alhambra", **body},
                    headers=auth(token))
    assert r.status_code == 201, r.get_json()
    assert r.headers["Location"] == f"/invitations/{r.get_json()['id']}"
    return r.get_json()


def test_the_last_acceptance_makes_the_game_with_every_seat_claimed(app):
    client = app.test_client()
    ann = account(app, "ann@example.org", "ann")
    bob = account(app, "bob@example.org", "Bob")
    cy = account(app, "cy@example.org", "cy")
    sent = invite(client, ann, invitees=["bob", "cy"], bots=["random"], time_per_move=3600)
    assert sent["status"] == "open" and sent["game_id"] is None and sent["players"] == 4
    assert sent["inviter"] == {"handle": "ann", "bot": False}
    assert [(i["handle"], i["answer"]) for i in sent["invitees"]] == [("bob", None),
                                                                      ("cy", None)]
    assert sent["settings"]["time_per_move"] == 3600 and sent["bots"] == ["random"]
    # the invited see it, and nobody else
    for token in (ann, bob, cy):
        listed = client.get("/invitations", headers=auth(token)).get_json()["invitations"]
        assert [i["id"] for i in listed] == [sent["id"]]
    dan = account(app, "dan@example.org", "dan")
    assert client.get("/invitations", headers=auth(dan)).get_json()["invitations"] == []
    check_problem(client.get(f"/invitations/{sent['id']}", headers=auth(dan)), 404,
                  "invitation_not_found")
    check_problem(client.post(f"/invitations/{sent['id']}/accept", headers=auth(dan)), 404,
                  "invitation_not_found")
    check_problem(client.post(f"/invitations/{sent['id']}/accept", headers=auth(ann)), 403,
                  "not_invited")

    r = client.post(f"/invitations/{sent['id']}/accept", headers=auth(bob))
    assert r.status_code == 200 and r.get_json()["status"] == "open"
    check_problem(client.post(f"/invitations/{sent['id']}/accept", headers=auth(bob)), 409,
                  "already_answered")
    r = client.post(f"/invitations/{sent['id']}/accept", headers=auth(cy))
    done = r.get_json()
    assert done["status"] == "started" and done["game_id"], done
    game_id = done["game_id"]
    game = app.extensions["alhambra"].game(game_id)
    assert [(s.name, s.claimed_by, s.bot) for s in game.seats] == [
        ("ann", "ann@example.org", None), ("bob", "bob@example.org", None),
        ("cy", "cy@example.org", None), ("Bot 4 (random)", None, "random")]
    assert game.status == "active"
    # each plays with the account's own token, in its own seat
    doc = client.get(f"/games/{game_id}", headers=auth(bob)).get_json()
    assert doc["your_seat"] == 1
    mine = client.get("/me/games", headers=auth(cy)).get_json()["games"]
    assert [g["game_id"] for g in mine] == [game_id]
    seat = doc["current_seat"]
    player = {0: ann, 1: bob, 2: cy}.get(seat)
    if player is not None:
        legal = client.get(f"/games/{game_id}/legal-moves", headers=auth(player)).get_json()
        r = client.post(f"/games/{game_id}/moves", headers=auth(player), json={
            "move": random_api_move(legal, random.Random(1)), "version": doc["version"]})
        assert r.status_code == 201, r.get_json()
    check_problem(client.post(f"/invitations/{sent['id']}/decline", headers=auth(bob)), 409,
                  "invitation_closed")


def test_a_decline_a_cancellation_or_the_end_close_it_without_a_game(app, monkeypatch):
    client = app.test_client()
    ann = account(app, "ann@example.org", "ann")
    bob = account(app, "bob@example.org", "bob")
    store = app.extensions["alhambra"].store
    games_before = store.list_games(limit=200)[1]

    declined = invite(client, ann, invitees=["bob"])
    check_problem(client.post(f"/invitations/{declined['id']}/decline", headers=auth(ann)),
                  403, "not_invited")
    r = client.post(f"/invitations/{declined['id']}/decline", headers=auth(bob))
    assert r.get_json()["status"] == "declined" and r.get_json()["invitees"][0][
        "answer"] == "declined"
    check_problem(client.post(f"/invitations/{declined['id']}/accept", headers=auth(bob)),
                  409, "invitation_closed")

    cancelled = invite(client, ann, invitees=["bob"])
    check_problem(client.delete(f"/invitations/{cancelled['id']}", headers=auth(bob)), 404,
                  "invitation_not_found")
    r = client.delete(f"/invitations/{cancelled['id']}", headers=auth(ann))
    assert r.status_code == 200 and r.get_json()["status"] == "cancelled"
    problem = check_problem(client.post(f"/invitations/{cancelled['id']}/accept",
                                        headers=auth(bob)), 409, "invitation_closed")
    assert problem["state"] == "cancelled"

    expiring = invite(client, ann, invitees=["bob"], expires_in=60)
    later = times.now() + timedelta(seconds=61)
    monkeypatch.setattr(times, "now", lambda: later)
    assert client.get(f"/invitations/{expiring['id']}", headers=auth(bob)).get_json()[
        "status"] == "expired"
    check_problem(client.post(f"/invitations/{expiring['id']}/accept", headers=auth(bob)),
                  409, "invitation_closed")
    listed = client.get("/invitations?status=expired", headers=auth(ann)).get_json()
    assert [i["id"] for i in listed["invitations"]] == [expiring["id"]]
    assert store.list_games(limit=200)[1] == games_before  # no game made


def test_bad_invitations_are_refused_and_change_nothing(app):
    client = app.test_client()
    nameless = signed_in(app, "nameless@example.org")
    ann = account(app, "ann@example.org", "ann")
    account(app, "bob@example.org", "bob")
    check_problem(client.post("/invitations", json={"invitees": ["ann"]},
                              headers=auth(nameless)), 422, "handle_needed")
    check_problem(client.post("/invitations", json={"invitees": ["nobody"]},
                              headers=auth(ann)), 422, "unknown_handle")
    for body, field in (({"invitees": ["ann"]}, "invitees"),
                        ({"invitees": ["bob", "BOB"]}, "invitees"),
                        ({"invitees": ["bob"], "bots": ["genius"]}, "bots.0"),
                        ({"invitees": ["bob"], "variant": "chess"}, "variant"),
                        ({"invitees": ["bob"], "time_per_move": 1}, "time_per_move")):
        problem = check_problem(client.post("/invitations", json=body, headers=auth(ann)),
                                422, "invalid_option")
        assert problem["field"] == field, problem
    for body in ({"invitees": []}, {"invitees": ["bob"], "expires_in": 10},
                 {"invitees": ["bob"], "seats": [{"name": "x"}]}):
        check_problem(client.post("/invitations", json=body, headers=auth(ann)), 422,
                      "validation_error")
    check_problem(client.post("/invitations", json={"invitees": ["bob"]}), 401)
    assert client.get("/invitations", headers=auth(ann)).get_json()["invitations"] == []


def test_a_token_needs_the_play_scope_to_invite_or_answer(app):
    client = app.test_client()
    ann = account(app, "ann@example.org", "ann")
    bob = account(app, "bob@example.org", "bob")
    reader = client.post("/me/tokens", json={"description": "r", "scopes": ["read"]},
                         headers=auth(bob)).get_json()["token"]
    player = client.post("/me/tokens", json={"description": "p", "scopes": ["play"]},
                         headers=auth(bob)).get_json()["token"]
    sent = invite(client, ann, invitees=["bob"], bots=["random"])
    assert client.get("/invitations", headers=auth(reader)).status_code == 200
    check_problem(client.post(f"/invitations/{sent['id']}/accept", headers=auth(reader)),
                  403, "missing_scope")
    r = client.post(f"/invitations/{sent['id']}/accept", headers=auth(player))
    assert r.get_json()["status"] == "started"


def test_bot_accounts_are_marked_and_only_new_accounts_become_one(app):
    client = app.test_client()
    ann = account(app, "ann@example.org", "ann")
    robo = account(app, "robo@example.org", "robo")
    r = client.patch("/me", json={"bot": True}, headers=auth(robo))
    assert r.status_code == 200 and r.get_json()["bot"] is True
    assert client.get("/me", headers=auth(ann)).get_json()["bot"] is False
    sent = invite(client, ann, invitees=["robo"])
    assert sent["invitees"][0]["bot"] is True
    done = client.post(f"/invitations/{sent['id']}/accept", headers=auth(robo)).get_json()
    assert done["status"] == "started"
    # a seat held: no change of kind any more
    check_problem(client.patch("/me", json={"bot": False}, headers=auth(robo)), 409,
                  "bot_account_refused")
    check_problem(client.patch("/me", json={"bot": True}, headers=auth(ann)), 409,
                  "bot_account_refused")


def test_the_invited_stream_tells_the_invitation_then_the_game(app):
    """/me/stream: the invitee hears of the invitation (its id, no game yet), then both
    of the game it made (game_started with the game)."""
    from tests.service.test_me_stream import read

    client = app.test_client()
    ann = account(app, "ann@example.org", "ann")
    bob = account(app, "bob@example.org", "bob")
    start, _ = read(client, bob)
    sent = invite(client, ann, invitees=["bob"], bots=["random"])
    start, events = read(client, bob, start)
    assert [(e["event"], e["data"]["id"]) for e in events] == [("invitation", sent["id"])]
    assert events[0]["data"]["players"] == 3 and "game_id" not in events[0]["data"]
    _, again = read(client, bob, start)
    assert again == []  # resumed after it: not told twice
    game_id = client.post(f"/invitations/{sent['id']}/accept",
                          headers=auth(bob)).get_json()["game_id"]
    _, events = read(client, bob, start)
    assert ("game_started", game_id) in [(e["event"], e["data"].get("game_id"))
                                         for e in events]


def test_no_invitation_seats_two_accounts_one_of_which_blocked_the_other(app):
    """Issue 38's blocks: neither the inviter and an invitee nor two invitees."""
    client = app.test_client()
    ann = account(app, "ann@example.org", "ann")
    bob = account(app, "bob@example.org", "bob")
    account(app, "cy@example.org", "cy")
    assert client.put("/me/blocks/cy", headers=auth(bob)).status_code == 201
    check_problem(client.post("/invitations", json={"invitees": ["bob", "cy"]},
                              headers=auth(ann)), 403, "blocked")
    assert client.put("/me/blocks/ann", headers=auth(bob)).status_code == 201
    check_problem(client.post("/invitations", json={"invitees": ["bob"]},
                              headers=auth(ann)), 403, "blocked")
    invite(client, ann, invitees=["cy"])  # no block between these two


def test_a_game_that_cannot_be_made_keeps_it_open_for_the_last_to_accept_again(app):
    """The operator raised the least time per move after the invitation was sent: the
    last acceptance is refused with the reason, the invitation stays open without that
    answer, and once the game can be made again the same invitee accepts and starts it."""
    client = app.test_client()
    ann = account(app, "ann@example.org", "ann")
    bob = account(app, "bob@example.org", "bob")
    sent = invite(client, ann, invitees=["bob"], time_per_move=3600)
    games = app.extensions["alhambra"]
    least, games.min_time_per_move = games.min_time_per_move, 7200
    try:
        check_problem(client.post(f"/invitations/{sent['id']}/accept", headers=auth(bob)),
                      422, "invalid_option")
    finally:
        games.min_time_per_move = least
    now = client.get(f"/invitations/{sent['id']}", headers=auth(ann)).get_json()
    assert now["status"] == "open" and now["game_id"] is None
    assert [i["answer"] for i in now["invitees"]] == [None]
    r = client.post(f"/invitations/{sent['id']}/accept", headers=auth(bob))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["status"] == "started" and r.get_json()["game_id"]
