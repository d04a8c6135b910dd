"""The claiming loop in several processes' stead (each with its own store and Redis
connection), on both stores: each due row reaches RQ once; a row Redis refused is given
back at once, not held for the claim's lease."""

from __future__ import annotations

import os
import threading

import pytest
import redis
from rq import Queue

from service import times
from service.store import Due, GameUpdate, open_store
from tests.store.test_contract import events, make_game
from tests.support import StoreSpec
from workers import dispatch
from workers.context import Context
from workers.redis_server import EmbeddedRedis, free_port


@pytest.fixture(params=["sqlite", "postgres"])
def spec(request, tmp_path) -> StoreSpec:
    if request.param == "sqlite":
        spec = StoreSpec("sqlite", str(tmp_path / "alhambra.db"))
    else:
        spec = StoreSpec("postgres", request.getfixturevalue("pg_database").schema())
    store = open_store(spec.settings(), check_schema=False)
    store.migrate()
    for g in range(5):
        make_game(store, f"g{g}")
        for b in range(6):
            store.append(f"g{g}", b, events(1, b + 1), GameUpdate("over", "over", None,
                                                                  None),
                         due=[Due("game_over", b + 1, times.now(), seat=0)])
    store.close()
    return spec


def test_claiming_loops_at_once_hand_each_row_to_rq_once(spec, redis_server):
    queue = f"claim-{os.urandom(4).hex()}"
    contexts = [Context(spec.settings(redis_url=redis_server.url, queue=queue))
                for _ in range(3)]
    barrier = threading.Barrier(len(contexts))

    def run(ctx):
        barrier.wait()
        while dispatch.dispatch_once(ctx, limit=4):
            pass

    threads = [threading.Thread(target=run, args=(c,)) for c in contexts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    ids = Queue(queue, connection=contexts[0].redis).get_job_ids()
    assert len(ids) == len(set(ids)) == 30
    rows = [r for g in range(5) for r in contexts[0].store.due_rows(f"g{g}")]
    assert set(ids) == {f"due-{r.id}-1" for r in rows}
    assert {(r.state, r.attempts) for r in rows} == {("claimed", 1)}
    for ctx in contexts:
        ctx.close()


def test_no_row_is_claimed_while_redis_is_away_and_one_it_refused_is_given_back(
        spec, tmp_path):
    down = Context(spec.settings(redis_url="redis://127.0.0.1:1/0", queue="nowhere"))
    with pytest.raises(Exception):  # noqa: B017 - redis' own connection error
        dispatch.dispatch_once(down)
    assert {r.state for g in range(5) for r in down.store.due_rows(f"g{g}")} == {"pending"}
    down.close()
    full = EmbeddedRedis(tmp_path / "full", port=free_port(), persist=False)
    full.start()  # it answers, but takes no more writes
    refusing = Context(spec.settings(redis_url=full.url, queue="nowhere"))
    try:
        refusing.redis.config_set("maxmemory", 1)
        refusing.redis.config_set("maxmemory-policy", "noeviction")
        with pytest.raises(redis.ResponseError, match="maxmemory"):
            dispatch.dispatch_once(refusing)
        rows = refusing.store.claim_due(100, lease_seconds=3600)  # not held by the loop
        assert len(rows) == 30
    finally:
        refusing.close()
        full.stop()
