"""Time controls through the API, on a fake clock, on SQLite and PostgreSQL: a game with
a bank and weekends off played to its end, its row's deadline and the document's
time_left checked after every submission against the bank each seat should have, with
timeouts played at the deadline as the deadline job plays them."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

import engine
from service import create_app, present, times
from service.clock import TimeControl, seconds
from service.store import open_store
from tests.support import (
    FakeClock,
    StoreSpec,
    auth,
    check_problem,
    fake_clock,
    new_game,
    random_api_move,
    stored,
)

HELSINKI = ZoneInfo("Europe/Helsinki")
H = timedelta(hours=1)
CONTROL = {"bank": 48 * 3600, "increment": 12 * 3600, "cap": 72 * 3600,
           "days_off": ["sat", "sun"], "timezone": "Europe/Helsinki"}


def local(*args) -> datetime:
    return datetime(*args, tzinfo=HELSINKI).astimezone(UTC)



@pytest.fixture(params=["sqlite", "postgres"])
def app(request, tmp_path):
    if request.param == "sqlite":
        spec = StoreSpec("sqlite", str(tmp_path / "alhambra.db"))
    else:
        spec = StoreSpec("postgres", request.getfixturevalue("pg_database").schema())
        store = open_store(spec.settings(), check_schema=False)
        store.migrate()
        store.close()
    app = create_app(spec.settings())
    yield app
    app.extensions["alhambra"].store.close()


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    # a Friday; summer time starts on Sunday
    return fake_clock(monkeypatch, local(2026, 3, 27, 10))


def test_a_game_with_a_bank_and_weekends_off_to_its_end(app, clock):
    client = app.test_client()
    games = app.extensions["alhambra"]
    control = TimeControl.parse(None, CONTROL, 60)
    g = new_game(client, 3, time_control=CONTROL)
    doc = g.get(0)
    assert doc["time_control"] == CONTROL and doc["time_per_move"] == 48 * 3600
    # 14 h of Friday, the weekend off, Monday, 10 h of Tuesday
    assert doc["deadline"] == times.to_text(local(2026, 3, 31, 10))
    clock.now = local(2026, 3, 28, 12)  # Saturday: the first seat has used 14 h
    seat = doc["current_seat"]
    assert g.get()["seats"][seat]["time_left"] == 34 * 3600
    # the clocks run again on Monday at local midnight
    assert g.get()["day_off_until"] == times.to_text(local(2026, 3, 30, 0))

    rng = random.Random(28)
    banks = [control.initial] * 3
    start, acting = local(2026, 3, 27, 10), seat
    timeouts = submissions = 0
    while doc["status"] != "over":
        game = games.game(g.id)
        if rng.random() < 0.03:  # the seat lets its time run out
            clock.now = game.deadline
            state = games.state(g.id)
            answer = present.played(games.submit(game, acting,
                                                 engine.default_moves(state, acting),
                                                 state.version, None, timeout=True))
            timeouts += 1
        else:
            clock.now += rng.choice([timedelta(seconds=1), timedelta(minutes=5), 7 * H, 30 * H])
            clock.now = min(clock.now, game.deadline)
            r = g.submit(doc["current_seat"], random_api_move(g.legal(doc["current_seat"]),
                                                              rng), doc["version"])
            assert r.status_code == 201, r.get_json()
            answer = r.get_json()
        submissions += 1
        events = [item["event"] for item in answer["events"]]
        if engine.clock_started(events) or events[-1]["type"] == "game_over":
            # a turn ended: the mover's bank, run down, plus the increment, capped
            banks[acting] = control.after_turn(banks[acting],
                                               control.running(start, clock.now))
            start, acting = clock.now, answer["view"]["current"]
        doc = g.get()
        assert (doc["day_off_until"] is not None) == (
            doc["status"] == "active" and control.day_off_until(clock.now) is not None)
        if doc["status"] == "over":
            assert doc["deadline"] is None
            break
        assert acting == doc["current_seat"]
        assert doc["deadline"] == times.to_text(control.advance(start, banks[acting]))
        left = [s["time_left"] for s in doc["seats"]]
        used = control.running(start, clock.now)
        assert left == [seconds(banks[i] - (used if i == acting else timedelta(0)))
                        for i in range(3)]
    assert timeouts >= 3 and submissions > 100
    assert [s["time_left"] for s in doc["seats"]] == [seconds(b) for b in banks]


def test_a_bad_time_control_is_refused_and_creates_nothing(app):
    client = app.test_client()
    body = {"seats": [{"name": "A"}, {"name": "B"}]}
    for control, field in [({"days_off": ["sat", "caturday"], "timezone": "UTC"},
                             "time_control.days_off"),
                           ({"days_off": ["sat"], "timezone": "Mars/Olympus"},
                            "time_control.timezone"),
                           ({"bank": 3600, "increment": 60, "cap": 60}, "time_control.cap"),
                           ({"bank": 30, "increment": 60, "cap": 60}, "time_control.bank"),
                           ({"bank": 3600}, "time_control")]:
        problem = check_problem(client.post("/games", json={**body, "time_control": control}),
                                422, "invalid_option")
        assert problem["field"] == field, problem
    problem = check_problem(client.post("/games", json={
        **body, "time_per_move": 3600,
        "time_control": {"bank": 3600, "increment": 60, "cap": 7200}}), 422, "invalid_option")
    assert problem["field"] == "time_per_move"
    check_problem(client.post("/games", json={**body, "time_control": {"bank": "x"}}), 422,
                  "validation_error")
    assert stored(app.extensions["alhambra"].store, "games") == 0


def test_presets_create_games(app):
    client = app.test_client()
    presets = client.get("/time-controls").get_json()["presets"]
    assert {p["id"] for p in presets} >= {"1d", "14d-weekends", "bank10d", "bank10d-weekends"}
    for p in presets:
        body = {"seats": [{"name": "A"}, {"name": "B"}], "time_control": p["time_control"]}
        if p["time_per_move"]:
            body["time_per_move"] = p["time_per_move"]
        r = client.post("/games", json=body, headers=auth(None))
        assert r.status_code == 201, r.get_json()
        assert r.get_json()["game"]["time_control"] == p["time_control"]
