"""Deadlines: the game's alarm (a due row at its deadline) plays the default move when the
time runs out, through the service's submit path; a move made in time wins (the alarm and
the turn's reminders are replaced); a reminder comes at a fraction of the seat's time."""

from __future__ import annotations

from datetime import timedelta

import pytest

import engine
from service import times
from tests.support import fake_clock, make_stack, new_game, run_due_now


@pytest.fixture
def here(tmp_path, redis_server, smtp, monkeypatch):
    """A stack with no worker, its due work run in this process on a fake clock."""
    s = make_stack(tmp_path, redis_server.url, smtp.url, "idle")
    ctx = s.context()
    clock = fake_clock(monkeypatch, times.now().replace(microsecond=0))
    try:
        yield s, ctx, clock
    finally:
        ctx.close()
        s.store.close()


def test_time_runs_out_the_default_move_is_played_and_the_next_player_mailed(here, smtp):
    s, ctx, clock = here
    h = new_game(s.client, 3, time_per_move=2)
    doc = h.get()
    seat, setup = doc["current_seat"], doc["version"]
    expected = engine.default_moves(engine.replay(s.store.read(h.id)), seat)
    run_due_now(ctx, h.id)  # the started mails
    clock.now = times.from_text(doc["deadline"]) + timedelta(seconds=1)
    run_due_now(ctx, h.id)

    (timeout_mail,) = smtp.wait(h.id, "timeout")
    events = s.store.read(h.id)
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
    # the game's one alarm, done by the default move's own append
    alarms = [d for d in s.store.due_rows(h.id) if d.kind == "deadline"]
    (alarm,) = [d for d in alarms if d.version == setup]
    assert (alarm.state, alarm.result, alarm.seat) == ("done", "applied", seat)
    assert alarm.done_at >= alarm.due_at == times.from_text(doc["deadline"])
    assert [d.state for d in alarms if d.version > setup][-1:] == ["pending"]  # the next


def test_a_move_just_before_the_deadline_is_kept_and_reminders_stop(here, smtp):
    s, ctx, clock = here
    h = new_game(s.client, 3, time_per_move=10)
    doc = h.get()
    seat, version = doc["current_seat"], doc["version"]
    deadline = times.from_text(doc["deadline"])
    run_due_now(ctx, h.id)
    # the 50% reminder comes while the seat has not moved
    clock.now = deadline - timedelta(seconds=4)
    run_due_now(ctx, h.id)
    (reminder,) = smtp.wait(h.id, "reminder50")
    assert reminder.rcpt == [f"p{seat}@example.org"] and reminder.version == version
    assert "still your turn" in reminder.part("plain")
    # a move before the deadline, between the two reminders
    r = h.submit(seat, h.notations(seat)[0], version)
    assert r.status_code == 201, r.get_json()
    after = r.get_json()["version"]
    # the move replaced the alarm and the 90% reminder: neither ever runs
    rows = {(d.kind, d.percent): d for d in s.store.due_rows(h.id) if d.version == version}
    assert (rows["deadline", None].state, rows["deadline", None].result) == ("done",
                                                                             "replaced")
    assert (rows["reminder", 90].state, rows["reminder", 90].result) == ("done", "replaced")
    assert (rows["reminder", 50].state, rows["reminder", 50].result) == ("done", "sent")
    clock.now = deadline + timedelta(seconds=1)
    run_due_now(ctx, h.id)
    events = s.store.read(h.id)
    mine = [e for e in events[version:after] if "move" in e]
    assert mine and not any(e.get("timeout") for e in mine)
    assert not smtp.of(h.id, "timeout") or all(m.version > after
                                                for m in smtp.of(h.id, "timeout"))
    assert not smtp.of(h.id, "reminder90") or all(m.version != version
                                                  for m in smtp.of(h.id, "reminder90"))
    smtp.wait(h.id, "your_turn", where=lambda m: m.version == after)


def test_a_move_at_the_last_moment_beats_a_deadline_job_already_running(
        tmp_path, redis_server, smtp, monkeypatch):
    """The deadline job has read the game when the player's move commits: the store's
    version check refuses the default move, and the player's move stands."""
    s = make_stack(tmp_path, redis_server.url, smtp.url, "idle")  # no worker: in-process
    ctx = s.context()
    try:
        clock = fake_clock(monkeypatch, times.now())
        h = new_game(s.client, 2, time_per_move=1)
        doc = h.get()
        seat, version = doc["current_seat"], doc["version"]
        clock.now = times.from_text(doc["deadline"]) + timedelta(seconds=0.1)
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
        assert ctx.games.time_out(h.id, version, seat).outcome == "stale"
        ctx.games.state = real_state
        assert len(calls) == 2
        events = s.store.read(h.id)
        assert [e["move"] for e in events[version:] if "move" in e][:1] == [move]
        assert not any(e.get("timeout") for e in events)
        # and run again later (a second delivery of the job): still nothing
        assert ctx.games.time_out(h.id, version, seat).outcome == "stale"
    finally:
        ctx.close()
        s.store.close()
