"""Complete games of every variant and player count end; game records (like PGN)."""

import json

import pytest

from engine import new_game, replay
from engine.record import RecordError, export_record, import_record
from engine.variants import VARIANTS

from .helpers import play_random

RUNS = [(v.name, p) for v in VARIANTS.values() for p in range(v.min_players, v.max_players + 1)]


@pytest.mark.parametrize("variant,players", RUNS)
def test_a_complete_game_ends_with_three_scorings_and_the_same_events_again(variant, players):
    """A-6: the game ends; the same seed and moves give the same events (determinism)."""
    state, events = play_random(players * 31, players, variant)
    assert state.phase == "over" and state.scorings_done == 3
    assert state.winners and max(state.scores) == state.scores[state.winners[0]]
    assert events[-1]["type"] == "game_over"
    assert json.dumps(play_random(players * 31, players, variant)[1]) == json.dumps(events)


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
