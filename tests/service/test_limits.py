"""Rate limits per client address: game creation, joins, record imports and refused
tokens, counted in Redis when there is one (so every process counts together)."""

from __future__ import annotations

import random
import secrets

import pytest
import redis

from service import create_app
from service.settings import Settings
from tests.support import auth, check_problem, new_game, play_random
from workers.redis_server import EmbeddedRedis

SMALL = {"limit_create": "3/minute", "limit_join": "2/minute", "limit_bad_token": "3/minute",
         "limit_import": "1/minute"}


def _app(tmp_path, name="a", **changes):
    return create_app(Settings(database=str(tmp_path / f"{name}.db"), **{**SMALL, **changes}))


def _refused(r) -> int:
    """A 429 problem naming the limit; its Retry-After in seconds."""
    body = check_problem(r, 429, "rate_limited")
    assert "per 1 minute" in body["detail"]
    retry = int(r.headers["Retry-After"])
    assert 0 < retry <= 61
    return retry


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
    assert app.extensions["alhambra"].store.count("games") == 4

    game = created[0].get_json()
    url = f"/games/{game['game_id']}/join"
    code = game["invite_code"]
    assert client.post(url, json={"invite_code": code, "name": "B"},
                       environ_base=ann).status_code == 201
    check_problem(client.post(url, json={"invite_code": "wrong", "name": "C"},
                              environ_base=ann), 403, "invalid_invite")
    _refused(client.post(url, json={"invite_code": code, "name": "C"}, environ_base=ann))
    assert client.post(url, json={"invite_code": code, "name": "C"},
                       environ_base=bob).status_code == 201


def test_refused_tokens_are_limited_but_not_good_ones_or_reading(tmp_path):
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
    _refused(client.get("/games", headers=auth("guess-3"), environ_base=mallory))
    _refused(client.get(f"/games/{game.id}", headers=auth(game.tokens[0]),
                        environ_base=mallory))  # any token, until the window passes
    assert client.get(f"/games/{game.id}", environ_base=mallory).status_code == 200
    assert client.get(f"/games/{game.id}", headers=auth(game.tokens[0])).status_code == 200


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
