"""An account's personal access tokens, acting in its claimed seats (issue 33 point 6):
made, listed and deleted with the sign-in session's token, scoped, kept as hashes."""

from __future__ import annotations

import pytest

from service.auth import hash_token
from tests.support import auth, check_problem, claimed, new_game, signed_in


@pytest.fixture
def app(app_on_each_store):
    return app_on_each_store


def make(client, session: str, scopes: list[str], description: str = "my app") -> dict:
    r = client.post("/me/tokens", json={"description": description, "scopes": scopes},
                    headers=auth(session))
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_tokens_are_made_listed_and_deleted_with_the_session_only(app):
    """Issue 33: the secret is shown once and stored as its SHA-256 only; listing never
    shows it; a personal token cannot mint more; another account's id is 404."""
    client = app.test_client()
    ann, bob = signed_in(app, "ann@example.org"), signed_in(app, "bob@example.org")
    made = make(client, ann, ["talk", "read"], "phone")
    assert made["token"].startswith("pat_") and made["scopes"] == ["read", "talk"]
    assert made["description"] == "phone" and made["last_used_at"] is None
    store = app.extensions["alhambra"].store
    with store.players.a.read() as db:
        kept = db.query("select * from player_tokens", ())
    assert [r["token_hash"] for r in kept] == [hash_token(made["token"])]
    assert made["token"] not in str(kept)

    listed = client.get("/me/tokens", headers=auth(ann)).get_json()["tokens"]
    assert [t["id"] for t in listed] == [made["id"]] and "token" not in listed[0]
    assert client.get("/me/tokens", headers=auth(bob)).get_json()["tokens"] == []
    # a personal token reads my games but manages no tokens
    assert client.get("/me/games", headers=auth(made["token"])).status_code == 200
    check_problem(client.post("/me/tokens", json={"description": "x", "scopes": ["read"]},
                              headers=auth(made["token"])), 403, "session_needed")
    check_problem(client.get("/me/tokens", headers=auth(made["token"])), 403,
                  "session_needed")
    # used: its last use is told (to the minute)
    assert client.get("/me/tokens", headers=auth(ann)).get_json()["tokens"][0][
        "last_used_at"] is not None
    # bad input
    for body in ({"description": "x", "scopes": []}, {"description": "x",
                                                     "scopes": ["admin"]},
                 {"description": "", "scopes": ["read"]}, {"scopes": ["read"]},
                 {"description": "a\x00b", "scopes": ["read"]},
                 {"description": "   ", "scopes": ["read"]}):
        check_problem(client.post("/me/tokens", json=body, headers=auth(ann)), 422,
                      "validation_error")
    check_problem(client.post("/me/tokens", json={"description": "x", "scopes": ["read"]}),
                  401)
    # deleting: not Bob's; then Ann's, which stops working at once
    check_problem(client.delete(f"/me/tokens/{made['id']}", headers=auth(bob)), 404,
                  "token_not_found")
    assert client.delete(f"/me/tokens/{made['id']}", headers=auth(ann)).status_code == 204
    check_problem(client.delete(f"/me/tokens/{made['id']}", headers=auth(ann)), 404,
                  "token_not_found")
    check_problem(client.get("/me/games", headers=auth(made["token"])), 401)


def test_a_token_plays_in_the_accounts_claimed_seats(app):
    """Issue 33: a `play` token moves in each game where its account claimed a seat (the
    game says which seat); a `read` token sees but gets 403 missing_scope on a move; an
    account without a seat in the game gets 403; a deleted token 401; the session token
    acts with every scope; seat tokens keep working."""
    client = app.test_client()
    g = new_game(client, 2, emails=["ann@example.org", "bob@example.org"])
    h = new_game(client, 2, emails=["bob@example.org", "ann@example.org"])
    ann = claimed(app, g, {0: "ann@example.org"})[0]
    claimed(app, h, {1: "ann@example.org"})
    play = make(client, ann, ["read", "play"])["token"]
    read = make(client, ann, ["read"])["token"]
    talk = make(client, ann, ["talk"])["token"]
    carl = make(client, signed_in(app, "carl@example.org"), ["read", "play"])["token"]

    doc = client.get(f"/games/{g.id}", headers=auth(play)).get_json()
    assert [s.get("email") for s in doc["seats"]] == ["ann@example.org", None]  # seat 0's
    mine = client.get(f"/games/{g.id}/legal-moves", headers=auth(read))
    check_problem(mine, 403, "missing_scope")
    body = check_problem(client.get(f"/games/{g.id}/events", headers=auth(talk)), 403,
                         "missing_scope")
    assert body["scope"] == "read" and "read" in body["detail"]
    check_problem(client.get(f"/games/{g.id}", headers=auth(carl)), 403, "forbidden")

    for game, seat in ((g, 0), (h, 1)):  # the seat follows the game
        version = game.get()["version"]
        if game.get()["current_seat"] != seat:  # the other one moves first
            other = 1 - seat
            assert game.submit(other, game.notations(other)[0], version).status_code == 201
            version = game.get()["version"]
        legal = client.get(f"/games/{game.id}/legal-moves", headers=auth(play)).get_json()
        assert legal["your_turn"] and legal["seat"] == seat
        move = next(m["notation"] for m in legal["moves"]
                    if m["notation"].startswith("take"))
        body = check_problem(client.post(f"/games/{game.id}/moves",
                                         json={"move": move, "version": version},
                                         headers=auth(read)), 403, "missing_scope")
        assert body["scope"] == "play"
        check_problem(client.post(f"/games/{game.id}/moves",
                                  json={"move": move, "version": version},
                                  headers=auth(carl)), 403, "forbidden")
        assert game.get()["version"] == version  # nothing recorded
        r = client.post(f"/games/{game.id}/moves", json={"move": move, "version": version},
                        headers=auth(play))
        assert r.status_code == 201, r.get_json()
        assert game.get()["version"] > version
        events = client.get(f"/games/{game.id}/events?since={version}",
                            headers=auth(read)).get_json()["events"]
        assert events[0]["event"]["seat"] == seat  # the account's seat of this game moved

    # talk: a play token may not write, a talk token may; the session token may all
    check_problem(client.post(f"/games/{g.id}/messages", json={"text": "hi"},
                              headers=auth(play)), 403, "missing_scope")
    r = client.post(f"/games/{g.id}/messages", json={"text": "hi"}, headers=auth(talk))
    assert r.status_code == 201 and r.get_json()["from"] == 0, r.get_json()
    r = client.post(f"/games/{g.id}/messages", json={"text": "again"}, headers=auth(ann))
    assert r.status_code == 201 and r.get_json()["from"] == 0, r.get_json()
    # the seat tokens still work as before
    assert client.get(f"/games/{g.id}/legal-moves",
                      headers=auth(g.tokens[1])).status_code == 200

    tokens = client.get("/me/tokens", headers=auth(ann)).get_json()["tokens"]
    gone = next(t["id"] for t in tokens if t["scopes"] == ["read", "play"])
    assert client.delete(f"/me/tokens/{gone}", headers=auth(ann)).status_code == 204
    check_problem(client.get(f"/games/{g.id}/legal-moves", headers=auth(play)), 401,
                  "invalid_token")


def test_my_games_waiting_lists_only_my_turns(app):
    """Issue 33 (a cheap poll): `?waiting=true` gives only the games where it is the
    player's turn, with a read token as with the session's."""
    client = app.test_client()
    g = new_game(client, 2, emails=["ann@example.org", "bob@example.org"])
    h = new_game(client, 2, emails=["bob@example.org", "ann@example.org"])
    ann = claimed(app, g, {0: "ann@example.org"})[0]
    claimed(app, h, {1: "ann@example.org"})
    read = make(client, ann, ["read"])["token"]
    # g: Ann's turn; h: Bob's turn
    for game, mine in ((g, 0), (h, 1)):
        doc = game.get()
        if (doc["current_seat"] == mine) != (game is g):
            seat = doc["current_seat"]
            take = next(m for m in game.notations(seat) if m.startswith("take"))
            assert game.submit(seat, take, doc["version"]).status_code == 201
    assert g.get()["current_seat"] == 0 and h.get()["current_seat"] == 0
    every = client.get("/me/games", headers=auth(read)).get_json()["games"]
    assert {i["game_id"] for i in every} == {g.id, h.id}
    for token in (ann, read):
        waiting = client.get("/me/games?waiting=true", headers=auth(token)).get_json()
        assert [(i["game_id"], i["your_turn"]) for i in waiting["games"]] == [(g.id, True)]
    check_problem(client.get("/me/games?waiting=maybe", headers=auth(ann)), 422,
                  "validation_error")


def test_seat_tokens_that_look_like_account_tokens_still_open_their_seat(app):
    """Issue 33: `Games.caller` tells tokens apart by prefix, but a seat token is random
    (HMAC) and may start with `pat_` or `p_`: such a one still opens its seat; and a seat
    token costs one look-up (the account tables are not read for it)."""
    client = app.test_client()
    g = new_game(client, 2)
    games = app.extensions["alhambra"]
    for seat, lookalike in ((0, "pat_seat-token-lookalike"), (1, "p_seat-token-lookalike")):
        gen = games.game(g.id).seats[seat].token_generation
        assert games.store.rotate_token(g.id, seat, gen + 1, hash_token(lookalike))
        caller = games.caller(lookalike)
        assert (caller.game_id, caller.seat, caller.account) == (g.id, seat, None)
    # a session's token and a personal token are the account's
    ann = signed_in(app, "ann@example.org")
    made = make(client, ann, ["read"])
    assert games.caller(ann).account == "ann@example.org"
    personal = games.caller(made["token"])
    assert personal.account == "ann@example.org" and personal.scopes == {"read"}

    reads = []
    store = games.store
    original = store.players.token, store.players.session_player

    def spy(name, fn):
        def wrapped(*args, **kwargs):
            reads.append(name)
            return fn(*args, **kwargs)
        return wrapped
    store.players.token = spy("token", original[0])
    store.players.session_player = spy("session", original[1])
    try:
        other = new_game(client, 2)
        assert games.caller(other.tokens[1]).seat == 1
        assert reads == []
        games.caller(made["token"])
        assert reads == ["token"]  # the spy sees the account's look-ups
    finally:
        del store.players.token, store.players.session_player


def test_the_session_token_plays_and_a_personal_one_changes_no_preferences(app):
    """Issue 33: the sign-in session's token acts in the claimed seat with every scope;
    a personal token may read /me but not change it, nor claim a seat."""
    client = app.test_client()
    g = new_game(client, 2, emails=["ann@example.org", "bob@example.org"])
    ann = claimed(app, g, {0: "ann@example.org"})[0]
    everything = make(client, ann, ["read", "play", "talk"])["token"]
    legal = client.get(f"/games/{g.id}/legal-moves", headers=auth(ann))
    assert legal.status_code == 200 and legal.get_json()["seat"] == 0
    r = client.post(f"/games/{g.id}/token", headers=auth(ann))  # rotate the seat's token
    assert r.status_code in (200, 201), r.get_json()
    check_problem(client.get(f"/games/{g.id}", headers=auth(g.tokens[0])), 401,
                  "invalid_token")
    assert client.get("/me", headers=auth(everything)).get_json()["email"] == \
        "ann@example.org"
    check_problem(client.patch("/me", json={"notify": "none"}, headers=auth(everything)),
                  403, "session_needed")
    h = new_game(client, 2, emails=["bob@example.org", "ann@example.org"])
    check_problem(client.post(f"/games/{h.id}/seats/1/claim", json={},
                              headers=auth(everything)), 403, "session_needed")


def test_an_account_holds_a_bounded_number_of_tokens(app, monkeypatch):
    """Issue 33: past the most an account may hold, 422 too_many_tokens (with its limit);
    deleting one makes room again."""
    import service.players

    monkeypatch.setattr(service.players, "MAX_TOKENS", 2)
    client = app.test_client()
    ann = signed_in(app, "ann@example.org")
    first = make(client, ann, ["read"])
    make(client, ann, ["read"])
    body = check_problem(client.post("/me/tokens", json={"description": "3",
                                                         "scopes": ["read"]},
                                     headers=auth(ann)), 422, "too_many_tokens")
    assert body["limit"] == 2
    assert len(client.get("/me/tokens", headers=auth(ann)).get_json()["tokens"]) == 2
    assert client.delete(f"/me/tokens/{first['id']}", headers=auth(ann)).status_code == 204
    make(client, ann, ["read"])
