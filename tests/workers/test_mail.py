"""A move leads to exactly one "your turn" mail, with the right content, even when its
job runs again; the "game started" mail carries the seat's working secret link, and is
the first "your turn" mail of the seat to move (issue 24: one mail where one is meant)."""

from __future__ import annotations

import random
import re

from rq import Queue

from engine import overview, terms
from engine.components import card_currency as engine_currency
from engine.describe import tile_words
from service import i18n, times
from service.store import Due
from tests.support import auth, new_game, play_random, replayed, wait_until
from workers.jobs import run_due


def test_one_your_turn_mail_with_the_right_content_even_when_the_job_runs_twice(stack, smtp):
    h = new_game(stack.client, 3)
    doc = h.get()
    first, setup = doc["current_seat"], doc["version"]
    started = smtp.wait(h.id, "started", 3)
    (first_mail,) = [m for m in started if m.rcpt == [f"p{first}@example.org"]]
    assert first_mail.status == "Game started: your turn, move 1"
    assert first_mail.subject == f"Alhambra · game {h.id[:8]} · P0, P1, P2"
    assert "Your legal moves" in first_mail.part("plain")
    assert all("Your legal moves" not in m.part("plain") for m in started
               if m is not first_mail)

    move = h.notations(first)[0]
    r = h.submit(first, move, setup)
    assert r.status_code == 201, r.get_json()
    version = r.get_json()["version"]
    nxt = (first + 1) % 3
    (mail,) = smtp.wait(h.id, "your_turn", where=lambda m: m.version == version)

    # to the next seat, about this game and this move
    assert mail.rcpt == [f"p{nxt}@example.org"]
    assert mail.subject == first_mail.subject  # one subject: one thread
    assert mail.status == f"Your turn, move {h.get()['view']['turn']}"
    assert mail.msg["Message-ID"].startswith(f"<{h.id}-{version:05d}-your_turn-seat{nxt}@")
    text, html = mail.part("plain"), mail.part("html")
    view = h.get(nxt)
    assert view["current_seat"] == nxt and view["version"] == version
    deadline = times.from_text(view["deadline"])
    assert f"Deadline: in 3 days, {deadline:%A %H:%M} UTC ({i18n.date(deadline, 'en')})" \
        in text
    hand = view["view"]["seats"][nxt]["hand"]
    assert f"Your hand ({len(hand)} cards):" in text
    assert f"P{first} took " in text  # what changed since the seat's last move ({move})
    for i, card in enumerate(view["view"]["display"], 1):  # in words, not DI5
        assert f"{i}: {terms.CURRENCY_NAMES[engine_currency(card)]} {card[2:]}" in text
        assert card not in text.split("Reply with")[0].split("Your legal moves")[0]
    state = replayed(stack.games, h.id)
    for space in view["view"]["market"]:  # in words, with walls, as the history says them
        for tile in space["tiles"]:
            line = f"{tile['id']}: {tile_words(tile['id'], state=state, sides=True)}"
            assert line in text and ("walls" in line or "a wall" in line)
        assert "_" not in text.split("Building market:")[1].split("Your city")[0]
    for space in overview.exact_spaces(state, nxt):  # MAIL.md: which spaces pay exactly
        assert re.search(rf"^  {space} · .*\[you can pay exactly\]", text, re.M)
    for purse in overview.purses(state.hands[nxt]):  # the hand by currency, with sums
        values = " + ".join(map(str, purse.values))
        assert (f"  {purse.currency}: {values} = {purse.total}" if len(purse.values) > 1
                else f"  {purse.currency}: {values}") in text
    legal = h.notations(nxt)
    listed = re.findall(r"^  (\S.*)$", text.split("Your legal moves")[1].split("\n--\n")[0],
                        re.M)
    assert listed == legal[:60]
    assert "your turn" in html and h.id in html and f"P{first} took " in html
    # nothing about another seat's hand
    for other in range(3):
        if other != nxt:
            assert "hand" not in view["view"]["seats"][other]

    # The same work again through RQ and the real worker: the row's job twice (a job
    # delivered again) and the batch to plan again (a ``plan`` row, as an upgrade leaves
    # one): nothing more.
    # the mail reaches the SMTP server a moment before its worker marks the row done
    (row,) = wait_until(lambda: [d for d in stack.store.due_rows(h.id)
                                 if d.kind == "your_turn" and d.version == version
                                 and d.state == "done"], 15, what="the mail's row done")
    assert (row.state, row.result, row.attempts, row.seat) == ("done", "sent", 1, nxt)
    queue = Queue("main", connection=stack.context().redis)
    jobs = [queue.enqueue(run_due, row.id, row.attempts, job_id=f"due-{row.id}-again{i}")
            for i in range(2)]
    stack.store.add_due(h.id, [Due("plan", version, times.now(), from_version=setup + 1,
                                   args={"mails": True})])

    def done():
        for job in jobs:
            job.refresh()
        return all(j.is_finished or j.is_failed for j in jobs)

    wait_until(done, 15, what="the repeated jobs")
    assert [j.return_value() for j in jobs] == ["not-mine", "not-mine"]
    plan = wait_until(lambda: [d for d in stack.store.due_rows(h.id)
                               if d.kind == "plan" and d.state == "done"], 15,
                      what="the plan row done")
    assert [(p.from_version, p.version, p.result) for p in plan] == \
        [(setup + 1, version, "planned")]
    assert len(smtp.of(h.id, "your_turn")) == 1  # the first seat's came as "started"
    assert len([m for m in smtp.of(h.id) if m.version == version]) == 1
    row = next(d for d in stack.store.due_rows(h.id) if d.id == row.id)
    assert (row.state, row.attempts, row.last_error) == ("done", 1, None) and row.done_at


def test_started_mail_carries_each_seat_working_link(stack, smtp):
    h = new_game(stack.client, 2, time_per_move=3600)
    mails = smtp.wait(h.id, "started", 2)
    for seat in range(2):
        (mail,) = [m for m in mails if m.rcpt == [f"p{seat}@example.org"]]
        text = mail.part("plain")
        link = re.search(r"http://alhambra\.test/play/\S+#token=(\S+)", text)
        assert link, text
        assert link.group(1) == h.tokens[seat]
        r = stack.client.get(f"/games/{h.id}/legal-moves", headers=auth(link.group(1)))
        assert r.status_code == 200 and r.get_json()["seat"] == seat
        assert "1 hour per move" in text
        assert link.group(0) in mail.part("html")
    # the tokens themselves are nowhere in the database
    with stack.store.d.reading() as db:
        dump = "\n".join(db.raw.iterdump())
    assert not any(t in dump for t in h.tokens)


def test_your_turn_mail_shows_the_majorities_the_next_scoring_would_count(stack, smtp):
    """MAIL.md: the majorities overview, types by seats, who would score what (A-5.1)."""
    h = new_game(stack.client, 2)
    setup = h.get()["version"]
    rng = random.Random(5)
    while not any(overview.majorities(replayed(stack.games, h.id))):
        play_random(h, rng, max_moves=1)
    doc = h.get()
    state = replayed(stack.games, h.id)
    seat = doc["current_seat"]  # its "your turn" mail: the "started" one at the start
    (mail,) = smtp.wait(h.id, "your_turn" if doc["version"] > setup else "started",
                        where=lambda m: m.version == doc["version"] and
                        m.rcpt == [f"p{seat}@example.org"])
    text = mail.part("plain")
    scoring = terms.SCORINGS[overview.next_scoring(state)]
    section = text.split(f"Majorities (the {scoring}, if it were now):")[1] \
        .split("Your city")[0]
    lines = [line.strip() for line in section.strip().splitlines()]
    names = {**dict(enumerate(s["name"] for s in doc["view"]["seats"])), "neutral": "Dirk"}
    assert len(lines) == len(overview.majorities(state))
    for line, m in zip(lines, overview.majorities(state), strict=True):
        assert line.startswith(terms.PLURALS[m.building] + ": ")
        for seat, count in m.counts.items():
            assert f"{names[seat]} {count}" in line.split(" -> ")[0]
        for seat, points in m.points.items():
            assert f"{names[seat]} +{points}" in line.split(" -> ")[1]
