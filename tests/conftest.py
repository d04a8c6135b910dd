"""Fixtures every test package may use: a throwaway PostgreSQL database for the session
(on the server .ci/run makes sure of; a test that needs it fails when it is not there).

Rate limits are generous in every test, in this process and the ones it starts (the
tests of the limits set small ones)."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from service import settings
from tests.support import PgDatabase

GENEROUS = "100000/second"


@pytest.fixture(scope="session", autouse=True)
def generous_limits():
    """Every default rate limit generous for the session, in this process (in place of
    the read-only ``DEFAULT_LIMITS``) and in those it starts (the environment); undone at
    its end."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(settings, "DEFAULT_LIMITS",
                   MappingProxyType(dict.fromkeys(settings.DEFAULT_LIMITS, GENEROUS)))
        for name in settings.DEFAULT_LIMITS:
            mp.setenv(f"ALHAMBRA_{name.upper()}", GENEROUS)
        yield


@pytest.fixture(scope="session")
def pg_database():
    db = PgDatabase()
    try:
        yield db
    finally:
        db.drop()


@pytest.fixture
def push_service():
    """A stand-in Web Push service (tests/workers/test_push.py)."""
    from tests.workers.test_push import PushService

    p = PushService()
    try:
        yield p
    finally:
        p.close()


@pytest.fixture
def json_receiver():
    """A local receiver of Apprise's ``json://`` notices (tests/workers/test_push.py)."""
    from tests.workers.test_push import JsonReceiver

    r = JsonReceiver()
    try:
        yield r
    finally:
        r.close()
