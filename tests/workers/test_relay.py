"""The outbox relay in several processes' stead (each with its own store and Redis
connection), on both stores: each batch reaches RQ once; a batch Redis refused is given
back at once, not held for the claim's lease."""

from __future__ import annotations

import os
import threading

import pytest
from rq import Queue

from service.store import GameUpdate, open_store
from tests.store.test_contract import events, make_game
from tests.support import StoreSpec
from workers import relay
from workers.context import Context


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
                                                                  None))
    store.close()
    return spec


def test_relays_at_once_hand_each_batch_to_rq_once(spec, redis_server):
    queue = f"relay-{os.urandom(4).hex()}"
    contexts = [Context(spec.settings(redis_url=redis_server.url, queue=queue))
                for _ in range(3)]
    barrier = threading.Barrier(len(contexts))

    def run(ctx):
        barrier.wait()
        while relay.relay_once(ctx, limit=4):
            pass

    threads = [threading.Thread(target=run, args=(c,)) for c in contexts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    ids = Queue(queue, connection=contexts[0].redis).get_job_ids()
    assert len(ids) == len(set(ids)) == 30
    assert set(ids) == {f"batch-g{g}-{b}-{b}" for g in range(5) for b in range(1, 7)}
    assert contexts[0].store.undelivered() == []
    for ctx in contexts:
        ctx.close()


def test_a_batch_redis_refused_is_given_back_at_once(spec):
    down = Context(spec.settings(redis_url="redis://127.0.0.1:1/0", queue="nowhere"))
    with pytest.raises(Exception):  # noqa: B017 - redis' own connection error
        relay.relay_once(down)
    rows = down.store.claim_outbox(100, lease_seconds=3600)  # not held by the failed relay
    assert len(rows) == 30
    down.close()
