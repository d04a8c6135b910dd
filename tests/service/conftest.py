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
