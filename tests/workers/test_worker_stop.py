"""A stopping worker does not wait a minute for the thread of RQ's command channel: RQ
unsubscribes, then joins that thread, and redis-py's thread, once the unsubscribe's
answer is read, waits for a new subscription as long as its wait (RQ's: 60 s) when it
was not told to stop first. The session's stacks took 15 s each to stop (killed)."""

from __future__ import annotations

from redis import Redis
from rq import Queue

from tests.support import wait_until
from workers.main import Worker


def test_the_command_channels_thread_ends_soon_after_the_unsubscribe(redis_server):
    connection = Redis.from_url(redis_server.url)
    worker = Worker([Queue("stop-test", connection=connection)], connection=connection)
    worker.subscribe()
    thread = worker.pubsub_thread
    assert thread is not None
    try:
        worker.pubsub.unsubscribe()
        # the answer read before the thread is told to stop (the race a stop can lose)
        wait_until(lambda: not worker.pubsub.subscribed, 10, 0.01, "the unsubscribe read")
        thread.stop(timeout=3)  # it ends soon, not after its next read's timeout
        assert not thread.is_alive()
    finally:
        thread.stop(timeout=0)
        worker.pubsub.close()
        connection.close()
