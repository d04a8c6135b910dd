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


def test_a_reader_a_few_batches_behind_rolls_forward_from_a_kept_state(tmp_path,
                                                                       monkeypatch):
    """Issue 32: a cache of depth 3 keeps each game's 3 latest States seen; a state asked
    at an earlier version (a worker's mail about a batch the bots played on from) rolls
    forward from the latest kept at or before it, reading only the batches between;
    older than those, the log is read from its start."""
    import service.games
    from service.games import Games
    from service.store import sqlite_store

    monkeypatch.setattr(service.games.secrets, "randbits", lambda bits: 12345)  # the seed
    store = sqlite_store(str(tmp_path / "c.db"))
    games = Games(store, cache_size=8, cache_depth=3)
    game_id = games.create(variant="alhambra", options={}, players=3,
                           seats=[{"name": f"P{i}"} for i in range(3)],
                           timeout_policy="default_move")["game_id"]
    rng = random.Random(5)
    versions = []
    for _ in range(6):
        state = games.state(game_id)
        versions.append(state.version)
        move = engine.legal_moves(state, state.current)
        games.submit(games.game(game_id), state.current, [rng.choice(move)], state.version,
                     None)
    kept = [s.version for s in games.cache._states[game_id]]
    assert len(kept) == 3 and kept[-1] == games.game(game_id).version
    reads: list[tuple[int, int | None]] = []
    read = store.read

    def counted(game_id: str, since: int = 0, until: int | None = None):
        reads.append((since, until))
        return read(game_id, since, until)

    store.read = counted  # type: ignore[method-assign]
    assert games.state(game_id, kept[1]) is games.cache.get(game_id, kept[1])
    between = kept[0] + 1  # a version between two kept ones: from the older
    assert between < kept[1]
    same_state(games.state(game_id, between), engine.replay(read(game_id, 0, between)))
    assert reads[-1] == (kept[0], between)
    early = versions[0]
    assert early < kept[0]
    same_state(games.state(game_id, early), engine.replay(read(game_id, 0, early)))
    assert reads[-1][0] == 0  # older than every kept state: from the start
    store.close()
