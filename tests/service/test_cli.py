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


def test_moderation_commands_refuse_what_is_not_there(tmp_path):
    """The operator's commands on an empty database: nothing to act on, said so."""
    env = {"ALHAMBRA_DATA": str(tmp_path), "PATH": "", "USER": "root"}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "service.cli", *args],
                              capture_output=True, text=True, env=env)

    empty = run("reports")
    assert empty.returncode == 0 and empty.stdout == "" and "no open reports" in empty.stderr
    assert json.loads(run("reports", "--json").stdout) == []
    nobody = run("suspend", "nobody")
    assert nobody.returncode == 1 and "no player has the handle 'nobody'" in nobody.stderr
    assert run("hide-message", "nogame", "1").returncode == 1
    assert run("reports", "close").returncode == 2
    assert run("reports", "close", "7").returncode == 1
    bad = run("ban", "not an address")
    assert bad.returncode == 2 and "is no address" in bad.stderr
    banned = run("ban", "X@Example.org", "--reason", "spam", "--by", "ops")
    assert banned.stdout == "x@example.org: banned (no sign-in)\n"
    assert run("ban", "x@example.org").stdout == "x@example.org was banned already\n"
    assert run("unban", "x@example.org").stdout == "x@example.org: ban lifted\n"
    log = run("reports", "log").stdout.splitlines()
    assert [line.split("\t")[1:] for line in log] == [
        ["ops", "ban", "x@example.org", "spam"], ["root", "unban", "x@example.org", ""]]
