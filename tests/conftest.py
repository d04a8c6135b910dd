"""Fixtures every test package may use: a throwaway PostgreSQL database for the session
(on the server .ci/run makes sure of; a test that needs it fails when it is not there).

Rate limits are generous in every test, in this process and the ones it starts (the
tests of the limits set small ones)."""

from __future__ import annotations

import os

import pytest

from service import settings
from tests.support import PgDatabase

GENEROUS = "100000/second"
settings.DEFAULT_LIMITS.update(dict.fromkeys(settings.DEFAULT_LIMITS, GENEROUS))
os.environ.update({f"ALHAMBRA_{name.upper()}": GENEROUS for name in settings.DEFAULT_LIMITS})


@pytest.fixture(scope="session")
def pg_database():
    db = PgDatabase()
    try:
        yield db
    finally:
        db.drop()
