"""The players' API (issue 26) on the Flask test client: sign-in limits per address and
per client, preferences, and "my games" across three games on both stores."""

from __future__ import annotations

import pytest

from service import create_app
from service.settings import Settings
from tests.support import auth, check_problem, new_game, signed_in


def _app(tmp_path, **changes):
    return create_app(Settings(database=str(tmp_path / "p.db"), **changes))


def test_sign_in_is_limited_per_address_and_per_client(tmp_path):
    app = _app(tmp_path, limit_sign_in="4/minute", limit_sign_in_address="2/minute",
               limit_session="3/minute")
    client = app.test_client()
    ann, bob = {"REMOTE_ADDR": "192.0.2.1"}, {"REMOTE_ADDR": "192.0.2.2"}

    def ask(address, who):
        return client.post("/players/sign-in", json={"email": address}, environ_base=who)

    assert [ask("x@example.org", ann).status_code for _ in range(2)] == [202, 202]
    check_problem(ask("x@example.org", bob), 429, "rate_limited")  # the address: anyone
    assert ask("y@example.org", ann).status_code == 202
    assert ask("z@example.org", ann).status_code == 202
    check_problem(ask("w@example.org", ann), 429, "rate_limited")  # Ann's 4 a minute
    assert ask("w@example.org", bob).status_code == 202
    tries = [client.post("/players/session", json={"code": "AAAA-BBBB-CCCC"},
                         environ_base=ann) for _ in range(4)]
    assert [r.status_code for r in tries] == [401, 401, 401, 429]


def test_preferences(tmp_path):
    app = _app(tmp_path)
    client = app.test_client()
    token = signed_in(app, "Pref@Example.org")
    r = client.patch("/me", json={"language": "fi-FI", "notify": "digest"},
                     headers=auth(token))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["language"] == "fi" and r.get_json()["notify"] == "digest"
    assert client.get("/me", headers=auth(token)).get_json()["email"] == "pref@example.org"
    check_problem(client.patch("/me", json={"notify": "sometimes"}, headers=auth(token)),
                  422, "validation_error")
    check_problem(client.patch("/me", json={"vacation": 1}, headers=auth(token)), 422,
                  "validation_error")
    check_problem(client.get("/me"), 401)
    check_problem(client.get("/me/games", headers=auth("p_not-a-session")), 401,
                  "invalid_player_token")


@pytest.fixture
def any_app(app_on_each_store):
    return app_on_each_store


def test_my_games_across_three_games(any_app):
    client = any_app.test_client()
    me = "me@example.org"
    # two started games with a seat of mine (whoever's turn), one open game, and a game
    # without me
    games = [new_game(client, 2, emails=[me, "o1@example.org"], time_per_move=3600),
             new_game(client, 2, emails=["o2@example.org", "ME@example.org"],
                      time_per_move=7200)]
    r = client.post("/games", json={"players": 3, "seats": [{"name": "Me", "email": me}]})
    open_game = r.get_json()["game_id"]
    new_game(client, 2, emails=["x@example.org", "y@example.org"])
    token = signed_in(any_app, me)
    # seats the creators wrote my address on are offered to me, not mine (issue 39)
    assert client.get("/me/games", headers=auth(token)).get_json()["games"] == []
    offered = client.get("/me/invitations", headers=auth(token)).get_json()["games"]
    assert {i["game_id"] for i in offered} == {games[0].id, games[1].id, open_game}
    assert all(i["token"] is None for i in offered)
    claimed = {}
    for i in offered:
        r = client.post(f"/games/{i['game_id']}/seats/{i['seat']}/claim", json={},
                        headers=auth(token))
        assert r.status_code == 201, r.get_json()
        claimed[i["game_id"]] = r.get_json()["token"]
    for g in games:  # the creator's copy of the token stops; the claimed one plays
        seat = next(i["seat"] for i in offered if i["game_id"] == g.id)
        check_problem(client.get(f"/games/{g.id}", headers=auth(g.tokens[seat])), 401,
                      "invalid_token")
        g.tokens[seat] = claimed[g.id]
    assert client.get("/me/invitations", headers=auth(token)).get_json()["games"] == []

    got = client.get("/me/games", headers=auth(token))
    assert got.status_code == 200, got.get_json()
    items = got.get_json()["games"]
    assert {i["game_id"] for i in items} == {games[0].id, games[1].id, open_game}
    docs = {g.id: g.get() for g in games}
    turn = [i for i in items if i["your_turn"]]
    waiting = [i for i in items if not i["your_turn"]]
    assert items[:len(turn)] == turn  # my turn first
    for i in items:
        if i["game_id"] == open_game:
            assert i["status"] == "open" and i["deadline"] is None and i["seat"] == 0
            continue
        doc = docs[i["game_id"]]
        mine = next(g for g in games if g.id == i["game_id"])
        assert i["token"] == mine.tokens[i["seat"]]  # opens the seat's page
        assert i["your_turn"] == (doc["current_seat"] == i["seat"])
        assert i["variant"] == doc["variant"] and i["version"] == doc["version"]
        assert [p["name"] for p in i["players"]] == ["P0", "P1"]
        assert (i["deadline"] is not None) == i["your_turn"]
    # my turns by deadline, the earliest first
    assert [i["deadline"] for i in turn] == sorted(i["deadline"] for i in turn)
    assert open_game in {i["game_id"] for i in waiting}

    # a move moves the game: after it, it is no longer my turn there
    for g in games:
        seat = next(i["seat"] for i in items if i["game_id"] == g.id)
        if g.get()["current_seat"] == seat:
            take = next(m for m in g.notations(seat) if m.startswith("take"))
            assert g.submit(seat, take, version=g.get()["version"]).status_code == 201
    after = client.get("/me/games", headers=auth(token)).get_json()["games"]
    for i in after:
        doc = client.get(f"/games/{i['game_id']}").get_json()
        assert i["your_turn"] == (doc["status"] == "active" and
                                  doc["current_seat"] == i["seat"])
    assert not any(i["your_turn"] for i in after)  # money taken: the turn passed on

    finished = client.get("/me/games?status=finished", headers=auth(token))
    assert finished.status_code == 200 and finished.get_json()["games"] == []
    check_problem(client.get("/me/games?status=later", headers=auth(token)), 422,
                  "validation_error")
