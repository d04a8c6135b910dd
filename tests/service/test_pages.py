"""Issue 33, item 4: every list is paged (a limit with a default and a maximum, a cursor
or an offset) and says where the next page is (Link rel="next")."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from service import create_app
from service.settings import Settings
from tests.support import auth, check_problem, claimed, new_game

NEXT = re.compile(r'^<([^>]+)>; rel="next"$')


def _next(r) -> str | None:
    """The path and query of the answer's next page, None on the last."""
    if "Link" not in r.headers:
        return None
    m = NEXT.match(r.headers["Link"])
    assert m, r.headers["Link"]
    url = urlsplit(m[1])
    return f"{url.path}?{url.query}"


def _walk(client, url: str, key: str, headers=None) -> list[list]:
    """Every page from ``url`` on, following the Link headers: each page's ``key``."""
    pages = []
    while url:
        r = client.get(url, headers=headers)
        assert r.status_code == 200, r.get_json()
        pages.append(r.get_json()[key])
        url = _next(r)
        assert len(pages) < 50
    return pages


def test_events_in_pages_by_version(client, game):
    for _ in range(3):
        seat = game.get()["current_seat"]
        assert game.submit(seat, game.notations(seat)[0], game.get()["version"]
                           ).status_code == 201
    token = auth(game.tokens[0])
    everything = client.get(f"/games/{game.id}/events", headers=token)
    assert "Link" not in everything.headers  # the default page holds a whole game
    events = everything.get_json()["events"]
    assert len(events) > 10
    pages = _walk(client, f"/games/{game.id}/events?limit=4", "events", token)
    assert [len(p) for p in pages[:-1]] == [4] * (len(pages) - 1)
    assert [e for p in pages for e in p] == events
    r = client.get(f"/games/{game.id}/events?limit=4", headers=token)
    assert parse_qs(urlsplit(NEXT.match(r.headers["Link"])[1]).query) == {
        "limit": ["4"], "since": [str(r.get_json()["events"][-1]["version"])]}
    assert r.get_json()["version"] == everything.get_json()["version"]


def test_messages_in_pages_by_id(client, game):
    for i in range(5):
        assert client.post(f"/games/{game.id}/messages", json={"text": f"m{i}", "to": None},
                           headers=auth(game.tokens[i % 3])).status_code == 201
    pages = _walk(client, f"/games/{game.id}/messages?limit=2", "messages",
                  auth(game.tokens[0]))
    assert [[m["text"] for m in p] for p in pages] == [["m0", "m1"], ["m2", "m3"], ["m4"]]


def test_cors_exposes_the_link(tmp_path):
    client = create_app(Settings(database=str(tmp_path / "c.db"),
                                 cors_origins=("https://app.example",))).test_client()
    r = client.get("/games", headers={"Origin": "https://app.example"})
    assert "Link" in {h.strip() for h in r.headers["Access-Control-Expose-Headers"].split(",")}


def test_the_lobby_links_its_next_page(client):
    for _ in range(5):
        client.post("/games", json={"players": 2, "seats": [{"name": "A"}]})
    pages = _walk(client, "/games?limit=2", "games")
    assert [len(p) for p in pages] == [2, 2, 1]
    assert len({g["game_id"] for p in pages for g in p}) == 5


def test_my_games_and_invitations_in_pages(client, app):
    games = [new_game(client, 2) for _ in range(3)]
    token = None
    for game in games:
        token = claimed(app, game, {0: "p0@example.org"})[0]
    everything = client.get("/me/games", headers=auth(token))
    assert "Link" not in everything.headers and len(everything.get_json()["games"]) == 3
    pages = _walk(client, "/me/games?limit=2", "games", auth(token))
    assert [g["game_id"] for p in pages for g in p] == [
        g["game_id"] for g in everything.get_json()["games"]]
    assert [len(p) for p in pages] == [2, 1]
    for _ in range(3):
        client.post("/games", json={"players": 2, "seats": [
            {"name": "A"}, {"name": "B", "email": "p0@example.org"}]})
    pages = _walk(client, "/me/invitations?limit=2", "games", auth(token))
    assert [len(p) for p in pages] == [2, 1]


@pytest.mark.parametrize("url", ["/games/{id}/events?limit=0", "/games/{id}/events?limit=10001",
                                 "/games/{id}/messages?limit=5001", "/me/games?limit=501",
                                 "/me/invitations?offset=-1", "/ratings?offset=-1",
                                 "/games?limit=201"])
def test_limits_have_a_maximum(client, app, game, url):
    token = claimed(app, game, {0: "p0@example.org"})[0] if url.startswith("/me") \
        else game.tokens[0]
    check_problem(client.get(url.format(id=game.id), headers=auth(token)), 422,
                  "validation_error")


def test_the_leaderboard_in_pages(tmp_path, monkeypatch):
    from service.ratings import Ratings  # noqa: PLC0415
    rows = [{"name": f"P{i}", "ordinal": 10.0 - i} for i in range(5)]
    monkeypatch.setattr(Ratings, "leaderboard",
                        lambda self, variant, limit=50: rows[:limit])
    client = create_app(Settings(database=str(tmp_path / "r.db"))).test_client()
    r = client.get("/ratings?limit=2&offset=2")
    assert r.status_code == 200, r.get_json()
    assert [x["name"] for x in r.get_json()["ratings"]] == ["P2", "P3"]
    assert parse_qs(urlsplit(NEXT.match(r.headers["Link"])[1]).query)["offset"] == ["4"]
    assert "Link" not in client.get("/ratings?offset=4").headers
