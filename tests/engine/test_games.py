"""Complete random games (at least 300 across 2-6 players) and game records."""

import json

import pytest

from engine import new_game, replay
from engine.record import RecordError, export_record, import_record

from .test_properties import play_random


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_sixty_complete_random_games_per_player_count(players):
    for seed in range(60):
        state, events = play_random(seed * 7 + players, players)
        assert state.phase == "over"
        assert state.scorings_done == 3
        assert state.winners and max(state.scores) == state.scores[state.winners[0]]
        assert events[-1]["type"] == "game_over"


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_record_replays_to_the_same_events(players):
    state, events = play_random(11, players)
    doc = json.loads(json.dumps(export_record(events)))
    assert doc["result"] == {"scores": state.scores, "winners": state.winners}
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
