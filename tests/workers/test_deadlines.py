"""Deadlines: the default move when the time runs out, through the service's submit path;
a move made in time wins; reminders are skipped once the player has moved."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from rq.job import Job

import engine
from service import times
from tests.support import make_stack, new_game, wait_until
from workers import jobs


def _seconds_to(deadline: str) -> float:
    return -times.seconds_since(times.from_text(deadline))


def _events(stack, game_id):
    return stack.store.read(game_id)


def test_time_runs_out_the_default_move_is_played_and_the_next_player_mailed(stack, smtp):
    h = new_game(stack.client, 3, time_per_move=2)
    doc = h.get()
    seat, setup = doc["current_seat"], doc["version"]
    expected = engine.default_moves(engine.replay(_events(stack, h.id)), seat)

    (timeout_mail,) = smtp.wait(h.id, "timeout", timeout=20)
    events = _events(stack, h.id)
    played = [e for e in events[setup:] if "move" in e]
    assert played[0]["seat"] == seat and played[0]["timeout"] is True
    assert [e["move"] for e in played if e["seat"] == seat and e.get("timeout")][
        :len(expected)] == [str(m) for m in expected]
    version = timeout_mail.version
    assert timeout_mail.rcpt == [f"p{seat}@example.org"]
    text = timeout_mail.part("plain")
    assert "ran out" in text and f"version {version}" in text
    assert "(time ran out: the default move)" in text  # what was played, in words
    nxt = (seat + 1) % 3
    (turn,) = smtp.wait(h.id, "your_turn", where=lambda m: m.version == version)
    assert turn.rcpt == [f"p{nxt}@example.org"]
    assert "(time ran out: the default move)" in turn.part("plain")
    # the same path as an API move: the record lists it as a timeout
    assert jobs.deadline_job_id(h.id, setup)
    # scheduled at the deadline rounded up to the second (RQ keeps whole seconds), the job
    # never comes early
    job = Job.fetch(jobs.deadline_job_id(h.id, setup), connection=stack.context().redis)
    assert job.return_value() == "applied"


def test_a_move_just_before_the_deadline_is_kept_and_reminders_stop(stack, smtp):
    h = new_game(stack.client, 3, time_per_move=5)
    doc = h.get()
    seat, version = doc["current_seat"], doc["version"]
    # the 50% reminder comes while the seat has not moved
    (reminder,) = smtp.wait(h.id, "reminder50", timeout=10)
    assert reminder.rcpt == [f"p{seat}@example.org"] and reminder.version == version
    assert "still your turn" in reminder.part("plain")
    # move before the deadline, between the two reminders (the 90% one is 2 s later: a
    # margin that holds on a loaded machine)
    assert _seconds_to(doc["deadline"]) > 0.5, "the reminder came too late for this test"
    r = h.submit(seat, h.notations(seat)[0], version)
    assert r.status_code == 201, r.get_json()
    after = r.get_json()["version"]
    # the deadline job fires and does nothing; so does the 90% reminder
    redis = stack.context().redis
    job = wait_until(lambda: (j := Job.fetch(jobs.deadline_job_id(h.id, version),
                                             connection=redis)).is_finished and j,
                     timeout=10, what="the deadline job")
    assert job.return_value() == "stale"
    events = _events(stack, h.id)
    mine = [e for e in events[version:after] if "move" in e]
    assert mine and not any(e.get("timeout") for e in mine)
    assert not smtp.of(h.id, "timeout") or all(m.version > after
                                                for m in smtp.of(h.id, "timeout"))
    assert not smtp.of(h.id, "reminder90") or all(m.version != version
                                                  for m in smtp.of(h.id, "reminder90"))
    smtp.wait(h.id, "your_turn", where=lambda m: m.version == after)


def test_a_move_at_the_last_moment_beats_a_deadline_job_already_running(
        tmp_path, redis_server, smtp):
    """The deadline job has read the game when the player's move commits: the store's
    version check refuses the default move, and the player's move stands."""
    s = make_stack(tmp_path, redis_server.url, smtp.url, "idle")  # no worker: in-process
    ctx = s.context()
    try:
        h = new_game(s.client, 2, time_per_move=1)
        doc = h.get()
        seat, version = doc["current_seat"], doc["version"]
        time.sleep(max(0.0, _seconds_to(doc["deadline"])) + 0.1)
        move = h.notations(seat)[0]
        real_state = ctx.games.state
        calls = []

        def state_then_player_moves(game_id, v=None):
            state = real_state(game_id, v)
            calls.append(v)
            if len(calls) == 2:  # inside submit, after its checks, before the append
                r = h.submit(seat, move, version)  # the player's move commits now
                assert r.status_code == 201, r.get_json()
            return state

        ctx.games.state = state_then_player_moves
        assert jobs.time_out(ctx, h.id, version, seat) == "stale"
        ctx.games.state = real_state
        assert len(calls) == 2
        events = s.store.read(h.id)
        assert [e["move"] for e in events[version:] if "move" in e][:1] == [move]
        assert not any(e.get("timeout") for e in events)
        # and run again later (a second delivery of the job): still nothing
        assert jobs.time_out(ctx, h.id, version, seat) == "stale"
    finally:
        ctx.close()
        s.store.close()


def test_deadline_jobs_are_scheduled_at_the_deadline_rounded_up_to_the_second():
    """RQ's scheduler stores whole seconds, rounded down: a deadline job scheduled at
    12:00:00.900 would run at 12:00:00, early."""
    t = datetime(2026, 11, 30, 12, 0, 0, 900_000, tzinfo=UTC)
    assert jobs.not_before(t) == datetime(2026, 11, 30, 12, 0, 1, tzinfo=UTC)
    assert jobs.not_before(t.replace(microsecond=0)) == t.replace(microsecond=0)
