"""One Settings object for the API, the workers and the CLI (issue 11.8)."""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest

from service import create_app
from service.settings import START, TOPICS, Settings, SettingsError, setting
from workers.context import Context


def test_from_the_environment_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = Settings.from_env({})
    assert s.data_dir == tmp_path / "data" and s.database == str(tmp_path / "data" /
                                                                  "alhambra.db")
    assert (s.min_time_per_move, s.public_url, s.link_url) == (60, None,
                                                               "http://127.0.0.1:8000")
    s = Settings.from_env({"ALHAMBRA_DATA": "d", "ALHAMBRA_MIN_TIME_PER_MOVE": "5",
                           "PUBLIC_URL": "https://x.test/", "ALHAMBRA_STATE_CACHE": "0",
                           "ALHAMBRA_REMINDERS": "", "ALHAMBRA_WEBHOOK_RETRIES": "1,2",
                           "ALHAMBRA_CLAIM_LEASE": "0.5", "SMTP_URL": "smtp://h:25",
                           "ALHAMBRA_BOT_TURNS": "50"},
                          database="other.db")
    assert s.data_dir == tmp_path / "d" and s.database == str(tmp_path / "other.db")
    assert (s.min_time_per_move, s.public_url, s.state_cache_size) == (5, "https://x.test", 0)
    assert (s.reminders, s.webhook_retries, s.claim_lease) == ((), (1, 2), 0.5)
    worker = Context(s)
    assert s.bot_turns == worker.games.bot_turns == 50  # the workers' bots obey it
    worker.store.close()
    # what a child process (the worker of `serve`) gets is the same settings
    monkeypatch.chdir(tmp_path / "..")
    assert Settings.from_env(s.environ()) == s


@pytest.mark.parametrize("env, var", [
    ({"ALHAMBRA_MIN_TIME_PER_MOVE": "soon"}, "ALHAMBRA_MIN_TIME_PER_MOVE"),
    ({"ALHAMBRA_MIN_TIME_PER_MOVE": "0"}, "ALHAMBRA_MIN_TIME_PER_MOVE"),
    ({"ALHAMBRA_REMINDERS": "0.5,half"}, "ALHAMBRA_REMINDERS"),
    ({"ALHAMBRA_CLAIM_INTERVAL": "fast"}, "ALHAMBRA_CLAIM_INTERVAL"),
    ({"ALHAMBRA_CLAIM_LEASE": "0"}, "ALHAMBRA_CLAIM_LEASE"),
    ({"ALHAMBRA_MAX_BODY": "100"}, "ALHAMBRA_MAX_BODY"),
    ({"ALHAMBRA_LIMIT_CREATE": "lots"}, "ALHAMBRA_LIMIT_CREATE"),
    ({"ALHAMBRA_LIMIT_BAD_TOKEN": "5 per fortnight"}, "ALHAMBRA_LIMIT_BAD_TOKEN"),
    ({"ALHAMBRA_TRUSTED_PROXIES": "-1"}, "ALHAMBRA_TRUSTED_PROXIES"),
    ({"ALHAMBRA_TAKEOVER_BOT": "genius"}, "ALHAMBRA_TAKEOVER_BOT"),
    ({"ALHAMBRA_BOT_TURNS": "0"}, "ALHAMBRA_BOT_TURNS"),
])
def test_a_bad_value_names_its_variable(env, var):
    with pytest.raises(SettingsError, match=var):
        Settings.from_env(env)


def test_the_cli_says_which_variable_is_wrong(tmp_path):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "service.cli", "create-game", "--seat", "A",
                          "--seat", "B"], capture_output=True, text=True,
                         env={"ALHAMBRA_DATA": str(tmp_path), "ALHAMBRA_STATE_CACHE": "many"})
    assert out.returncode == 2
    assert out.stderr.strip() == ("alhambra-pbem: ALHAMBRA_STATE_CACHE must be a number, "
                                  "not 'many'")


def test_the_api_and_the_workers_derive_tokens_from_one_key(tmp_path):
    """The links in mails carry the tokens the API accepts: one key, read once."""
    for s in (Settings(data_dir=tmp_path / "a", secret="a long secret"),
              Settings(data_dir=tmp_path / "b")):  # the key file beside the database
        app = create_app(s)
        ctx = Context(s)
        try:
            assert app.extensions["alhambra"].secret_key == ctx.games.secret_key
            created = app.test_client().post("/games", json={"players": 2, "seats": [
                {"name": "A"}, {"name": "B"}]}).get_json()
            assert created["seats"][1]["token"] == ctx.games.seat_token(
                created["game_id"], 1)
        finally:
            ctx.close()
            app.extensions["alhambra"].store.close()
    assert (tmp_path / "b" / "secret.key").stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / "a" / "secret.key").exists()
    assert Settings(data_dir=tmp_path / "b").secret_key == Settings(
        database=str(tmp_path / "b" / "alhambra.db")).secret_key


def test_postgresql_is_chosen_by_database_url(tmp_path):
    env = {"ALHAMBRA_DATA": str(tmp_path), "DATABASE_URL": "postgresql://app@db.test/games",
           "ALHAMBRA_SECRET_KEY": "k", "DATABASE_POOL_SIZE": "4",
           "DATABASE_POOL_TIMEOUT": "2.5", "ALHAMBRA_REDIS_PREFIX": "t1:"}
    s = Settings.from_env(env)
    assert (s.database_url, s.db_pool_size, s.db_pool_timeout, s.redis_prefix) == (
        "postgresql://app@db.test/games", 4, 2.5, "t1:")
    assert Settings.from_env(s.environ()) == s  # what a worker of `serve` gets
    assert Settings.from_env({"ALHAMBRA_DATA": str(tmp_path)}).database_url is None


@pytest.mark.parametrize("env, message", [
    ({"DATABASE_URL": "postgresql://db.test/games"},
     "DATABASE_URL needs ALHAMBRA_SECRET_KEY"),
    ({"DATABASE_URL": "mysql://db.test/games", "ALHAMBRA_SECRET_KEY": "k"},
     "DATABASE_URL must be a postgresql:// URL"),
    ({"DATABASE_POOL_SIZE": "0"}, "DATABASE_POOL_SIZE must be at least 1"),
    ({"DATABASE_POOL_TIMEOUT": "soon"}, "DATABASE_POOL_TIMEOUT must be a number"),
])
def test_database_settings_that_cannot_work_are_refused(env, message):
    with pytest.raises(SettingsError, match=message):
        Settings.from_env(env)


def test_the_takeover_bot_is_greedy_unless_set():
    assert Settings.from_env({}).takeover_level == "greedy"
    assert Settings.from_env({"ALHAMBRA_TAKEOVER_BOT": "random"}).takeover_level == "random"


def test_the_documented_table_is_the_declared_settings():
    """Each setting is declared once (service/settings.py); docs/configuration.md's table
    is that declaration, row for row (issue 21)."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    table = Settings.table()
    assert table in page, \
        "docs/configuration.md's settings table differs from the declaration:\n" + table


ROOT = Path(__file__).resolve().parents[2]
#: ALHAMBRA_ variables the documents name that are no settings of the service: the
#: tests' own servers (docs/development.md).
NOT_SETTINGS = {"ALHAMBRA_TEST_PG_URL", "ALHAMBRA_TEST_REDIS_URL"}


def _declared() -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(Settings) if "env" in f.metadata]


def test_the_settings_are_grouped_by_topics_in_their_order():
    """Each topic holds a setting; the page shows the topics in the order of TOPICS, each
    a heading and its sentence; the first is where everyone starts (issue 35)."""
    used = {f.metadata["topic"] for f in _declared()}
    assert used == {topic.name for topic in TOPICS}
    assert len({topic.name for topic in TOPICS}) == len(TOPICS)
    assert TOPICS[0].name == START
    assert {f.metadata["env"] for f in _declared() if f.metadata["topic"] == START} == {
        "ALHAMBRA_DATA", "DATABASE_URL", "PUBLIC_URL", "REDIS_URL", "SMTP_URL", "MAIL_FROM",
        "MAIL_REPLY_TO"}
    table = Settings.table()
    headings = re.findall(r"^### (.+)$", table, re.M)
    assert headings == [topic.name for topic in TOPICS]
    for topic in TOPICS:
        assert f"### {topic.name}\n\n{topic.intro}\n\n| variable |" in table
    page = (ROOT / "docs" / "configuration.md").read_text()
    places = [page.index(f"### {topic.name}\n") for topic in TOPICS]
    assert places == sorted(places)


def test_a_setting_of_an_unknown_topic_is_refused_where_it_is_declared():
    with pytest.raises(SettingsError, match="ALHAMBRA_NEW: 'Elsewhere' is not one of"):
        setting("ALHAMBRA_NEW", 1, "a new setting", "`1`", topic="Elsewhere")
    assert setting("ALHAMBRA_NEW", 1, "a new setting", "`1`", topic=START).metadata[
        "topic"] == START


def test_every_alhambra_variable_the_documents_name_is_a_setting():
    """deploy/ and docs/ name only declared ALHAMBRA_ variables (a wildcard such as
    `ALHAMBRA_LIMIT_*` stands for several), but the tests' own."""
    declared = {f.metadata["env"] for f in _declared()}
    named: dict[str, set[str]] = {}
    for folder in ("deploy", "docs"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file():
                text = path.read_text(errors="replace")
                for var in re.findall(r"\bALHAMBRA_[A-Z0-9_]*[A-Z0-9]\b", text):
                    named.setdefault(var, set()).add(str(path.relative_to(ROOT)))
    assert "ALHAMBRA_DATA" in named  # the search finds them
    assert {var: where for var, where in named.items()
            if var not in declared | NOT_SETTINGS} == {}
    assert NOT_SETTINGS <= set(named)  # the exceptions are still named


def test_a_child_process_reads_back_the_settings_it_was_handed(tmp_path):
    """environ() writes every declared setting; from_env() reads them back equal."""
    settings = Settings.from_env({
        "ALHAMBRA_DATA": str(tmp_path), "ALHAMBRA_REMINDERS": "", "ALHAMBRA_CORS_ORIGINS": "",
        "ALHAMBRA_WEBHOOK_RETRIES": "1,2", "ALHAMBRA_WEBHOOK_ALLOW_PRIVATE": "1",
        "MAIL_REPLY_TO": "moves@example.org", "MAIL_IN_LISTEN": "[::1]:2525",
        "ALHAMBRA_LIMIT_JOIN": "5/minute", "ALHAMBRA_CLAIM_LEASE": "12.5"})
    assert settings.reminders == () and settings.cors_origins == ()
    again = Settings.from_env(settings.environ())
    assert again == settings
    assert again.webhook_retries == (1, 2) and again.webhook_allow_private
    assert again.limit_join == "5/minute" and again.claim_lease == 12.5


def test_gunicorn_reads_its_bind_and_threads_through_settings(tmp_path):
    """deploy/gunicorn.conf.py: ALHAMBRA_BIND and ALHAMBRA_THREADS are declared settings;
    a bad value stops gunicorn naming the variable (issue 35)."""
    import subprocess
    import sys

    conf = Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py"
    code = ("import runpy, sys; c = runpy.run_path(sys.argv[1]); "
            "print(c['bind'], c['threads'], c['control_socket'])")
    env = {"PATH": os.environ.get("PATH", ""), "ALHAMBRA_DATA": str(tmp_path),
           "ALHAMBRA_BIND": "[::1]:8123", "ALHAMBRA_THREADS": "3"}
    ok = subprocess.run([sys.executable, "-c", code, str(conf)], env=env,
                        capture_output=True, text=True, timeout=60)
    assert ok.stdout.split() == ["[::1]:8123", "3", str(tmp_path / "gunicorn.ctl")], ok.stderr
    bad = subprocess.run([sys.executable, "-c", code, str(conf)],
                         env={**env, "ALHAMBRA_THREADS": "0"}, capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode != 0 and "ALHAMBRA_THREADS must be at least 1" in bad.stderr
