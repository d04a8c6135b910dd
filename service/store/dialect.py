"""What truly differs between the two databases, behind one seam: connections and
transactions, how values are written and read back, a few SQL fragments, locks, the
claiming of due work, the wake-up of waiting workers, the one-statement append and the
schema's version. Everything else is written once, in ``sql.py``.

SQL is written with ``?`` placeholders; PostgreSQL's connections turn them into ``%s``.
A row comes back as a dict of column to value in the store's types (aware UTC datetimes,
JSON documents, booleans) whatever the database keeps them as (``decode``).
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sqlite_utils import Database

from .. import times
from ..errors import GameNotFound, VersionConflict
from . import codec
from .base import (
    JSON_COLUMNS,
    TIME_COLUMNS,
    Answer,
    AnswerExists,
    Claim,
    Due,
    Event,
    GameUpdate,
)

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

#: Columns kept as 0/1 by SQLite (booleans to the store).
BOOL_COLUMNS = frozenset({"imported", "replay_public", "public", "spectators_read_chat",
                          "notes_in_mail", "permanent", "claim_on_sign_in", "is_bot", "inactive"})
#: The channel PostgreSQL's trigger tells of new due work (``wait_for_due``).
CHANNEL = "alhambra_due"
#: Integers both databases keep (a larger id is no row of theirs).
INT64 = range(-(1 << 63), 1 << 63)


def as_time(value: Any) -> datetime | None:
    """A time column's value as read (text from SQLite, a datetime from PostgreSQL)."""
    if value is None or isinstance(value, datetime):
        return None if value is None else value.astimezone(UTC)
    return times.from_text(value)


def safe_url(url: str) -> str:
    """``url`` without its password (or query), to name the database in messages."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    user = f"{parts.username}@" if parts.username else ""
    return f"{parts.scheme}://{user}{host}{parts.path}"


class Conn:
    """One connection (or the transaction on it) of either database: statements with
    ``?`` placeholders, rows as dicts of the store's values."""

    def __init__(self, dialect: Dialect, raw: Any) -> None:
        self.dialect, self.raw = dialect, raw

    def cursor(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.raw.execute(self.dialect.statement(sql), params)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        cur = self.cursor(sql, params)
        names = [d[0] for d in cur.description]
        decode = self.dialect.decode
        return [decode(dict(zip(names, row, strict=True))) for row in cur.fetchall()]

    def one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self.cursor(sql, params).fetchone()
        return None if row is None else row[0]

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a write; the rows it changed."""
        count: int = self.cursor(sql, params).rowcount
        return count

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        rows = list(rows)
        if not rows:
            return 0
        return self.dialect.executemany(self, sql, rows)


class Dialect(ABC):
    """The seam: the two databases' differences (see the module)."""

    name: str
    where: str  # the database, in words for messages (no password)

    @abstractmethod
    def reading(self) -> AbstractContextManager[Conn]:
        """A connection for reads (each statement sees committed data)."""

    @abstractmethod
    def writing(self) -> AbstractContextManager[Conn]:
        """One transaction, rolled back on any exception."""

    @abstractmethod
    def migrating(self) -> AbstractContextManager[Conn]:
        """A connection no other process migrates on meanwhile."""

    @abstractmethod
    def close(self) -> None: ...
    @abstractmethod
    def executemany(self, conn: Conn, sql: str, rows: list[Sequence[Any]]) -> int: ...
    @abstractmethod
    def doc(self, value: Any) -> Any: ...  # a JSON document as a parameter
    @abstractmethod
    def batch_time(self, value: Any) -> datetime: ...  # event_batches.at as a time
    @abstractmethod
    def decode(self, row: dict[str, Any]) -> dict[str, Any]: ...  # a row, by its columns
    @abstractmethod
    def schema_version(self, conn: Conn) -> int: ...
    @abstractmethod
    def set_schema_version(self, conn: Conn, version: int) -> None: ...
    @abstractmethod
    def run(self, conn: Conn, script: str) -> None: ...  # each statement, in its transaction

    @abstractmethod
    def rows_json(self, columns: Sequence[str], source: str, order: str) -> str:
        """An expression: the rows of the subquery ``source`` (its ``columns``) as one
        JSON array of arrays, in ``order`` (``json_rows`` reads it back)."""

    @abstractmethod
    def claim(self, claimable: str, params: Sequence[Any], limit: int,
              set_claimed: str, set_params: Sequence[Any], columns: str
              ) -> list[dict[str, Any]]:
        """Claim up to ``limit`` rows of ``due`` matching ``claimable`` (its ``params``)
        in due order, setting ``set_claimed``; the rows (``columns``) as claimed.
        Claimers at once take disjoint rows."""

    def statement(self, sql: str) -> str:
        return sql

    def time(self, t: datetime | None) -> Any:
        """A time as a statement's parameter."""
        return t

    def batch_at(self, t: datetime) -> Any:
        """A batch's time as ``event_batches.at`` keeps it."""
        return t

    def encode(self, column: str, value: Any) -> Any:
        """A value of ``column`` as a statement's parameter."""
        if value is None:
            return None
        if column in JSON_COLUMNS:
            return self.doc(value)
        return self.time(value) if column in TIME_COLUMNS else value

    def json_rows(self, value: Any) -> list[list[Any]]:
        return json.loads(value) if isinstance(value, str) else list(value)

    @abstractmethod
    def lock_game(self, conn: Conn, game_id: str) -> None:
        """Inside ``writing``: no other writer of the game until the commit."""

    @abstractmethod
    def lock_name(self, conn: Conn, name: str) -> None:
        """Inside ``writing``: no other writer holding ``name`` until the commit."""

    def wait_for_due(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for due work another process adds: False at once where
        the database cannot tell."""
        return False

    def append(self, game_id: str, expected: int, events: list[Event], update: GameUpdate,
               answer: Answer | None, due: Sequence[Due], replaces: Sequence[str],
               done: Claim | None, at: datetime) -> int | None:
        """``SqlStore.append`` in a way of the database's own (the new version), or None:
        the statements written once do it."""
        return None

    def step(self, conn: Conn) -> AbstractContextManager[Any]:
        """One migration step's transaction on ``migrating``'s connection."""
        return nullcontext()


# -- SQLite ------------------------------------------------------------------------------

def _sqlite_decode(row: dict[str, Any]) -> dict[str, Any]:
    for col, value in row.items():
        if value is None:
            continue
        if col in JSON_COLUMNS:
            row[col] = json.loads(value)
        elif col in TIME_COLUMNS:
            row[col] = times.from_text(value)
        elif col in BOOL_COLUMNS:
            row[col] = bool(value)
    return row


class Sqlite(Dialect):
    """The embedded default: one file in WAL mode (sqlite-utils opens it), a connection
    per thread (a new one after a fork). A write is ``BEGIN IMMEDIATE`` … ``COMMIT``
    (the write lock from the start: what a transaction reads holds until it commits),
    with the writers taking
    turns first at a lock of the process's own, then at an ``flock`` of the file beside
    the database (the kernel hands it to the next waiter at once, where SQLite's busy
    handler sleeps 1, 2, 5… ms between tries: two API processes lost a third of their
    moves a second to those sleeps). Times are kept as ``times.to_text`` (one width:
    text order is time order), a batch's time in milliseconds."""

    name = "sqlite"

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self.where = f"SQLite database {self.path}"
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._lock_file: IO[bytes] | None = None

    def _conn(self) -> Conn:
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            db = Database(sqlite3.connect(self.path, isolation_level=None, timeout=30,
                                          check_same_thread=False))
            if self.path != ":memory:":
                db.enable_wal()
            for pragma in ("synchronous=normal", "foreign_keys=on", "busy_timeout=30000"):
                db.execute(f"pragma {pragma}")
            local.conn, local.pid = Conn(self, db.conn), os.getpid()
        conn: Conn = local.conn
        return conn

    @contextmanager
    def reading(self) -> Iterator[Conn]:
        yield self._conn()

    @contextmanager
    def writing(self) -> Iterator[Conn]:
        conn = self._conn()
        with self._writer():
            conn.raw.execute("begin immediate")
            try:
                yield conn
            except BaseException:
                conn.raw.execute("rollback")
                raise
            conn.raw.execute("commit")

    @contextmanager
    def _writer(self) -> Iterator[None]:
        if self._pid != os.getpid():  # a forked child: its own lock and file
            self._lock, self._pid, self._lock_file = threading.Lock(), os.getpid(), None
        with self._lock:
            if self.path == ":memory:":
                yield
                return
            if self._lock_file is None:
                self._lock_file = open(self.path + "-writer", "a+b")  # noqa: SIM115
            fcntl.flock(self._lock_file, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(self._lock_file, fcntl.LOCK_UN)

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid == os.getpid():
            conn.raw.close()
        self._local.conn = self._local.pid = None

    def executemany(self, conn: Conn, sql: str, rows: list[Sequence[Any]]) -> int:
        before = conn.raw.total_changes
        conn.raw.executemany(sql, rows)
        changed: int = conn.raw.total_changes - before
        return changed

    def time(self, t: datetime | None) -> Any:
        return None if t is None else times.to_text(t)

    def doc(self, value: Any) -> Any:
        return json.dumps(value)

    def encode(self, column: str, value: Any) -> Any:
        if column in BOOL_COLUMNS and value is not None:
            return int(value)
        return super().encode(column, value)

    def batch_at(self, t: datetime) -> Any:
        return codec.to_ms(t)

    def batch_time(self, value: Any) -> datetime:
        return codec.from_ms(value)

    decode = staticmethod(_sqlite_decode)

    def lock_game(self, conn: Conn, game_id: str) -> None:
        """A write transaction holds the whole database already (``BEGIN IMMEDIATE``)."""

    def lock_name(self, conn: Conn, name: str) -> None:
        """As ``lock_game``."""

    def rows_json(self, columns: Sequence[str], source: str, order: str) -> str:
        return (f"(select json_group_array(json_array({', '.join(columns)})) from "
                f"({source} order by {order}))")

    def claim(self, claimable: str, params: Sequence[Any], limit: int,
              set_claimed: str, set_params: Sequence[Any], columns: str
              ) -> list[dict[str, Any]]:
        free = f"from due where {claimable} order by due_at, id limit ?"
        with self.reading() as conn:
            if conn.scalar("select 1 " + free, (*params, 1)) is None:
                return []  # nothing to take: no write lock
        with self.writing() as conn:
            ids = [r["id"] for r in conn.query("select id " + free, (*params, limit))]
            marks = ", ".join("?" * len(ids))
            conn.execute(f"update due set {set_claimed} where id in ({marks})",
                         (*set_params, *ids))
            return conn.query(f"select {columns} from due where id in ({marks}) "
                              f"order by due_at, id", ids)

    @contextmanager
    def migrating(self) -> Iterator[Conn]:
        with self.writing() as conn:  # one writer migrates; the others wait
            yield conn

    def schema_version(self, conn: Conn) -> int:
        version: int = conn.scalar("pragma user_version")
        return version

    def set_schema_version(self, conn: Conn, version: int) -> None:
        conn.raw.execute(f"pragma user_version = {int(version)}")

    def run(self, conn: Conn, script: str) -> None:
        statement = ""  # not executescript, which would commit first
        for line in script.splitlines(keepends=True):
            statement += line
            if sqlite3.complete_statement(statement):
                conn.raw.execute(statement)
                statement = ""
        if statement.strip():
            raise ValueError(f"an incomplete statement: {statement!r}")


# -- PostgreSQL --------------------------------------------------------------------------

@lru_cache(maxsize=512)
def _pg_statement(sql: str) -> str:
    return sql.replace("%", "%%").replace("?", "%s")


#: ``Postgres.append``'s one statement.
APPEND = """
with moved as (
   update games set status = %(status)s, phase = %(phase)s, current_seat = %(seat)s,
          deadline = %(deadline)s, version = %(version)s, updated_at = %(stamp)s,
          clock = %(clock)s
   where id = %(id)s and version = %(expected)s returning id),
logged as (
   insert into event_batches (game_id, version, first, at, data)
   select moved.id, %(version)s, %(expected)s + 1, %(stamp)s, %(data)s
   from moved where %(logged)s),
replaced as (
   update due set state = 'done', result = 'replaced', done_at = %(stamp)s
   from moved where due.game_id = moved.id and due.state = 'pending'
        and due.kind = any(%(replaces)s::text[])),
planned as (
   insert into due (game_id, kind, version, from_version, seat, hook_id, percent, reply,
                    args, due_at, created_at)
   select moved.id, d.kind, d.version, d.from_version, d.seat, d.hook_id, d.percent,
          d.reply, d.args::json, d.due_at, %(stamp)s
   from moved, unnest(%(d_kind)s::text[], %(d_version)s::integer[],
                      %(d_from_version)s::integer[], %(d_seat)s::integer[],
                      %(d_hook_id)s::bigint[], %(d_percent)s::integer[],
                      %(d_reply)s::text[], %(d_args)s::text[], %(d_due_at)s::timestamptz[])
        as d(kind, version, from_version, seat, hook_id, percent, reply, args, due_at)
   on conflict do nothing),
finished as (
   update due set state = 'done', result = 'applied', claimed_until = null,
          done_at = %(stamp)s
   from moved where due.id = %(done_id)s and due.attempts = %(done_attempt)s
        and due.state = 'claimed'),
answered as (
   insert into idempotency (game_id, seat, key, fingerprint, status, version,
                            from_version, created_at)
   select id, %(a_seat)s, %(a_key)s, %(a_fingerprint)s, %(a_status)s, %(a_version)s,
          %(a_from)s, %(stamp)s
   from moved where %(answer)s)
select count(*) from moved
"""


def _pg_decode(row: dict[str, Any]) -> dict[str, Any]:
    for col, value in row.items():
        if isinstance(value, datetime):
            row[col] = value.astimezone(UTC)
    return row


class Postgres(Dialect):
    """For hosts that outgrow one machine: psycopg 3, a psycopg-pool pool per process
    (a forked child makes its own), every connection in autocommit mode: a write is one
    statement (atomic by itself) or one transaction. Times are ``timestamptz``, JSON
    ``json``; a game's writers queue at its row's lock (``for update``)."""

    name = "postgres"
    MIGRATION_LOCK = 0x616C68616D627261  # pg_advisory_lock key ("alhambra")

    def __init__(self, url: str, pool_size: int = 10, pool_timeout: float = 30) -> None:
        self.url, self.pool_size, self.pool_timeout = url, pool_size, pool_timeout
        self.where = f"PostgreSQL database {safe_url(url)}"
        self._lock = threading.Lock()
        self._pool_pid: int | None = None
        self._pool: ConnectionPool | None = None
        self._listener: psycopg.Connection[Any] | None = None  # wait_for_due's, on use

    def pool(self) -> ConnectionPool:
        pid = os.getpid()
        if self._pool_pid != pid:
            from psycopg_pool import ConnectionPool

            with self._lock:
                if self._pool_pid != pid:
                    self._pool = ConnectionPool(
                        self.url, min_size=1, max_size=self.pool_size,
                        timeout=self.pool_timeout, kwargs={"autocommit": True}, open=True,
                        name=f"alhambra-{pid}")
                    self._pool_pid = pid
        assert self._pool is not None
        return self._pool

    @contextmanager
    def reading(self) -> Iterator[Conn]:
        with self.pool().connection() as raw:
            yield Conn(self, raw)

    @contextmanager
    def writing(self) -> Iterator[Conn]:
        with self.pool().connection() as raw, raw.transaction():
            yield Conn(self, raw)

    def close(self) -> None:
        with self._lock:
            if self._pool is not None and self._pool_pid == os.getpid():
                self._pool.close()
            self._pool = self._pool_pid = None
            if self._listener is not None:
                self._listener.close()
                self._listener = None

    def statement(self, sql: str) -> str:
        return _pg_statement(sql)

    def executemany(self, conn: Conn, sql: str, rows: list[Sequence[Any]]) -> int:
        with conn.raw.cursor() as cur:
            cur.executemany(self.statement(sql), rows)
            changed: int = cur.rowcount
        return max(changed, 0)

    def doc(self, value: Any) -> Any:
        from psycopg.types.json import Json

        return Json(value)

    def batch_time(self, value: Any) -> datetime:
        t: datetime = value.astimezone(UTC)
        return t

    decode = staticmethod(_pg_decode)

    def rows_json(self, columns: Sequence[str], source: str, order: str) -> str:
        return (f"(select coalesce(json_agg(json_build_array({', '.join(columns)}) "
                f"order by {order}), '[]') from ({source}) r)")

    def lock_game(self, conn: Conn, game_id: str) -> None:
        conn.cursor("select 1 from games where id = ? for update", (game_id,))

    def lock_name(self, conn: Conn, name: str) -> None:
        conn.cursor("select pg_advisory_xact_lock(hashtextextended(?, 0))", (name,))

    def claim(self, claimable: str, params: Sequence[Any], limit: int,
              set_claimed: str, set_params: Sequence[Any], columns: str
              ) -> list[dict[str, Any]]:
        with self.reading() as conn:
            rows = conn.query(
                f"update due set {set_claimed} where id in (select id from due where "
                f"{claimable} order by due_at, id limit ? for update skip locked) "
                f"returning {columns}", (*set_params, *params, limit))
        return sorted(rows, key=lambda r: (r["due_at"], r["id"]))

    def wait_for_due(self, timeout: float) -> bool:
        import psycopg

        try:
            if self._listener is None:
                self._listener = psycopg.connect(self.url, autocommit=True)
                self._listener.execute(f"listen {CHANNEL}")
            return any(True for _ in self._listener.notifies(timeout=timeout, stop_after=1))
        except psycopg.Error:
            if self._listener is not None:
                self._listener.close()
            self._listener = None
            return False

    def step(self, conn: Conn) -> AbstractContextManager[Any]:
        return conn.raw.transaction()  # type: ignore[no-any-return]

    def append(self, game_id: str, expected: int, events: list[Event], update: GameUpdate,
               answer: Answer | None, due: Sequence[Due], replaces: Sequence[str],
               done: Claim | None, at: datetime) -> int | None:
        """One statement, so one round trip and atomic by itself: the compare-and-set of
        the version (it waits for a concurrent writer of the row, then sees its version),
        and the rows that depend on it, written only if the version moved. An answer
        whose key is taken fails the whole statement: a forgotten one is removed and the
        append tried again."""
        import psycopg

        version = expected + len(events)
        a = answer
        params = {
            "id": game_id, "expected": expected, "version": version, "stamp": at,
            "status": update.status, "phase": update.phase, "seat": update.current_seat,
            "deadline": update.deadline, "clock": self.encode("clock", update.clock),
            "logged": bool(events), "data": codec.encode(events), "answer": a is not None,
            "replaces": list(replaces), "done_id": done.id if done else None,
            "done_attempt": done.attempt if done else None,
            "a_seat": a and a.seat, "a_key": a and a.key, "a_fingerprint": a and a.fingerprint,
            "a_status": a and a.status, "a_version": a and a.version,
            "a_from": a and a.from_version,
            **{f"d_{k}": [getattr(x, k) for x in due] for k in
               ("kind", "version", "from_version", "seat", "hook_id", "percent", "reply",
                "due_at")},
            "d_args": [None if x.args is None else json.dumps(x.args) for x in due]}
        with self.reading() as conn:
            for _ in range(2):
                try:
                    moved = conn.raw.execute(APPEND, params).fetchone()[0]
                    break
                except psycopg.errors.UniqueViolation as exc:
                    if a is None or not (exc.diag.constraint_name or "").startswith(
                            "idempotency"):
                        raise
                    if not conn.execute("delete from idempotency where game_id = ? and "
                                        "seat = ? and key = ? and created_at < ?",
                                        (game_id, a.seat, a.key, a.forgotten_before)):
                        raise AnswerExists(a.key) from None
            if not moved:
                current = conn.scalar("select version from games where id = ?", (game_id,))
                if current is None:
                    raise GameNotFound(game_id)
                raise VersionConflict(current)
        return version

    @contextmanager
    def migrating(self) -> Iterator[Conn]:
        with self.reading() as conn:  # one process migrates, every step; others wait
            conn.cursor("select pg_advisory_lock(?)", (self.MIGRATION_LOCK,))
            try:
                yield conn
            finally:
                conn.cursor("select pg_advisory_unlock(?)", (self.MIGRATION_LOCK,))

    def schema_version(self, conn: Conn) -> int:
        if conn.scalar("select to_regclass('schema_migrations')") is None:
            return 0
        version: int = conn.scalar("select coalesce(max(version), 0) from schema_migrations")
        return version

    def set_schema_version(self, conn: Conn, version: int) -> None:
        conn.execute("create table if not exists schema_migrations (version integer primary "
                     "key, applied_at timestamptz not null default now())")
        conn.execute("insert into schema_migrations (version) values (?)", (version,))

    def run(self, conn: Conn, script: str) -> None:
        conn.raw.execute(script)
