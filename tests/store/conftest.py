"""Fixtures for the store tests: each test runs against a new SQLite file and a new
PostgreSQL schema (in the session's throwaway database), already migrated."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
import pytest

from service.store import open_store, postgres, sqlite
from tests.support import StoreSpec

#: Rows of an old schema: (SQL with ``?`` placeholders, its parameters).
Rows = Sequence[tuple[str, Sequence[Any]]]


@pytest.fixture(params=["sqlite", "postgres"])
def spec(request, tmp_path) -> StoreSpec:
    if request.param == "sqlite":
        return StoreSpec("sqlite", str(tmp_path / "alhambra.db"))
    spec = StoreSpec("postgres", request.getfixturevalue("pg_database").schema())
    store = open_store(spec.settings(), check_schema=False)
    store.migrate()
    store.close()
    return spec


@pytest.fixture
def store(spec):
    s = spec.open()
    yield s
    s.close()


def database_before(request: pytest.FixtureRequest, tmp_path: Any,
                    sqlite_step: Callable[[sqlite3.Connection], None], postgres_step: object,
                    rows: Callable[[str], Rows]) -> StoreSpec:
    """A database of ``request.param``'s store ("sqlite" or "postgres") at the schema
    before the migration step given for it, holding ``rows(kind)``: what a test of that
    upgrade migrates."""
    if request.param == "sqlite":
        spec = StoreSpec("sqlite", str(tmp_path / "old.db"))
        conn = sqlite3.connect(spec.where, isolation_level=None)
        for i, step in enumerate(sqlite.MIGRATIONS[:sqlite.MIGRATIONS.index(sqlite_step)]):
            step(conn)
            conn.execute(f"pragma user_version = {i + 1}")
        for sql, params in rows("sqlite"):
            conn.execute(sql, tuple(int(p) if isinstance(p, bool) else p for p in params))
        conn.close()
        return spec
    spec = StoreSpec("postgres", request.getfixturevalue("pg_database").schema())
    with psycopg.connect(spec.where, autocommit=True) as pg:
        pg.execute("create table schema_migrations (version integer primary key, "
                   "applied_at timestamptz not null default now())")
        for i, script in enumerate(
                postgres.MIGRATIONS[:postgres.MIGRATIONS.index(postgres_step)]):
            assert isinstance(script, str)
            pg.execute(script)
            pg.execute("insert into schema_migrations (version) values (%s)", (i + 1,))
        for sql, params in rows("postgres"):
            pg.execute(sql.replace("?", "%s"), params)
    return spec
