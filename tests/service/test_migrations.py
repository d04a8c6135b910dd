"""Schema migrations of SQLite (service/store/schema.py): a database of schema 16 (the last
of SQLite's own numbering) is brought to the one list's baseline on opening and plays on,
with the same schema as a new one; an older one is refused untouched, naming the release
that migrates it; a database of a newer schema is refused untouched."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from service.auth import seat_token
from service.clock import TIMED_EVENTS, Clock, TimeControl
from service.players import sign_in_code
from service.settings import Settings
from service.store import SchemaTooNew, SchemaTooOld, sqlite_store
from service.store.schema import BASELINE, LAST_LEGACY, SCHEMA_VERSION

FIXTURES = Path(__file__).parent / "fixtures"
GAME = "e575a26fa3c52151"  # the fixtures' active game
KEY = b"k" * 32  # the fixtures' secret key


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


def load_fixture(path: Path, version: int = 16) -> None:
    conn = sqlite3.connect(path)
    conn.executescript((FIXTURES / f"schema_v{version}.sql").read_text())
    conn.close()


def user_version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("pragma user_version").fetchone()[0]
    finally:
        conn.close()


def test_a_schema_16_database_is_brought_to_the_baseline_and_plays_on(tmp_path):
    from service import create_app

    old = tmp_path / "old.db"
    load_fixture(old)
    assert user_version(old) == 16
    fresh = tmp_path / "fresh.db"
    sqlite_store(str(fresh)).close()

    (tmp_path / "secret.key").write_text(KEY.hex() + "\n")  # the key it was made with
    app = create_app(Settings(database=str(old)))
    assert user_version(old) == SCHEMA_VERSION == user_version(fresh) >= BASELINE
    assert schema(old) == schema(fresh)
    client = app.test_client()
    token = {"Authorization": f"Bearer {seat_token(KEY, GAME, 0)}"}
    doc = client.get(f"/games/{GAME}", headers=token).get_json()
    assert doc["version"] == 22 and doc["current_seat"] == 0 and doc["your_seat"] == 0
    legal = client.get(f"/games/{GAME}/legal-moves", headers=token).get_json()
    r = client.post(f"/games/{GAME}/moves", headers=token,
                    json={"version": 22, "move": legal["moves"][0]["notation"]})
    assert r.status_code == 201, r.get_json()
    # the idempotent answers, webhooks and due work of before are still there
    store = app.extensions["alhambra"].store
    first = store.idempotent_answer(GAME, 1, "k0")
    assert first is not None and (first.status, first.from_version, first.version) == \
        (201, 14, 16)
    reused = client.post(f"/games/{GAME}/moves", headers={
        "Authorization": f"Bearer {seat_token(KEY, GAME, 1)}", "Idempotency-Key": "k0"},
        json={"version": 0, "move": "take 1"})
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency_key_reused"
    assert [h.url for h in store.hooks.of_game(GAME)] == ["http://hook.test/x"]
    assert [(d.kind, d.from_version, d.version, d.seat, d.state, d.args)
            for d in store.due_rows(GAME)[:4]] == [
        ("plan", 14, 16, None, "pending", {"mails": True}),
        ("plan", 17, 19, None, "pending", {"mails": True}),
        ("plan", 20, 22, None, "pending", {"mails": True}),
        ("started", None, 1, 0, "done", None)]
    with store.d.writing() as db, pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("delete from event_batches where game_id = ?", (GAME,))
    # identity (schema 21): a seat with an address from before claims is its address's
    # at that address's next sign-in (issue 39)
    seats = store.game(GAME).seats
    assert [(s.claim_on_sign_in, s.claimed_by) for s in seats] == [(True, None),
                                                                    (False, None)]
    players = app.extensions["alhambra_players"]
    code = sign_in_code(KEY, players.request_sign_in("ann@example.org").id)
    players.open_session(code)
    assert [s.claimed_by for s in store.game(GAME).seats] == ["ann@example.org", None]
    store.close()


def test_an_older_database_is_refused_untouched_naming_the_release_that_migrates_it(
        tmp_path):
    old = tmp_path / "v2.db"
    load_fixture(old, 2)
    before = schema(old)
    with pytest.raises(SchemaTooOld, match=f"schema version 2, from before.*commit "
                                           f"{LAST_LEGACY}"):
        sqlite_store(str(old))
    assert user_version(old) == 2 and schema(old) == before


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


def test_migrating_again_changes_nothing(tmp_path):
    path = tmp_path / "again.db"
    load_fixture(path)
    sqlite_store(str(path)).close()
    before = schema(path)
    store = sqlite_store(str(path))  # opening again changes nothing
    assert store.migrate() == (SCHEMA_VERSION, SCHEMA_VERSION)
    store.close()
    assert user_version(path) == SCHEMA_VERSION and schema(path) == before


def test_a_newer_schema_is_refused_untouched(tmp_path):
    path = tmp_path / "new.db"
    sqlite_store(str(path)).close()
    conn = sqlite3.connect(path)
    conn.execute(f"pragma user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = schema(path)
    with pytest.raises(SchemaTooNew, match=f"schema version {SCHEMA_VERSION + 1}.*"
                                           "upgrade alhambra-pbem"):
        sqlite_store(str(path))
    assert user_version(path) == SCHEMA_VERSION + 1 and schema(path) == before
