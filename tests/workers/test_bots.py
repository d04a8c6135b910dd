"""Bots as seats end to end (docs/rules.md S-2), with real parts: the API (Flask's test
client), a worker process on real Redis playing the bots' turns, an SMTP sink."""

from __future__ import annotations

import random

from engine.record import import_record
from tests.support import (
    answer_to,
    auth,
    check_problem,
    make_stack,
    random_api_move,
    reply_to,
    smtp_send,
    wait_until,
)


def _create(client, seats: list[dict], **extra) -> dict:
    r = client.post("/games", json={"seats": seats, **extra})
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def _moves(store, game_id: str) -> list[dict]:
    return [e for e in store.read(game_id) if "move" in e]


def test_one_person_and_three_bots_play_a_whole_game(stack, smtp):
    created = _create(stack.client, [{"name": "Ann", "email": "ann@example.org"},
                                     {"bot": "random"}, {"bot": "random"}, {"bot": "random"}])
    gid, token = created["game_id"], created["seats"][0]["token"]
    rng = random.Random(5)

    def my_turn_or_over():
        doc = stack.client.get(f"/games/{gid}").get_json()
        return doc if doc["status"] == "over" or doc["current_seat"] == 0 else None

    while True:
        doc = wait_until(my_turn_or_over, 30, what="Ann's turn (the bots play theirs)")
        if doc["status"] == "over":
            break
        legal = stack.client.get(f"/games/{gid}/legal-moves", headers=auth(token)).get_json()
        r = stack.client.post(f"/games/{gid}/moves", headers=auth(token), json={
            "move": random_api_move(legal, rng), "version": legal["version"]})
        assert r.status_code == 201, r.get_json()
    moves = _moves(stack.store, gid)
    assert {m["seat"] for m in moves} == {0, 1, 2, 3}
    assert all(m.get("bot") == "random" for m in moves if m["seat"] != 0)
    assert not any(m.get("bot") or m.get("timeout") for m in moves if m["seat"] == 0)
    (over,) = smtp.wait(gid, "game_over")
    assert over.rcpt == ["ann@example.org"]
    record = stack.client.get(f"/games/{gid}/record").get_json()
    assert record["bots"] == [None, "random", "random", "random"]
    assert import_record(record) == stack.store.read(gid)


def test_a_resigned_seat_is_played_by_a_bot_everyone_is_told_and_bots_finish(mail_stack,
                                                                              smtp):
    s = mail_stack
    created = _create(s.client, [{"name": "Ann", "email": "ann@example.org"},
                                 {"name": "Bob", "email": "bob@example.org"}],
                      takeover_bot="random")
    gid = created["game_id"]
    bob = created["seats"][1]["token"]
    r = s.client.post(f"/games/{gid}/resign", headers=auth(bob))
    assert r.status_code == 201, r.get_json()
    resigned = r.get_json()["version"]
    (told,) = smtp.wait(gid, "taken_over")  # Bob did it himself: only Ann is told
    assert told.rcpt == ["ann@example.org"]
    assert "Bob resigned: a random bot plays that seat" in told.part("plain")
    # Ann resigns by mail (from a mail listing her moves): then the bots finish the game
    turn = wait_until(lambda: [m for m in smtp.of(gid) if m.rcpt == ["ann@example.org"] and
                               "Reply with" in m.part("plain")])[-1]
    msg = reply_to(turn, "resign")
    smtp_send(s.listener.port, msg)
    answer = answer_to(smtp, gid, str(msg["Message-ID"]))
    assert "you resigned: a random bot plays your seat" in answer.part("plain")
    over = smtp.wait(gid, "game_over", count=2, timeout=120)
    assert "(resigned: a random bot finished the game)" in over[0].part("plain")
    assert not [m for m in smtp.of(gid, "your_turn")  # a bot's seat gets no turn mails
                if m.rcpt == ["bob@example.org"] and m.version > resigned]
    record = s.client.get(f"/games/{gid}/record").get_json()
    assert record["result"]["left"] == ["resigned", "resigned"]
    log = s.store.read(gid)
    last_resign = max(i for i, e in enumerate(log) if e["type"] == "seat_taken_over")
    after = [e for e in log[last_resign:] if "move" in e]
    assert after and all(m.get("bot") == "random" for m in after)


def test_a_seat_whose_time_runs_out_twice_in_a_row_is_taken_over(stack, smtp):
    created = _create(stack.client, [{"name": "Ann", "email": "ann@example.org"},
                                     {"name": "Bob", "email": "bob@example.org"}],
                      time_per_move=1, takeover_after_timeouts=2, takeover_bot="random")
    gid = created["game_id"]
    tokens = [s["token"] for s in created["seats"]]
    first = stack.client.get(f"/games/{gid}").get_json()["current_seat"]

    def taken_over():
        return [e for e in stack.store.read(gid) if e["type"] == "seat_taken_over"] or None

    (event, *_) = wait_until(taken_over, 40, what="a takeover after two timeouts")
    assert event == {"type": "seat_taken_over", "seat": first, "bot": "random",
                     "reason": "abandoned"}
    timed_out = [m for m in _moves(stack.store, gid) if m["seat"] == first]
    assert len({m["move"] for m in timed_out}) >= 1 and all(m["timeout"] for m in timed_out)
    told = smtp.wait(gid, "taken_over", count=2,
                     where=lambda m: "let the time run out too often" in m.part("plain"))
    assert sorted(m.rcpt[0] for m in told) == ["ann@example.org", "bob@example.org"]
    # the bot plays that seat from now on; its player's token is refused
    wait_until(lambda: [m for m in _moves(stack.store, gid)
                        if m["seat"] == first and m.get("bot")] or None, 30,
               what="the bot's first move")
    legal = stack.client.get(f"/games/{gid}/legal-moves",
                             headers=auth(tokens[first])).get_json()
    r = stack.client.post(f"/games/{gid}/moves", headers=auth(tokens[first]),
                          json={"move": "take 1", "version": legal["version"]})
    check_problem(r, 409, "seat_played_by_bot")
    view = stack.client.get(f"/games/{gid}").get_json()["view"]
    assert view["seats"][first]["left"] == "abandoned"


def _moves_by_turn(log: list[dict]) -> list[tuple[int, dict]]:
    """(turn number, event) of each move's first event."""
    turn, out = 0, []
    for e in log:
        turn += e["type"] == "turn_started"
        if "move" in e:
            out.append((turn, e))
    return out


def test_past_alhambra_bot_turns_a_game_of_bots_moves_only_at_its_deadlines(
        tmp_path, redis_server, smtp):
    """Issue 20: what a game of bots costs is bounded. With ALHAMBRA_BOT_TURNS=4 the
    worker's bots play turns 1-4 at once; from turn 5 on each bot seat moves only when its
    time runs out (the default moves, marked timeout), one turn per time_per_move."""
    s = make_stack(tmp_path, redis_server.url, smtp.url, "botturns", ALHAMBRA_BOT_TURNS="4")
    s.start_worker()
    try:
        created = _create(s.client, [{"bot": "random"}, {"bot": "random"}], time_per_move=2)
        gid = created["game_id"]

        def two_timed_out_turns():
            moves = _moves_by_turn(s.store.read(gid))
            return moves if len({t for t, m in moves if m.get("timeout")}) >= 2 else None

        moves = wait_until(two_timed_out_turns, 40, what="two turns played at the deadline")
        assert {t for t, _ in moves if t <= 4} == {1, 2, 3, 4}
        assert all(m.get("bot") == "random" and not m.get("timeout")
                   for t, m in moves if t <= 4), "\n".join(
            f"{t} {m['seat']} {m['type']} {m.get('bot')} {m.get('timeout')}" for t, m in moves)
        assert all(m.get("timeout") and not m.get("bot") for t, m in moves if t > 4)
        assert s.store.game(gid).status == "active"
    finally:
        s.stop_worker()
        s.store.close()
