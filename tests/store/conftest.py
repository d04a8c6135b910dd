"""Fixtures for the store tests: each test runs against a new SQLite file and a new
PostgreSQL schema (in the session's throwaway database), already migrated."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from service.store import open_store
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
