"""The upgrade to the compact log and compact idempotent answers, on both stores: a
database of the schema before them (a row per event, answers as whole documents) is
migrated; its log reads back the same (events, versions, times), its answers keep their
batch's versions, and the game still exports, imports and reads as before."""

from __future__ import annotations

import io
import json
import random

import pytest

import engine
from engine.bots import random_move
from service import times
from service.store import open_store, postgres, sqlite
from service.store.transfer import export_games, import_games
from tests.store.conftest import database_before
from tests.support import StoreSpec

STAMPS = ["2026-11-30T10:00:00.000Z", "2026-11-30T10:05:00.250Z", "2026-11-30T11:00:00.999Z"]


def _log() -> tuple[list[dict], list[int]]:
    """A real game's first events and where its three batches end."""
    events = engine.new_game("alhambra", ["a", "b", "c"], 3)
    setup = len(events)
    state, rng = engine.replay(events), random.Random(3)
    while len(events) < setup + 6:
        events += engine.play(state, state.current, random_move(state, state.current, rng))
    return events, [setup, setup + 3, len(events)]


def _rows() -> list[tuple[str, tuple]]:
    events, ends = _log()
    game = ("insert into games (id, variant, options, players, status, phase, version, "
            "current_seat, time_per_move, timeout_policy, deadline, imported, created_at, "
            "updated_at) values ('old', 'alhambra', '{}', 3, 'active', 'action', ?, 1, 3600, "
            "'default_move', null, ?, ?, ?)", (len(events), False, STAMPS[0], STAMPS[-1]))
    out = [game]
    start = 0
    for end, stamp in zip(ends, STAMPS, strict=True):
        for v in range(start + 1, end + 1):
            out.append(("insert into events (game_id, version, type, payload, created_at) "
                        "values ('old', ?, ?, ?, ?)",
                        (v, events[v - 1]["type"],
                         json.dumps(events[v - 1], separators=(",", ":")), stamp)))
        start = end
    response = {"game_id": "old", "version": ends[1],
                "events": [{"version": v} for v in range(ends[0] + 1, ends[1] + 1)],
                "view": {}}
    out.append(("insert into idempotency (game_id, seat, key, fingerprint, status, response, "
                "created_at) values ('old', 0, 'k', 'fp', 201, ?, ?)",
                (json.dumps(response), STAMPS[1])))
    return out


@pytest.fixture(params=["sqlite", "postgres"])
def before(request, tmp_path) -> StoreSpec:
    """A database at the schema before compact answers and the compact log."""
    return database_before(request, tmp_path, sqlite._v14, postgres.V11, lambda kind: _rows())


def test_an_old_log_is_migrated_to_batches_and_still_exports(before, tmp_path):
    events, ends = _log()
    store = open_store(before.settings(), check_schema=False)
    store.migrate()
    try:
        assert store.read("old") == events and store.count("events") == len(events)
        assert store.read("old", ends[0] - 1, ends[1] + 1) == events[ends[0] - 1:ends[1] + 1]
        batches = before.raw("select first, version from event_batches order by version")
        assert [tuple(b) for b in batches] == [(1, ends[0]), (ends[0] + 1, ends[1]),
                                               (ends[1] + 1, ends[2])]
        timed = store.read_timed("old", [e["type"] for e in events])
        assert [times.to_text(at) for _, _, at in timed] == \
            [STAMPS[0]] * ends[0] + [STAMPS[1]] * 3 + [STAMPS[2]] * (ends[2] - ends[1])
        answer = store.idempotent_answer("old", 0, "k")
        assert answer is not None and (answer.from_version, answer.version) == \
            (ends[0] + 1, ends[1])
        out = io.StringIO()
        assert export_games(store, out) == 1
        line = json.loads(out.getvalue().splitlines()[1])
        assert [e["payload"] for e in line["events"]] == events
        assert [e["created_at"] for e in line["events"]][ends[0]] == STAMPS[1]
        assert line["idempotency"][0]["version"] == ends[1]
    finally:
        store.close()
    again = open_store(StoreSpec("sqlite", str(tmp_path / "new.db")).settings())
    try:
        assert import_games(again, out.getvalue().splitlines()).added == ["old"]
        assert again.read("old") == events
        assert again.dump_game("old")["events"] == line_rows(line)
    finally:
        again.close()


def line_rows(line: dict) -> list[dict]:
    return [{**r, "created_at": times.from_text(r["created_at"])} for r in line["events"]]


def test_an_export_from_before_the_change_imports(tmp_path):
    """An export line of before (idempotent answers as documents) imports: its answer
    keeps its batch's versions."""
    events, ends = _log()
    rows = {"games": [{"id": "x", "variant": "alhambra", "options": {}, "players": 3,
                       "status": "active", "phase": "action", "version": len(events),
                       "current_seat": 1, "time_per_move": 3600,
                       "timeout_policy": "default_move", "deadline": None,
                       "imported": False, "takeover_after_timeouts": 0,
                       "created_at": STAMPS[0],
                       "updated_at": STAMPS[0]}],
            "seats": [], "events": [{"game_id": "x", "version": v, "type": e["type"],
                                     "payload": e, "created_at": STAMPS[0]}
                                    for v, e in enumerate(events, start=1)],
            "idempotency": [{"game_id": "x", "seat": 0, "key": "k", "fingerprint": "f",
                             "status": 201, "created_at": STAMPS[0], "response": {
                                 "version": 9, "events": [{}, {}], "view": {}}}]}
    store = open_store(StoreSpec("sqlite", str(tmp_path / "a.db")).settings())
    try:
        header = json.dumps({"format": "alhambra-pbem-export", "version": 1})
        assert import_games(store, [header, json.dumps(rows)]).added == ["x"]
        assert store.read("x") == events
        answer = store.idempotent_answer("x", 0, "k")
        assert answer is not None and (answer.from_version, answer.version) == (8, 9)
    finally:
        store.close()
