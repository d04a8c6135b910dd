"""Clocks in words on the play page (each seat's time_left, counting down; "in your bank"
for a bank; a day off said while it runs) and the replay linked from a finished game's
page, for a seat and for a spectator. In Chromium, games set up through the API."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from service import times
from tests.support import fake_clock

from . import positions as P
from .conftest import watch_errors

WIDE = {"width": 1280, "height": 900}
HELSINKI = ZoneInfo("Europe/Helsinki")
TIME = re.compile(r"(\d+) minutes? (\d+) seconds?")


def create(server, **body) -> P.Position:
    created = server.call("/games", {"variant": "alhambra",
                                     "seats": [{"name": "Ann"}, {"name": "Bob"}], **body})
    return P.Position(server, created["game_id"], [s["token"] for s in created["seats"]],
                      [s["join_url"] for s in created["seats"]])


def opened(new_context, url: str):
    page = new_context(viewport=WIDE).new_page()
    errors = watch_errors(page)
    page.goto(url)
    page.wait_for_selector("#overview [data-clock-seat]")
    return page, errors


def seconds(text: str) -> int:
    m = TIME.search(text)
    assert m, text
    return int(m.group(1)) * 60 + int(m.group(2))


def test_a_bank_counts_down_in_words(server, new_context):
    """A bank of 50 minutes: the seat to act reads "49 minutes 5x seconds left in your
    bank" and sees it run down; the other seat's bank stands still."""
    pos = create(server, time_control={"bank": 3000, "increment": 60, "cap": 3000})
    game = pos.game()
    acting = game["current_seat"]
    page, errors = opened(new_context, pos.urls[acting])
    clock = page.locator("#clock")
    first = clock.inner_text()
    assert first.endswith(" left in your bank.") and 2990 - 60 < seconds(first) <= 3000
    page.wait_for_function("t => document.getElementById('clock').textContent !== t",
                           arg=first, timeout=5000)
    assert seconds(clock.inner_text()) < seconds(first)  # counting down
    mine = page.locator(f"#overview [data-clock-seat='{acting}']").inner_text()
    theirs = page.locator(f"#overview [data-clock-seat='{1 - acting}']").inner_text()
    assert mine.endswith(" in the bank") and theirs == "50 minutes in the bank"
    page.wait_for_timeout(1200)
    assert page.locator(f"#overview [data-clock-seat='{1 - acting}']").inner_text() == theirs
    # the other seat's page: whose time runs, in words
    other, other_errors = opened(new_context, pos.urls[1 - acting])
    name = ["Ann", "Bob"][acting]
    assert re.fullmatch(rf"{name}: \d+ minutes? \d+ seconds? left in the bank\.",
                        other.locator("#clock").inner_text())
    assert errors == [] and other_errors == []


def test_a_weekend_off_stands_the_clock_still_until_monday(server, new_context, monkeypatch):
    """A day a move, weekends off in Helsinki, the game started on a Saturday (the
    server's clock and the browser's set there): "1 day left for this move" and "Weekend
    off" until Monday 00:00; from then on the clock runs down."""
    # the test server's clock
    clock = fake_clock(monkeypatch, datetime(2026, 3, 28, 12, tzinfo=HELSINKI).astimezone(UTC))
    pos = create(server, time_per_move=86400,
                 time_control={"days_off": ["sat", "sun"], "timezone": "Europe/Helsinki"})
    monday = datetime(2026, 3, 30, tzinfo=HELSINKI).astimezone(UTC)
    assert pos.game()["day_off_until"] == times.to_text(monday)
    page = new_context(viewport=WIDE, timezone_id="Europe/Helsinki").new_page()
    errors = watch_errors(page)
    page.clock.install(time=clock.now)
    page.goto(pos.urls[pos.game()["current_seat"]])
    page.wait_for_selector("#overview [data-clock-seat]")
    clock = page.locator("#clock")
    text = clock.inner_text()
    assert re.fullmatch(r"1 day left for this move\. Weekend off: the clocks run again "
                        r"Monday,? 00:00\.", text), text
    page.clock.run_for(3000)
    assert clock.inner_text() == text  # the weekend does not count
    page.clock.fast_forward("36:30:00")  # Monday 01:30 in Helsinki (summer time since Sunday)
    page.wait_for_function("() => !document.getElementById('clock').textContent"
                           ".includes('Weekend')")
    assert clock.inner_text() == "22 hours 30 minutes left for this move."
    assert errors == []


def test_a_finished_game_links_its_replay(server, new_context):
    """Once the game is over, the seat's page links the replay in that seat's view (its
    token in the fragment) and the spectator's page links it for anyone; the link opens
    the replay."""
    pos = create(server)
    rng = random.Random(28)
    game = pos.game()
    while game["status"] != "over":
        seat = game["current_seat"]
        pick = P.builder(rng, pos.legal(seat))
        pos.server.call(f"/games/{pos.game_id}/moves", {"version": game["version"],
                                                        "move": pick["notation"]},
                        pos.tokens[seat])
        game = pos.game()
    page = new_context(viewport=WIDE).new_page()
    errors = watch_errors(page)
    page.goto(pos.urls[0])
    link = page.locator("#final a[data-replay]")
    assert link.get_attribute("href") == f"/replay/{pos.game_id}#token={pos.tokens[0]}"
    assert link.inner_text() == "Step through the game move by move"
    assert page.locator("#overview [data-clock-seat]").count() == 0  # no clock runs
    link.click()
    page.wait_for_selector("body[data-ready]")
    assert page.url.endswith(f"/replay/{pos.game_id}#token={pos.tokens[0]}")
    spectator = new_context(viewport=WIDE).new_page()
    spectator_errors = watch_errors(spectator)
    spectator.goto(f"{server.url}/play/{pos.game_id}")
    assert spectator.locator("#final a[data-replay]").get_attribute("href") == \
        f"/replay/{pos.game_id}"
    assert errors == [] and spectator_errors == []
