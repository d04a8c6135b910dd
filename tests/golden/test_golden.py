"""Golden games: complete logs and records that must keep replaying to the same outcome.

``v1/`` holds games made by engine 0.1.0, before the event schema was recorded: they stand
for games already stored in users' databases. Each later folder holds games of that schema.
A change of the rules code that alters any of these outcomes fails here. Views are
compared key by key: the engine may add keys to a view, never change or drop one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.record import export_record, import_record

HERE = Path(__file__).resolve().parent
FILES = sorted(HERE.glob("v*/*.json"))
CURRENT = engine.SCHEMA


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def contains(actual: Any, expected: Any, where: str = "view") -> None:
    """Every key of ``expected`` is in ``actual`` with an equal value (lists item by item)."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), where
        for key, value in expected.items():
            assert key in actual, f"{where}: {key!r} is gone"
            contains(actual[key], value, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            contains(a, e, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def same_outcome(state: engine.State, final: dict) -> None:
    assert state.phase == "over"
    assert state.scores == final["scores"] and state.winners == final["winners"]
    if final["neutral_score"] is not None:
        assert state.neutral_score == final["neutral_score"]
    for key, expected in final["views"].items():
        seat = None if key == "spectator" else int(key)
        contains(engine.view(state, seat), expected, f"view[{key}]")


def test_there_are_golden_games_of_every_variant_and_the_current_schema():
    docs = [load(p) for p in FILES]
    for schema in sorted({1, CURRENT}):
        games = {(d["variant"], d["players"] == 2) for d in docs if d["schema"] == schema}
        assert games == {("alhambra", True), ("alhambra", False), ("granada", True),
                         ("granada", False), ("alhambra_granada", False)}, schema


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_log_replays_through_evolve_to_the_same_views_and_scores(path):
    doc = load(path)
    same_outcome(engine.replay(doc["log"]), doc["final"])


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_record_replays_through_decide_to_the_same_game(path):
    """An old record is set up as its schema did and replayed by today's decide; a record
    of the current schema gives its log event for event."""
    doc = load(path)
    events = import_record(doc["record"])
    same_outcome(engine.replay(events), doc["final"])
    if doc["schema"] == CURRENT:
        assert events == doc["log"]
        assert export_record(doc["log"]) == doc["record"]
