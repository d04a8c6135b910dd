"""Fixtures for the service tests: an app on a fresh SQLite file and its client."""

from __future__ import annotations

import pytest

from service import create_app
from service.settings import Settings
from tests.support import new_game


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "alhambra.db"


@pytest.fixture
def app(db_path):
    app = create_app(Settings(database=str(db_path)))
    yield app
    app.extensions["alhambra"].store.close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def games(app):
    return app.extensions["alhambra"]


@pytest.fixture
def game(client):
    return new_game(client, 3)


@pytest.fixture(params=["sqlite", "postgres"])
def app_on_each_store(request, tmp_path):
    """An app on a fresh SQLite file, then on a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        app = create_app(Settings(database=str(tmp_path / "each.db")))
    else:
        from service.store import open_store

        url = request.getfixturevalue("pg_database").schema()
        store = open_store(Settings(database_url=url, secret="s"), check_schema=False)
        store.migrate()
        store.close()
        app = create_app(Settings(database_url=url, secret="s"))
    yield app
    app.extensions["alhambra"].store.close()
