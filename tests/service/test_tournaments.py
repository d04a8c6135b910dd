"""Tournaments and leagues (issue 36), played through the API by scripted players:
random legal moves through the application layer, the runner run by the workers' own
job when each game ends; the final standings checked against a hand computation."""

from __future__ import annotations

import itertools
import random
from collections import Counter, defaultdict
from datetime import timedelta

import pytest

from engine.bots import random_move
from service import times
from service.pairing import Round
from tests.service.test_pairing import fewest_repeats
from tests.support import auth, check_problem, signed_in


def account(app, email: str, handle: str) -> str:
    token = signed_in(app, email)
    r = app.test_client().patch("/me", json={"handle": handle}, headers=auth(token))
    assert r.status_code == 200, r.get_json()
    return token


def people(app, n: int) -> dict[str, str]:
    """``n`` accounts with handles p01, p02, …: handle → token."""
    return {f"p{i:02d}": account(app, f"p{i:02d}@example.org", f"p{i:02d}")
            for i in range(1, n + 1)}


def make(app, organiser: str, **body) -> dict:
    r = app.test_client().post("/tournaments", json={"name": "Cup", **body},
                               headers=auth(organiser))
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def enter_all(app, tid: str, tokens) -> None:
    for token in tokens:
        r = app.test_client().post(f"/tournaments/{tid}/entries", headers=auth(token))
        assert r.status_code == 200, r.get_json()


def doc_of(app, tid: str) -> dict:
    r = app.test_client().get(f"/tournaments/{tid}")
    assert r.status_code == 200, r.get_json()
    return r.get_json()


@pytest.fixture
def ctx(app):
    from workers.context import Context

    c = Context(app.extensions["alhambra_settings"])
    yield c
    c.close()


def finish(games, game_id: str, rng: random.Random) -> None:
    """Play the game to its end: random moves for the people, a bot's for a seat a bot
    took (through the application layer, as the workers do)."""
    while True:
        game = games.game(game_id)
        if game.status == "over":
            return
        state = games.state(game_id)
        if state.current in state.bots:
            games.play_bot(game_id, state.version)
        else:
            games.submit(game, state.current, [random_move(state, state.current, rng)],
                         state.version, None)


def run_tournament_rows(ctx, game_id: str) -> list[str]:
    """The game's ``tournament`` due rows run by the job's own handler (the claiming
    loop's order would serve the many mails of the games first)."""
    from service.store import Claim
    from workers import jobs

    rows = [r for r in ctx.store.due_rows(game_id) if r.kind == "tournament"]
    return [jobs.HANDLERS[r.kind](ctx, r, Claim(r.id, r.attempts)).result for r in rows]


def play_out(app, ctx, tid: str, rng: random.Random, most: int = 20) -> dict:
    """Play each round's games to their end, each end running the due work of its
    game (the tournament's runner among it), until the tournament finishes."""
    games = app.extensions["alhambra"]
    for _ in range(most):
        doc = doc_of(app, tid)
        if doc["status"] == "finished":
            return doc
        for table in doc["rounds"][-1]["tables"]:
            if table["scores"] is None:
                finish(games, table["game_id"], rng)
                ran = run_tournament_rows(ctx, table["game_id"])
                assert ran and all(v in ("waiting", "paired", "finished") for v in ran), ran
    raise AssertionError("the tournament did not finish")


def hand_points(rounds, sizes_points=None, bye=0.5) -> dict[str, float]:
    """Points computed by hand from the tables' scores: the default rank points (first
    1, last 0, evenly between), tied players sharing, byes ``bye``."""
    points: dict[str, float] = defaultdict(float)
    for r in rounds:
        for p in r["byes"]:
            points[p] += bye
        for t in r["tables"]:
            n = len(t["players"])
            for p, s in zip(t["players"], t["scores"], strict=True):
                above = sum(1 for x in t["scores"] if x > s)
                tied = sum(1 for x in t["scores"] if x == s)
                ranks = range(above, above + tied)
                points[p] += sum((n - 1 - k) / (n - 1) for k in ranks) / tied
    return points


def check_standings(doc, expected: dict[str, float]) -> None:
    got = {s["handle"]: s["points"] for s in doc["standings"]}
    assert got == pytest.approx(dict(expected), abs=1e-4), (got, expected)
    pts = [s["points"] for s in doc["standings"]]
    assert pts == sorted(pts, reverse=True)


def test_a_swiss_of_ten_at_four_player_tables(app, ctx):
    tokens = people(app, 11)
    organiser = tokens.pop("p11")
    t = make(app, organiser, format="swiss", table_size=4, rounds=3, seed=7)
    assert t["status"] == "open" and t["organiser"] == "p11" and t["rounds"] == []
    enter_all(app, t["id"], tokens.values())
    r = app.test_client().post(f"/tournaments/{t['id']}/start", headers=auth(organiser))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["status"] == "running" and r.get_json()["round"] == 1
    doc = play_out(app, ctx, t["id"], random.Random(1))
    assert len(doc["rounds"]) == 3
    met: Counter = Counter()
    before: list[Round] = []
    for rnd in doc["rounds"]:
        tables = tuple(tuple(table["players"]) for table in rnd["tables"])
        repeats = sum(met[frozenset(p)] for table in tables
                      for p in itertools.combinations(table, 2))
        assert repeats == fewest_repeats(sorted(tokens), [4, 3, 3], before)
        before.append(Round(tables))
        seated = [p for table in rnd["tables"] for p in table["players"]]
        assert sorted(len(table["players"]) for table in rnd["tables"]) == [3, 3, 4]
        assert sorted(seated + rnd["byes"]) == sorted(tokens) and rnd["byes"] == []
        for table in rnd["tables"]:
            met.update(frozenset(p) for p in itertools.combinations(table["players"], 2))
            game = app.test_client().get(f"/games/{table['game_id']}").get_json()
            assert [s["name"] for s in game["seats"]] == table["players"]
            assert game["status"] == "over"
    check_standings(doc, hand_points(doc["rounds"]))
    total = sum(s["points"] for s in doc["standings"])
    assert total == pytest.approx(3 * (2 + 1.5 + 1.5), abs=1e-3)  # points conserved


def test_a_round_robin_of_six_at_three_player_tables(app, ctx):
    tokens = people(app, 6)
    t = make(app, tokens["p01"], format="round_robin", table_size=3, seed=3)
    enter_all(app, t["id"], tokens.values())
    app.test_client().post(f"/tournaments/{t['id']}/start", headers=auth(tokens["p01"]))
    doc = play_out(app, ctx, t["id"], random.Random(2))
    met: Counter = Counter()
    for rnd in doc["rounds"]:
        assert [len(table["players"]) for table in rnd["tables"]] == [3, 3]
        for table in rnd["tables"]:
            met.update(frozenset(p) for p in itertools.combinations(table["players"], 2))
    assert len(met) == 15  # everyone met everyone
    assert len(doc["rounds"]) == len(pairing_round_robin(sorted(tokens)))
    check_standings(doc, hand_points(doc["rounds"]))


def pairing_round_robin(ids):
    from service.pairing import round_robin

    return round_robin(ids, 3, 3)


def test_a_knockout_of_nine_at_three(app, ctx):
    tokens = people(app, 9)
    t = make(app, tokens["p01"], format="knockout", table_size=3, seed=5)
    enter_all(app, t["id"], tokens.values())
    app.test_client().post(f"/tournaments/{t['id']}/start", headers=auth(tokens["p01"]))
    doc = play_out(app, ctx, t["id"], random.Random(3))
    first, final = doc["rounds"]
    assert [len(table["players"]) for table in first["tables"]] == [3, 3, 3]

    def winner(table):
        best = max(table["scores"])
        return [p for p, s in zip(table["players"], table["scores"], strict=True)
                if s == best]
    winners = [winner(table) for table in first["tables"]]
    assert all(len(w) == 1 for w in winners)  # (no tie at the top with this seed)
    assert sorted(final["tables"][0]["players"]) == sorted(w[0] for w in winners)
    # by hand: the final table's order, then the others by their points
    table = final["tables"][0]
    top = [p for _, p in sorted(zip(table["scores"], table["players"], strict=True),
                                reverse=True)]
    order = [s["handle"] for s in doc["standings"]]
    assert order[:3] == top
    assert set(order[3:]) == set(tokens) - set(top)
    check_standings_set(doc, hand_points(doc["rounds"]))


def check_standings_set(doc, expected):
    got = {s["handle"]: s["points"] for s in doc["standings"]}
    assert got == pytest.approx(dict(expected), abs=1e-4)


def test_a_league_of_two_seasons_promotes_and_relegates(app, ctx):
    tokens = people(app, 6)
    t = make(app, tokens["p01"], format="league", table_size=3, rounds=2, seed=11)
    enter_all(app, t["id"], tokens.values())
    app.test_client().post(f"/tournaments/{t['id']}/start", headers=auth(tokens["p01"]))
    doc = play_out(app, ctx, t["id"], random.Random(4))
    one, two = doc["rounds"]
    assert (one["season"], two["season"]) == (1, 2)
    assert [table["division"] for table in one["tables"]] == [0, 1]

    def order(table):  # by hand: scores, then (ties) the seed order of the first season
        return [p for _, p in sorted(zip(table["scores"], table["players"], strict=True),
                                     key=lambda x: -x[0])]
    top, low = (order(table) for table in one["tables"])
    # the last of the top division goes down, the first of the lower one up
    assert sorted(two["tables"][0]["players"]) == sorted([*top[:2], low[0]])
    assert sorted(two["tables"][1]["players"]) == sorted([top[2], *low[1:]])
    # the final standings: season 2, division by division, points by hand
    points = hand_points([two])
    got = [(s["handle"], s["division"], s["points"]) for s in doc["standings"]]
    assert [g[1] for g in got] == [0, 0, 0, 1, 1, 1]
    assert {h: p for h, _, p in got} == pytest.approx(dict(points), abs=1e-4)
    for division in (0, 1):
        pts = [p for _, d, p in got if d == division]
        assert pts == sorted(pts, reverse=True)


def test_refusals_change_nothing(app):
    client = app.test_client()
    tokens = people(app, 3)
    nameless = signed_in(app, "nameless@example.org")
    org = tokens["p01"]
    check_problem(client.post("/tournaments", json={"name": "x", "format": "swiss",
                                                    "table_size": 3}, headers=auth(nameless)),
                  422, "handle_needed")
    for body, field in (({"format": "ladder", "table_size": 3}, "format"),
                        ({"format": "swiss", "table_size": 7}, "table_size"),
                        ({"format": "swiss", "table_size": 1}, "table_size"),
                        ({"format": "swiss", "table_size": 3, "variant": "chess"}, "variant")):
        problem = check_problem(client.post("/tournaments", json={"name": "x", **body},
                                            headers=auth(org)), 422, "invalid_option")
        assert problem["field"] == field, problem
    check_problem(client.post("/tournaments", json={"name": "x", "format": "swiss",
                                                    "table_size": 3}), 401)
    assert client.get("/tournaments").get_json()["tournaments"] == []
    t = make(app, org, format="swiss", table_size=2, rounds=1, cap=2)
    check_problem(client.post("/tournaments/tnm_nope/entries", headers=auth(org)), 404,
                  "tournament_not_found")
    check_problem(client.post(f"/tournaments/{t['id']}/start", headers=auth(org)), 409,
                  "too_few_entrants")
    enter_all(app, t["id"], [tokens["p02"], tokens["p03"]])
    check_problem(client.post(f"/tournaments/{t['id']}/entries", headers=auth(org)), 409,
                  "tournament_full")
    check_problem(client.delete(f"/tournaments/{t['id']}/entries/me", headers=auth(org)),
                  404, "not_entered")
    listed = client.get("/tournaments").get_json()
    assert [x["id"] for x in listed["tournaments"]] == [t["id"]] and listed["total"] == 1
    check_problem(client.post(f"/tournaments/{t['id']}/start", headers=auth(tokens["p02"])),
                  403, "not_organiser")
    r = client.post(f"/tournaments/{t['id']}/start", headers=auth(org))
    assert r.status_code == 200 and r.get_json()["status"] == "running"
    check_problem(client.post(f"/tournaments/{t['id']}/start", headers=auth(org)), 409,
                  "tournament_closed")
    check_problem(client.post(f"/tournaments/{t['id']}/entries", headers=auth(org)), 409,
                  "tournament_closed")
    assert client.get("/tournaments").get_json()["tournaments"] == []
    assert len(doc_of(app, t["id"])["rounds"]) == 1


@pytest.fixture
def app_pg(app_on_each_store):
    return app_on_each_store


def test_a_withdrawal_ranks_last_and_is_not_seated_again_on_each_store(app_pg):
    """On SQLite and PostgreSQL: a Swiss of 4 at tables of 2; p01 withdraws in round 1
    (a bot plays its seat: it ranks last there) and is not seated in round 2 (its
    opponent sits out with a bye)."""
    app = app_pg
    from workers.context import Context

    ctx = Context(app.extensions["alhambra_settings"])
    try:
        tokens = people(app, 4)
        t = make(app, tokens["p04"], format="swiss", table_size=2, rounds=2, seed=1)
        enter_all(app, t["id"], tokens.values())
        app.test_client().post(f"/tournaments/{t['id']}/start", headers=auth(tokens["p04"]))
        r = app.test_client().delete(f"/tournaments/{t['id']}/entries/me",
                                     headers=auth(tokens["p01"]))
        assert r.status_code == 200, r.get_json()
        doc = play_out(app, ctx, t["id"], random.Random(5))
        one, two = doc["rounds"]
        mine = next(tb for tb in one["tables"] if "p01" in tb["players"])
        assert mine["left"] == ["p01"]
        assert all("p01" not in tb["players"] for tb in two["tables"])
        assert len(two["tables"]) == 1 and len(two["byes"]) == 1
        line = {s["handle"]: s for s in doc["standings"]}
        assert line["p01"]["points"] == 0 and doc["standings"][-1]["handle"] == "p01"
        assert line[two["byes"][0]]["byes"] == 1
        check_standings(doc, hand_points_left(doc["rounds"]))
    finally:
        ctx.close()


def hand_points_left(rounds) -> dict[str, float]:
    """Tables of two: the one who left gets 0, else the higher score 1 (ties ½ each);
    a bye ½."""
    points: dict[str, float] = defaultdict(float)
    for r in rounds:
        for p in r["byes"]:
            points[p] += 0.5
        for t in r["tables"]:
            (a, b), (sa, sb) = t["players"], t["scores"]
            if t["left"]:
                points[b if a in t["left"] else a] += 1
                points[t["left"][0]] += 0
            else:
                points[a] += 1 if sa > sb else 0.5 if sa == sb else 0
                points[b] += 1 if sb > sa else 0.5 if sa == sb else 0
    return points


def stream(app, token: str, last: str = "0") -> list[dict]:
    """The tournament events of the account's /me/stream after ``last`` (ids kept)."""
    from tests.service.test_me_stream import read

    _, events = read(app.test_client(), token, last)
    return [e for e in events if e["event"].startswith("tournament_")]


def test_the_stream_tells_each_round_table_and_the_final_rank_once(app, ctx):
    """Issue 36: each entrant's /me/stream tells ``tournament_round`` when its table's
    game is made (tournament, round, table, game, players) and ``tournament_finished``
    with its rank as the standings say; resumed after an id, only what came after."""
    tokens = people(app, 4)
    t = make(app, tokens["p04"], format="swiss", table_size=2, rounds=2, seed=2)
    enter_all(app, t["id"], tokens.values())
    assert stream(app, tokens["p01"]) == []  # open: nothing to tell yet
    app.test_client().post(f"/tournaments/{t['id']}/start", headers=auth(tokens["p04"]))
    first = doc_of(app, t["id"])["rounds"][0]
    told = stream(app, tokens["p01"])
    mine = next(tb for tb in first["tables"] if "p01" in tb["players"])
    assert [(e["event"], e["data"]) for e in told] == [("tournament_round", {
        "tournament_id": t["id"], "name": "Cup", "round": 1, "table": mine["table"],
        "game_id": mine["game_id"], "players": mine["players"]})]
    doc = play_out(app, ctx, t["id"], random.Random(6))
    for handle, token in tokens.items():
        events = stream(app, token, told[0]["id"]) if handle == "p01" else \
            stream(app, token)
        rounds = [e for e in events if e["event"] == "tournament_round"]
        expected = [(r["round"], tb["game_id"]) for r in doc["rounds"]
                    for tb in r["tables"] if handle in tb["players"]]
        if handle == "p01":
            expected = expected[1:]  # resumed after round 1's
        assert [(e["data"]["round"], e["data"]["game_id"]) for e in rounds] == expected
        line = next(s for s in doc["standings"] if s["handle"] == handle)
        assert events[-1]["event"] == "tournament_finished"
        assert events[-1]["data"] == {"tournament_id": t["id"], "name": "Cup", "round": 2,
                                      "rank": line["rank"], "points": line["points"],
                                      "division": 0}
        assert len(events) == len(rounds) + 1
        assert stream(app, token, events[-1]["id"]) == []


class Outbox:
    """The workers' mailer, recording what it is given."""

    def __init__(self) -> None:
        self.mails: list = []

    def send(self, mail) -> str:
        self.mails.append(mail)
        return "kept"

    def close(self) -> None:
        pass


def run_notices(ctx) -> dict:
    """The tournament's due rows of no game (its mails and channel notices), run."""
    from tests.support import run_due_now

    return run_due_now(ctx, "")


@pytest.fixture
def push_app(request, tmp_path):
    from tests.service.test_notify_channels import push_app as made

    yield from made.__wrapped__(request, tmp_path)


@pytest.mark.parametrize("push_app", ["sqlite", "postgres"], indirect=True)
def test_mails_and_notices_of_each_round_and_the_end_on_each_store(push_app, push_service):
    """Issue 36: when a round is paired each entrant gets a mail with what the game's own
    "started" mail lacks (the tournament, round, table and the others at it; a bye; the
    standings after the round before), in its language; at the end the final standings
    and its place; a channel that chose ``tournament_round`` is told of its table and of
    the end; one that did not is not."""
    app, ctx = push_app
    ctx.mailer = outbox = Outbox()
    client = app.test_client()
    tokens = people(app, 4)
    r = client.patch("/me", json={"language": "fi"}, headers=auth(tokens["p03"]))
    assert r.status_code == 200, r.get_json()
    channels = {"p01": ["tournament_round"], "p02": ["your_turn"], "p03": None}
    for handle, events in channels.items():  # p03: the default events
        r = client.post("/me/push", headers=auth(tokens[handle]), json={
            **push_service.subscription(f"/{handle}"),
            **({"events": events} if events else {})})
        assert r.status_code == 201, r.get_json()
    t = make(app, tokens["p04"], format="swiss", table_size=2, rounds=2, seed=4,
             bye_points=0.5)
    enter_all(app, t["id"], [tokens[h] for h in ("p01", "p02", "p03")])
    client.post(f"/tournaments/{t['id']}/start", headers=auth(tokens["p04"]))
    one = doc_of(app, t["id"])["rounds"][0]
    [table], [bye] = one["tables"], one["byes"]
    told = sorted(h for h in ("p01", "p03") if h in table["players"])
    ran = run_notices(ctx)
    assert sorted(ran.values()) == ["sent"] * (3 + len(told)), ran
    mails = {m.to_addr.split("@")[0]: m for m in outbox.mails}
    assert sorted(mails) == ["p01", "p02", "p03"]
    for handle in table["players"]:
        m = mails[handle]
        other = next(p for p in table["players"] if p != handle)
        assert m.game_id == t["id"] and m.version == 1 and m.kind == "tournament-round"
        if handle != "p03":
            assert m.subject == "Cup: round 1"
            assert f"you play at table 1 with {other}. Your game:" in m.text
        assert f"http://alhambra.test/me#open={table['game_id']}" in m.text
        assert "standings after" not in m.text
    assert f"http://alhambra.test/tournament/{t['id']}" in mails[bye].text
    if bye != "p03":
        assert "with a bye (points: 0.5)" in mails[bye].text
    fi = mails["p03"]
    assert fi.language == "fi" and fi.subject == "Cup: kierros 1", fi.subject
    assert sorted(g["path"] for g in push_service.received) == [f"/{h}" for h in told]
    for got in push_service.received:
        expected = {"game_id": table["game_id"], "version": None,
                    "what": "tournament_round", "tournament_id": t["id"], "round": 1,
                    "url": f"http://alhambra.test/me#open={table['game_id']}"}
        assert {k: got["payload"][k] for k in expected} == expected
        if got["path"] == "/p01":
            assert (got["payload"]["title"], got["payload"]["body"]) == (
                "Tournament round", "Cup: your table of round 1 is ready.")

    outbox.mails.clear()
    doc = play_out(app, ctx, t["id"], random.Random(7))
    ran = run_notices(ctx)
    assert set(ran.values()) == {"sent"}, ran
    by = {(m.to_addr.split("@")[0], m.kind): m for m in outbox.mails}
    two = doc["rounds"][1]
    for handle in two["byes"] + [p for tb in two["tables"] for p in tb["players"]]:
        assert (handle, "tournament-round") in by
    text = by[("p01", "tournament-round")].text
    assert "The standings after round 1:" in text
    [table] = doc["rounds"][0]["tables"]
    winner = next(p for p, s in zip(table["players"], table["scores"], strict=True)
                  if s == max(table["scores"]))
    if table["scores"][0] != table["scores"][1]:  # by hand: the winner 1, the bye 0.5
        assert f"1. {winner}, points: 1\n" in text, text
        assert f"2. {bye}, points: 0.5\n" in text, text
    for s in doc["standings"]:
        m = by[(s["handle"], "tournament-finished")]
        assert m.version == 2
        if s["handle"] != "p03":
            assert m.subject == "Cup: the final standings"
            assert f"your place is {s['rank']} of 3 (points: " in m.text, m.text
        assert f"{s['rank']}. {s['handle']}, " in m.text
    finals = {g["path"]: g["payload"] for g in push_service.received
              if g["payload"]["what"] == "tournament_finished"}
    assert sorted(finals) == ["/p01", "/p03"]
    rank = next(s["rank"] for s in doc["standings"] if s["handle"] == "p01")
    assert (finals["/p01"]["body"], finals["/p01"]["url"]) == (
        f"Cup is over: your place is {rank}.", f"http://alhambra.test/tournament/{t['id']}")
    assert all(g["path"] != "/p02" for g in push_service.received)
    assert run_notices(ctx) == {}  # each told once


def test_the_organisers_time_rules_are_checked_shown_and_carried_by_each_game(app):
    """Issue 36: the games' clock (time per move, weekends off in a time zone), the
    timeout rules, and whether a vacation stops a player's clock are the organiser's:
    a clock that cannot be is refused at create naming its field (nothing made); the
    document shows them; every game of the tournament carries them; a vacation is
    recorded in the games of a tournament that lets it pause them, not in the others'."""
    client = app.test_client()
    tokens = people(app, 3)
    org = tokens["p03"]
    clock = {"days_off": ["sat", "sun"], "timezone": "Europe/Helsinki"}
    base = {"name": "x", "format": "swiss", "table_size": 2, "rounds": 1}
    for bad, field in (({"time_control": {**clock, "timezone": "Mars/Olympus"}},
                        "time_control.timezone"),
                       ({"time_control": {**clock, "days_off": ["sat", "caturday"]}},
                        "time_control.days_off"),
                       ({"time_per_move": 5}, "time_per_move")):
        problem = check_problem(client.post("/tournaments", json={**base, **bad},
                                            headers=auth(org)), 422, "invalid_option")
        assert problem["field"] == field, problem
    assert client.get("/tournaments").get_json()["total"] == 0
    rules = {"time_per_move": 2 * 86400, "time_control": clock, "takeover_after_timeouts": 2,
             "timeout_policy": "default_move", "replay_public": False}
    strict = make(app, org, **base, **rules, vacations_pause=False)
    usual = make(app, org, **base, **rules)
    assert {k: strict["settings"][k] for k in rules} == rules
    assert (strict["settings"]["vacations_pause"], usual["settings"]["vacations_pause"]) \
        == (False, True)
    games = {}
    for t in (strict, usual):
        enter_all(app, t["id"], [tokens["p01"], tokens["p02"]])
        client.post(f"/tournaments/{t['id']}/start", headers=auth(org))
        [table] = doc_of(app, t["id"])["rounds"][0]["tables"]
        game = client.get(f"/games/{table['game_id']}").get_json()
        assert game["time_per_move"] == 2 * 86400 and game["time_control"] == clock
        assert (game["takeover_after_timeouts"], game["timeout_policy"],
                game["replay_public"]) == (2, "default_move", False)
        games[t["id"]] = (game["game_id"], game["version"])
    now = times.now()
    r = client.patch("/me", headers=auth(tokens["p01"]), json={"vacation": {
        "from": times.to_text(now), "until": times.to_text(now + timedelta(days=3))}})
    assert r.status_code == 200, r.get_json()
    for t, paused in ((strict, False), (usual, True)):
        game_id, version = games[t["id"]]
        events = client.get(f"/games/{game_id}/events?since={version}").get_json()["events"]
        assert [e["event"]["type"] for e in events] == (["vacation"] if paused else [])


def test_entry_by_invitation_names_who_may_enter(app):
    """Issue 36: an organiser may name the handles that may enter (as kept: case
    folded); an unknown handle refuses the tournament; another account's entry is refused
    naming the rule and changes nothing."""
    client = app.test_client()
    tokens = people(app, 4)
    base = {"format": "swiss", "table_size": 2, "rounds": 1}
    problem = check_problem(client.post("/tournaments", headers=auth(tokens["p04"]), json={
        "name": "x", **base, "invited": ["p01", "nobody"]}), 422, "unknown_handle")
    assert "nobody" in problem["detail"]
    assert client.get("/tournaments").get_json()["total"] == 0
    t = make(app, tokens["p04"], **base, invited=["P01", "p02", "p01"])
    assert t["settings"]["invited"] == ["p01", "p02"]
    for outsider in ("p03", "p04"):  # the organiser too, unless named
        problem = check_problem(client.post(f"/tournaments/{t['id']}/entries",
                                            headers=auth(tokens[outsider])), 403,
                                "not_invited_to_enter")
        assert "invitation" in problem["detail"]
    assert doc_of(app, t["id"])["entries"] == []
    enter_all(app, t["id"], [tokens["p01"], tokens["p02"]])
    assert [e["handle"] for e in doc_of(app, t["id"])["entries"]] == ["p01", "p02"]


def test_entry_may_need_a_record_of_moving_in_time(app, monkeypatch):
    """Issue 36: ``max_timeouts`` in the last ``timeout_games`` finished games, from the
    games' logs (the turns whose time ran out: the service played its default moves):
    p01 let its time run out in two turns of a finished game, so a tournament taking one
    refuses it naming the rule and the counts, one taking two lets it in; p02, who moved
    in time, enters both."""
    from tests.support import fake_clock

    client = app.test_client()
    games = app.extensions["alhambra"]
    clock = fake_clock(monkeypatch, times.now())
    tokens = people(app, 3)
    first = make(app, tokens["p03"], format="swiss", table_size=2, rounds=1, seed=1,
                 time_per_move=3600)
    enter_all(app, first["id"], [tokens["p01"], tokens["p02"]])
    client.post(f"/tournaments/{first['id']}/start", headers=auth(tokens["p03"]))
    [table] = doc_of(app, first["id"])["rounds"][0]["tables"]
    late = table["players"].index("p01")
    rng, ran_out = random.Random(8), 0
    while games.game(table["game_id"]).status != "over":
        state = games.state(table["game_id"])
        game = games.game(table["game_id"])
        if state.current == late and ran_out < 2 and state.current not in state.bots:
            clock.now = game.deadline + timedelta(seconds=1)
            assert games.time_out(game.id, game.version, late).outcome == "applied"
            ran_out += 1
        elif state.current in state.bots:
            games.play_bot(game.id, state.version)
        else:
            games.submit(game, state.current, [random_move(state, state.current, rng)],
                         state.version, None)
    assert ran_out == 2
    strict = make(app, tokens["p03"], format="swiss", table_size=2, max_timeouts=1,
                  timeout_games=5)
    lenient = make(app, tokens["p03"], format="swiss", table_size=2, max_timeouts=2)
    assert (strict["settings"]["max_timeouts"], strict["settings"]["timeout_games"],
            lenient["settings"]["timeout_games"]) == (1, 5, 10)
    problem = check_problem(client.post(f"/tournaments/{strict['id']}/entries",
                                        headers=auth(tokens["p01"])), 403, "timeout_record")
    assert (problem["timeouts"], problem["max_timeouts"], problem["games"]) == (2, 1, 1)
    assert doc_of(app, strict["id"])["entries"] == []
    enter_all(app, lenient["id"], [tokens["p01"], tokens["p02"]])
    enter_all(app, strict["id"], [tokens["p02"]])


def test_a_notice_waits_for_its_tables_game_and_the_left_out_are_told_once(
        app, ctx, monkeypatch):
    """Issue 36: a round's mails are written with the round, before its games are made:
    one run meanwhile waits (due again a little later) and goes once the game is there;
    an entrant a bot replaced is told, in the next round only, that it is left out and
    how to come back."""
    from service.tournaments import Tournaments
    from tests.support import fake_clock

    clock = fake_clock(monkeypatch, times.now())
    ctx.mailer = outbox = Outbox()
    games = app.extensions["alhambra"]
    tokens = people(app, 4)
    t = make(app, tokens["p04"], format="swiss", table_size=2, rounds=3, seed=3)
    enter_all(app, t["id"], tokens.values())
    made = Tournaments._make_games
    monkeypatch.setattr(Tournaments, "_make_games", lambda self, t, r: None)
    app.test_client().post(f"/tournaments/{t['id']}/start", headers=auth(tokens["p04"]))
    assert set(run_notices(ctx).values()) == {"later"} and outbox.mails == []
    assert all(tb["game_id"] is None for tb in doc_of(app, t["id"])["rounds"][0]["tables"])
    monkeypatch.setattr(Tournaments, "_make_games", made)
    assert Tournaments(games).advance(t["id"]) == "waiting"  # makes the games
    clock.now = clock.now + timedelta(seconds=6)
    assert run_notices(ctx) == {("tournament_mail", n, 1): "sent" for n in (1, 2, 3, 4)}
    [mine] = [tb for tb in doc_of(app, t["id"])["rounds"][0]["tables"]
              if "p01" in tb["players"]]
    games.resign(games.game(mine["game_id"]), mine["players"].index("p01"))
    outbox.mails.clear()
    play_out(app, ctx, t["id"], random.Random(9))
    run_notices(ctx)
    left = [m for m in outbox.mails if m.to_addr.startswith("p01@")]
    assert [(m.kind, m.version) for m in left] == [("tournament-round", 2),
                                                  ("tournament-finished", 3)]
    assert "is paired without you: a bot took your seat" in left[0].text
    assert "enter again on the tournament's page" in left[0].text
