"""A seat's mails stay in one thread (issue 34.3): mail clients thread by subject, so the
subject of the seat's first mail stays the subject of all its mails, even once the seat
chose another language (the mail's words follow the new language)."""

from __future__ import annotations

from service import times
from tests.support import auth, fake_clock, make_stack, new_game, run_due_now


def test_a_language_changed_keeps_the_threads_subject(tmp_path, redis_server, smtp,
                                                      monkeypatch):
    s = make_stack(tmp_path, redis_server.url, smtp.url, "idle")
    ctx = s.context()
    fake_clock(monkeypatch, times.now())
    try:
        h = new_game(s.client, 2)
        doc = h.get()
        seat, other = doc["current_seat"], 1 - doc["current_seat"]
        run_due_now(ctx, h.id)
        (first,) = smtp.wait(h.id, "started", where=lambda m: m.rcpt == [f"p{other}@example.org"])
        assert "game" in first.subject  # English: "Alhambra · game …"
        r = s.client.put(f"/games/{h.id}/seats/{other}/language", json={"language": "da"},
                         headers=auth(h.tokens[other]))
        assert r.status_code == 200, r.get_json()
        moved = h.submit(seat, h.notations(seat)[0], doc["version"])
        assert moved.status_code == 201
        run_due_now(ctx, h.id)
        (turn,) = smtp.wait(h.id, None, where=lambda m: m.rcpt == [f"p{other}@example.org"]
                            and m.version > doc["version"])
        assert turn.msg["Content-Language"] == "da"  # the words follow the new language
        assert turn.subject == first.subject  # the thread does not
        assert s.store.game(h.id).seats[other].thread_subject == first.subject
    finally:
        ctx.close()
        s.store.close()
