"""Jobs an older version left queued in Redis, under its entry points' names, still run
after the upgrade to due work: each adds its work as a due row, never twice, and the row
is run like any other (a real SQLite file, real Redis, a real SMTP sink)."""

from __future__ import annotations

from service import times
from tests.support import make_stack, new_game, run_due_here
from workers import jobs, mail_in
from workers.context import set_context


def test_the_old_entry_points_add_their_work_once(tmp_path, redis_server, smtp):
    s = make_stack(tmp_path, redis_server.url, smtp.url, "old-unserved",
                   MAIL_REPLY_TO="moves@alhambra.test")
    ctx = s.context()
    set_context(ctx)
    try:
        h = new_game(s.client, 2, time_per_move=3600)
        hook = ctx.store.add_webhook(h.id, 0, "http://127.0.0.1:9/x", "s" * 16)
        doc = h.get()
        version, seat = doc["version"], doc["current_seat"]
        before = len(ctx.store.due_rows(h.id))
        calls = [
            lambda: jobs.process_batch(h.id, 1, version, times.to_text(times.now())),
            lambda: jobs.send_reminder(h.id, seat, version, doc["deadline"], 0.5),
            lambda: jobs.apply_deadline(h.id, version, seat),
            lambda: jobs.deliver_webhook(hook.id, h.id, 1, version),
            lambda: jobs.play_bot(h.id, version),
            lambda: mail_in.send_answer(h.id, seat, "<m1@x>", [], {
                "answered": version, "wrote": ["status"], "moves": [], "result": "status"}),
        ]
        assert [call() for call in calls] == ["due"] * 6
        rows = ctx.store.due_rows(h.id)[before:]
        # the deadline and reminder of this turn were planned with the batch already
        assert sorted(d.kind for d in rows) == ["answer", "bot", "plan", "webhook"]
        assert [call() for call in calls] == ["due"] * 6
        assert len(ctx.store.due_rows(h.id)) == before + 4  # none twice
        results = run_due_here(ctx, h.id, lambda d: d.kind in ("plan", "answer", "bot"))
        assert results == {("plan", None, version): "done",
                           ("answer", seat, version): "sent",
                           ("bot", None, version): "stale"}  # no bot plays a seat
        (answer,) = smtp.of(h.id)  # the batch planned again added no mail: they were due
        assert answer.kind.startswith("answer-") and answer.rcpt == [f"p{seat}@example.org"]
    finally:
        set_context(None)
        ctx.close()
        s.store.close()
