"""Schema migrations: a database of the previous schema is upgraded step by step on
opening and plays on; a database of a newer schema is refused untouched."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from service import times
from service.auth import seat_token
from service.clock import TIMED_EVENTS, Clock, TimeControl
from service.settings import Settings
from service.store import SchemaTooNew, SqliteStore
from service.store.sqlite import MIGRATIONS, SCHEMA_VERSION

FIXTURE = Path(__file__).parent / "fixtures" / "schema_v2.sql"
GAME = "e575a26fa3c52151"  # the fixture's active game
KEY = b"k" * 32  # the fixture's secret key


def schema(path: Path) -> dict:
    """Tables with their columns and foreign keys, indexes and triggers, as SQLite reports
    them (not the text of the statements that made them)."""
    conn = sqlite3.connect(path)
    out: dict = {}
    for (table,) in conn.execute("select name from sqlite_master where type = 'table' "
                                 "order by name"):
        cols = [(name, kind.upper(), notnull, default, pk) for _, name, kind, notnull,
                default, pk in conn.execute(f"pragma table_info({table})")]
        fks = [tuple(r[2:5]) for r in conn.execute(f"pragma foreign_key_list({table})")]
        indexes = sorted((name, unique, tuple(c[2] for c in conn.execute(
            f"pragma index_info({name})"))) for _, name, unique, origin, _ in
            conn.execute(f"pragma index_list({table})") if origin == "c")
        out[table] = (cols, fks, indexes)
    out["triggers"] = [r[0] for r in conn.execute(
        "select name from sqlite_master where type = 'trigger' order by name")]
    conn.close()
    return out


def load_fixture(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(FIXTURE.read_text())
    conn.close()


def user_version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("pragma user_version").fetchone()[0]
    finally:
        conn.close()


def test_a_schema_2_database_is_upgraded_and_plays_on(tmp_path):
    from service import create_app

    old = tmp_path / "old.db"
    load_fixture(old)
    assert user_version(old) == 2 < SCHEMA_VERSION
    fresh = tmp_path / "fresh.db"
    SqliteStore(fresh).close()

    (tmp_path / "secret.key").write_text(KEY.hex() + "\n")  # the key it was made with
    app = create_app(Settings(database=str(old)))
    assert user_version(old) == SCHEMA_VERSION
    assert schema(old) == schema(fresh)
    client = app.test_client()
    token = {"Authorization": f"Bearer {seat_token(KEY, GAME, 0)}"}
    doc = client.get(f"/games/{GAME}", headers=token).get_json()
    assert doc["version"] == 22 and doc["current_seat"] == 0 and doc["your_seat"] == 0
    legal = client.get(f"/games/{GAME}/legal-moves", headers=token).get_json()
    r = client.post(f"/games/{GAME}/moves", headers=token,
                    json={"version": 22, "move": legal["moves"][0]["notation"]})
    assert r.status_code == 201, r.get_json()
    # the idempotent answers and webhooks of before are still there; its notification and
    # the batches not yet relayed are due work (the batches to plan: the sent mail done)
    store = app.extensions["alhambra"].store
    first = store.idempotent_answer(GAME, 1, "k0")
    assert first is not None and (first.status, first.from_version, first.version) == \
        (201, 14, 16)  # what the stored document said, kept as the batch's versions
    reused = client.post(f"/games/{GAME}/moves", headers={
        "Authorization": f"Bearer {seat_token(KEY, GAME, 1)}", "Idempotency-Key": "k0"},
        json={"version": 0, "move": "take 1"})
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency_key_reused"
    assert [h.url for h in store.webhooks(GAME)] == ["http://hook.test/x"]
    assert [(d.kind, d.from_version, d.version, d.seat, d.state, d.args)
            for d in store.due_rows(GAME)[:4]] == [
        ("plan", 14, 16, None, "pending", {"mails": True}),
        ("plan", 17, 19, None, "pending", {"mails": True}),
        ("plan", 20, 22, None, "pending", {"mails": True}),
        ("started", None, 1, 0, "done", None)]
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store.conn.execute("delete from event_batches where game_id = ?", (GAME,))
    store.close()


def test_an_older_game_keeps_its_time_per_move(tmp_path):
    """A game from before time controls (service/clock.py) has none: its deadline is
    its time per move after its turn started, as always, and its replay is public."""
    from service import create_app

    old = tmp_path / "old.db"
    load_fixture(old)
    (tmp_path / "secret.key").write_text(KEY.hex() + "\n")
    app = create_app(Settings(database=str(old)))
    client = app.test_client()
    token = {"Authorization": f"Bearer {seat_token(KEY, GAME, 0)}"}
    doc = client.get(f"/games/{GAME}", headers=token).get_json()
    assert (doc["time_control"], doc["replay_public"]) == (None, True)
    tpm = doc["time_per_move"]
    legal = client.get(f"/games/{GAME}/legal-moves", headers=token).get_json()
    take = next(m["notation"] for m in legal["moves"] if m["move"]["action"] == "take")
    assert client.post(f"/games/{GAME}/moves", headers=token,
                       json={"version": 22, "move": take}).status_code == 201
    store = app.extensions["alhambra"].store
    game = store.game(GAME)
    version, started, at = store.read_timed(GAME, ("turn_started",))[-1]
    assert version == game.version and started["seat"] == game.current_seat == 1
    assert game.deadline == at + timedelta(seconds=tpm)
    # its clocks, folded from its log at that move (issue 32), are kept in its row now
    control = TimeControl.of(game.time_per_move, game.time_control)
    assert game.clock == Clock.start(control, 2).after(
        store.read_timed(GAME, TIMED_EVENTS)).to_json()
    doc = client.get(f"/games/{GAME}").get_json()
    left = [s["time_left"] for s in doc["seats"]]
    assert left[0] == tpm and 0 <= tpm - left[1] < 60
    store.close()


def test_times_are_one_form_after_the_upgrade_and_compare_as_times(tmp_path):
    """Schema 2 wrote deadlines to the second ('…:43Z'), other times to the millisecond;
    as text, '…:43Z' sorts after '…:43.001Z', so a game a millisecond overdue was not."""
    path = tmp_path / "old.db"
    load_fixture(path)
    conn = sqlite3.connect(path)
    (deadline,) = conn.execute("select deadline from games where id = ?", (GAME,)).fetchone()
    conn.close()
    assert deadline == "2026-11-30T12:01:43Z"
    store = SqliteStore(path)
    game = store.game(GAME)
    assert game.deadline == times.from_text(deadline)
    texts = store.conn.execute(
        "select deadline from games where deadline is not null union "
        "select created_at from games union select updated_at from games union "
        "select joined_at from seats where joined_at is not null union "
        "select due_at from due union select created_at from webhooks").fetchall()
    assert texts and all(times.to_text(times.from_text(t)) == t for (t,) in texts)
    store.close()


def test_each_step_runs_once_from_any_older_version(tmp_path):
    path = tmp_path / "v1.db"
    conn = sqlite3.connect(path, isolation_level=None)
    MIGRATIONS[0](conn)
    conn.execute("pragma user_version = 1")
    conn.close()
    SqliteStore(path).close()
    SqliteStore(path).close()  # opening again changes nothing
    assert user_version(path) == SCHEMA_VERSION
    fresh = tmp_path / "fresh.db"
    SqliteStore(fresh).close()
    assert schema(path) == schema(fresh)


def test_a_newer_schema_is_refused_untouched(tmp_path):
    path = tmp_path / "new.db"
    SqliteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"pragma user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = schema(path)
    with pytest.raises(SchemaTooNew, match=f"schema version {SCHEMA_VERSION + 1}.*"
                                           "upgrade alhambra-pbem"):
        SqliteStore(path)
    assert user_version(path) == SCHEMA_VERSION + 1 and schema(path) == before
