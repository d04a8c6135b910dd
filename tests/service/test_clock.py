"""The game clock (service/clock.py): examples, the checks of a time control, and its
properties under hypothesis (never negative, never running on a day off in any zone
across DST changes, a move never lowering a seat's time, the deadline exactly where the
time left reaches 0)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.clock import (
    DAYS,
    ZERO,
    Clock,
    ControlError,
    TimeControl,
    Turn,
    _zones,
    presets,
    seconds,
    turns,
)

H = timedelta(hours=1)
D = timedelta(days=1)
HELSINKI = ZoneInfo("Europe/Helsinki")
LITTLE_GOLEM = TimeControl.parse(None, {"bank": 240 * 3600, "increment": 36 * 3600,
                                        "cap": 240 * 3600}, 60)


def at(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


def local(*args) -> datetime:
    """A Helsinki wall-clock time, as an instant."""
    return datetime(*args, tzinfo=HELSINKI).astimezone(UTC)


# -- examples ------------------------------------------------------------------------------

def test_a_game_without_a_time_control_has_time_per_move_as_always():
    control = TimeControl.of(3600, None)
    start = at(2026, 3, 28, 23, 30)
    clock = Clock(control, 3, [Turn(0, start - D), Turn(1, start)])
    assert clock.deadline() == start + H
    assert clock.time_left(start + 20 * timedelta(minutes=1)) == [H, 40 * timedelta(
        minutes=1), H]
    assert control.to_json() is None


def test_little_golem_bank_240_hours_plus_36_capped_at_240():
    start = at(2026, 1, 5, 12)
    moves = [Turn(0, start)]
    clock = Clock(LITTLE_GOLEM, 2, moves)
    assert clock.deadline() == start + 240 * H  # a new seat has its whole bank
    # seat 0 thinks 100 h: 140 h left, +36 h = 176 h for its next turn
    moves.append(Turn(1, start + 100 * H))
    clock = Clock(LITTLE_GOLEM, 2, moves)
    assert clock.time_left(start + 100 * H) == [176 * H, 240 * H]
    # seat 1 moves at once: 240 h + 36 h is capped at 240 h
    moves.append(Turn(0, start + 100 * H))
    clock = Clock(LITTLE_GOLEM, 2, moves)
    assert clock.time_left(start + 110 * H) == [166 * H, 240 * H]
    assert clock.deadline() == start + 276 * H
    # seat 0 lets its time run out: its bank is empty, the increment gives it 36 h
    moves.append(Turn(1, start + 300 * H))
    clock = Clock(LITTLE_GOLEM, 2, moves)
    assert clock.time_left(start + 300 * H) == [36 * H, 240 * H]
    clock = Clock(LITTLE_GOLEM, 2, moves, ended_at=start + 301 * H)
    assert clock.deadline() is None
    assert clock.time_left(start + 400 * H) == [36 * H, 240 * H]  # the game ended


def test_weekends_off_in_helsinki_across_the_march_dst_change():
    """Summer time starts on Sunday 29 March 2026 at 03:00 in Helsinki: that weekend has
    47 hours, and none of them counts."""
    control = TimeControl.parse(72 * 3600, {"days_off": ["sat", "sun"],
                                            "timezone": "Europe/Helsinki"}, 60)
    start = local(2026, 3, 27, 20)  # Friday evening: 4 hours of Friday are left
    clock = Clock(control, 2, [Turn(0, start)])
    deadline = clock.deadline()
    # 4 h on Friday, Monday 24 h, Tuesday 24 h, Wednesday 20 h: Wednesday 20:00 (UTC+3)
    assert deadline == local(2026, 4, 1, 20)
    assert deadline - start == 5 * D - H  # the real hours between, one lost to DST
    saturday = local(2026, 3, 28, 0)
    assert clock.time_left(saturday) == [68 * H, 72 * H]
    assert clock.time_left(local(2026, 3, 29, 23, 59)) == [68 * H, 72 * H]  # Sunday
    assert clock.time_left(local(2026, 3, 30, 1)) == [67 * H, 72 * H]  # Monday 01:00
    assert clock.time_left(deadline) == [ZERO, 72 * H]
    # a turn started on a day off starts on Monday at midnight
    clock = Clock(control, 2, [Turn(1, local(2026, 3, 28, 15))])
    assert clock.deadline() == local(2026, 4, 2, 0)


def test_a_weekend_off_says_when_the_clocks_run_again():
    """Saturday and Sunday off in Helsinki: from any instant of the weekend the clocks run
    again on Monday at local midnight; on a working day there is no day off."""
    control = TimeControl.parse(72 * 3600, {"days_off": ["sat", "sun"],
                                            "timezone": "Europe/Helsinki"}, 60)
    monday = local(2026, 3, 30, 0)
    for t in (local(2026, 3, 28, 0), local(2026, 3, 29, 12), monday - timedelta(
            microseconds=1)):
        assert control.day_off_until(t) == monday
    assert control.day_off_until(monday) is None
    assert control.day_off_until(local(2026, 3, 27, 23, 59)) is None  # Friday
    assert TimeControl.of(3600, None).day_off_until(monday) is None


def test_a_bank_with_days_off_reminds_at_fractions_of_what_the_seat_had():
    control = TimeControl.parse(None, {"bank": 10 * 86400, "increment": 86400,
                                       "cap": 10 * 86400, "days_off": ["sun"],
                                       "timezone": "Europe/Helsinki"}, 60)
    start = local(2026, 3, 23, 0)  # a Monday
    clock = Clock(control, 3, [Turn(2, start)])
    # 10 days of clock from Monday: Sunday 29 is off, so the bank is empty on Thursday 2nd
    assert clock.deadline() == local(2026, 4, 3, 0)
    assert clock.reminder_times([0.9, 0.5]) == [local(2026, 3, 28, 0), local(2026, 4, 2, 0)]


def test_time_left_is_shown_in_whole_seconds_rounded_up():
    assert seconds(timedelta(seconds=59, milliseconds=1)) == 60
    assert seconds(timedelta(seconds=60)) == 60 and seconds(ZERO) == 0


def test_turns_come_from_the_clock_events_and_their_times():
    t0, t1, t2, t3 = (at(2026, 1, 1, h) for h in range(4))
    timed = [(10, {"type": "turn_started", "seat": 0}, t0),
             (20, {"type": "turn_started", "seat": 1}, t1),
             # the game end: two tiles of one space to seat 1 are one turn, the next
             # space's tile (after it placed them) another
             (30, {"type": "tile_awarded", "seat": 1}, t2),
             (31, {"type": "tile_awarded", "seat": 1}, t2),
             (35, {"type": "tile_awarded", "seat": 1}, t3),
             (40, {"type": "game_over"}, t3)]
    assert turns(timed) == ([Turn(0, t0), Turn(1, t1), Turn(1, t2), Turn(1, t3)], t3)


def test_a_tile_given_out_in_the_game_ending_batch_is_no_turn():
    """A-6: the last market space's tile, awarded in the batch that ends the game, hands
    its seat no turn: no time runs and no increment is added (it was once counted as a
    turn of no length, +12 h here, and the time-bank game test failed on such games)."""
    control = TimeControl.parse(None, {"bank": 48 * 3600, "increment": 12 * 3600,
                                       "cap": 72 * 3600}, 60)
    t0 = at(2026, 1, 5, 0)
    t1, t2 = t0 + 40 * H, t0 + 48 * H
    timed = [(10, {"type": "turn_started", "seat": 0}, t0),
             (20, {"type": "turn_started", "seat": 1}, t1),
             (30, {"type": "tile_awarded", "seat": 0}, t2),
             (31, {"type": "game_over"}, t2)]
    moves, ended = turns(timed)
    clock = Clock(control, 2, moves, ended_at=ended)
    # seat 0 ran 40 h of its 48 (8 left, +12); seat 1 ran 8 h of its 48 (40 left, +12)
    assert clock.time_left(t2 + D) == [20 * H, 52 * H]


@pytest.mark.parametrize("tpm, doc, field, words", [
    (None, {"bank": 3600}, "time_control", "go together"),
    (None, {"days_off": ["sat"]}, "time_control", "go together"),
    (None, {}, "time_control", "bank, increment and cap, or days_off"),
    (None, {"bank": 59, "increment": 0, "cap": 100}, "time_control.bank", "at least 60"),
    (None, {"bank": 600, "increment": 0, "cap": 599}, "time_control.cap", "below the bank"),
    (3600, {"bank": 600, "increment": 0, "cap": 600}, "time_per_move", "not both"),
    (59, None, "time_per_move", "at least 60"),
    (3600, {"days_off": ["sat", "sonday"], "timezone": "UTC"}, "time_control.days_off",
     "unknown day 'sonday'"),
    (3600, {"days_off": ["sat", "Sat"], "timezone": "UTC"}, "time_control.days_off",
     "twice"),
    (3600, {"days_off": list(DAYS), "timezone": "UTC"}, "time_control.days_off",
     "every day off"),
    (3600, {"days_off": ["sat"], "timezone": "Europe/Atlantis"}, "time_control.timezone",
     "unknown time zone"),
    (3600, {"days_off": ["sat"], "timezone": "../../etc/passwd"}, "time_control.timezone",
     "unknown time zone"),
])
def test_a_time_control_that_cannot_be_is_refused_naming_the_field(tpm, doc, field, words):
    with pytest.raises(ControlError, match=words) as exc:
        TimeControl.parse(tpm, doc, 60)
    assert exc.value.field == field


def test_presets_are_valid_create_requests():
    found = presets()
    assert [p["time_per_move"] // 86400 for p in found if p["time_per_move"]] == \
        [d for d in (1, 2, 3, 5, 7, 10, 14) for _ in (0, 1)]
    for p in found:
        control = TimeControl.parse(p["time_per_move"], p["time_control"], 60)
        assert control.to_json() == p["time_control"]
    assert len({p["id"] for p in found}) == len(found) == 16


# -- properties ----------------------------------------------------------------------------

ZONES = sorted(_zones())
instants = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 1, 1),
                        timezones=st.just(UTC))
durations = st.timedeltas(min_value=ZERO, max_value=timedelta(days=30))
day_sets = st.sets(st.sampled_from(DAYS), min_size=0, max_size=6)


@st.composite
def controls(draw) -> TimeControl:
    days = draw(day_sets)
    doc: dict = {"days_off": sorted(days, key=DAYS.index),
                 "timezone": draw(st.sampled_from(ZONES))} if days else {}
    if draw(st.booleans()):
        bank = draw(st.integers(60, 20 * 86400))
        doc.update(bank=bank, increment=draw(st.integers(0, 5 * 86400)),
                   cap=draw(st.integers(bank, 30 * 86400)))
        return TimeControl.parse(None, doc, 60)
    return TimeControl.parse(draw(st.integers(60, 14 * 86400)), doc or None, 60)


@st.composite
def clocks(draw) -> Clock:
    control = draw(controls())
    players = draw(st.integers(2, 6))
    t = draw(instants)
    played = []
    for _ in range(draw(st.integers(0, 8))):
        played.append(Turn(draw(st.integers(0, players - 1)), t))
        t += draw(durations)
    ended = t if draw(st.booleans()) and played else None
    return Clock(control, players, played, ended)


def off(control: TimeControl, t: datetime) -> bool:
    day = t.astimezone(ZoneInfo(control.timezone or "UTC")).weekday()
    return DAYS[day] in control.days_off


@settings(max_examples=300, deadline=None)
@given(clocks(), instants)
def test_time_left_is_never_negative_nor_above_what_a_seat_can_hold(clock, t):
    c = clock.control
    most = timedelta(seconds=c.cap if c.bank is not None else c.time_per_move)
    for left in clock.time_left(t):
        assert ZERO <= left <= most


@settings(max_examples=300, deadline=None)
@given(controls(), instants, st.timedeltas(min_value=ZERO, max_value=timedelta(days=3)))
def test_the_clock_runs_exactly_on_the_minutes_that_are_not_days_off(control, start, span):
    """Against a count of every minute: the local weekday of each minute, in the zone,
    DST included (offsets of whole minutes since 2020)."""
    start = start.replace(second=0, microsecond=0)
    end = start + timedelta(minutes=span // timedelta(minutes=1))
    minute = timedelta(minutes=1)
    counted = sum((minute for m in range((end - start) // minute)
                   if not off(control, start + m * minute)), ZERO)
    assert control.running(start, end) == counted


@settings(max_examples=300, deadline=None)
@given(clocks(), instants, st.timedeltas(min_value=ZERO, max_value=timedelta(days=2)))
def test_no_clock_runs_on_a_day_off(clock, t, span):
    c = clock.control
    if not c.days_off or not off(c, t):
        return
    _, day_end = c._day(t)
    later = min(t + span, day_end - timedelta(microseconds=1))
    before, after = clock.time_left(t), clock.time_left(later)
    moves = [turn.start for turn in clock.turns] + [clock.ended_at or t]
    if any(t < move <= later for move in moves):  # a move: an increment
        assert all(a >= b for a, b in zip(after, before, strict=True))
    else:
        assert after == before


@settings(max_examples=300, deadline=None)
@given(controls(), instants)
def test_a_day_off_lasts_until_the_first_instant_the_clock_runs(control, t):
    until = control.day_off_until(t)
    if until is None:
        assert not off(control, t)
        return
    assert until > t and not off(control, until)
    assert off(control, until - timedelta(microseconds=1))
    assert control.running(t, until) == ZERO


@settings(max_examples=300, deadline=None)
@given(clocks(), st.integers(0, 5), durations)
def test_a_move_never_lowers_any_seats_time(clock, seat, wait):
    """A new turn (the move that hands it on) at instant t: every seat has at least the
    time it had just before."""
    if clock.ended_at is not None or not clock.turns:
        return
    t = clock.turns[-1].start + wait
    moved = Clock(clock.control, clock.players,
                  [*clock.turns, Turn(seat % clock.players, t)])
    for before, after in zip(clock.time_left(t), moved.time_left(t), strict=True):
        assert after >= before


@settings(max_examples=300, deadline=None)
@given(clocks())
def test_the_deadline_is_exactly_when_the_time_left_reaches_zero(clock):
    deadline = clock.deadline()
    if deadline is None:
        assert clock.ended_at is not None or not clock.turns
        return
    turn = clock.turns[-1]
    had = clock.time_left(turn.start)[turn.seat]
    assert clock.time_left(deadline)[turn.seat] == ZERO
    if had > ZERO:
        assert deadline > turn.start
        assert clock.time_left(deadline - timedelta(microseconds=1))[turn.seat] > ZERO
    for f, when in zip((0.25, 0.5, 1.0), clock.reminder_times([1.0, 0.25, 0.5]),
                       strict=True):
        assert clock.time_left(when)[turn.seat] == max(ZERO, had - had * f)
