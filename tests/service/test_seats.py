"""Seats played by bots through the HTTP API (docs/rules.md S-2): bot seats at creation,
the host seating a bot, resigning, and a taken-over seat's token refused. (The worker
playing the bots: tests/workers/test_bots.py.)"""

from __future__ import annotations

import threading

import engine
from service import present
from tests.support import auth, check_problem, new_game, stored


def test_a_seat_created_as_a_bot_needs_no_token_and_the_game_starts(client, games):
    r = client.post("/games", json={"seats": [{"name": "Ann", "email": "ann@example.org"},
                                              {"bot": "random"}, {"bot": "random",
                                                                  "name": "Robo"}],
                                    "takeover_after_timeouts": 2})
    assert r.status_code == 201, r.get_json()
    doc = r.get_json()
    assert [s["seat"] for s in doc["seats"]] == [0]  # tokens for the person only
    game = doc["game"]
    assert game["status"] == "active" and game["takeover_after_timeouts"] == 2
    assert game["takeover_bot"] == "greedy"  # the server's default
    assert [(s["name"], s["bot"], s["joined"]) for s in game["seats"]] == [
        ("Ann", None, True), ("Bot 2 (random)", "random", True), ("Robo", "random", True)]
    assert [s["bot"] for s in game["view"]["seats"]] == [None, "random", "random"]
    created = games.store.read(doc["game_id"])[0]
    assert created["bots"] == [None, "random", "random"]
    assert created["takeover_after_timeouts"] == 2


def test_bad_bot_seats_are_refused_and_nothing_is_created(client, games):
    for body, code, field in (
            ({"seats": [{"name": "A"}, {"bot": "genius"}]}, "invalid_option", "seats.1.bot"),
            ({"seats": [{"name": "A"}], "players": 2, "takeover_bot": "genius"},
             "invalid_option", "takeover_bot"),
            ({"seats": [{"name": "A"}, {"bot": "random", "email": "b@example.org"}]},
             "validation_error", None),
            ({"seats": [{"name": "A"}, {}]}, "validation_error", None)):
        problem = check_problem(client.post("/games", json=body), 422, code)
        if field:
            assert problem["field"] == field and "random" in problem["detail"]
    assert stored(games.store, "games") == 0


def test_the_host_fills_an_open_seat_with_a_bot_and_the_game_starts(client):
    r = client.post("/games", json={"players": 3, "seats": [{"name": "Ann"}]})
    created = r.get_json()
    gid, host, ann = created["game_id"], created["host_token"], created["seats"][0]["token"]
    url = f"/games/{gid}/seats/1/bot"
    check_problem(client.post(url, json={"level": "random"}, headers=auth(ann)), 403,
                  "forbidden")
    check_problem(client.post(url, json={"level": "genius"}, headers=auth(host)), 422,
                  "invalid_option")
    r = client.post(url, json={"level": "random"}, headers=auth(host))
    assert r.status_code == 201, r.get_json()
    assert r.get_json() == {"game_id": gid, "seat": 1, "name": "Bot 2 (random)",
                            "bot": "random"}
    check_problem(client.post(url, json={"level": "random"}, headers=auth(host)), 409,
                  "seat_taken")
    check_problem(client.post(f"/games/{gid}/seats/0/bot", json={"level": "random"},
                              headers=auth(host)), 409, "seat_taken")
    assert client.get(f"/games/{gid}").get_json()["status"] == "open"
    joined = client.post(f"/games/{gid}/join", json={"invite_code": created["invite_code"],
                                                     "name": "Cid"}).get_json()
    assert joined["seat"] == 2  # the bot's seat is not open
    game = client.get(f"/games/{gid}").get_json()
    assert game["status"] == "active"
    assert [s["bot"] for s in game["view"]["seats"]] == [None, "random", None]
    r = client.post(f"/games/{gid}/seats/2/bot", json={"level": "random"},
                    headers=auth(host))
    check_problem(r, 409, "seat_taken")


def test_resigning_hands_the_seat_to_a_bot_and_its_token_can_no_longer_move(client, games):
    h = new_game(client, 3)
    seat = h.get()["current_seat"]
    check_problem(client.post(f"/games/{h.id}/resign", headers=auth(h.host_token)), 403,
                  "forbidden")
    r = client.post(f"/games/{h.id}/resign", headers=auth(h.tokens[seat]))
    assert r.status_code == 201, r.get_json()
    answer = r.get_json()
    assert answer["version"] == h.get()["version"]
    assert [i["event"] for i in answer["events"]] == [
        {"type": "seat_taken_over", "seat": seat, "bot": "greedy", "reason": "resigned"}]
    assert "resigned: a greedy bot plays the seat" in answer["events"][0]["text"]
    assert answer["view"]["seats"][seat]["left"] == "resigned"

    legal = h.legal(seat)
    assert legal["moves"] == [] and not legal["your_turn"]
    problem = check_problem(h.submit(seat, "take 1", legal["version"]),
                            409, "seat_played_by_bot")
    assert problem["rule"] == "S-2" and problem["type"].endswith("/rules#S-2")
    assert "played by a greedy bot" in problem["detail"]
    problem = check_problem(client.post(f"/games/{h.id}/resign",
                                        headers=auth(h.tokens[seat])), 422, "rule_violation")
    assert problem["rule"] == "S-2"
    # the bot moves for the seat through the same submit path, marked as a bot's move
    played = games.play_bot(h.id, legal["version"])
    first = next(i for i in present.played(played)["events"] if "move" in i["event"])
    assert first["event"]["seat"] == seat and first["event"]["bot"] == "greedy"
    assert first["text"].endswith("(greedy bot)")
    assert games.play_bot(h.id, legal["version"]) is None  # the game moved on: once


def test_two_workers_racing_for_one_bot_move_play_it_once(client, games):
    r = client.post("/games", json={"seats": [{"bot": "random"}, {"bot": "random"}]})
    gid = r.get_json()["game_id"]
    version = games.store.game(gid).version
    answers: list = []
    start = threading.Barrier(4)

    def play():
        start.wait(10)
        answers.append(games.play_bot(gid, version))

    threads = [threading.Thread(target=play) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    moved = [a for a in answers if a is not None]
    # a loser gets the winner's answer
    assert moved and all(present.played(a) == present.played(moved[0]) for a in moved)
    log = games.store.read(gid)
    assert len([e for e in log if "move" in e]) == 1
    assert games.store.game(gid).version == moved[0].version


def test_past_bot_turns_a_bot_plays_no_more_but_its_deadline_still_moves_it(client, games):
    """Issue 20: past turn ``bot_turns`` (ALHAMBRA_BOT_TURNS) play_bot plays nothing; the
    seat's time running out still plays its default moves (Part S)."""
    games.bot_turns = 3
    gid = client.post("/games", json={"seats": [{"bot": "greedy"}, {"bot": "random"}]}
                      ).get_json()["game_id"]
    version = games.store.game(gid).version
    while (played := games.play_bot(gid, version)) is not None:
        version = played.version
    state = games.state(gid)
    assert state.turn == 4 and state.phase != "over" and state.current in state.bots
    assert all(e.get("bot") for e in games.store.read(gid) if "move" in e)
    game = games.game(gid)
    moves = engine.default_moves(state, state.current)
    played = games.submit(game, state.current, moves, version, None, timeout=True)
    assert games.state(gid).turn == 5
    assert games.play_bot(gid, played.version) is None
