"""Fixtures every test package may use: a throwaway PostgreSQL database for the session
(on the server .ci/run makes sure of; a test that needs it fails when it is not there)."""

from __future__ import annotations

import pytest

from tests.support import PgDatabase


@pytest.fixture(scope="session")
def pg_database():
    db = PgDatabase()
    try:
        yield db
    finally:
        db.drop()
