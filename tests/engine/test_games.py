"""Complete random games (at least 300 across 2-6 players) and game records."""

import json

import pytest

from engine import new_game, replay
from engine.record import RecordError, export_record, import_record
from engine.variants import VARIANTS

from .test_properties import play_random

RUNS = [(v, p) for v in ("alhambra", "granada") for p in range(2, 7)] + [
    ("alhambra_granada", p) for p in range(3, 7)]


@pytest.mark.parametrize("variant,players", RUNS)
def test_300_complete_random_games_per_variant(variant, players):
    """At least 300 games per variant across its player counts; Granada half of them with
    simple scoring."""
    games = 300 // (7 - VARIANTS[variant].min_players) + 1
    for seed in range(games):
        options = {"simple_scoring": bool(seed % 2)} if variant != "alhambra" else {}
        state, events = play_random(seed * 7 + players, players, variant, options)
        assert state.phase == "over"
        assert state.scorings_done == 3
        assert state.winners and max(state.scores) == state.scores[state.winners[0]]
        assert events[-1]["type"] == "game_over"


@pytest.mark.parametrize("variant,players", [("alhambra", 2), ("alhambra", 6),
                                             ("granada", 2), ("alhambra_granada", 4)])
def test_a_record_replays_to_the_same_events(variant, players):
    state, events = play_random(11, players, variant)
    doc = json.loads(json.dumps(export_record(events)))
    neutral = {"neutral": {"name": VARIANTS[variant].neutral_name,
                           "score": state.neutral_score}} if players == 2 else {}
    assert doc["result"] == {"scores": state.scores, "winners": state.winners, **neutral}
    assert doc["schema"] == events[0]["schema"] == 2
    assert json.dumps(import_record(doc)) == json.dumps(events)


def test_an_illegal_record_names_the_move_and_the_rule():
    _, events = play_random(5, 3)
    doc = export_record(events)
    n = next(i for i, m in enumerate(doc["moves"]) if m["move"].startswith("buy"))
    doc["moves"][n]["move"] = "buy A01 pay DE1" if "A01" not in doc["moves"][n]["move"] \
        else "buy A02 pay DE1"
    with pytest.raises(RecordError) as err:
        import_record(doc)
    assert err.value.move_number == n + 1
    assert err.value.rule == "A-3.2"


def test_a_record_with_a_wrong_result_or_header_is_refused():
    _, events = play_random(6, 2)
    doc = export_record(events)
    doc["result"]["neutral"]["score"] += 1
    with pytest.raises(RecordError, match="differs"):
        import_record(doc)
    doc["result"]["neutral"]["score"] -= 1
    doc["result"]["scores"][0] += 1
    with pytest.raises(RecordError, match="differs"):
        import_record(doc)
    with pytest.raises(RecordError, match="players"):
        import_record(dict(doc, seats=["solo"]))
    with pytest.raises(RecordError, match="format"):
        import_record({"moves": []})


def test_a_record_of_an_unfinished_game_has_no_result():
    events = new_game("alhambra", ["a", "b", "c"], 1)
    doc = export_record(events, replay(events))
    assert "result" not in doc and doc["moves"] == []
    assert import_record(doc) == events
