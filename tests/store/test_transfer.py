"""``alhambra-pbem export`` / ``import``: a SQLite host's games moved to PostgreSQL (and
back) keep every row, replay to the same games, and play on with the tokens handed out
before."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine.bots import random_move
from service import create_app, times
from service.settings import Settings
from service.store import Claim, Finish, open_store, sqlite_store
from service.store.schema import SCHEMA_VERSION
from service.transfer import TransferError, export_games, import_games, rearm
from tests.support import ROOT, StoreSpec, auth, fake_clock, new_game

GOLDEN = ROOT / "tests" / "golden" / "v2" / "alhambra-2p.json"


def cli(*args: str, env: dict[str, str], stdin: str | None = None
        ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "service.cli", *args], cwd=ROOT, env=env,
                          input=stdin, capture_output=True, text=True, timeout=120)


def an_old_host(data: Path) -> tuple[object, dict[str, object]]:
    """A SQLite host with a finished game (an imported record), a running one (moves,
    an idempotent answer, a webhook, a sent mail) and one waiting for a player."""
    app = create_app(Settings(data_dir=data, state_cache_size=0))
    client = app.test_client()
    store = app.extensions["alhambra"].store
    record = json.loads(GOLDEN.read_text())["record"]
    finished = client.post("/records", json=record).get_json()["game_id"]
    running = new_game(client, 2)
    for i in range(3):
        doc = running.get()
        seat = doc["current_seat"]
        move = (seat, running.notations(seat)[0], doc["version"])
        r = running.submit(*move, headers={"Idempotency-Key": f"k{i}"})
        assert r.status_code == 201, r.get_json()
        running.created.setdefault("first", (move, r.get_json()))
    hook = client.post(f"/games/{running.id}/webhooks", json={"url": "http://h.test/x"},
                       headers=auth(running.tokens[0]))
    assert hook.status_code == 201
    # a mail sent, another held by a worker of the old host
    sent, held = [r for r in store.claim_due(100) if r.game_id == running.id][:2]
    store.finish_due(Claim(sent.id, sent.attempts), Finish("sent"))
    running.created["held"] = held.id
    waiting = client.post("/games", json={"seats": [{"name": "Ann"}, None]}).get_json()
    return app, {"finished": finished, "running": running, "waiting": waiting["game_id"]}


def views(store, game_id: str) -> list:
    """What each seat and a spectator see of the game replayed from its log."""
    log = store.read(game_id)
    if not log:
        return []
    state = engine.replay(log)
    return [engine.view(state, seat) for seat in (None, *range(len(state.seats)))]


def test_sqlite_games_move_to_postgresql_and_back(tmp_path, pg_database, monkeypatch):
    old_app, games = an_old_host(tmp_path / "old")
    old = old_app.extensions["alhambra"].store
    ids = old.transfer.game_ids()
    assert len(ids) == 3
    running = games["running"]

    base = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    out = cli("export", "-o", str(tmp_path / "games.jsonl"),
              env={**base, "ALHAMBRA_DATA": str(tmp_path / "old")})
    assert out.returncode == 0, out.stderr
    assert "exported 3 games from the SQLite database" in out.stderr

    url = pg_database.schema()
    new_env = {**base, "DATABASE_URL": url, "ALHAMBRA_SECRET_KEY": "not the old key",
               "ALHAMBRA_DATA": str(tmp_path / "new")}
    refused = cli("import", str(tmp_path / "games.jsonl"), env=new_env)
    assert refused.returncode == 2 and "run 'alhambra-pbem migrate'" in refused.stderr
    migrated = cli("migrate", env=new_env)
    assert migrated.returncode == 0, migrated.stderr
    assert "PostgreSQL database postgresql://postgres@127.0.0.1:5432/" in migrated.stdout
    assert f"schema version from 0 to {SCHEMA_VERSION}" in migrated.stdout
    imported = cli("import", str(tmp_path / "games.jsonl"), env=new_env)
    assert imported.returncode == 0, imported.stderr
    assert "imported 3 games into the PostgreSQL database" in imported.stderr
    again = cli("import", env=new_env, stdin=(tmp_path / "games.jsonl").read_text())
    assert "imported 0 games" in again.stderr and "3 were there already" in again.stderr

    new_settings = Settings.from_env(new_env)
    new_app = create_app(new_settings)
    new = new_app.extensions["alhambra"].store
    assert new.transfer.game_ids() == ids
    for game_id in ids:
        rows = old.transfer.dump(game_id)
        assert new.transfer.dump(game_id) == rearm(rows)
        assert new.read(game_id) == old.read(game_id)
        assert views(new, game_id) == views(old, game_id)
    # the running game's due work goes on at the new host: what the old host's worker
    # held is due again, what was done stays done, its alarm is due at its deadline
    due = {d.id: d for d in new.due_rows(running.id)}
    old_due = {d.id: d for d in old.due_rows(running.id)}
    held = running.created["held"]
    assert old_due[held].state == "claimed" and due[held].state == "pending"
    assert [d.state for d in due.values() if d.result == "sent"] == ["done"]
    (alarm,) = [d for d in due.values() if d.kind == "deadline" and d.state == "pending"]
    assert alarm.due_at == old.game(running.id).deadline

    # Both hosts answer alike (at one instant: a game's document counts each seat's
    # time left to the second), and the tokens handed out before still play.
    old_client, new_client = old_app.test_client(), new_app.test_client()
    with monkeypatch.context() as frozen:
        fake_clock(frozen, times.now())
        for path in [f"/games/{i}" for i in ids] + [f"/games/{games['finished']}/record",
                                                     f"/games/{running.id}/events"]:
            for token in (None, running.host_token, *running.tokens):
                a = old_client.get(path, headers=auth(token))
                b = new_client.get(path, headers=auth(token))
                assert (a.status_code, a.get_json()) == (b.status_code, b.get_json()), path
    running.client = new_client
    doc = running.get()
    seat = doc["current_seat"]
    r = running.submit(seat, running.notations(seat)[0], doc["version"])
    assert r.status_code == 201, r.get_json()
    move, answer = running.created["first"]
    replayed = running.submit(*move, headers={"Idempotency-Key": "k0"})
    assert replayed.get_json() == answer  # the first answer, kept with the game
    assert replayed.headers["Idempotent-Replayed"] == "true"

    # ... and back to a new SQLite file, in the process this time.
    buffer = io.StringIO()
    assert export_games(new, buffer) == 3
    back = sqlite_store(str(tmp_path / "back" / "alhambra.db"))
    result = import_games(back, io.StringIO(buffer.getvalue()))
    assert result.added == ids and result.skipped == []
    for game_id in ids:
        assert back.transfer.dump(game_id) == rearm(new.transfer.dump(game_id))
    for s in (old, new, back):
        s.close()


def test_a_file_that_is_not_an_export_is_refused(tmp_path):
    store = open_store(Settings(data_dir=tmp_path))
    for text, message in [("", "line 1: not an alhambra-pbem-export file"),
                          ('{"format": "alhambra-pbem-export", "version": 9}\n',
                           "line 1: format version 9"),
                          ('{"format": "alhambra-pbem-export", "version": 1}\n{"x": 1}\n',
                           r"line 2: not a game's rows \(tables \['x'\]\)")]:
        with pytest.raises(TransferError, match=message):
            import_games(store, io.StringIO(text))
    assert store.transfer.game_ids() == []
    store.close()



def test_an_export_from_before_due_work_plans_a_running_games_clock(tmp_path):
    """An export with an outbox (and notifications) and no due rows: a running game's
    last batch is planned again by the new host's workers (its alarm and reminders)."""
    from service.games import Games
    from service.transfer import decode, encode

    store = open_store(Settings(data_dir=tmp_path / "a"))
    target = open_store(Settings(data_dir=tmp_path / "b"))
    try:
        created = Games(store).create(variant="alhambra", options={}, players=2,
                                      seats=[{"name": "A"}, {"name": "B"}],
                                      time_per_move=3600, timeout_policy="default_move")
        game_id = created["game_id"]
        rows = store.transfer.dump(game_id)
        version = rows["games"][0]["version"]
        del rows["due"]
        rows["outbox"] = [{"game_id": game_id, "from_version": 1, "to_version": version,
                           "created_at": times.now(), "claimed_at": None,
                           "delivered_at": times.to_text(times.now())}]
        rows["notifications"] = []
        header = '{"format": "alhambra-pbem-export", "version": 1}\n'
        assert import_games(target, io.StringIO(header + encode(rows))).added == [game_id]
        (plan,) = target.due_rows(game_id)
        assert (plan.kind, plan.from_version, plan.version, plan.args, plan.state) == \
            ("plan", 1, version, {"mails": False}, "pending")
        assert decode(encode(rows))["outbox"][0]["to_version"] == version
    finally:
        store.close()
        target.close()


def test_an_export_from_before_token_rotation_imports(tmp_path):
    """Seats exported before tokens could be rotated are at generation 0."""
    from service.games import Games
    from service.transfer import decode, encode

    store = open_store(Settings(data_dir=tmp_path))
    try:
        created = Games(store).create(variant="alhambra", options={}, players=2,
                                      seats=[{"name": "A"}, {"name": "B"}],
                                      time_per_move=3600, timeout_policy="default_move")
        rows = store.transfer.dump(created["game_id"])
        for seat in rows["seats"]:
            del seat["token_generation"]
        assert [s["token_generation"] for s in decode(encode(rows))["seats"]] == [0, 0]
    finally:
        store.close()


STAMPS = ["2026-11-30T10:00:00.000Z", "2026-11-30T10:05:00.250Z", "2026-11-30T11:00:00.999Z"]


def _log() -> tuple[list[dict], list[int]]:
    """A real game's first events and where its three batches end."""
    events = engine.new_game("alhambra", ["a", "b", "c"], 3)
    setup = len(events)
    state, rng = engine.replay(events), random.Random(3)
    while len(events) < setup + 6:
        events += engine.play(state, state.current, random_move(state, state.current, rng))
    return events, [setup, setup + 3, len(events)]


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
