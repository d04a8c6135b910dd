"""The event store: games as append-only event logs in SQLite (through sqlite-utils).

Tables:

- ``games``: one row per game (variant, options, status, version = number of events,
  whose turn, deadline, hashes of the host token and the invite code).
- ``seats``: one row per seat; only the SHA-256 of a seat's token is kept.
- ``events``: ``(game_id, version)`` is the primary key, so a log can have no duplicate;
  rows are only ever inserted.
- ``outbox``: one row per appended batch, written in the same transaction, for the workers
  to drain (``delivered_at`` stays NULL until then).
- ``idempotency``: the first answer to a submission made with an ``Idempotency-Key``.
- ``notifications``: what the workers sent (mail, webhook calls), keyed by game, version,
  recipient and kind, so that a job run twice sends once.
- ``webhooks``: URLs registered by a seat (events redacted for it) or the game's host.

Every write is one ``BEGIN IMMEDIATE`` transaction; ``append`` checks the expected version
inside it, so two writers racing for the same version cannot both succeed.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

SCHEMA_VERSION = 2


class VersionConflict(Exception):
    """The game's version is not the one expected: someone else wrote first."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class NotFound(Exception):
    """No such game."""


def now() -> str:
    """The current UTC time as ISO 8601 with a Z."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _age(stamp: str) -> float:
    """Seconds since ``stamp`` (as written by ``now``)."""
    then = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return (datetime.now(UTC) - then).total_seconds()


def default_db_path() -> Path:
    return Path(os.environ.get("ALHAMBRA_DATA") or "./data") / "alhambra.db"


@dataclass
class Game:
    id: str
    variant: str
    options: dict[str, Any]
    players: int
    status: str  # open (seats to fill), active, over
    phase: str | None
    version: int
    current_seat: int | None
    time_per_move: int
    timeout_policy: str
    deadline: str | None
    imported: bool
    created_at: str
    updated_at: str
    host_token_hash: str | None = None
    invite_hash: str | None = None

    @classmethod
    def from_row(cls, row: sqlite3.Row | tuple, columns: list[str]) -> Game:
        d = dict(zip(columns, row, strict=True))
        d["options"] = json.loads(d["options"])
        d["imported"] = bool(d["imported"])
        return cls(**d)


GAME_COLUMNS = ["id", "variant", "options", "players", "status", "phase", "version",
                "current_seat", "time_per_move", "timeout_policy", "deadline", "imported",
                "created_at", "updated_at", "host_token_hash", "invite_hash"]
_GAME_SELECT = "select " + ", ".join(GAME_COLUMNS) + " from games"


@dataclass
class Seat:
    game_id: str
    seat: int
    name: str | None
    email: str | None
    token_hash: str | None
    joined_at: str | None


SEAT_COLUMNS = ["game_id", "seat", "name", "email", "token_hash", "joined_at"]


class EventStore:
    """SQLite event store. One connection per thread (and per process after a fork)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self.ensure_schema()

    # -- connections ---------------------------------------------------------------------

    def connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=30,
                               check_same_thread=False)
        conn.execute("pragma journal_mode=wal")
        conn.execute("pragma synchronous=normal")
        conn.execute("pragma foreign_keys=on")
        conn.execute("pragma busy_timeout=30000")
        return conn

    @property
    def conn(self) -> sqlite3.Connection:
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            local.conn = self.connect()
            local.pid = os.getpid()
        return local.conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
            self._local.pid = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``; rolled back on any exception."""
        conn = self.conn
        conn.execute("begin immediate")
        try:
            yield conn
        except BaseException:
            conn.execute("rollback")
            raise
        conn.execute("commit")

    # -- schema --------------------------------------------------------------------------

    def ensure_schema(self) -> None:
        db = sqlite_utils.Database(self.conn)
        with self.transaction():
            if "games" not in db.table_names():
                db["games"].create({
                    "id": str, "variant": str, "options": str, "players": int, "status": str,
                    "phase": str, "version": int, "current_seat": int, "time_per_move": int,
                    "timeout_policy": str, "deadline": str, "imported": int,
                    "created_at": str, "updated_at": str, "host_token_hash": str,
                    "invite_hash": str,
                }, pk="id", not_null={"variant", "options", "players", "status", "version",
                                      "time_per_move", "timeout_policy", "imported",
                                      "created_at", "updated_at"})
                db["games"].create_index(["status", "created_at"])
                db["games"].create_index(["created_at"])
                db["games"].create_index(["host_token_hash"])
                db["games"].create_index(["deadline"])
            if "seats" not in db.table_names():
                db["seats"].create({
                    "game_id": str, "seat": int, "name": str, "email": str,
                    "token_hash": str, "joined_at": str,
                }, pk=("game_id", "seat"), foreign_keys=[("game_id", "games", "id")],
                    not_null={"game_id", "seat"})
                db["seats"].create_index(["token_hash"], unique=True)
                db["seats"].create_index(["email"])
            if "events" not in db.table_names():
                db["events"].create({
                    "game_id": str, "version": int, "type": str, "payload": str,
                    "created_at": str,
                }, pk=("game_id", "version"), foreign_keys=[("game_id", "games", "id")],
                    not_null={"game_id", "version", "type", "payload", "created_at"})
            if "outbox" not in db.table_names():
                db["outbox"].create({
                    "id": int, "game_id": str, "from_version": int, "to_version": int,
                    "created_at": str, "delivered_at": str,
                }, pk="id", foreign_keys=[("game_id", "games", "id")],
                    not_null={"game_id", "from_version", "to_version", "created_at"})
                db["outbox"].create_index(["delivered_at", "id"])
            if "idempotency" not in db.table_names():
                db["idempotency"].create({
                    "game_id": str, "seat": int, "key": str, "fingerprint": str,
                    "status": int, "response": str, "created_at": str,
                }, pk=("game_id", "seat", "key"), foreign_keys=[("game_id", "games", "id")])
            if "notifications" not in db.table_names():
                db["notifications"].create({
                    "game_id": str, "version": int, "recipient": str, "kind": str,
                    "status": str, "attempts": int, "claimed_at": str, "sent_at": str,
                    "error": str,
                }, pk=("game_id", "version", "recipient", "kind"),
                    not_null={"game_id", "version", "recipient", "kind", "status",
                              "attempts"})
            if "webhooks" not in db.table_names():
                db["webhooks"].create({
                    "id": int, "game_id": str, "seat": int, "url": str, "secret": str,
                    "created_at": str,
                }, pk="id", foreign_keys=[("game_id", "games", "id")],
                    not_null={"game_id", "url", "secret", "created_at"})
                db["webhooks"].create_index(["game_id"])
            self.conn.execute(f"pragma user_version={SCHEMA_VERSION}")
            # Events are facts: refuse any update or delete at the database level too.
            self.conn.execute(
                "create trigger if not exists events_no_update before update on events "
                "begin select raise(abort, 'events are append-only'); end")
            self.conn.execute(
                "create trigger if not exists events_no_delete before delete on events "
                "begin select raise(abort, 'events are append-only'); end")

    # -- games and seats -----------------------------------------------------------------

    def create_game(self, game: Game, seats: list[Seat]) -> None:
        with self.transaction() as conn:
            self._insert_game(conn, game, seats)

    def _insert_game(self, conn: sqlite3.Connection, game: Game, seats: list[Seat]) -> None:
        values = [getattr(game, c) for c in GAME_COLUMNS]
        values[GAME_COLUMNS.index("options")] = json.dumps(game.options)
        values[GAME_COLUMNS.index("imported")] = int(game.imported)
        conn.execute(f"insert into games ({', '.join(GAME_COLUMNS)}) values "
                     f"({', '.join('?' * len(GAME_COLUMNS))})", values)
        conn.executemany(
            f"insert into seats ({', '.join(SEAT_COLUMNS)}) values "
            f"({', '.join('?' * len(SEAT_COLUMNS))})",
            [[getattr(s, c) for c in SEAT_COLUMNS] for s in seats])

    def create_finished_game(self, game: Game, seats: list[Seat],
                             events: list[dict[str, Any]]) -> None:
        """Insert an imported game and its whole log in one transaction."""
        with self.transaction() as conn:
            version = game.version
            game.version = 0
            self._insert_game(conn, game, seats)
            game.version = version
            self._append(conn, game.id, 0, events, {"status": game.status,
                                                    "phase": game.phase,
                                                    "current_seat": None, "deadline": None})

    def game(self, game_id: str) -> Game:
        row = self.conn.execute(_GAME_SELECT + " where id = ?", (game_id,)).fetchone()
        if row is None:
            raise NotFound(game_id)
        return Game.from_row(row, GAME_COLUMNS)

    def version(self, game_id: str) -> int:
        row = self.conn.execute("select version from games where id = ?", (game_id,)).fetchone()
        if row is None:
            raise NotFound(game_id)
        return row[0]

    def seats(self, game_id: str) -> list[Seat]:
        rows = self.conn.execute(
            f"select {', '.join(SEAT_COLUMNS)} from seats where game_id = ? order by seat",
            (game_id,)).fetchall()
        return [Seat(*r) for r in rows]

    def seat_by_token_hash(self, token_hash: str) -> Seat | None:
        row = self.conn.execute(f"select {', '.join(SEAT_COLUMNS)} from seats "
                                "where token_hash = ?", (token_hash,)).fetchone()
        return Seat(*row) if row else None

    def games_hosted_by(self, token_hash: str) -> list[str]:
        rows = self.conn.execute("select id from games where host_token_hash = ?",
                                 (token_hash,)).fetchall()
        return [r[0] for r in rows]

    def list_games(self, *, status: str | None = None, ids: list[str] | None = None,
                   email: str | None = None, limit: int = 50, offset: int = 0
                   ) -> tuple[list[Game], int]:
        """Games, newest first, with the total count matching the filters. ``ids`` and
        ``email`` restrict to those games or the games of seats with that address."""
        where, params = [], []
        if status:
            where.append("status = ?")
            params.append(status)
        scope = []
        if ids:
            scope.append(f"id in ({', '.join('?' * len(ids))})")
            params.extend(ids)
        if email:
            scope.append("id in (select game_id from seats where email = ?)")
            params.append(email)
        if scope:
            where.append("(" + " or ".join(scope) + ")")
        elif ids is not None:
            return [], 0
        clause = (" where " + " and ".join(where)) if where else ""
        total = self.conn.execute("select count(*) from games" + clause, params).fetchone()[0]
        rows = self.conn.execute(_GAME_SELECT + clause +
                                 " order by created_at desc, id limit ? offset ?",
                                 [*params, limit, offset]).fetchall()
        return [Game.from_row(r, GAME_COLUMNS) for r in rows], total

    def join(self, game_id: str, seat: int, name: str, email: str | None,
             token_hash: str) -> None:
        """Fill an open seat (fails with VersionConflict if it was taken meanwhile)."""
        with self.transaction() as conn:
            cur = conn.execute("update seats set name = ?, email = ?, token_hash = ?, "
                               "joined_at = ? where game_id = ? and seat = ? and "
                               "token_hash is null", (name, email, token_hash, now(),
                                                      game_id, seat))
            if cur.rowcount != 1:
                raise VersionConflict(self.version(game_id))

    # -- events --------------------------------------------------------------------------

    def read(self, game_id: str, since: int = 0, until: int | None = None
             ) -> list[dict[str, Any]]:
        """The events after version ``since`` up to version ``until`` (inclusive; None: the
        last), in order: the first has version ``since + 1``."""
        rows = self.conn.execute("select payload from events where game_id = ? and "
                                 "version > ? and version <= ? order by version",
                                 (game_id, since, 1 << 62 if until is None else until)
                                 ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def append(self, game_id: str, expected_version: int, events: list[dict[str, Any]],
               game_updates: dict[str, Any],
               idempotency: tuple[int, str, str, int, dict] | None = None,
               ) -> int:
        """Append ``events`` after ``expected_version`` in one transaction, with the game's
        new summary fields, an outbox row and the idempotent answer, if any. Returns the new
        version; raises VersionConflict (nothing written) if the game moved on."""
        with self.transaction() as conn:
            row = conn.execute("select version from games where id = ?",
                               (game_id,)).fetchone()
            if row is None:
                raise NotFound(game_id)
            if row[0] != expected_version:
                raise VersionConflict(row[0])
            version = self._append(conn, game_id, expected_version, events, game_updates)
            if idempotency is not None:
                seat, key, fingerprint, status, response = idempotency
                conn.execute("insert into idempotency (game_id, seat, key, fingerprint, "
                             "status, response, created_at) values (?, ?, ?, ?, ?, ?, ?)",
                             (game_id, seat, key, fingerprint, status, json.dumps(response),
                              now()))
        return version

    def _append(self, conn: sqlite3.Connection, game_id: str, expected: int,
                events: list[dict[str, Any]], updates: dict[str, Any]) -> int:
        stamp = now()
        conn.executemany(
            "insert into events (game_id, version, type, payload, created_at) "
            "values (?, ?, ?, ?, ?)",
            [(game_id, expected + i, e["type"], json.dumps(e, separators=(",", ":")), stamp)
             for i, e in enumerate(events, start=1)])
        version = expected + len(events)
        fields = dict(updates, version=version, updated_at=stamp)
        conn.execute(f"update games set {', '.join(f'{k} = ?' for k in fields)} where id = ?",
                     [*fields.values(), game_id])
        conn.execute("insert into outbox (game_id, from_version, to_version, created_at) "
                     "values (?, ?, ?, ?)", (game_id, expected + 1, version, stamp))
        return version

    def idempotent_answer(self, game_id: str, seat: int, key: str
                          ) -> tuple[str, int, dict] | None:
        row = self.conn.execute("select fingerprint, status, response from idempotency "
                                "where game_id = ? and seat = ? and key = ?",
                                (game_id, seat, key)).fetchone()
        if row is None:
            return None
        return row[0], row[1], json.loads(row[2])

    # -- the workers' side: outbox, deadlines, notifications, webhooks --------------------

    def undelivered(self, limit: int = 100) -> list[dict[str, Any]]:
        """Outbox rows not yet handed to the workers, oldest first."""
        rows = self.conn.execute(
            "select id, game_id, from_version, to_version, created_at from outbox "
            "where delivered_at is null order by id limit ?", (limit,)).fetchall()
        return [dict(zip(("id", "game_id", "from_version", "to_version", "created_at"), r,
                         strict=True)) for r in rows]

    def mark_delivered(self, ids: list[int]) -> None:
        if not ids:
            return
        with self.transaction() as conn:
            conn.execute(f"update outbox set delivered_at = ? where delivered_at is null and "
                         f"id in ({', '.join('?' * len(ids))})", [now(), *ids])

    def overdue(self, before: str, limit: int = 100) -> list[Game]:
        """Active games whose deadline is at or before ``before`` (ISO 8601 UTC)."""
        rows = self.conn.execute(_GAME_SELECT + " where deadline is not null and deadline <= ? "
                                 "and status = 'active' order by deadline limit ?",
                                 (before, limit)).fetchall()
        return [Game.from_row(r, GAME_COLUMNS) for r in rows]

    def events_with_times(self, game_id: str, since: int = 0, until: int | None = None
                          ) -> list[tuple[int, str, dict[str, Any]]]:
        """``(version, created_at, event)`` after ``since`` up to ``until`` (inclusive)."""
        rows = self.conn.execute(
            "select version, created_at, payload from events where game_id = ? and "
            "version > ? and version <= ? order by version",
            (game_id, since, until if until is not None else 1 << 62)).fetchall()
        return [(v, t, json.loads(p)) for v, t, p in rows]

    def claim_notification(self, game_id: str, version: int, recipient: str, kind: str,
                           lease_seconds: float = 300) -> bool:
        """Take the right to send one notification: False if it was sent already or another
        worker is sending it now (its claim younger than ``lease_seconds``)."""
        stamp = now()
        with self.transaction() as conn:
            row = conn.execute("select status, claimed_at from notifications where "
                               "game_id = ? and version = ? and recipient = ? and kind = ?",
                               (game_id, version, recipient, kind)).fetchone()
            if row is None:
                conn.execute("insert into notifications (game_id, version, recipient, kind, "
                             "status, attempts, claimed_at) values (?, ?, ?, ?, 'sending', 1, ?)",
                             (game_id, version, recipient, kind, stamp))
                return True
            status, claimed = row
            if status == "sent":
                return False
            if status == "sending" and claimed and _age(claimed) < lease_seconds:
                return False
            conn.execute("update notifications set status = 'sending', claimed_at = ?, "
                         "attempts = attempts + 1 where game_id = ? and version = ? and "
                         "recipient = ? and kind = ?", (stamp, game_id, version, recipient, kind))
            return True

    def finish_notification(self, game_id: str, version: int, recipient: str, kind: str,
                            error: str | None = None) -> None:
        """Record the outcome of a claimed notification: sent, or failed (to retry)."""
        with self.transaction() as conn:
            conn.execute("update notifications set status = ?, sent_at = ?, error = ? where "
                         "game_id = ? and version = ? and recipient = ? and kind = ?",
                         ("failed" if error else "sent", None if error else now(), error,
                          game_id, version, recipient, kind))

    def notifications(self, game_id: str) -> list[dict[str, Any]]:
        cols = ("version", "recipient", "kind", "status", "attempts", "sent_at", "error")
        rows = self.conn.execute(f"select {', '.join(cols)} from notifications where "
                                 "game_id = ? order by version, recipient, kind",
                                 (game_id,)).fetchall()
        return [dict(zip(cols, r, strict=True)) for r in rows]

    def add_webhook(self, game_id: str, seat: int | None, url: str, secret: str
                    ) -> dict[str, Any]:
        stamp = now()
        with self.transaction() as conn:
            cur = conn.execute("insert into webhooks (game_id, seat, url, secret, created_at) "
                               "values (?, ?, ?, ?, ?)", (game_id, seat, url, secret, stamp))
            hook_id = cur.lastrowid
        return {"id": hook_id, "game_id": game_id, "seat": seat, "url": url,
                "secret": secret, "created_at": stamp}

    def webhooks(self, game_id: str) -> list[dict[str, Any]]:
        cols = ("id", "game_id", "seat", "url", "secret", "created_at")
        rows = self.conn.execute(f"select {', '.join(cols)} from webhooks where game_id = ? "
                                 "order by id", (game_id,)).fetchall()
        return [dict(zip(cols, r, strict=True)) for r in rows]

    def webhook(self, hook_id: int) -> dict[str, Any] | None:
        cols = ("id", "game_id", "seat", "url", "secret", "created_at")
        row = self.conn.execute(f"select {', '.join(cols)} from webhooks where id = ?",
                                (hook_id,)).fetchone()
        return dict(zip(cols, row, strict=True)) if row else None

    def delete_webhook(self, game_id: str, hook_id: int) -> bool:
        with self.transaction() as conn:
            cur = conn.execute("delete from webhooks where game_id = ? and id = ?",
                               (game_id, hook_id))
            return cur.rowcount == 1

    def count(self, table: str) -> int:
        assert table in ("games", "seats", "events", "outbox", "idempotency", "notifications",
                         "webhooks")
        return self.conn.execute(f"select count(*) from {table}").fetchone()[0]
