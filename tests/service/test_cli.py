"""alhambra-pbem's commands, run as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys


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


def test_migrate_says_where_the_schema_stands(tmp_path):
    import sqlite3

    from service.store.schema import SCHEMA_VERSION

    env = {"ALHAMBRA_DATA": str(tmp_path), "PATH": ""}

    def migrate():
        return subprocess.run([sys.executable, "-m", "service.cli", "migrate"],
                              capture_output=True, text=True, env=env)

    first, again = migrate(), migrate()
    db = tmp_path / "alhambra.db"
    assert first.stdout == f"SQLite database {db}: schema version from 0 to " \
                           f"{SCHEMA_VERSION}\n"
    assert again.stdout == f"SQLite database {db}: schema version {SCHEMA_VERSION}, " \
                           "up to date\n"
    conn = sqlite3.connect(db)
    conn.execute(f"pragma user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    newer = migrate()
    assert newer.returncode == 2
    assert f"has schema version {SCHEMA_VERSION + 1}, newer than this alhambra-pbem " \
           "knows" in newer.stderr
