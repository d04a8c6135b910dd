"""Issue 9 §1: every mail is built from the version it announces, even when the game has
moved on by the time the job runs (a move lands between the due row and its mail)."""

from __future__ import annotations

import engine
from engine import overview
from tests.support import make_stack, new_game, run_due_here


def test_state_at_a_version_is_that_version_for_every_caller(stack):
    h = new_game(stack.client, 3)
    games = stack.games
    doc = h.get()
    first = doc["current_seat"]
    v1 = h.submit(first, "take 1", doc["version"]).get_json()["version"]
    latest = games.state(h.id)  # the cache now holds the latest state
    second = (first + 1) % 3
    v2 = h.submit(second, "take 1", v1).get_json()["version"]
    assert latest.version == v1
    for version in (v1, v2, doc["version"], 1):
        state = games.state(h.id, version)
        assert state.version == version
        fresh = engine.replay(stack.store.read(h.id)[:version])
        assert engine.view(state, None) == engine.view(fresh, None)
    assert games.state(h.id).version == v2


def test_the_your_turn_mail_of_a_move_is_built_from_that_move_when_another_lands_meanwhile(
        tmp_path, redis_server, smtp):
    """The job reads the game row; then the next player's move commits; then the job
    builds the mail of the first move: it must go to the seat to move after the first
    move, with that seat's hand at that version."""
    s = make_stack(tmp_path, redis_server.url, smtp.url, "versions-idle")  # no worker
    ctx = s.context()
    try:
        h = new_game(s.client, 3)
        doc = h.get()
        first, setup = doc["current_seat"], doc["version"]
        second, third = (first + 1) % 3, (first + 2) % 3
        v1 = h.submit(first, "take 1", setup).get_json()["version"]
        at_v1 = h.get(second)
        assert at_v1["current_seat"] == second
        hand_at_v1 = at_v1["view"]["seats"][second]["hand"]

        real_game = ctx.store.game
        landed = []

        def game_then_a_move_lands(game_id):
            row = real_game(game_id)
            if not landed:  # the next player moves right after the job read the row
                r = h.submit(second, "take 1", v1)
                assert r.status_code == 201, r.get_json()
                landed.append(r.get_json()["version"])
            return row

        ctx.store.game = game_then_a_move_lands
        out = run_due_here(ctx, h.id, lambda d: d.kind == "your_turn" and d.version == v1)
        ctx.store.game = real_game
        assert landed and h.get()["current_seat"] == third
        assert out == {("your_turn", second, v1): "sent"}, out
        (mail,) = smtp.wait(h.id, "your_turn", where=lambda m: m.version == v1)
        assert mail.rcpt == [f"p{second}@example.org"]
        text = mail.part("plain")
        assert f"Your hand ({len(hand_at_v1)} cards):" in text
        state_v1 = engine.replay(s.store.read(h.id, 0, v1))
        for purse in overview.purses(state_v1.hands[second]):  # the hand of v1, in words
            values = " + ".join(map(str, purse.values))
            assert (f"  {purse.currency}: {values} = {purse.total}" if len(purse.values) > 1
                    else f"  {purse.currency}: {values}") in text
        assert not smtp.of(h.id, "your_turn") or all(
            m.rcpt != [f"p{third}@example.org"] for m in smtp.of(h.id, "your_turn"))
    finally:
        ctx.close()
        s.store.close()
