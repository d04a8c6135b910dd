"""Vacations (issue 26): the clock stops a seat's time in its player's vacation spans
(a deadline inside one moves out by the time left), each running game's log records the
change, reminders wait, the yearly allowance holds, and others see it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from service import times
from service.clock import Clock, TimeControl
from tests.support import auth, check_problem, claimed, fake_clock, new_game, signed_in

T0 = datetime(2027, 3, 1, 12, tzinfo=UTC)
H = timedelta(hours=1)
DAY = timedelta(days=1)


def ev(since, until, seat=0):
    """A ``vacation`` event of ``seat`` (None, None: called off)."""
    return {"type": "vacation", "seat": seat, "since": since and times.to_text(since),
            "until": until and times.to_text(until)}


def turn_with(control, start, spans=()):
    """The clocks of seat 0's turn from ``start``, with the vacations (seat, since, until)
    set as it began."""
    return Clock.start(control, 2).after(
        [(1, {"type": "turn_started", "seat": 0}, start)] +
        [(2 + i, ev(a, b, seat), start) for i, (seat, a, b) in enumerate(spans)])


def test_the_clock_stops_in_a_vacation():
    control = TimeControl.of(86400, None)
    assert turn_with(control, T0).deadline() == T0 + DAY
    away = [(0, T0 + 2 * H, T0 + 50 * H)]  # inside the turn: out by 48 h
    assert turn_with(control, T0, away).deadline() == T0 + DAY + 48 * H
    assert turn_with(control, T0, [(1, T0 + 2 * H, T0 + 50 * H)]).deadline() == \
        T0 + DAY  # another's
    late = [(0, T0 + 30 * H, T0 + 40 * H)]  # after the deadline: nothing moves
    assert turn_with(control, T0, late).deadline() == T0 + DAY
    clock = turn_with(control, T0, away)
    assert clock.time_left(T0 + 10 * H)[0] == 22 * H  # 2 h ran, then it stood still
    assert clock.reminder_times([0.5]) == [T0 + 12 * H + 48 * H]  # the reminder waits
    assert clock.vacation_until(0, T0 + 3 * H) == T0 + 50 * H
    assert clock.vacation_until(0, T0 + 51 * H) is None
    # with weekends off (2027-03-06 is a Saturday): the days off are not counted twice
    weekends = TimeControl.of(3 * 86400, {"days_off": ["sat", "sun"], "timezone": "UTC"})
    friday = datetime(2027, 3, 5, 12, tzinfo=UTC)
    plain = turn_with(weekends, friday).deadline()
    assert plain == friday + 5 * DAY  # Fri noon + 12 h, Mon, Tue, Wed noon
    off = [(0, datetime(2027, 3, 6, tzinfo=UTC), datetime(2027, 3, 9, tzinfo=UTC))]
    assert turn_with(weekends, friday, off).deadline() == plain + DAY


def test_vacation_events_replace_what_had_not_begun():
    clock = Clock.start(TimeControl.of(86400, None), 2)
    clock = clock.after([(5, ev(T0 + DAY, T0 + 5 * DAY), T0)])
    assert clock.vacation_until(0, T0 + DAY + H) == T0 + 5 * DAY
    clock = clock.after([(9, ev(T0 + 10 * DAY, T0 + 11 * DAY), T0 + 2 * DAY)])
    assert clock.vacation_until(0, T0 + 2 * DAY) is None  # cut short on day 2
    assert clock.vacation_until(0, T0 + 10 * DAY + H) == T0 + 11 * DAY
    clock = clock.after([(12, ev(T0 - DAY, T0 + 21 * DAY), T0 + 20 * DAY)])
    assert clock.vacation_until(0, T0 + 20 * DAY) == T0 + 21 * DAY  # from now at the
    assert clock.away_until(T0 + 20 * DAY) == {0: T0 + 21 * DAY}  # earliest
    clock = clock.after([(13, ev(None, None), T0 + 20 * DAY + H)])
    assert clock.vacation_until(0, T0 + 20 * DAY + H) is None and clock.away == {}


def deadline_of(client, game_id):
    return times.from_text(client.get(f"/games/{game_id}").get_json()["deadline"])


def test_a_vacation_moves_my_deadline_and_is_in_each_games_log(app, client, monkeypatch):
    """A vacation to come changes no game until it begins (issue 39): then each game of
    a seat the player claimed records it, and the deadline moves."""
    me = "away@example.org"
    games = [new_game(client, 2, emails=[me, f"o{i}@example.org"], time_per_move=86400)
             for i in range(2)]
    for g in games:
        token = claimed(app, g, {0: me})[0]
    store = app.extensions["alhambra"].store
    players = app.extensions["alhambra_players"]
    before = {g.id: (deadline_of(client, g.id), g.get()["current_seat"], g.get()["version"])
              for g in games}
    now = times.now()
    since, until = now + H, now + 49 * H
    r = client.patch("/me", json={"vacation": {"from": times.to_text(since),
                                               "until": times.to_text(until)}},
                     headers=auth(token))
    assert r.status_code == 200, r.get_json()
    doc = r.get_json()
    assert doc["vacation"] == {"from": times.to_text(since), "until": times.to_text(until)}
    assert doc["vacation_days_left"] == 21 - 2
    for g in games:  # not begun: no game changed, its beginning is due work
        assert g.get()["version"] == before[g.id][2]
        assert deadline_of(client, g.id) == before[g.id][0]
        begins = [d for d in store.due_rows(g.id) if d.kind == "vacation"]
        assert [(d.due_at, d.seat, d.state) for d in begins] == [(since, 0, "pending")]
    clock = fake_clock(monkeypatch, since)  # the due work runs when it begins
    for g in games:
        assert players.begin_vacation(g.id, 0) == "applied"  # the due work's job
        deadline, seat, version = before[g.id]
        events = client.get(f"/games/{g.id}/events?since={version}").get_json()["events"]
        assert [e["event"]["type"] for e in events] == ["vacation"]  # one event each
        assert events[0]["event"]["seat"] == 0
        assert events[0]["text"].startswith("P0 is on vacation from ")
        moved = deadline_of(client, g.id)
        if seat == 0:  # my turn: my deadline moves out by the vacation
            assert abs((moved - deadline - 48 * H).total_seconds()) < 1
        else:
            assert moved == deadline
        rows = [d for d in store.due_rows(g.id) if d.state == "pending"]
        alarm = [d for d in rows if d.kind == "deadline"]
        assert [d.due_at for d in alarm] == [moved] and alarm[0].version == version + 1
        reminders = sorted(d.due_at for d in rows if d.kind == "reminder")
        if seat == 0:  # they wait for the vacation too
            assert all(t > until for t in reminders) and reminders
        assert not [d for d in rows if d.version == version + 1 and d.kind in
                    ("your_turn", "started", "timeout", "taken_over", "game_over")]  # no mail
    # a vacation called off before it began: nothing recorded, its beginning stale
    clock.now = since + 2 * DAY
    later = clock.now + DAY
    r = client.patch("/me", json={"vacation": {"from": times.to_text(later), "until":
                                               times.to_text(later + DAY)}},
                     headers=auth(token))
    assert r.status_code == 200, r.get_json()
    versions = {g.id: g.get()["version"] for g in games}
    assert client.patch("/me", json={"vacation": None}, headers=auth(token)).status_code == 200
    clock.now = later + H
    for g in games:
        assert players.begin_vacation(g.id, 0) == "stale"
        assert g.get()["version"] == versions[g.id]


def test_edits_of_a_vacation_to_come_never_refuse_an_opponents_move(app, client):
    """Issue 39, probe 6: 40 edits of a vacation not begun wrote 40 events into the
    opponent's game, whose move at the version it had read got 409."""
    me = "editor@example.org"
    game = new_game(client, 2, emails=[me, "rival@example.org"], time_per_move=86400)
    token = claimed(app, game, {0: me})[0]
    version = game.get()["version"]
    start = times.now() + DAY
    for i in range(40):
        r = client.patch("/me", json={"vacation": {
            "from": times.to_text(start + i * H), "until": times.to_text(start + 3 * DAY)}},
            headers=auth(token))
        assert r.status_code == 200, r.get_json()
    assert game.get()["version"] == version  # no event: nothing has begun
    # and a vacation that did begin (recorded in the log) refuses no move either
    r = client.patch("/me", json={"vacation": {"from": times.to_text(times.now()), "until":
                                               times.to_text(times.now() + DAY)}},
                     headers=auth(token))
    assert r.status_code == 200 and game.get()["version"] == version + 1
    seat = game.get()["current_seat"]
    take = next(m for m in game.notations(seat) if m.startswith("take"))
    assert game.submit(seat, take, version=version).status_code == 201


def test_a_vacation_lasts_at_most_the_longest_stretch(app, client):
    token = signed_in(app, "long.trip@example.org")
    start = times.now() + DAY
    r = client.patch("/me", json={"vacation": {"from": times.to_text(start), "until":
                                               times.to_text(start + 15 * DAY)}},
                     headers=auth(token))
    body = check_problem(r, 422, "vacation_refused")
    assert body["stretch"] == 14 and "14 days in a row" in body["detail"]
    r = client.patch("/me", json={"vacation": {"from": times.to_text(start), "until":
                                               times.to_text(start + 14 * DAY)}},
                     headers=auth(token))
    assert r.status_code == 200, r.get_json()


def test_others_see_the_vacation_going_on(app, client):
    me = "now.away@example.org"
    game = new_game(client, 2, emails=["other@example.org", me], time_per_move=86400)
    token = claimed(app, game, {1: me})[1]
    until = times.now() + 3 * DAY
    r = client.patch("/me", json={"vacation": {"from": times.to_text(times.now()),
                                               "until": times.to_text(until)}},
                     headers=auth(token))
    assert r.status_code == 200
    seats = game.get(0)["seats"]
    assert times.from_text(seats[1]["vacation_until"]) == until
    assert seats[0]["vacation_until"] is None


def test_the_yearly_allowance(app, client, monkeypatch):
    token = signed_in(app, "greedy.traveller@example.org")
    start = datetime(times.now().year + 1, 2, 1, tzinfo=UTC)
    clock = fake_clock(monkeypatch, start - DAY)

    def go(days, offset=0):
        return client.patch("/me", json={"vacation": {
            "from": times.to_text(start + offset * DAY),
            "until": times.to_text(start + (offset + days) * DAY)}}, headers=auth(token))

    assert go(14).status_code == 200  # taken: 14 days
    clock.now = start + 20 * DAY
    body = check_problem(go(8, 30), 422, "vacation_refused")
    assert body["allowance"] == 21 and body["year"] == start.year
    assert "21 days a year" in body["detail"]
    assert go(7, 30).status_code == 200  # exactly the allowance
    assert go(7, 31).status_code == 200  # a change of one not begun replaces it
    check_problem(client.patch("/me", json={"vacation": {
        "from": times.to_text(start + 40 * DAY), "until": times.to_text(start + 39 * DAY)}},
        headers=auth(token)), 422, "vacation_refused")
    check_problem(client.patch("/me", json={"vacation": {"from": "tomorrow"}},
                               headers=auth(token)), 422, "validation_error")
