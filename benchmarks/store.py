"""The SQLite store's hot path: one move's append (3 events, one transaction) followed by
the reads a submission makes (game row, seats), on a real file in WAL mode.

Prints the median and p95 per move for the store as it is, and for the same append done
with sqlite-utils' ``insert_all``/``insert`` (why ``_append`` uses plain statements).

    python benchmarks/store.py [--moves 3000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # before benchmarks/engine.py

from service import times  # noqa: E402
from service.store.base import Game, GameUpdate, Seat  # noqa: E402
from service.store.sqlite import SqliteStore, _to_row  # noqa: E402


def _game(game_id: str) -> Game:
    now = times.now()
    return Game(id=game_id, variant="alhambra", options={}, players=2, status="active",
                phase=None, version=0, current_seat=0, time_per_move=86400,
                timeout_policy="default", deadline=None, imported=False, created_at=now,
                updated_at=now)


def _utils_append(store: SqliteStore, game_id: str, expected: int, events: list[dict],
                  update: GameUpdate) -> None:
    """The alternative: the same rows written with sqlite-utils' table inserts."""
    with store.transaction() as db:
        stamp = times.now()
        db["events"].insert_all(_to_row({
            "game_id": game_id, "version": expected + i, "type": e["type"], "payload": e,
            "created_at": stamp}) for i, e in enumerate(events, start=1))
        db.execute("update games set version = ?, updated_at = ? where id = ?",
                   (expected + len(events), times.to_text(stamp), game_id))
        db["due"].insert(_to_row({"game_id": game_id, "kind": "your_turn",
                                  "version": expected + len(events),
                                  "from_version": expected + 1, "seat": 0,
                                  "due_at": stamp, "created_at": stamp}))


def run(moves: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteStore(Path(folder) / "bench.db")
        update = GameUpdate("active", "actions", 0, None)
        for label, append in (("store.append", store.append), ("sqlite-utils inserts",
                                                              None)):
            game_id = label.replace(" ", "-")
            store.create_game(_game(game_id), [Seat(game_id, s, f"p{s}", None, f"{game_id}{s}",
                                                    times.now()) for s in range(2)])
            laps = []
            for move in range(moves):
                events = [{"type": "money_taken", "seat": 0, "positions": [1]},
                          {"type": "card_drawn", "card": ["coins", 3]},
                          {"type": "turn_started", "seat": 1}]
                start = time.perf_counter()
                if append is None:
                    _utils_append(store, game_id, move * 3, events, update)
                else:
                    append(game_id, move * 3, events, update)
                store.game(game_id)
                store.seats(game_id)
                laps.append(time.perf_counter() - start)
            laps.sort()
            print(f"{label:22} median {statistics.median(laps) * 1000:.3f} ms, "
                  f"p95 {laps[int(len(laps) * 0.95)] * 1000:.3f} ms per move ({moves} moves)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=3000)
    run(parser.parse_args().moves)
