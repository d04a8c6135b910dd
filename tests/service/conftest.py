"""Fixtures for the service tests: an app on a fresh SQLite file, clients, bot helpers."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from service import create_app
from service.settings import Settings


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


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


@dataclass
class GameHandle:
    client: Any
    id: str
    tokens: list[str]
    host_token: str
    invite_code: str | None = None
    created: dict = field(default_factory=dict)

    def get(self, seat: int | None = None) -> dict:
        r = self.client.get(f"/games/{self.id}",
                            headers=auth(self.tokens[seat] if seat is not None else None))
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def legal(self, seat: int) -> dict:
        r = self.client.get(f"/games/{self.id}/legal-moves", headers=auth(self.tokens[seat]))
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def submit(self, seat: int, move: str | None = None, version: int | None = None,
               moves: list | None = None, headers: dict | None = None):
        body: dict[str, Any] = {}
        if move is not None:
            body["move"] = move
        if moves is not None:
            body["moves"] = moves
        if version is not None:
            body["version"] = version
        return self.client.post(f"/games/{self.id}/moves", json=body,
                                headers={**auth(self.tokens[seat]), **(headers or {})})


def new_game(client, players: int = 3, **extra) -> GameHandle:
    body = {"seats": [{"name": f"P{i}", "email": f"p{i}@example.org"}
                      for i in range(players)], **extra}
    r = client.post("/games", json=body)
    assert r.status_code == 201, r.get_json()
    doc = r.get_json()
    return GameHandle(client, doc["game_id"], [s["token"] for s in doc["seats"]],
                      doc["host_token"], doc["invite_code"], doc)


@pytest.fixture
def game(client):
    return new_game(client, 3)


def random_api_move(legal: dict, rng: random.Random) -> str:
    """engine.bots.random_move over the API's answer: a random kind, then a random move."""
    by_kind: dict[str, list[str]] = {}
    for m in legal["moves"]:
        by_kind.setdefault(m["move"]["action"], []).append(m["notation"])
    kind = rng.choice(sorted(by_kind))
    return rng.choice(by_kind[kind])


def play_random(handle: GameHandle, rng: random.Random, max_moves: int | None = None,
                check=None) -> dict:
    """Play random legal moves through the API until the game is over (or max_moves)."""
    played = 0
    doc = handle.get()
    while doc["status"] != "over" and (max_moves is None or played < max_moves):
        seat = doc["current_seat"]
        legal = handle.legal(seat)
        assert legal["your_turn"] and legal["moves"], legal
        move = random_api_move(legal, rng)
        r = handle.submit(seat, move, legal["version"])
        assert r.status_code == 201, (move, r.get_json())
        if check:
            check(handle, seat, r.get_json())
        played += 1
        doc = handle.get()
    return doc
