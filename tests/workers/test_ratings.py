"""Ratings (issue 26): a finished game of people is rated once by the worker's job (the
due kind ``rating``), per variant, with openskill; the leaderboard and /me show it; a
game with a bot from the start is not rated; a seat a bot took over places last."""

from __future__ import annotations

import random

import engine
from service.ratings import MODEL, Ratings, standings
from service.store import Seat
from tests.support import GameHandle, auth, claimed, play_random, wait_until


def test_a_finished_game_is_rated_by_the_worker(stack):
    """Rated once every seat is claimed by its own account (issue 39): a game over with a
    seat nobody claimed is not, until that seat is claimed; the leaderboard shows the
    players' handles, never an address or a seat's name."""
    emails = ["rate.a@example.org", "rate.b@example.org", "rate.c@example.org"]
    r = stack.client.post("/games", json={"seats": [
        {"name": f"Rater{i}", "email": e} for i, e in enumerate(emails)]})
    created = r.get_json()
    handle = GameHandle(stack.client, created["game_id"],
                        [s["token"] for s in created["seats"]], created["host_token"],
                        None, created)
    players = claimed(stack.app, handle, {0: emails[0], 1: emails[1]})
    for seat, token in players.items():
        r = stack.client.patch("/me", json={"handle": f"Handle{seat}"}, headers=auth(token))
        assert r.status_code == 200 and r.get_json()["handle"] == f"handle{seat}"
    doc = play_random(handle, random.Random(7))
    assert doc["status"] == "over"
    scores = [s["score"] for s in doc["view"]["seats"]]

    def rated():
        rows = [d for d in stack.store.due_rows(handle.id) if d.kind == "rating"]
        return rows and rows[0].state == "done" and rows[0].result
    assert wait_until(rated, 30, what="the rating job") == "unrated"  # seat 2: nobody's
    board = stack.client.get("/ratings?variant=alhambra").get_json()
    assert not [r for r in board["ratings"] if r["name"] in ("handle0", "handle1")]
    players |= claimed(stack.app, handle, {2: emails[2]})  # the last claim rates it
    stack.client.patch("/me", json={"handle": "handle2"}, headers=auth(players[2]))
    board = stack.client.get("/ratings?variant=alhambra").get_json()
    mine = {r["name"]: r for r in board["ratings"] if r["name"].startswith("handle")}
    assert set(mine) == {"handle0", "handle1", "handle2"}
    assert not [r for r in board["ratings"] if "Rater" in (r["name"] or "")]
    assert all(r["games"] == 1 for r in mine.values())
    assert "email" not in board["ratings"][0]  # no addresses on the leaderboard
    best = max(range(3), key=lambda i: scores[i])
    worst = min(range(3), key=lambda i: scores[i])
    if scores.count(scores[best]) == 1 and scores.count(scores[worst]) == 1:
        assert mine[f"handle{best}"]["mu"] > MODEL.mu > mine[f"handle{worst}"]["mu"]
    ordinals = [r["ordinal"] for r in board["ratings"]]
    assert ordinals == sorted(ordinals, reverse=True)
    # the same game is never rated twice; the player sees it on /me
    assert Ratings(stack.games).rate_game(handle.id) == "already"
    me = stack.client.get("/me", headers=auth(players[best])).get_json()
    assert [(r["variant"], r["games"]) for r in me["ratings"]] == [("alhambra", 1)]
    names = {r["name"] for r in stack.client.get("/ratings?variant=granada").get_json()[
        "ratings"]}
    assert not names & set(mine)  # per variant


def test_who_is_rated_and_how():
    log = engine.new_game("alhambra", ["a", "b", "c"], 3)
    state = engine.replay(log)
    seats = [Seat("g", i, n, f"{n}@x.org", f"t{i}", None, claimed_by=f"{n}@x.org")
             for i, n in enumerate("abc")]
    assert standings(state, seats) is None  # not over
    state.phase = "over"
    state.scores = [50, 70, 50]
    assert standings(state, seats) == [("a@x.org", "a", 2), ("b@x.org", "b", 1),
                                       ("c@x.org", "c", 2)]  # a tie
    state.bots = {1: "greedy"}  # b resigned (or timed out too often): last
    assert standings(state, seats) == [("a@x.org", "a", 1), ("b@x.org", "b", 3),
                                       ("c@x.org", "c", 1)]
    bot = [*seats[:2], Seat("g", 2, "Bot", None, None, None, bot="strong")]
    assert standings(state, bot) is None  # a bot from the start: not rated
    same = [*seats[:2], Seat("g", 2, "c", "A@x.org", "t", None, claimed_by="a@x.org")]
    assert standings(state, same) is None  # one account in two seats
    unclaimed = [*seats[:2], Seat("g", 2, "c", "c@x.org", "t", None)]
    assert standings(state, unclaimed) is None  # an address nobody proved
