"""Rate limits per client address: game creation, joins, record imports and refused
tokens, counted in Redis when there is one (so every process counts together)."""

from __future__ import annotations

import random
import secrets

import pytest
import redis

from service import create_app
from service.settings import Settings
from tests.support import auth, check_problem, new_game, play_random, stored
from workers.redis_server import EmbeddedRedis

SMALL = {"limit_create": "3/minute", "limit_join": "2/minute", "limit_bad_token": "3/minute",
         "limit_import": "1/minute"}


def _app(tmp_path, name="a", **changes):
    return create_app(Settings(database=str(tmp_path / f"{name}.db"), **{**SMALL, **changes}))


def _refused(r) -> dict:
    """A 429 problem naming the limit, with a Retry-After in seconds; its body."""
    body = check_problem(r, 429, "rate_limited")
    assert "per 1 minute" in body["detail"]
    assert 0 < int(r.headers["Retry-After"]) <= 61
    return body


def test_each_limit_per_client_address(tmp_path):
    app = _app(tmp_path)
    client = app.test_client()
    ann = {"REMOTE_ADDR": "192.0.2.1"}
    bob = {"REMOTE_ADDR": "192.0.2.2"}
    body = {"players": 3, "seats": [{"name": "A"}]}
    created = [client.post("/games", json=body, environ_base=ann) for _ in range(3)]
    assert [r.status_code for r in created] == [201] * 3
    _refused(client.post("/games", json=body, environ_base=ann))
    assert client.post("/games", json=body, environ_base=bob).status_code == 201  # Bob's own
    assert stored(app.extensions["alhambra"].store, "games") == 4

    game = created[0].get_json()
    url = f"/games/{game['game_id']}/join"
    code = game["invite_code"]
    assert client.post(url, json={"invite_code": code, "name": "B"},
                       environ_base=ann).status_code == 201
    check_problem(client.post(url, json={"invite_code": "wrong", "name": "C"},
                              environ_base=ann), 403, "invalid_invite")
    # the refused code took no seat: it does not count as one of Ann's joins
    assert client.post(url, json={"invite_code": code, "name": "C"},
                       environ_base=ann).status_code == 201
    game = created[1].get_json()
    url = f"/games/{game['game_id']}/join"
    _refused(client.post(url, json={"invite_code": game["invite_code"], "name": "D"},
                         environ_base=ann))
    assert client.post(url, json={"invite_code": game["invite_code"], "name": "D"},
                       environ_base=bob).status_code == 201


def test_refused_tokens_are_limited_but_never_good_ones(tmp_path):
    """Issue 20: a guesser's refusals do not lock out the good tokens of its address."""
    app = _app(tmp_path)
    client = app.test_client()
    mallory = {"REMOTE_ADDR": "198.51.100.7"}
    game = new_game(client, 2)
    for _ in range(10):  # good tokens do not count
        assert client.get(f"/games/{game.id}", headers=auth(game.tokens[0]),
                          environ_base=mallory).status_code == 200
    for i in range(3):
        check_problem(client.get("/games", headers=auth(f"guess-{i}"), environ_base=mallory),
                      401, "invalid_token")
    body = _refused(client.get("/games", headers=auth("guess-3"), environ_base=mallory))
    assert "refused tokens from your address" in str(body)
    assert client.get(f"/games/{game.id}", headers=auth(game.tokens[0]),
                      environ_base=mallory).status_code == 200  # a good token still works
    assert client.get(f"/games/{game.id}", environ_base=mallory).status_code == 200
    _refused(client.get("/games", headers=auth("guess-4"), environ_base=mallory))
    check_problem(client.get("/games", headers=auth("other-guess"),
                             environ_base={"REMOTE_ADDR": "192.0.2.99"}), 401, "invalid_token")


def test_guesses_at_one_token_prefix_are_limited_from_any_address(tmp_path):
    app = _app(tmp_path)
    client = app.test_client()
    game = new_game(client, 2)
    for i in range(3):
        check_problem(client.get("/games", headers=auth(f"AAAAAAAA{i}"),
                                 environ_base={"REMOTE_ADDR": f"203.0.113.{i}"}),
                      401, "invalid_token")
    r = client.get("/games", headers=auth("AAAAAAAA-3"),
                   environ_base={"REMOTE_ADDR": "203.0.113.50"})
    assert "refused tokens starting like this one" in str(_refused(r))
    check_problem(client.get("/games", headers=auth("BBBBBBBB-3"),
                             environ_base={"REMOTE_ADDR": "203.0.113.51"}), 401,
                  "invalid_token")
    assert client.get(f"/games/{game.id}", headers=auth(game.tokens[1]),
                      environ_base={"REMOTE_ADDR": "203.0.113.50"}).status_code == 200


def test_guesses_at_one_games_invite_code_are_limited_from_any_address(tmp_path):
    client = _app(tmp_path).test_client()
    created = client.post("/games", json={"players": 2, "seats": [{"name": "A"}]}).get_json()
    url = f"/games/{created['game_id']}/join"
    for i in range(3):
        check_problem(client.post(url, json={"invite_code": f"guess{i}", "name": "E"},
                                  environ_base={"REMOTE_ADDR": f"203.0.113.{i}"}),
                      403, "invalid_invite")
    newcomer = {"REMOTE_ADDR": "203.0.113.60"}
    r = client.post(url, json={"invite_code": "guess3", "name": "E"}, environ_base=newcomer)
    assert "refused invite codes for this game" in str(_refused(r))
    assert client.post(url, json={"invite_code": created["invite_code"], "name": "B"},
                       environ_base=newcomer).status_code == 201


def test_record_imports_are_limited(tmp_path):
    client = _app(tmp_path).test_client()
    handle = new_game(client, 2)
    play_random(handle, random.Random(3))
    record = client.get(f"/games/{handle.id}/record").get_json()
    assert client.post("/records", json=record).status_code == 201
    _refused(client.post("/records", json=record))


def test_behind_proxies_the_forwarded_address_counts(tmp_path):
    app = _app(tmp_path, trusted_proxies=1)
    client = app.test_client()
    body = {"players": 2, "seats": [{"name": "A"}]}
    proxy = {"REMOTE_ADDR": "10.0.0.1"}
    for who in ("203.0.113.1", "203.0.113.2"):
        for _ in range(3):
            assert client.post("/games", json=body, environ_base=proxy,
                               headers={"X-Forwarded-For": f"6.6.6.6, {who}"}
                               ).status_code == 201
    # a client cannot dodge the limit by sending its own X-Forwarded-For entries
    _refused(client.post("/games", json=body, environ_base=proxy,
                         headers={"X-Forwarded-For": "1.2.3.4, 203.0.113.1"}))


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    with EmbeddedRedis(tmp_path_factory.mktemp("limits-redis"), persist=False) as url:
        yield url


def test_processes_sharing_redis_count_together(tmp_path, redis_url):
    prefix = f"limits-{secrets.token_hex(4)}:"
    apps = [_app(tmp_path, name, redis_url=redis_url, redis_prefix=prefix)
            for name in ("a", "b")]
    body = {"players": 2, "seats": [{"name": "A"}]}
    codes = [apps[i % 2].test_client().post("/games", json=body).status_code
             for i in range(3)]
    assert codes == [201] * 3
    _refused(apps[1].test_client().post("/games", json=body))
    _refused(apps[0].test_client().post("/games", json=body))
    assert redis.Redis.from_url(redis_url).keys(f"*{prefix}limits:*")


def test_forty_refused_secrets_do_not_lock_out_the_players_behind_that_address(
        tmp_path, redis_url):
    """Issue 20: 45 refused tokens and 45 refused invite codes from one address (Redis
    counting, as under ``serve``), then the real players behind it join and play; the
    guesser's next tries still get 429 with Retry-After."""
    prefix = f"limits-{secrets.token_hex(4)}:"
    app = _app(tmp_path, redis_url=redis_url, redis_prefix=prefix,
               limit_bad_token="30/minute", limit_join="60/hour")
    client = app.test_client()
    cafe = {"REMOTE_ADDR": "198.51.100.20"}
    created = client.post("/games", json={"players": 3, "seats": [{"name": "Ann"},
                                                                  {"name": "Bob"}]},
                          environ_base=cafe).get_json()
    gid = created["game_id"]
    guesses = [client.get(f"/games/{gid}", headers=auth(secrets.token_urlsafe(24)),
                          environ_base=cafe) for _ in range(45)]
    assert [r.status_code for r in guesses] == [401] * 30 + [429] * 15
    for r in guesses[30:]:
        _refused(r)
    for _ in range(45):
        _refused(client.post(f"/games/{gid}/join", json={
            "invite_code": secrets.token_urlsafe(9), "name": "Eve"}, environ_base=cafe))
    r = client.post(f"/games/{gid}/join", json={"invite_code": created["invite_code"],
                                                "name": "Cy"}, environ_base=cafe)
    assert r.status_code == 201, r.get_json()
    tokens = [s["token"] for s in created["seats"]] + [r.get_json()["token"]]
    token = tokens[client.get(f"/games/{gid}").get_json()["current_seat"]]
    legal = client.get(f"/games/{gid}/legal-moves", headers=auth(token),
                       environ_base=cafe).get_json()
    move = next(m["notation"] for m in legal["moves"] if m["notation"].startswith("take"))
    r = client.post(f"/games/{gid}/moves", json={"move": move, "version": legal["version"]},
                    headers=auth(token), environ_base=cafe)
    assert r.status_code == 201, r.get_json()
    _refused(client.get(f"/games/{gid}", headers=auth(secrets.token_urlsafe(24)),
                        environ_base=cafe))
    assert redis.Redis.from_url(redis_url).keys(f"*{prefix}limits:*refused*")
