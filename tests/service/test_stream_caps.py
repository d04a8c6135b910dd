"""Open /games/{id}/stream connections are capped per client address and in all (issue
20.2): one more gets 429 ``rate_limited`` with ``Retry-After``; the address is the one the
rate limits count (ALHAMBRA_TRUSTED_PROXIES); a closed stream gives its place back; with
Redis, every process counts together."""

from __future__ import annotations

import pytest

from service import create_app
from service.settings import Settings
from tests.service.test_stream import ThreadedClient
from tests.support import check_problem, new_game
from workers.redis_server import EmbeddedRedis


def _client(db_path, **settings):
    app = create_app(Settings(database=str(db_path), stream_seconds=30, stream_poll=0.01,
                              **settings))
    app.test_client_class = ThreadedClient
    return app, app.test_client()


HELD: list = []  # the open streams of the test running (a dropped one closes)


@pytest.fixture(autouse=True)
def _close_streams():
    yield
    while HELD:
        HELD.pop().close()


def _open(client, game_id: str, address: str, forwarded: str | None = None):
    """A stream from ``address``, left open (its body not read) until the test ends."""
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    r = client.get(f"/games/{game_id}/stream", headers=headers, buffered=False,
                   environ_overrides={"REMOTE_ADDR": address})
    HELD.append(r)
    return r


def test_one_stream_over_the_cap_of_an_address_is_refused_until_one_closes(db_path):
    app, client = _client(db_path, streams_per_client=3)
    game = new_game(client, 2)
    mine = [_open(client, game.id, "10.0.0.1") for _ in range(3)]
    assert [r.status_code for r in mine] == [200, 200, 200]
    refused = _open(client, game.id, "10.0.0.1")
    body = check_problem(refused, 429, "rate_limited")
    assert "streams" in body["detail"] and int(refused.headers["Retry-After"]) >= 1
    assert _open(client, game.id, "10.0.0.2").status_code == 200  # another address
    mine[0].close()  # the client went away: its place is free
    assert _open(client, game.id, "10.0.0.1").status_code == 200
    assert _open(client, game.id, "10.0.0.1").status_code == 429
    app.extensions["alhambra"].store.close()


def test_behind_a_trusted_proxy_the_forwarded_address_counts(db_path):
    app, client = _client(db_path, streams_per_client=2, trusted_proxies=1)
    game = new_game(client, 2)
    # one proxy (127.0.0.1) for everyone: its clients are counted apart
    for client_address in ("203.0.113.7", "203.0.113.7", "198.51.100.9"):
        assert _open(client, game.id, "127.0.0.1", client_address).status_code == 200
    assert _open(client, game.id, "127.0.0.1", "203.0.113.7").status_code == 429
    # a forged header in front of the proxy's own does not escape the count
    assert _open(client, game.id, "127.0.0.1", "1.2.3.4, 203.0.113.7").status_code == 429
    app.extensions["alhambra"].store.close()


def test_the_cap_in_all(db_path):
    app, client = _client(db_path, streams_max=2)
    game = new_game(client, 2)
    assert _open(client, game.id, "10.0.0.1").status_code == 200
    assert _open(client, game.id, "10.0.0.2").status_code == 200
    body = check_problem(_open(client, game.id, "10.0.0.3"), 429, "rate_limited")
    assert "the server has too many open streams" in body["detail"]
    app.extensions["alhambra"].store.close()


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    with EmbeddedRedis(tmp_path_factory.mktemp("caps-redis"), persist=False) as url:
        yield url


def test_with_redis_every_process_counts_together(tmp_path, redis_url):
    (tmp_path / "a").mkdir()
    settings = {"redis_url": redis_url, "redis_prefix": "caps-test:", "streams_per_client": 2,
                "secret": "one key"}
    app_a, a = _client(tmp_path / "a" / "shared.db", **settings)
    app_b, b = _client(tmp_path / "a" / "shared.db", **settings)  # another API process
    game = new_game(a, 2)
    first = _open(a, game.id, "10.0.0.1")
    assert _open(b, game.id, "10.0.0.1").status_code == 200
    assert _open(a, game.id, "10.0.0.1").status_code == 429
    assert _open(b, game.id, "10.0.0.1").status_code == 429
    first.close()
    assert _open(b, game.id, "10.0.0.1").status_code == 200
    for app in (app_a, app_b):
        app.extensions["alhambra"].store.close()


def test_a_head_request_answers_at_once_and_takes_no_place(db_path):
    app, client = _client(db_path, streams_per_client=1)
    game = new_game(client, 2)
    for _ in range(3):
        r = client.head(f"/games/{game.id}/stream", environ_overrides={
            "REMOTE_ADDR": "10.0.0.1"})
        assert r.status_code == 200
    assert _open(client, game.id, "10.0.0.1").status_code == 200
    app.extensions["alhambra"].store.close()
