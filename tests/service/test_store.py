"""The store: append-only events, unique versions, token hashes only, outbox rows."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from tests.support import new_game


def test_events_are_never_updated_or_deleted(games, client):
    handle = new_game(client, 2)
    conn = games.store.conn
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("update events set payload = '{}' where game_id = ?", (handle.id,))
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("delete from events where game_id = ?", (handle.id,))
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("insert into events (game_id, version, type, payload, created_at) "
                     "values (?, 1, 'x', '{}', 'now')", (handle.id,))


def test_wal_mode_indexes_and_outbox(games, client):
    store = games.store
    assert store.conn.execute("pragma journal_mode").fetchone()[0] == "wal"
    handle = new_game(client, 3)
    doc = handle.get()
    r = handle.submit(doc["current_seat"], "take 1", doc["version"])
    assert r.status_code == 201
    rows = store.conn.execute("select game_id, from_version, to_version, delivered_at "
                              "from outbox order by id").fetchall()
    setup = doc["version"]
    assert rows == [(handle.id, 1, setup, None),
                    (handle.id, setup + 1, r.get_json()["version"], None)]
    plans = " ".join(str(r) for r in store.conn.execute(
        "explain query plan select * from seats where token_hash = ?", ("x",)))
    assert "USING INDEX" in plans or "USING COVERING INDEX" in plans
    plans = " ".join(str(r) for r in store.conn.execute(
        "explain query plan select payload from events where game_id = ? and version > ?",
        ("x", 3)))
    assert "PRIMARY KEY" in plans or "INDEX" in plans


def test_only_token_hashes_are_stored(db_path, client):
    r = client.post("/games", json={"seats": [{"name": "A"}, {"name": "B"}, None]})
    created = r.get_json()
    joined = client.post(f"/games/{created['game_id']}/join",
                         json={"invite_code": created["invite_code"], "name": "C"}).get_json()
    secrets = [created["host_token"], created["invite_code"], joined["token"],
               *(s["token"] for s in created["seats"])]
    dump = "\n".join(sqlite3.connect(db_path).iterdump())
    for secret in secrets:
        assert secret not in dump


def test_cli_create_game_and_openapi(tmp_path):
    env = {"ALHAMBRA_DATA": str(tmp_path), "PATH": ""}
    out = subprocess.run([sys.executable, "-m", "service.cli", "create-game", "--seat",
                          "Ann:ann@example.org", "--seat", "Bob", "--open", "1"],
                         capture_output=True, text=True, env=env, check=True)
    doc = json.loads(out.stdout)
    assert len(doc["seats"]) == 2 and doc["invite_code"] and doc["host_token"]
    assert doc["seats"][0]["join_url"].startswith("http")
    assert (tmp_path / "alhambra.db").exists()
    bad = subprocess.run([sys.executable, "-m", "service.cli", "create-game", "--variant",
                          "chess", "--seat", "A", "--seat", "B"], capture_output=True,
                         text=True, env=env)
    assert bad.returncode == 1 and "invalid_option" in bad.stderr
    spec = subprocess.run([sys.executable, "-m", "service.cli", "openapi"],
                          capture_output=True, text=True, env=env, check=True)
    assert json.loads(spec.stdout)["info"]["title"] == "alhambra-pbem"
