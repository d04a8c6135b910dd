"""Who is watching (service/presence.py; issue 37): a stream's mark holds while it is
open and for the grace after, per key; several streams on one key each count; marks in
Redis are seen by another process's Presence, and without Redis they stay in-process."""

from __future__ import annotations

import pytest
import redis

from service.presence import Presence, account_key, seat_key
from service.settings import Settings

SETTINGS = Settings(redis_prefix="presence-test:")


@pytest.fixture(params=["redis", "in-process"])
def client(request, redis_server):
    if request.param == "in-process":
        yield None
        return
    r = redis.Redis.from_url(redis_server.url)
    yield r
    r.delete(*r.keys("presence-test:*") or ["none"])
    r.close()


def test_a_mark_holds_while_open_and_for_the_grace_after(client):
    now_gone = Presence(SETTINGS, client, grace=0)
    ann, game = account_key("ann@example.org"), seat_key("g1", 2)
    assert not now_gone.watching([ann, game])
    first = now_gone.watch(game, 60)
    second = now_gone.watch(game, 60)
    assert now_gone.watching([ann, game]) and not now_gone.watching([ann])
    assert not now_gone.watching([seat_key("g1", 1), seat_key("g2", 2)])
    first()
    assert now_gone.watching([game])  # the other stream still holds it
    second()
    assert not now_gone.watching([game])

    kept = Presence(SETTINGS, client, grace=3600)
    kept.watch(ann, 60)()
    assert kept.watching([ann])  # ended, but within the grace: a page reconnecting


def test_marks_in_redis_are_seen_by_another_process(redis_server):
    api = Presence(SETTINGS, redis.Redis.from_url(redis_server.url))
    worker = Presence(SETTINGS, redis.Redis.from_url(redis_server.url))
    key = account_key("bo@example.org")
    release = api.watch(key, 60)
    assert worker.watching([key])
    release()


def test_without_a_working_redis_marks_stay_in_this_process():
    down = Presence(SETTINGS, redis.Redis(port=1, socket_connect_timeout=0.2))
    key = account_key("cy@example.org")
    down.watch(key, 60)
    assert down.watching([key])
