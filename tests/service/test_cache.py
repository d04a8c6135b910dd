"""The in-process state cache always equals a fresh replay of the stored log."""

from __future__ import annotations

import random

import engine
from service import create_app
from service.settings import Settings
from tests.support import new_game, random_api_move, replayed


def same_state(a: engine.State, b: engine.State) -> None:
    for name in engine.State.__slots__:
        if name == "grids":
            assert [g.cells if hasattr(g, "cells") else g for g in a.grids] == \
                   [g.cells if hasattr(g, "cells") else g for g in b.grids]
        else:
            assert getattr(a, name) == getattr(b, name), name
    for seat in [None, *range(a.players)]:
        assert engine.view(a, seat) == engine.view(b, seat)


def test_cached_state_equals_replay_after_random_games(db_path):
    # Two apps on one database, like two gunicorn workers: each has its own cache and
    # sees the other's moves only through the store.
    apps = [create_app(Settings(database=str(db_path), state_cache_size=3)) for _ in range(2)]
    clients = [a.test_client() for a in apps]
    rng = random.Random(99)
    handles = [new_game(clients[0], n) for n in (2, 3, 4, 5, 6)]
    over: set[str] = set()
    for step in range(1500):
        live = [h for h in handles if h.id not in over]
        if not live:
            break
        h = rng.choice(live)
        h.client = rng.choice(clients)
        doc = h.get()
        legal = h.legal(doc["current_seat"])
        r = h.submit(doc["current_seat"], random_api_move(legal, rng), legal["version"])
        assert r.status_code == 201
        if r.get_json()["view"]["phase"] == "over":
            over.add(h.id)
        if step % 150 == 0:
            for app in apps:
                games = app.extensions["alhambra"]
                for g in handles:
                    same_state(games.state(g.id), replayed(games, g.id))
    for app in apps:
        games = app.extensions["alhambra"]
        for g in handles:
            same_state(games.state(g.id), replayed(games, g.id))
            cached = games.cache.get(g.id)
            if cached is not None:
                same_state(cached, replayed(games, g.id))
