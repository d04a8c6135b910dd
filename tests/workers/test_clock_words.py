"""The clock in the mails' words (workers/clock_words.py): durations, the time left with a
bank and per move, days off, the deadline and the time control, in English and in each
language of the catalogs."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from service import i18n
from service.clock import TimeControl
from workers.clock_words import (
    control_words,
    day_off_words,
    deadline_words,
    human_duration,
    time_left_words,
    time_words,
    when_words,
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
    assert time_words(seconds, "en") == words


def test_time_left_with_a_bank_and_per_move():
    assert time_left_words(2 * D + 4 * H, True, "en") == "2 days 4 hours left in your bank"
    assert time_left_words(3 * D, False, "en") == "3 days left for this move"
    assert time_left_words(0, True, "en") == "no time left"


def test_a_day_off_says_when_the_clock_runs_again_in_the_games_zone():
    weekends = TimeControl.parse(None, {**BANK, **WEEKENDS}, 60)
    saturday = datetime(2026, 3, 28, 12, tzinfo=HELSINKI)
    until = weekends.day_off_until(saturday)
    assert day_off_words(weekends, until, "en") == \
        "Weekend off now: your clock runs again Monday 00:00 Europe/Helsinki."
    fridays = TimeControl.parse(D, {"days_off": ["fri"], "timezone": "Asia/Tehran"}, 60)
    friday = datetime(2026, 3, 27, 12, tzinfo=UTC)
    assert day_off_words(fridays, fridays.day_off_until(friday), "en") == \
        "A day off now: your clock runs again Saturday 00:00 Asia/Tehran."


def test_the_time_control_in_words():
    assert control_words(TimeControl.of(72 * H, None), "en") == "3 days per move"
    assert control_words(TimeControl.parse(None, BANK, 60), "en") == \
        "a bank of 10 days, +1 day a move, at most 10 days"
    assert control_words(TimeControl.parse(None, {**BANK, **WEEKENDS}, 60), "en") == \
        "a bank of 10 days, +1 day a move, at most 10 days; weekends off (Europe/Helsinki)"
    assert control_words(TimeControl.parse(2 * D, {"days_off": ["fri", "sun"],
                                                   "timezone": "UTC"}, 60), "en") == \
        "2 days per move; no clock runs on Friday, Sunday (UTC)"


def test_human_duration():
    assert human_duration(72 * H, "en") == "3 days"
    assert human_duration(H, "en") == "1 hour"
    assert human_duration(90, "en") == "90 seconds"
    assert human_duration(1, "en") == "1 second"


def test_deadline_in_words():
    now = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)  # a Monday
    assert deadline_words(datetime(2026, 3, 5, 18, 0, tzinfo=UTC), now, "en") == \
        "in 3 days, Thursday 18:00 UTC"
    assert deadline_words(now + timedelta(hours=5), now, "en") == "in 5 hours, Monday 23:00 UTC"
    assert deadline_words(now, now, "en") == "now, Monday 18:00 UTC"


def _said(lang: str) -> list[str]:
    """Everything the clock says, in ``lang``."""
    control = TimeControl.parse(None, {**BANK, **WEEKENDS}, 60)
    fridays = TimeControl.parse(2 * D, {"days_off": ["fri", "sun"], "timezone": "UTC"}, 60)
    saturday = datetime(2026, 3, 28, 12, tzinfo=HELSINKI)
    friday = datetime(2026, 3, 27, 12, tzinfo=UTC)
    return [time_left_words(2 * D + 4 * H, True, lang), time_left_words(3 * D, False, lang),
            time_left_words(0, False, lang), time_words(59, lang),
            control_words(control, lang), control_words(fridays, lang),
            day_off_words(control, control.day_off_until(saturday), lang),
            day_off_words(fridays, fridays.day_off_until(friday), lang),
            deadline_words(saturday + timedelta(days=3), saturday, lang),
            deadline_words(saturday, saturday, lang)]


@pytest.mark.parametrize("lang", ["el", "ru"])
def test_every_word_is_said_in_the_readers_script(lang):
    """Greek and Russian: nothing of the English is left (a zone's name is no word)."""
    for text in _said(lang):
        words = re.sub(r"Europe/Helsinki|UTC", "", text)
        assert not re.search(r"[A-Za-z]", words) and re.search(r"\w", words), text


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != "en"])
def test_every_sentence_comes_from_the_catalog(lang):
    english = _said("en")
    for text, said in zip(english, _said(lang), strict=True):
        assert said != text, said


def test_the_clock_in_finnish_and_russian():
    now = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)  # a Monday
    assert deadline_words(datetime(2026, 3, 5, 18, 0, tzinfo=UTC), now, "fi") == \
        "3 päivän päästä, torstaina 18.00 UTC"  # Finnish writes 18.00 (issue 34.4)
    assert time_left_words(2 * D + 4 * H, True, "ru") == "ещё 2 дня 4 часа в вашем банке времени"
    assert human_duration(72 * H, "ru") == "3 дня" and human_duration(H, "fi") == "1 tunti"


def test_times_of_day_as_each_language_writes_them():
    """Issue 34.4: Babel's (CLDR's) 24-hour pattern of each language, never a fixed
    ``HH:mm``: Finnish and Danish write 23.19."""
    at = datetime(2026, 12, 3, 23, 19, tzinfo=UTC)
    assert {lang: i18n.time(at, lang) for lang in i18n.LANGUAGES} == {
        "en": "23:19", "fi": "23.19", "da": "23.19", "ru": "23:19", "el": "23:19"}
    assert when_words(at, "Europe/Helsinki", "fi") == "perjantaina 1.19 Europe/Helsinki"
