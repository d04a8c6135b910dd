"""Every row of a game, out of a store and into one (``store.transfer``): what
``alhambra-pbem export`` and ``import`` carry (service/transfer.py: the file)."""

from __future__ import annotations

import json
from typing import Any

from .. import times
from ..errors import GameNotFound
from . import codec
from .access import Access
from .base import COLUMNS, DEFAULTS, GameRows

#: The order of a game's rows of each table in a dump.
ORDER = {"due": " order by id", "webhooks": " order by id", "seats": " order by seat",
         "messages": " order by id", "talk": " order by seat"}


class TransferRecords:
    """Every row of a game, out of a store and into one (``store.transfer``)."""

    def __init__(self, access: Access) -> None:
        self.a, self.d = access, access.d

    def game_ids(self) -> list[str]:
        """Every game's id, oldest first."""
        with self.a.read() as db:
            return [r["id"] for r in db.query("select id from games order by created_at, id")]

    def dump(self, game_id: str) -> GameRows:
        """Every row of one game in each table of ``COLUMNS`` (due rows by id, events by
        version), from one snapshot; GameNotFound."""
        out: GameRows = {}
        with self.a.write() as db:  # one snapshot of the game
            rows = db.cursor("select first, data, at from event_batches where game_id = ? "
                             "order by version", (game_id,)).fetchall()
            out["events"] = [{"game_id": game_id, "version": v, "type": e["type"],
                              "payload": e, "created_at": self.d.batch_time(at)}
                             for first, data, at in rows
                             for v, e in enumerate(codec.decode(data), start=first)]
            for table, columns in COLUMNS.items():
                if table != "events":
                    key = "id" if table == "games" else "game_id"
                    out[table] = db.query(f"select {', '.join(columns)} from {table} where "
                                          f"{key} = ?{ORDER.get(table, '')}", (game_id,))
        if not out["games"]:
            raise GameNotFound(game_id)
        return out

    def load(self, rows: GameRows) -> None:
        """Insert a game's rows as ``dump`` gives them, all or nothing; webhooks keep
        their ids (new ones are numbered after them)."""
        with self.a.write() as db:
            for table, columns in COLUMNS.items():
                records = rows.get(table, [])
                if table == "events":
                    db.executemany("insert into event_batches (game_id, version, first, at, "
                                   "data) values (?, ?, ?, ?, ?)",
                                   [self._batch(run) for run in codec.batches(records)])
                    continue
                db.executemany(f"insert into {table} ({', '.join(columns)}) values "
                               f"({', '.join('?' * len(columns))})",
                               [[self.d.encode(c, r.get(c, DEFAULTS.get(c))) for c in columns]
                                for r in records])
            if rows.get("webhooks") and self.d.name == "postgres":
                db.cursor("select setval(pg_get_serial_sequence('webhooks', 'id'), "
                          "greatest((select max(id) from webhooks), "
                          "nextval(pg_get_serial_sequence('webhooks', 'id'))))")

    def _batch(self, run: list[dict[str, Any]]) -> tuple[str, int, int, Any, bytes]:
        """A stored batch of event rows (payloads as JSON text or documents)."""
        events = [json.loads(r["payload"]) if isinstance(r["payload"], str) else r["payload"]
                  for r in run]
        at = run[0]["created_at"]
        return (run[0]["game_id"], run[-1]["version"], run[0]["version"],
                self.d.batch_at(times.from_text(at) if isinstance(at, str) else at),
                codec.encode(events))
