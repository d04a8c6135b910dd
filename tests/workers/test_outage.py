"""Redis stopped while moves are made, then started: every notification arrives, once."""

from __future__ import annotations

import time
from collections import Counter

from service.store import MAIL_KINDS
from tests.support import make_stack, new_game, wait_until
from workers.redis_server import EmbeddedRedis, free_port


def test_redis_down_moves_still_accepted_and_every_mail_arrives_once(tmp_path, smtp):
    redis = EmbeddedRedis(tmp_path / "redis", port=free_port(), persist=False)
    redis.start()
    s = make_stack(tmp_path, redis.url, smtp.url, "outage")
    s.start_worker()
    try:
        h = new_game(s.client, 3)
        smtp.wait(h.id, "started", 3)  # the seat to move's is its first "your turn" mail

        redis.stop(cleanup=False)
        versions = []
        for _ in range(4):  # four moves while Redis is away: each is accepted
            doc = h.get()
            seat = doc["current_seat"]
            r = h.submit(seat, h.notations(seat)[0], doc["version"])
            assert r.status_code == 201, r.get_json()
            versions.append(r.get_json()["version"])
        time.sleep(0.5)  # the claiming loop tries meanwhile, and claims nothing
        due = [d for d in s.store.due_rows(h.id) if d.version in versions]
        assert {d.version for d in due if d.kind == "your_turn"} == set(versions)
        assert {d.state for d in due if d.kind in MAIL_KINDS} == {"pending"}
        assert not [m for m in smtp.of(h.id) if m.version in versions]

        redis.start()  # the same port, empty: what was queued before is gone
        def drained():
            return all(d.state == "done" for d in s.store.due_rows(h.id)
                       if d.kind in MAIL_KINDS)

        wait_until(drained, 20, what="the due mails to go out")
        turns = smtp.wait(h.id, "your_turn", count=len(versions), timeout=20,
                          where=lambda m: m.version in versions)
        # once more round the claiming loop and the worker: no late duplicate
        time.sleep(1.0)
        mails = [m for m in smtp.of(h.id) if m.version in versions]
        counts = Counter((m.version, m.kind, tuple(m.rcpt)) for m in mails)
        assert sorted(v for v, _, _ in counts) == versions, counts
        assert set(counts.values()) == {1}, counts
        assert {m.version for m in turns} == set(versions)
        # each to the seat whose turn it was after that move
        for m in turns:
            state_seat = [e for e in s.store.read(h.id)[:m.version]
                          if e["type"] == "turn_started"][-1]["seat"]
            assert m.rcpt == [f"p{state_seat}@example.org"]
        assert {d.result for d in s.store.due_rows(h.id) if d.kind in MAIL_KINDS} == {"sent"}
    finally:
        s.stop_worker()
        s.store.close()
        redis.stop()


def test_a_worker_asked_to_stop_while_redis_is_away_stops(tmp_path, smtp):
    """Redis went first (a service manager signalling every process at once): the
    worker, idle and retrying its connection, still stops on SIGTERM (it retried for
    ever, orphaned once serve was gone)."""
    redis = EmbeddedRedis(tmp_path / "redis", port=free_port(), persist=False)
    redis.start()
    s = make_stack(tmp_path, redis.url, smtp.url, "outage-stop")
    s.start_worker()
    try:
        def said(text: str) -> bool:
            return text in s.log_path.read_text(errors="replace")

        wait_until(lambda: said("Listening on"), 30, what="the worker to listen")
        redis.stop(cleanup=False)
        wait_until(lambda: said("could not connect to Redis"), 30,
                   what="the worker to miss Redis")
        s.process.terminate()
        assert s.process.wait(15) == 0
    finally:
        s.stop_worker()
        s.store.close()
        redis.stop()
