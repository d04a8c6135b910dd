"""Public games (issue 26): open seats anyone may join without the invite code (with a
name, or signed in with a player token alone), a private game keeps its code, and the
creator opens a joined seat again before the start (its token stops working)."""

from __future__ import annotations

from tests.support import auth, check_problem, signed_in


def create(client, public: bool, players: int = 3):
    r = client.post("/games", json={"players": players, "public": public,
                                    "seats": [{"name": "Host", "email": "h@example.org"}]})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_a_public_game_is_joined_without_the_code(app, client):
    g = create(client, True)
    listed = client.get("/games?status=open").get_json()["games"]
    assert next(x for x in listed if x["game_id"] == g["game_id"])["public"] is True
    r = client.post(f"/games/{g['game_id']}/join", json={"name": "Stranger",
                                                        "email": "s@example.org"})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["seat"] == 1
    elsewhere = {"REMOTE_ADDR": "192.0.2.9"}
    check_problem(client.post(f"/games/{g['game_id']}/join", json={},
                              environ_base=elsewhere), 422,
                  "validation_error")  # no name, not signed in
    # one seat per client address unless signed in (issue 39: no one takes every seat)
    check_problem(client.post(f"/games/{g['game_id']}/join", json={"name": "Again"}), 429,
                  "rate_limited")
    # a signed-in player: one click (its token only); one seat per account
    token = signed_in(app, "Clicker@Example.org")
    r = client.post(f"/games/{g['game_id']}/join", json={}, headers=auth(token))
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["seat"] == 2
    doc = client.get(f"/games/{g['game_id']}", headers=auth(r.get_json()["token"])).get_json()
    assert doc["status"] == "active"  # the last seat: it started
    me = doc["seats"][2]
    assert (me["name"], me["email"]) == ("clicker", "clicker@example.org")
    mine = client.get("/me/games", headers=auth(token)).get_json()["games"]
    assert [x["game_id"] for x in mine] == [g["game_id"]]


def test_a_private_game_keeps_its_code(client):
    g = create(client, False)
    assert client.get(f"/games/{g['game_id']}").get_json()["public"] is False
    check_problem(client.post(f"/games/{g['game_id']}/join", json={"name": "X"}), 403,
                  "invalid_invite")
    r = client.post(f"/games/{g['game_id']}/join",
                    json={"name": "X", "invite_code": g["invite_code"]})
    assert r.status_code == 201


def test_the_creator_opens_a_joined_seat_again(client):
    g = create(client, True)
    gid, host = g["game_id"], g["host_token"]
    joined = client.post(f"/games/{gid}/join", json={"name": "Pest"}).get_json()
    check_problem(client.delete(f"/games/{gid}/seats/1", headers=auth(joined["token"])),
                  403, "forbidden")
    assert client.delete(f"/games/{gid}/seats/1", headers=auth(host)).status_code == 204
    seat = client.get(f"/games/{gid}").get_json()["seats"][1]
    assert seat["joined"] is False and seat["name"] is None
    check_problem(client.get(f"/games/{gid}", headers=auth(joined["token"])), 401,
                  "invalid_token")  # the removed seat's token no longer works
    check_problem(client.delete(f"/games/{gid}/seats/1", headers=auth(host)), 409,
                  "seat_not_removable")  # open already
    again = client.post(f"/games/{gid}/join", json={"name": "Next"},
                        environ_base={"REMOTE_ADDR": "192.0.2.7"}).get_json()
    assert again["seat"] == 1 and again["token"] != joined["token"]
    assert client.post(f"/games/{gid}/seats/2/bot", json={"level": "greedy"},
                       headers=auth(host)).status_code == 201  # the game starts
    check_problem(client.delete(f"/games/{gid}/seats/1", headers=auth(host)), 409,
                  "seat_not_removable")


def test_public_games_in_play_are_listed_to_anyone(client):
    public, private = create(client, True, 2), create(client, False, 2)
    for g in (public, private):
        body = {"name": "J"} if g is public else {"name": "J", "invite_code": g["invite_code"]}
        assert client.post(f"/games/{g['game_id']}/join", json=body).status_code == 201
    playing = client.get("/games?status=active").get_json()["games"]
    assert [g["game_id"] for g in playing] == [public["game_id"]]
    assert client.get("/games?status=over").get_json()["games"] == []


def test_one_seat_per_account_and_the_join_rated_as_its_own(app, client):
    """Issue 39: one player token joined the same public game twice (two seats)."""
    g = create(client, True, 4)
    token = signed_in(app, "twice@example.org")
    first = client.post(f"/games/{g['game_id']}/join", json={}, headers=auth(token))
    assert first.status_code == 201
    check_problem(client.post(f"/games/{g['game_id']}/join", json={"name": "Other me"},
                              headers=auth(token)), 409, "already_seated")
    seats = client.get(f"/games/{g['game_id']}").get_json()["seats"]
    assert [s["joined"] for s in seats] == [True, True, False, False]
    mine = client.get("/me/games", headers=auth(token)).get_json()["games"]
    assert [(x["game_id"], x["seat"]) for x in mine] == [(g["game_id"], 1)]
