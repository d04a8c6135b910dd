"""What only the PostgreSQL store has to show: its schema is changed by ``migrate`` alone
(checked at start, both ways), migrations from several processes at once, and a pool per
process after a fork."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import engine
from service.store import GameUpdate, SchemaTooNew, SchemaTooOld, open_store
from service.store.dialect import safe_url
from service.store.schema import BASELINE, LAST_LEGACY, SCHEMA_VERSION
from tests.store.test_contract import events, forked, make_game
from tests.support import StoreSpec

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fresh(pg_database) -> StoreSpec:
    """An empty schema (no migration ran), at a URL with a password (the test server
    does not ask for one) that messages must not show."""
    url = pg_database.schema()
    assert url.startswith("postgresql://postgres@")
    return StoreSpec("postgres", url.replace("postgres@", "postgres:pw-XYZ@", 1))


def test_a_process_refuses_a_database_that_was_not_migrated(fresh):
    with pytest.raises(SchemaTooOld, match=r"schema version 0; this alhambra-pbem needs "
                                           rf"{SCHEMA_VERSION}: run 'alhambra-pbem migrate'"
                       ) as exc:
        fresh.open()
    assert "postgresql://postgres@127.0.0.1" in str(exc.value)
    assert "pw-XYZ" not in str(exc.value)
    store = open_store(fresh.settings(), check_schema=False)
    assert store.migrate() == (0, SCHEMA_VERSION)
    assert store.migrate() == (SCHEMA_VERSION, SCHEMA_VERSION)
    store.close()
    fresh.open().close()


def test_a_newer_schema_is_refused_untouched(fresh):
    store = open_store(fresh.settings(), check_schema=False)
    store.migrate()
    store.close()
    fresh.raw("insert into schema_migrations (version) values (?)", (SCHEMA_VERSION + 1,))
    tables = fresh.raw("select table_name from information_schema.tables where "
                       "table_schema = current_schema() order by 1")
    message = (rf"schema version {SCHEMA_VERSION + 1}, newer than this alhambra-pbem "
               rf"knows \({SCHEMA_VERSION}\): upgrade alhambra-pbem")
    with pytest.raises(SchemaTooNew, match=message):
        fresh.open()
    store = open_store(fresh.settings(), check_schema=False)
    with pytest.raises(SchemaTooNew, match=message):
        store.migrate()
    store.close()
    assert fresh.raw("select table_name from information_schema.tables where "
                     "table_schema = current_schema() order by 1") == tables


def _migrate(spec: StoreSpec, barrier, results) -> None:
    store = open_store(spec.settings(), check_schema=False)
    barrier.wait(30)
    results.put(store.migrate())
    store.close()


def test_processes_migrating_at_once_migrate_once(fresh):
    mp = forked()
    barrier, results = mp.Barrier(3), mp.Queue()
    procs = [mp.Process(target=_migrate, args=(fresh, barrier, results)) for _ in range(3)]
    for p in procs:
        p.start()
    done = sorted(results.get(timeout=60) for _ in procs)
    for p in procs:
        p.join(30)
    # each step ran once (one process may take the lock between another's steps)
    assert done[0] == (0, SCHEMA_VERSION) and all(after == SCHEMA_VERSION for _, after in done)
    assert fresh.raw("select version from schema_migrations order by 1") == \
        [(v,) for v in range(BASELINE, SCHEMA_VERSION + 1)]


def test_a_forked_process_makes_its_own_pool(fresh):
    """gunicorn forks its workers from a process that may have used the store."""
    store = open_store(fresh.settings(), check_schema=False)
    store.migrate()
    make_game(store)
    pid = os.fork()
    if pid == 0:  # the child: it must not use the parent's connections
        code = 1
        try:
            store.append("g1", 0, events(1), GameUpdate("active", "action", 0, None))
            code = 0 if store.game("g1").version == 1 else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert store.game("g1").version == 1 and store.read("g1") == events(1)
    store.close()


def shape(spec: StoreSpec) -> tuple[list, list]:
    """A schema's tables and columns (name, type, null, default, identity) and indexes."""
    columns = spec.raw("select table_name, column_name, data_type, is_nullable, "
                       "column_default, is_identity, identity_generation from "
                       "information_schema.columns where table_schema = current_schema() "
                       "and table_name <> 'schema_migrations' order by 1, 2")
    indexes = spec.raw("select indexname, regexp_replace(indexdef, ' ON [^ ]+ ', ' ON ') "
                       "from pg_indexes where schemaname = current_schema() order by 1")
    return columns, indexes


def test_a_schema_13_database_is_brought_to_the_baseline_and_plays_on(fresh, pg_database):
    """The last of PostgreSQL's own numbering (a game made and played by the alhambra-pbem
    of that schema): ``migrate`` brings it to the one list's baseline, with the schema of
    a new database, and its game plays on."""
    import psycopg

    from service.games import Games

    with psycopg.connect(fresh.where, autocommit=True) as conn:
        conn.execute((FIXTURES / "postgres_v13.sql").read_text())
    store = open_store(fresh.settings(), check_schema=False)
    assert store.migrate() == (13, SCHEMA_VERSION)
    new = StoreSpec("postgres", pg_database.schema())
    open_store(new.settings(), check_schema=False).migrate()
    assert shape(fresh) == shape(new)
    games = Games(store, cache_size=0, secret_key=b"k" * 32)
    game = games.game("565e3327459bc48d")
    assert game.version > 6 and game.clock is None  # its clocks: folded at its next batch
    assert [s.name for s in game.seats] == ["Ann", "Bob"] and len(game.hooks) == 1
    state = games.state(game.id)
    played = games.submit(game, state.current, [engine.legal_moves(state, state.current)[0]],
                          state.version, None)
    assert played.version > game.version and store.game(game.id).clock is not None
    store.close()


def test_an_older_database_is_refused_naming_the_release_that_migrates_it(fresh):
    fresh.raw("create table schema_migrations (version integer primary key, applied_at "
              "timestamptz not null default now())")
    fresh.raw("insert into schema_migrations (version) values (12)")
    store = open_store(fresh.settings(), check_schema=False)
    with pytest.raises(SchemaTooOld, match=f"schema version 12, from before.*commit "
                                           f"{LAST_LEGACY}"):
        store.migrate()
    store.close()
    assert fresh.raw("select max(version) from schema_migrations") == [(12,)]


def test_the_url_in_messages_has_no_password():
    assert safe_url("postgresql://app:s3cret@db.example.org:5433/games?sslmode=require") \
        == "postgresql://app@db.example.org:5433/games"
    assert safe_url("postgresql:///games") == "postgresql:///games"
