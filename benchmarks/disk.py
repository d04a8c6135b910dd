"""Disk per finished game: complete 4-player games played through the API (Flask test
client on a real SQLite file), each move sent with an ``Idempotency-Key`` as careful
clients do, their due work finished as the workers would (claimed and marked done, no
mail sent), then the file VACUUMed and measured per table and index (SQLite's dbstat).

    .venv/bin/python benchmarks/disk.py [--games 4] [--seed 1] [--json]

Prints the file's KB per finished game (beyond an empty database's) and the bytes per
stored event, per table: as
written, and (when the store can prune) after the retention windows ran out (the
workers' periodic prune, run as if a year later).

Not a test: CI never runs it.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service import create_app, times  # noqa: E402
from service.settings import Settings  # noqa: E402
from service.store.base import Claim, Finish  # noqa: E402


def _move(legal: dict[str, Any], rng: random.Random) -> str:
    """A random kind of move, then a random move of it (engine.bots.random_move)."""
    by_kind: dict[str, list[str]] = {}
    for m in legal["moves"]:
        by_kind.setdefault(m["move"]["action"], []).append(m["notation"])
    return rng.choice(by_kind[rng.choice(sorted(by_kind))])


def play_games(client: Any, games: int, rng: random.Random) -> int:
    """Play ``games`` 4-player games to their end; returns the submissions made."""
    moves = 0
    for g in range(games):
        r = client.post("/games", json={"seats": [
            {"name": f"P{i}", "email": f"p{i}.{g}@example.org"} for i in range(4)]})
        assert r.status_code == 201, r.get_json()
        doc = r.get_json()
        game_id, tokens = doc["game_id"], [s["token"] for s in doc["seats"]]
        while True:
            got = client.get(f"/games/{game_id}").get_json()
            if got["status"] == "over":
                break
            seat = got["current_seat"]
            head = {"Authorization": f"Bearer {tokens[seat]}"}
            legal = client.get(f"/games/{game_id}/legal-moves", headers=head).get_json()
            r = client.post(f"/games/{game_id}/moves",
                            json={"move": _move(legal, rng), "version": legal["version"]},
                            headers={**head, "Idempotency-Key": f"k{moves}"})
            assert r.status_code == 201, r.get_json()
            moves += 1
    return moves


def finish_due(store: Any) -> int:
    """Mark every due row done as the workers would once its work ran (due later rows
    too: the benchmark does not wait for reminders)."""
    done = 0
    while rows := store.claim_due(limit=500, lease_seconds=60):
        for row in rows:
            store.finish_due(Claim(row.id, row.attempts), Finish("sent"))
            done += 1
    return done


def measure(path: Path, games: int, events: int, empty: int = 0) -> dict[str, Any]:
    """VACUUM the file; its size and each table's (with its indexes) per game and event;
    ``kb_per_game``: beyond an ``empty`` database's bytes (a table's first pages are
    there for the first game, and would weigh on a few games' figure)."""
    conn = sqlite3.connect(path)
    conn.execute("pragma wal_checkpoint(truncate)")
    conn.execute("vacuum")
    conn.execute("pragma wal_checkpoint(truncate)")  # WAL mode: the file shrinks here
    tables: dict[str, int] = {}
    for name, tbl, size in conn.execute(
            "select d.name, coalesce(m.tbl_name, d.name), sum(d.pgsize) from dbstat d "
            "left join sqlite_master m on m.name = d.name group by d.name"):
        del name
        tables[tbl] = tables.get(tbl, 0) + size
    conn.close()
    size = path.stat().st_size
    return {
        "file_bytes": size, "kb_per_game": round((size - empty) / 1024 / games, 1),
        "bytes_per_event": round((tables.get("events", 0) + tables.get("event_batches", 0))
                                 / events, 1),
        "kb_per_game_by_table": {t: round(b / 1024 / games, 1)
                                 for t, b in sorted(tables.items(), key=lambda x: -x[1])},
    }


def run(games: int = 4, seed: int = 1) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        blank = Path(tmp) / "empty.db"
        create_app(Settings(database=str(blank))).extensions["alhambra"].store.close()
        empty = measure(blank, 1, 1)["file_bytes"]
        path = Path(tmp) / "disk.db"
        app = create_app(Settings(database=str(path)))
        store = app.extensions["alhambra"].store
        moves = play_games(app.test_client(), games, random.Random(seed))
        finish_due(store)
        events = sum(store.game(g).version for g in store.transfer.game_ids())
        out: dict[str, Any] = {"games": games, "submissions": moves, "events": events,
                               "events_per_game": round(events / games, 1),
                               "empty_database_bytes": empty,
                               "written": measure(path, games, events, empty)}
        later = times.now() + timedelta(days=365)
        out["pruned_rows"] = store.prune(later, later)
        out["after_retention"] = measure(path, games, events, empty)
        store.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(json.dumps(run(args.games, args.seed), indent=2))


if __name__ == "__main__":
    main()
