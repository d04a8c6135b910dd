"""Issue 33, item 2: the GET answers with an ETag cover their body (the version and a hash
of the bytes), answer If-None-Match with 304, and If-Match on moves takes both forms."""

from __future__ import annotations

import re

import pytest

from tests.support import auth, check_problem, claimed, new_game

ETAG = re.compile(r'^"(\d+)\.([0-9a-f]+)"$')


def _urls(game) -> list[tuple[str, str | None]]:
    return [(f"/games/{game.id}", None), (f"/games/{game.id}", game.tokens[0]),
            (f"/games/{game.id}/events?since=0", game.tokens[1]),
            (f"/games/{game.id}/legal-moves", game.tokens[2])]


def test_if_none_match_gets_304_with_the_etag_kept(client, game):
    for url, token in _urls(game):
        r = client.get(url, headers=auth(token))
        assert r.status_code == 200
        m = ETAG.match(r.headers["ETag"])
        assert m and int(m[1]) == game.get()["version"], r.headers["ETag"]
        assert {"Authorization", "Accept-Language"} <= set(
            v.strip() for v in r.headers["Vary"].split(","))
        again = client.get(url, headers={**auth(token), "If-None-Match": r.headers["ETag"]})
        assert again.status_code == 304, url
        assert again.data == b"" and again.headers["ETag"] == r.headers["ETag"]
        assert again.headers["Cache-Control"] == "no-store"
        # a list of ETags, or a weak one, matches too; another does not
        listed = client.get(url, headers={**auth(token),
                                          "If-None-Match": f'"1.abc", W/{r.headers["ETag"]}'})
        assert listed.status_code == 304
        other = client.get(url, headers={**auth(token), "If-None-Match": '"1.abc"'})
        assert other.status_code == 200 and other.data == r.data


def test_the_etag_differs_with_the_token_and_the_language(client, game):
    url = f"/games/{game.id}"
    tags = {client.get(url, headers=auth(t)).headers["ETag"] for t in [None, *game.tokens]}
    assert len(tags) == 4  # the spectator's and each seat's view
    seat = client.get(url, headers=auth(game.tokens[0]))
    # the seat's own view read as another seat's: its ETag does not match
    r = client.get(url, headers={**auth(game.tokens[1]), "If-None-Match": seat.headers["ETag"]})
    assert r.status_code == 200
    events = f"/games/{game.id}/events?since=0"
    en = client.get(events, headers={"Accept-Language": "en"})
    fi = client.get(events, headers={"Accept-Language": "fi",
                                     "If-None-Match": en.headers["ETag"]})
    assert fi.status_code == 200 and fi.headers["ETag"] != en.headers["ETag"]


def test_a_move_changes_the_etag(client, game):
    seat = game.get()["current_seat"]
    url = f"/games/{game.id}"
    before = client.get(url, headers=auth(game.tokens[seat]))
    assert game.submit(seat, game.notations(seat)[0], before.get_json()["version"]
                       ).status_code == 201
    r = client.get(url, headers={**auth(game.tokens[seat]),
                                 "If-None-Match": before.headers["ETag"]})
    assert r.status_code == 200 and r.headers["ETag"] != before.headers["ETag"]


@pytest.mark.parametrize("form", ["plain", "get"])
def test_if_match_takes_the_plain_version_and_the_gets_etag(client, game, form):
    seat = game.get()["current_seat"]
    tag = client.get(f"/games/{game.id}", headers=auth(game.tokens[seat])).headers["ETag"]
    version = ETAG.match(tag)[1]
    header = f'"{version}"' if form == "plain" else tag
    r = game.submit(seat, game.notations(seat)[0], headers={"If-Match": header})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["version"] > int(version)
    # the same ETag again is stale now: 409 with the current version
    seat = game.get()["current_seat"]
    r = game.submit(seat, game.notations(seat)[0], headers={"If-Match": header})
    check_problem(r, 409, "version_conflict")


def test_my_games_is_a_cheap_poll(client, app):
    game = new_game(client, 2)
    token = claimed(app, game, {0: "p0@example.org"})[0]
    r = client.get("/me/games", headers=auth(token))
    assert r.status_code == 200 and len(r.get_json()["games"]) == 1
    assert re.match(r'^"[0-9a-f]+"$', r.headers["ETag"])
    again = client.get("/me/games", headers={**auth(token), "If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    seat = game.get()["current_seat"]
    assert game.submit(seat, game.notations(seat)[0], game.get()["version"]).status_code == 201
    after = client.get("/me/games", headers={**auth(token), "If-None-Match": r.headers["ETag"]})
    assert after.status_code == 200 and after.headers["ETag"] != r.headers["ETag"]
