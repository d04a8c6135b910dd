"""engine.preview: a planned turn shows its seat what decide would, up to the first draw,
and never a card or tile drawn (A-7): checked against the real draw of every turn of
games between bots, in each variant."""

from __future__ import annotations

import json
import random

import pytest

import engine
from engine.bots import random_move
from engine.rules import DRAWS


def turn_moves(state: engine.State, rng: random.Random) -> list[engine.Move]:
    """A whole turn of the seat to act, as a bot plans it move by move on a copy: up to
    the move whose events end the turn or draw."""
    work, seat, moves = state.copy(), state.current, []
    while True:
        move = random_move(work, seat, rng)
        moves.append(move)
        events = engine.play(work, seat, move)
        if any(e["type"] in DRAWS or e["type"] in ("turn_started", "game_over")
               for e in events) or work.current != seat:
            return moves


def drawn_ids(events: list[dict]) -> set[str]:
    """The tiles drawn from a bag by ``events`` (tile ids are unique)."""
    out = set()
    for e in events:
        if e["type"] == "market_refilled":
            out.add(e["tile"])
        elif e["type"] == "neutral_received":
            out.update(e["tiles"])
    return out


@pytest.mark.parametrize("variant, players, seed", [
    ("alhambra", 2, 1), ("alhambra", 6, 2), ("granada", 3, 3), ("granada", 2, 4),
    ("alhambra_granada", 4, 5)])
def test_a_preview_shows_what_decide_would_before_any_draw(variant, players, seed):
    rng = random.Random(seed)
    state = engine.replay(engine.new_game(variant, [f"P{i}" for i in range(players)], seed))
    turns = ended = 0
    while state.phase != "over":
        seat = state.current
        moves = turn_moves(state, rng)
        shown, turn_ends, after = engine.preview(state, seat, moves)
        real = engine.decide(state, seat, moves)
        first_draw = next((i for i, e in enumerate(real) if e["type"] in DRAWS), len(real))
        assert shown == real[:first_draw]
        folded = state.copy()
        for event in shown:
            engine.evolve(folded, event)
        seen = engine.view(after, seat)
        assert seen == engine.view(folded, seat)  # the state after the shown events
        before = engine.view(state, seat)
        text = json.dumps(seen)
        hidden = drawn_ids(real)
        assert not [t for t in hidden if f'"{t}"' in text], "a drawn tile is shown"
        assert seen["deck_size"] == before["deck_size"]
        assert seen["bag_sizes"] == before["bag_sizes"]
        taken = [p for e in shown if e["type"] == "money_taken" for p in e["positions"]]
        assert seen["display"] == [c for i, c in enumerate(before["display"], start=1)
                                   if i not in taken]
        for event in real:
            engine.evolve(state, event)
        assert turn_ends == (first_draw < len(real) or state.current != seat
                             or state.phase == "over")
        ended += turn_ends
        turns += 1
    assert turns > 40 and ended > 20


def test_a_preview_refuses_what_decide_refuses_with_the_same_rule():
    state = engine.replay(engine.new_game("alhambra", ["A", "B", "C"], 7))
    rng = random.Random(7)
    with pytest.raises(engine.NotYourTurn):
        engine.preview(state, (state.current + 1) % 3, [engine.parse_move("end")])
    checked = 0
    for _ in range(200):
        seat = state.current
        legal = engine.legal_moves(state, seat)
        plan = [rng.choice(legal), rng.choice(legal), rng.choice(legal)]
        try:
            real = engine.decide(state, seat, plan)
        except engine.RuleViolation as exc:
            with pytest.raises(engine.RuleViolation) as got:
                engine.preview(state, seat, plan)
            assert (got.value.rule, str(got.value)) == (exc.rule, str(exc))
            checked += 1
            real = engine.decide(state, seat, turn_moves(state, rng))
        for event in real:
            engine.evolve(state, event)
        if state.phase == "over":
            break
    assert checked > 20
