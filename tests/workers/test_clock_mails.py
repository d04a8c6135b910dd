"""What the mails say of the clock and where they link, sent through the jobs' own code
(the due rows run in the test's process) to a real SMTP server (aiosmtpd): the time left
in words with a bank and a weekend off (on a fake clock), and the replay linked from the
game-over mail."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from service import i18n, times
from tests.support import auth, fake_clock, make_stack, new_game, run_due_here

HELSINKI = ZoneInfo("Europe/Helsinki")
CONTROL = {"bank": 2 * 86400, "increment": 12 * 3600, "cap": 3 * 86400,
           "days_off": ["sat", "sun"], "timezone": "Europe/Helsinki"}
TIME = "Time: a bank of 2 days, +12 hours a move, at most 3 days; weekends off " \
       "(Europe/Helsinki)"


@pytest.fixture
def idle_stack(tmp_path, redis_server, smtp, request):
    """A stack no worker serves: the test runs the jobs in its own process."""
    s = make_stack(tmp_path, redis_server.url, smtp.url, f"clock-{request.node.name}"[:60])
    ctx = s.context()
    try:
        yield s, ctx
    finally:
        ctx.close()
        s.store.close()


def test_mails_say_the_time_left_in_the_bank_and_the_weekend_off(idle_stack, smtp,
                                                                  monkeypatch):
    s, ctx = idle_stack
    clock = fake_clock(monkeypatch, datetime(2026, 3, 28, 12, tzinfo=HELSINKI).astimezone(UTC))
    # (a Saturday)
    h = new_game(s.client, 2, time_control=CONTROL)
    doc = h.get()
    seat, version = doc["current_seat"], doc["version"]
    run_due_here(ctx, h.id, lambda r: r.kind == "started")
    (turn,) = smtp.wait(h.id, "started", where=lambda m: m.rcpt == [f"p{seat}@example.org"])
    assert TIME in turn.part("plain") and TIME in turn.part("html")
    text = turn.part("plain")  # the seat to move's "started" mail is its first turn's
    # the weekend does not count: the whole bank is left, and the mail says why
    deadline = times.from_text(doc["deadline"])
    assert f"Deadline: in 3 days, Tuesday 21:00 UTC ({i18n.date(deadline, 'en')}): 2 days " \
           "left in your bank.\n" in text
    assert "Weekend off now: your clock runs again Monday 00:00 Europe/Helsinki.\n" in text
    assert TIME in text and "2 days left in your bank" in turn.part("html")

    # half the bank is used by Tuesday 00:00 (Monday ran; summer time began on Sunday)
    clock.now = datetime(2026, 3, 31, tzinfo=HELSINKI).astimezone(UTC)
    assert run_due_here(ctx, h.id, lambda r: r.kind == "reminder") == {
        ("reminder", seat, version): "sent"}
    (reminder,) = smtp.wait(h.id, "reminder50")
    text = reminder.part("plain")
    assert ": 1 day left in your bank.\n" in text
    assert "Weekend off" not in text

    take = next(n for n in h.notations(seat) if n.startswith("take"))
    played = h.submit(seat, take, version).get_json()["version"]
    run_due_here(ctx, h.id, lambda r: r.kind == "your_turn" and r.version == played)
    (nxt,) = smtp.wait(h.id, "your_turn", where=lambda m: m.version == played)
    assert nxt.rcpt == [f"p{1 - seat}@example.org"]
    assert ": 2 days left in your bank.\n" in nxt.part("plain")


def test_a_turn_mail_sent_after_the_game_moved_on_tells_the_deadline_its_batch_set(
        idle_stack, smtp, monkeypatch):
    """Issue 32: the deadline a mail tells is decided with its batch (its due row says
    it): a "your turn" mail sent once its seat has moved again still tells the deadline
    of that turn, a bank's, not the time per move after the batch."""
    s, ctx = idle_stack
    clock = fake_clock(monkeypatch, datetime(2026, 3, 25, 12, tzinfo=UTC))  # a Wednesday
    h = new_game(s.client, 2, time_control={"bank": 2 * 86400, "increment": 0,
                                            "cap": 2 * 86400})

    def take(hours: int) -> dict:
        """The seat to act takes money after ``hours``; the game after it."""
        doc = h.get()
        clock.now += timedelta(hours=hours)
        seat = doc["current_seat"]
        move = next(n for n in h.notations(seat) if n.startswith("take"))
        assert h.submit(seat, move, doc["version"]).status_code == 201
        return h.get()

    take(1)
    take(30)  # the second seat keeps 18 h of its 48
    doc = take(1)
    played = doc["version"]
    deadline = times.from_text(doc["deadline"])
    assert deadline == clock.now + timedelta(hours=18)
    take(1)  # the second seat moves before its mail goes out
    run_due_here(ctx, h.id, lambda r: r.kind == "your_turn" and r.version == played)
    (mail,) = smtp.wait(h.id, "your_turn", where=lambda m: m.version == played)
    assert i18n.date(deadline, "en") in mail.part("plain")


def play_to_the_end(h, rng: random.Random) -> dict:
    doc = h.get(0)
    while doc["status"] != "over":
        seat = doc["current_seat"]
        moves = h.notations(seat)
        takes = [m for m in moves if m.startswith("take")]
        r = h.submit(seat, rng.choice(moves if rng.random() < 0.7 or not takes else takes),
                     doc["version"])
        assert r.status_code == 201, r.get_json()
        doc = h.get(0)
    return doc


@pytest.mark.parametrize("public", [True, False])
def test_the_game_over_mail_links_the_replay(idle_stack, smtp, public):
    """Anyone may replay a finished game: the mail links /replay/<id>; a game its host
    keeps private is replayed from the seat's own link (its token in the fragment)."""
    s, ctx = idle_stack
    h = new_game(s.client, 2, replay_public=public)
    play_to_the_end(h, random.Random(8))
    run_due_here(ctx, h.id, lambda r: r.kind == "game_over")
    for seat in (0, 1):
        (mail,) = smtp.wait(h.id, "game_over",
                            where=lambda m, seat=seat: m.rcpt == [f"p{seat}@example.org"])
        link = f"http://alhambra.test/replay/{h.id}"
        if not public:
            link += f"#token={h.tokens[seat]}"
        assert f"Step through the game move by move: {link}\n" in mail.part("plain")
        assert f'<a href="{link}">' in mail.part("html")
    token = None if public else h.tokens[0]
    assert s.client.get(f"/games/{h.id}/events", headers=auth(token)).status_code == 200
    if not public:  # the link without the token would not open it
        assert s.client.get(f"/games/{h.id}/events").status_code == 403
