"""The clock in the mails' words (workers/clock_words.py): durations, the time left with a
bank and per move, days off, the deadline and the time control."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from service.clock import TimeControl
from workers import clock_words
from workers.clock_words import (
    WORDS,
    control_words,
    day_off_words,
    deadline_words,
    human_duration,
    say,
    time_left_words,
    time_words,
)

D, H, M = 86400, 3600, 60
HELSINKI = ZoneInfo("Europe/Helsinki")
BANK = {"bank": 10 * D, "increment": D, "cap": 10 * D}
WEEKENDS = {"days_off": ["sat", "sun"], "timezone": "Europe/Helsinki"}


@pytest.mark.parametrize("seconds,words", [
    (3 * D, "3 days"), (2 * D + 4 * H + 59 * M, "2 days 4 hours"), (D, "1 day"),
    (D + 30 * M, "1 day"), (5 * H + 10 * M + 20, "5 hours 10 minutes"), (H, "1 hour"),
    (12 * M, "12 minutes"), (M, "1 minute"), (59, "less than a minute"),
    (3 * D - 20, "3 days"),  # a mail written seconds after the turn started
])
def test_a_time_left_in_its_two_largest_units(seconds, words):
    assert time_words(seconds) == words


def test_time_left_with_a_bank_and_per_move():
    assert time_left_words(2 * D + 4 * H, bank=True) == "2 days 4 hours left in your bank"
    assert time_left_words(3 * D, bank=False) == "3 days left for this move"
    assert time_left_words(0, bank=True) == "no time left"


def test_a_day_off_says_when_the_clock_runs_again_in_the_games_zone():
    weekends = TimeControl.parse(None, {**BANK, **WEEKENDS}, 60)
    saturday = datetime(2026, 3, 28, 12, tzinfo=HELSINKI)
    until = weekends.day_off_until(saturday)
    assert day_off_words(weekends, until) == \
        "Weekend off now: your clock runs again Monday 00:00 Europe/Helsinki."
    fridays = TimeControl.parse(D, {"days_off": ["fri"], "timezone": "Asia/Tehran"}, 60)
    friday = datetime(2026, 3, 27, 12, tzinfo=UTC)
    assert day_off_words(fridays, fridays.day_off_until(friday)) == \
        "A day off now: your clock runs again Saturday 00:00 Asia/Tehran."


def test_the_time_control_in_words():
    assert control_words(TimeControl.of(72 * H, None)) == "3 days per move"
    assert control_words(TimeControl.parse(None, BANK, 60)) == \
        "a bank of 10 days, +1 day a move, at most 10 days"
    assert control_words(TimeControl.parse(None, {**BANK, **WEEKENDS}, 60)) == \
        "a bank of 10 days, +1 day a move, at most 10 days; weekends off (Europe/Helsinki)"
    assert control_words(TimeControl.parse(2 * D, {"days_off": ["fri", "sun"],
                                                   "timezone": "UTC"}, 60)) == \
        "2 days per move; no clock runs on Friday, Sunday (UTC)"


def test_human_duration():
    assert human_duration(72 * H) == "3 days"
    assert human_duration(H) == "1 hour"
    assert human_duration(90) == "90 seconds"
    assert human_duration(1) == "1 second"


def test_deadline_in_words():
    now = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)  # a Monday
    assert deadline_words(datetime(2026, 3, 5, 18, 0, tzinfo=UTC), now) == \
        "in 3 days, Thursday 18:00 UTC"
    assert deadline_words(now + timedelta(hours=5), now) == "in 5 hours, Monday 23:00 UTC"
    assert deadline_words(now, now) == "now, Monday 18:00 UTC"


def _shout(text: str) -> str:
    """Upper case outside the {fields}."""
    return "".join(part if part.startswith("{") else part.upper()
                   for part in re.split(r"(\{[a-z_]+\})", text))


def test_every_word_comes_through_say(monkeypatch):
    """A translation replaces WORDS (or say): nothing of the English is left."""
    shout = {k: tuple(map(_shout, v)) if isinstance(v, tuple) else _shout(v)
             for k, v in WORDS.items()}
    monkeypatch.setattr(clock_words, "WORDS", shout)
    control = TimeControl.parse(None, {**BANK, **WEEKENDS}, 60)
    saturday = datetime(2026, 3, 28, 12, tzinfo=HELSINKI)
    said = [time_left_words(2 * D + 4 * H, True), time_left_words(0, False),
            control_words(control), day_off_words(control, control.day_off_until(saturday)),
            deadline_words(saturday + timedelta(days=3), saturday), say("under_a_minute"),
            human_duration(90)]
    for text in said:
        words = text.replace("Europe/Helsinki", "")  # a zone's name is not a word
        assert words == words.upper() and any(c.isalpha() for c in words), text
