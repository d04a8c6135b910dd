"""The game clock (service/clock.py): examples, the checks of a time control, and its
properties under hypothesis (never negative, never running on a day off in any zone
across DST changes, a move never lowering a seat's time, the deadline exactly where the
time left reaches 0), and the fold kept beside the game equal to the clock computed from
the whole log (``clock_reference.py``) over random games with banks, days off and
vacations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service import times
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
)
from tests.service.clock_reference import Reference, turns, vacations

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


def fold(control: TimeControl, players: int, started: list[Turn],
         ended_at: datetime | None = None) -> Clock:
    """The clocks of a log whose turns start as ``started`` says (each its own batch),
    ended at ``ended_at``."""
    timed = [(2 * i + 1, {"type": "turn_started", "seat": t.seat}, t.start)
             for i, t in enumerate(started)]
    if ended_at is not None:
        timed.append((2 * len(started) + 1, {"type": "game_over"}, ended_at))
    return Clock.start(control, players).after(timed)


# -- examples ------------------------------------------------------------------------------

def test_a_game_without_a_time_control_has_time_per_move_as_always():
    control = TimeControl.of(3600, None)
    start = at(2026, 3, 28, 23, 30)
    clock = fold(control, 3, [Turn(0, start - D), Turn(1, start)])
    assert clock.deadline() == start + H
    assert clock.time_left(start + 20 * timedelta(minutes=1)) == [H, 40 * timedelta(
        minutes=1), H]
    assert control.to_json() is None


def test_little_golem_bank_240_hours_plus_36_capped_at_240():
    start = at(2026, 1, 5, 12)
    moves = [Turn(0, start)]
    clock = fold(LITTLE_GOLEM, 2, moves)
    assert clock.deadline() == start + 240 * H  # a new seat has its whole bank
    # seat 0 thinks 100 h: 140 h left, +36 h = 176 h for its next turn
    moves.append(Turn(1, start + 100 * H))
    clock = fold(LITTLE_GOLEM, 2, moves)
    assert clock.time_left(start + 100 * H) == [176 * H, 240 * H]
    # seat 1 moves at once: 240 h + 36 h is capped at 240 h
    moves.append(Turn(0, start + 100 * H))
    clock = fold(LITTLE_GOLEM, 2, moves)
    assert clock.time_left(start + 110 * H) == [166 * H, 240 * H]
    assert clock.deadline() == start + 276 * H
    # seat 0 lets its time run out: its bank is empty, the increment gives it 36 h
    moves.append(Turn(1, start + 300 * H))
    clock = fold(LITTLE_GOLEM, 2, moves)
    assert clock.time_left(start + 300 * H) == [36 * H, 240 * H]
    clock = fold(LITTLE_GOLEM, 2, moves, ended_at=start + 301 * H)
    assert clock.deadline() is None
    assert clock.time_left(start + 400 * H) == [36 * H, 240 * H]  # the game ended


def test_weekends_off_in_helsinki_across_the_march_dst_change():
    """Summer time starts on Sunday 29 March 2026 at 03:00 in Helsinki: that weekend has
    47 hours, and none of them counts."""
    control = TimeControl.parse(72 * 3600, {"days_off": ["sat", "sun"],
                                            "timezone": "Europe/Helsinki"}, 60)
    start = local(2026, 3, 27, 20)  # Friday evening: 4 hours of Friday are left
    clock = fold(control, 2, [Turn(0, start)])
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
    clock = fold(control, 2, [Turn(1, local(2026, 3, 28, 15))])
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
    clock = fold(control, 3, [Turn(2, start)])
    # 10 days of clock from Monday: Sunday 29 is off, so the bank is empty on Thursday 2nd
    assert clock.deadline() == local(2026, 4, 3, 0)
    assert clock.reminder_times([0.9, 0.5]) == [local(2026, 3, 28, 0), local(2026, 4, 2, 0)]


def test_time_left_is_shown_in_whole_seconds_rounded_up():
    assert seconds(timedelta(seconds=59, milliseconds=1)) == 60
    assert seconds(timedelta(seconds=60)) == 60 and seconds(ZERO) == 0


def test_the_tiles_of_one_market_space_are_one_turn():
    """A-6: at the game end the tiles of one market space given to a seat in one batch
    are one turn (one increment), the next space's tile (after it placed them) another."""
    control = TimeControl.parse(None, {"bank": 48 * 3600, "increment": 12 * 3600,
                                       "cap": 72 * 3600}, 60)
    t0, t1, t2, t3 = (at(2026, 1, 1, h) for h in range(4))
    timed = [(10, {"type": "turn_started", "seat": 0}, t0),
             (20, {"type": "turn_started", "seat": 1}, t1),
             (30, {"type": "tile_awarded", "seat": 1}, t2),
             (31, {"type": "tile_awarded", "seat": 1}, t2),
             (35, {"type": "tile_awarded", "seat": 1}, t3),
             (40, {"type": "game_over"}, t3)]
    clock = Clock.start(control, 2).after(timed)
    # seat 0: 1 h of 48, +12; seat 1: 1 h (+12), then 1 h for the two tiles (+12, once);
    # the tile of the game-ending batch is no turn
    assert clock.time_left(t3 + D) == [59 * H, 70 * H]
    assert clock.deadline() is None and clock.ended_at == t3
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
    clock = Clock.start(control, 2).after(timed)
    # seat 0 ran 40 h of its 48 (8 left, +12); seat 1 ran 8 h of its 48 (40 left, +12)
    assert clock.time_left(t2 + D) == [20 * H, 52 * H]


def test_the_fold_is_kept_as_json_and_read_back_the_same():
    control = TimeControl.parse(None, {"bank": 48 * 3600, "increment": 12 * 3600,
                                       "cap": 72 * 3600}, 60)
    t0 = at(2026, 1, 5, 0, 0, 0, 123000)
    clock = Clock.start(control, 3).after([
        (1, {"type": "turn_started", "seat": 0}, t0),
        (2, {"type": "vacation", "seat": 1, "since": times.to_text(t0 + H),
             "until": times.to_text(t0 + 5 * D)}, t0 + H),
        (3, {"type": "turn_started", "seat": 1}, t0 + 2 * H)])
    doc = clock.to_json()
    assert Clock.from_json(control, doc) == clock
    assert doc["turn"] == [1, "2026-01-05T02:00:00.123Z"] and doc["last"] == [3, 1]
    assert doc["left"][0] == (48 - 2 + 12) * 3600 * 10**6
    assert clock.vacation_until(1, t0 + 3 * H) == t0 + 5 * D
    assert clock.deadline() == t0 + 5 * D + 48 * H  # seat 1's clock waits for its return


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
    """The clocks of random turns (some in one instant), the game ended or not."""
    control = draw(controls())
    players = draw(st.integers(2, 6))
    t = draw(instants)
    played = []
    for _ in range(draw(st.integers(0, 8))):
        played.append(Turn(draw(st.integers(0, players - 1)), t))
        t += draw(durations)
    ended = t if draw(st.booleans()) and played else None
    return fold(control, players, played, ended)


def since_last(clock: Clock, wait: timedelta) -> datetime:
    """An instant ``wait`` after the clocks' latest batch (its answers hold from then)."""
    return (clock.ended_at or (clock.turn.start if clock.turn else INSTANT_0)) + wait


INSTANT_0 = datetime(2020, 1, 1, tzinfo=UTC)


def off(control: TimeControl, t: datetime) -> bool:
    day = t.astimezone(ZoneInfo(control.timezone or "UTC")).weekday()
    return DAYS[day] in control.days_off


@settings(max_examples=300, deadline=None)
@given(clocks(), durations)
def test_time_left_is_never_negative_nor_above_what_a_seat_can_hold(clock, wait):
    c = clock.control
    most = timedelta(seconds=c.cap if c.bank is not None else c.time_per_move)
    for left in clock.time_left(since_last(clock, wait)):
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
@given(clocks(), durations, st.timedeltas(min_value=ZERO, max_value=timedelta(days=2)))
def test_no_clock_runs_on_a_day_off(clock, wait, span):
    c = clock.control
    t = since_last(clock, wait)
    if not c.days_off or not off(c, t):
        return
    _, day_end = c._day(t)
    later = min(t + span, day_end - timedelta(microseconds=1))
    assert clock.time_left(later) == clock.time_left(t)


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
    if clock.turn is None:
        return
    t = clock.turn.start + wait
    players = len(clock.left)
    moved = clock.after([(1 << 20, {"type": "turn_started", "seat": seat % players}, t)])
    for before, after in zip(clock.time_left(t), moved.time_left(t), strict=True):
        assert after >= before


@settings(max_examples=300, deadline=None)
@given(clocks())
def test_the_deadline_is_exactly_when_the_time_left_reaches_zero(clock):
    deadline = clock.deadline()
    if deadline is None:
        assert clock.turn is None
        return
    turn = clock.turn
    had = clock.left[turn.seat]
    assert clock.time_left(deadline)[turn.seat] == ZERO
    if had > ZERO:
        assert deadline > turn.start
        assert clock.time_left(deadline - timedelta(microseconds=1))[turn.seat] > ZERO
    for f, when in zip((0.25, 0.5, 1.0), clock.reminder_times([1.0, 0.25, 0.5]),
                       strict=True):
        assert clock.time_left(when)[turn.seat] == max(ZERO, had - had * f)


# -- the fold against the whole log ----------------------------------------------------------

@st.composite
def logs(draw) -> tuple[TimeControl, int, list[list[tuple[int, dict, datetime]]]]:
    """A random game's clock events in batches (one instant each, later and later): turns
    started, tiles awarded (several to a seat in a row, or to several seats), vacations
    set and called off, and perhaps the game's end. Mostly banks (where a turn's length
    counts), with increments small enough that the cap hides little."""
    control = draw(controls())
    if draw(st.integers(0, 3)):
        bank = draw(st.integers(3600, 6 * 86400))
        doc = {**(control.to_json() or {}), "bank": bank,
               "increment": draw(st.integers(0, bank // 4)),
               "cap": draw(st.integers(bank, 2 * bank))}
        control = TimeControl.parse(None, doc, 60)
    players = draw(st.integers(2, 6))
    t = draw(instants).replace(microsecond=0)
    version, batches, acting = 1, [], 0
    for _ in range(draw(st.integers(1, 14))):
        t += timedelta(milliseconds=draw(st.integers(1, 4 * 86400 * 1000)))
        kind = draw(st.sampled_from(["turn", "turn", "turn", "tiles", "vacation", "end"]))
        batch: list[tuple[int, dict, datetime]] = []
        if kind == "turn":
            acting = draw(st.integers(0, players - 1))
            batch.append((version, {"type": "turn_started", "seat": acting}, t))
        elif kind in ("tiles", "end"):
            for seat in draw(st.lists(st.integers(0, players - 1),
                                      min_size=kind == "tiles", max_size=4)):
                version += draw(st.integers(0, 1))  # a gap: another event between
                batch.append((version, {"type": "tile_awarded", "seat": seat}, t))
                version += 1
                acting = seat
            if kind == "end":
                batch.append((version, {"type": "game_over"}, t))
        else:  # mostly the seat to act's (its clock stops), else another's
            seat = draw(st.sampled_from([acting, acting, draw(st.integers(0, players - 1))]))
            if draw(st.integers(0, 3)):
                since = t + draw(st.timedeltas(min_value=timedelta(days=-2),
                                               max_value=timedelta(days=3)))
                until = since + draw(st.timedeltas(min_value=ZERO,
                                                   max_value=timedelta(days=4)))
                span = {"since": times.to_text(since), "until": times.to_text(until)}
            else:
                span = {"since": None, "until": None}
            batch.append((version, {"type": "vacation", "seat": seat, **span}, t))
        version += 1
        batches.append(batch)
        if kind == "end":
            break
    return control, players, batches


@settings(max_examples=400, deadline=None)
@given(logs(), st.lists(durations, min_size=1, max_size=3))
def test_the_fold_kept_beside_the_game_says_what_the_whole_log_says(log, waits):
    """Issue 32: each batch carries the clocks forward from the kept JSON; after every
    batch they give the time left, the deadline, the reminders and the vacations that
    the clock computed from the whole log gives."""
    control, players, batches = log
    kept = Clock.start(control, players).to_json()
    timed: list[tuple[int, dict, datetime]] = []
    for batch in batches:
        timed += batch
        clock = Clock.from_json(control, kept).after(batch)
        kept = clock.to_json()
        played, ended = turns(timed)
        whole = Reference(control, players, played, ended, vacations(timed))
        assert clock.deadline() == whole.deadline()
        assert clock.reminder_times([0.9, 0.5]) == whole.reminder_times([0.5, 0.9])
        for wait in waits:
            t = batch[0][2] + wait
            assert clock.time_left(t) == whole.time_left(t)
            assert [clock.vacation_until(s, t) for s in range(players)] == \
                [whole.vacation_until(s, t) for s in range(players)]
