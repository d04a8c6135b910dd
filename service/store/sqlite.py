"""The SQLite event store: the embedded default (WAL mode, one file), through sqlite-utils.

Tables: ``games`` (one row per game), ``seats`` (only the SHA-256 of a seat's token),
``event_batches`` (the log: a row per appended batch in the compact form of codec.py,
primary key ``(game_id, version)`` of its last event, so a batch is not appended twice;
triggers refuse any update or delete), ``due`` (the workers' due work, written with the
batch that calls for it), ``idempotency``, ``webhooks`` and ``mail_answers`` (see
base.py for what each holds).

Every write is one ``BEGIN IMMEDIATE`` transaction; ``append`` checks the expected version
inside it, so two writers racing for the same version cannot both succeed, and
``claim_due`` takes its rows inside one, so workers claiming at once get disjoint rows.

The schema's version is the database's ``PRAGMA user_version``. Opening a database runs
the migrations it lacks, one step at a time, each in its own transaction; a database of a
newer schema than this code knows is refused (SchemaTooNew), never touched.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, replace
from datetime import datetime
from pathlib import Path
from typing import IO, Any, overload

from sqlite_utils import Database

from .. import times
from ..errors import GameNotFound, TooManyMessages, VersionConflict
from . import codec
from .base import (
    COLUMNS,
    DEFAULTS,
    JSON_COLUMNS,
    TABLES,
    TIME_COLUMNS,
    Answer,
    AnswerExists,
    Claim,
    Due,
    DueRow,
    Event,
    Finish,
    Game,
    GameRows,
    GameUpdate,
    MailFailure,
    Message,
    Player,
    Rating,
    SchemaTooNew,
    Seat,
    SignIn,
    Talk,
    Webhook,
    check_webhook_limits,
    message_due,
)


@overload
def _text(t: datetime) -> str: ...
@overload
def _text(t: None) -> None: ...
@overload
def _text(t: datetime | None) -> str | None: ...
def _text(t: datetime | None) -> str | None:
    """A time as stored: ``times.to_text``, one width, so text order is time order."""
    return None if t is None else times.to_text(t)


@overload
def _time(text: str) -> datetime: ...
@overload
def _time(text: None) -> None: ...
@overload
def _time(text: str | None) -> datetime | None: ...
def _time(text: str | None) -> datetime | None:
    return None if text is None else times.from_text(text)


def _stamp() -> str:
    """Now, as stored."""
    return times.to_text(times.now())


# -- the schema, step by step --------------------------------------------------------------

def _run(conn: sqlite3.Connection, script: str) -> None:
    """Each statement of ``script``, inside the caller's transaction (unlike
    ``executescript``, which commits first)."""
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""
    if statement.strip():
        raise ValueError(f"an incomplete statement: {statement!r}")


def _v1(conn: sqlite3.Connection) -> None:
    """Games, seats, the event log, the outbox and idempotent answers."""
    _run(conn, """
        create table games (
           id text primary key, variant text not null, options text not null,
           players integer not null, status text not null, phase text,
           version integer not null, current_seat integer, time_per_move integer not null,
           timeout_policy text not null, deadline text, imported integer not null,
           created_at text not null, updated_at text not null, host_token_hash text,
           invite_hash text);
        create index idx_games_status_created_at on games (status, created_at);
        create index idx_games_created_at on games (created_at);
        create index idx_games_host_token_hash on games (host_token_hash);
        create index idx_games_deadline on games (deadline);
        create table seats (
           game_id text not null references games(id), seat integer not null, name text,
           email text, token_hash text, joined_at text, primary key (game_id, seat));
        create unique index idx_seats_token_hash on seats (token_hash);
        create index idx_seats_email on seats (email);
        create table events (
           game_id text not null references games(id), version integer not null,
           type text not null, payload text not null, created_at text not null,
           primary key (game_id, version));
        create table outbox (
           id integer primary key, game_id text not null references games(id),
           from_version integer not null, to_version integer not null,
           created_at text not null, delivered_at text);
        create index idx_outbox_delivered_at_id on outbox (delivered_at, id);
        create table idempotency (
           game_id text references games(id), seat integer, key text, fingerprint text,
           status integer, response text, created_at text,
           primary key (game_id, seat, key));
        -- Events are facts: refuse any update or delete at the database level too.
        create trigger events_no_update before update on events
           begin select raise(abort, 'events are append-only'); end;
        create trigger events_no_delete before delete on events
           begin select raise(abort, 'events are append-only'); end;
    """)


def _v2(conn: sqlite3.Connection) -> None:
    """The workers' notification claims and the webhooks."""
    _run(conn, """
        create table notifications (
           game_id text not null, version integer not null, recipient text not null,
           kind text not null, status text not null, attempts integer not null,
           claimed_at text, sent_at text, error text,
           primary key (game_id, version, recipient, kind));
        create table webhooks (
           id integer primary key, game_id text not null references games(id),
           seat integer, url text not null, secret text not null,
           created_at text not null);
        create index idx_webhooks_game_id on webhooks (game_id);
    """)


#: Every column that held a time at schema 3.
V3_TIME_COLUMNS = {
    "games": ("deadline", "created_at", "updated_at"), "seats": ("joined_at",),
    "outbox": ("created_at", "delivered_at"), "idempotency": ("created_at",),
    "notifications": ("claimed_at", "sent_at"), "webhooks": ("created_at",)}


def _v3(conn: sqlite3.Connection) -> None:
    """Every time in one form (ISO 8601 UTC, milliseconds, Z): deadlines were written to
    the second ('…:43Z' sorts after '…:43.500Z'). Events keep theirs: they are facts (and
    were written in that form already)."""
    for table, columns in V3_TIME_COLUMNS.items():
        for col in columns:
            conn.execute(f"update {table} set {col} = strftime('%Y-%m-%dT%H:%M:%fZ', {col}) "
                         f"where {col} is not null")


def _v4(conn: sqlite3.Connection) -> None:
    """Outbox claims: relays running at once take disjoint rows (``claim_outbox``)."""
    _run(conn, """
        alter table outbox add column claimed_at text;
        drop index idx_outbox_delivered_at_id;
        create index idx_outbox_undelivered on outbox (id) where delivered_at is null;
    """)


def _v5(conn: sqlite3.Connection) -> None:
    """Seat tokens can be rotated: each seat's generation (``rotate_token``)."""
    conn.execute("alter table seats add column token_generation integer not null default 0")


def _v6(conn: sqlite3.Connection) -> None:
    """Webhook health: failures in a row, the last error, disabled after too many; the
    sweep finds notifications left "sending" by a dead worker."""
    _run(conn, """
        alter table webhooks add column failures integer not null default 0;
        alter table webhooks add column last_error text;
        alter table webhooks add column disabled_at text;
        create index idx_notifications_sending on notifications (claimed_at)
           where status = 'sending';
    """)


def _v7(conn: sqlite3.Connection) -> None:
    """Seats played by bots (docs/rules.md S-2): the level of a seat's bot, the game's
    takeover rule."""
    _run(conn, """
        alter table seats add column bot text;
        alter table games add column takeover_after_timeouts integer not null default 0;
        alter table games add column takeover_bot text;
    """)


def _v8(conn: sqlite3.Connection) -> None:
    """Answers to mail replies allowed per address (``claim_mail_answer``)."""
    _run(conn, """
        create table mail_answers (
           address text not null, key text not null, allowed_at text not null,
           primary key (address, key));
        create index idx_mail_answers_allowed_at on mail_answers (allowed_at);
    """)


def _v9(conn: sqlite3.Connection) -> None:
    """Time controls (a bank, days off: service/clock.py) and whether a finished game's
    replay is public."""
    _run(conn, """
        alter table games add column time_control text;
        alter table games add column replay_public integer not null default 1;
    """)


NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"  # now, as times are stored


def _v10(conn: sqlite3.Connection) -> None:
    """Due work (``due``) replaces the outbox and the notification claims: a batch not yet
    relayed becomes a ``plan`` row (its mails, webhooks, bot move and clock are planned
    by the workers), a running game gets a ``plan`` row for its clock and bot (its
    deadline and reminders), and each notification its due row (sent: done; an answer
    left unsent: failed, its outcome is not kept; any other: pending, sent again)."""
    _run(conn, f"""
        create table due (
           id integer primary key, game_id text not null references games(id),
           kind text not null, version integer not null, from_version integer,
           seat integer, hook_id integer, percent integer, reply text, args text,
           due_at text not null, state text not null default 'pending',
           attempts integer not null default 0, claimed_until text, started_at text,
           result text, last_error text, created_at text not null, done_at text);
        create unique index idx_due_work on due (game_id, kind, version, coalesce(seat, -1),
           coalesce(hook_id, -1), coalesce(percent, -1), coalesce(reply, ''));
        create index idx_due_pending on due (due_at) where state = 'pending';
        create index idx_due_claimed on due (claimed_until) where state = 'claimed';
        insert into due (game_id, kind, version, from_version, args, due_at, created_at)
           select game_id, 'plan', to_version, from_version, '{{"mails": true}}',
                  created_at, created_at
           from outbox where delivered_at is null order by id;
        insert or ignore into due (game_id, kind, version, from_version, args, due_at,
                                   created_at)
           select o.game_id, 'plan', o.to_version, o.from_version, '{{"mails": false}}',
                  {NOW}, {NOW}
           from outbox o join games g on g.id = o.game_id
           where g.status = 'active' and o.id = (select max(id) from outbox
                                                 where game_id = o.game_id);
        insert or ignore into due (game_id, kind, version, from_version, seat, hook_id,
                                   percent, reply, due_at, state, attempts, result,
                                   last_error, created_at, done_at)
           select n.game_id,
                  case when n.kind like 'reminder%' then 'reminder'
                       when n.kind like 'answer-%' then 'answer' else n.kind end,
                  n.version, o.from_version,
                  case when n.recipient like 'seat:%'
                       then cast(substr(n.recipient, 6) as integer) end,
                  case when n.recipient like 'hook:%'
                       then cast(substr(n.recipient, 6) as integer) end,
                  case when n.kind like 'reminder%' then cast(substr(n.kind, 9) as integer)
                       end,
                  case when n.kind like 'answer-%' then n.kind end,
                  coalesce(n.claimed_at, {NOW}),
                  case when n.status = 'sent' then 'done'
                       when n.kind like 'answer-%' then 'failed' else 'pending' end,
                  n.attempts, case when n.status = 'sent' then 'sent' end,
                  case when n.status <> 'sent' then coalesce(n.error, 'not sent before '
                                                             || 'the upgrade') end,
                  coalesce(n.claimed_at, {NOW}), n.sent_at
           from notifications n left join outbox o
                on o.game_id = n.game_id and o.to_version = n.version;
        drop table notifications;
        drop table outbox;
    """)


def _v11(conn: sqlite3.Connection) -> None:
    """Each seat's language (its mails, its page: service/i18n.py)."""
    conn.execute("alter table seats add column language text")


def _v12(conn: sqlite3.Connection) -> None:
    """Mails that fail: each kept (``mail_failures``), and per seat its address's hard
    failures and why mails to it stopped (``record_mail_failure``)."""
    _run(conn, """
        alter table seats add column mail_failures integer not null default 0;
        alter table seats add column mail_failing text;
        create table mail_failures (
           id integer primary key, game_id text not null, seat integer not null,
           address text not null, reason text not null, permanent integer not null,
           at text not null);
        create index idx_mail_failures_game on mail_failures (game_id, id);
        create index idx_mail_failures_at on mail_failures (at);
    """)


def _v13(conn: sqlite3.Connection) -> None:
    """Table talk (service/talk.py): messages beside the log, each seat's talk settings
    and notes, and whether spectators read the table's messages."""
    _run(conn, """
        alter table games add column spectators_read_chat integer not null default 0;
        create table messages (
           game_id text not null references games(id), id integer not null,
           sender integer, recipient integer, text text not null,
           version integer not null, created_at text not null, deleted_at text,
           primary key (game_id, id));
        create index idx_messages_sender on messages (game_id, sender, created_at);
        create table talk (
           game_id text not null references games(id), seat integer not null,
           muted text not null default '[]', mail_messages text not null
           default 'with_next', notes text not null default '',
           notes_in_mail integer not null default 0,
           mailed_through integer not null default 0, primary key (game_id, seat));
    """)


def _v14(conn: sqlite3.Connection) -> None:
    """Idempotent answers keep what a retry needs (the batch's versions), not the whole
    document: the service rebuilds it from the log (``Games._earlier``); they and done
    due rows are found by age for the workers' ``prune``."""
    _run(conn, """
        create table idempotency_v12 (
           game_id text not null references games(id), seat integer not null,
           key text not null, fingerprint text not null, status integer not null,
           version integer not null, from_version integer not null,
           created_at text not null, primary key (game_id, seat, key)) without rowid;
        insert into idempotency_v12
           select game_id, seat, key, fingerprint, status,
                  coalesce(json_extract(response, '$.version'), 0),
                  coalesce(json_extract(response, '$.version'), 0)
                  - coalesce(json_array_length(response, '$.events'), 0) + 1,
                  created_at
           from idempotency;
        drop table idempotency;
        alter table idempotency_v12 rename to idempotency;
        create index idx_idempotency_created_at on idempotency (created_at);
        create index idx_due_done on due (done_at) where state = 'done';
    """)


def _v15(conn: sqlite3.Connection) -> None:
    """The log in its compact form (codec.py): a row per appended batch (its last version,
    its first, its time in milliseconds, its events compressed) instead of a row per
    event; the rows of before are grouped into their batches (an append's events share
    its time)."""
    _run(conn, """
        create table event_batches (
           game_id text not null references games(id), version integer not null,
           first integer not null, at integer not null, data blob not null,
           primary key (game_id, version)) without rowid;
        create trigger event_batches_no_update before update on event_batches
           begin select raise(abort, 'events are append-only'); end;
        create trigger event_batches_no_delete before delete on event_batches
           begin select raise(abort, 'events are append-only'); end;
    """)
    cur = conn.execute("select game_id, version, payload, created_at from events "
                       "order by game_id, version")
    rows = ({"game_id": g, "version": v, "payload": p, "created_at": at}
            for g, v, p, at in cur)
    for run in codec.batches(rows):
        conn.execute("insert into event_batches (game_id, version, first, at, data) "
                     "values (?, ?, ?, ?, ?)", _batch_row(run))
    _run(conn, """
        drop trigger events_no_update;
        drop trigger events_no_delete;
        drop table events;
    """)


def _batch_row(run: list[dict[str, Any]]) -> tuple[str, int, int, int, bytes]:
    """The stored batch of event rows (payloads as JSON text or documents)."""
    events = [json.loads(r["payload"]) if isinstance(r["payload"], str) else r["payload"]
              for r in run]
    at = run[0]["created_at"]
    return (run[0]["game_id"], run[-1]["version"], run[0]["version"],
            codec.to_ms(times.from_text(at) if isinstance(at, str) else at),
            codec.encode(events))


def _v16(conn: sqlite3.Connection) -> None:
    """Players (verified addresses, their preferences), their sessions and sign-in
    requests (service/players.py); seats are found by address in lower case; public
    games (open seats anyone may join)."""
    _run(conn, """
        create table players (
           email text primary key, created_at text not null, language text,
           notify text not null default 'turn', digest_hour integer not null default 7,
           digest_day text);
        create table player_sessions (
           token_hash text primary key, email text not null references players(email),
           created_at text not null);
        create index idx_player_sessions_email on player_sessions (email);
        create table sign_ins (
           id text primary key, email text not null, code_hash text not null unique,
           created_at text not null, expires_at text not null, language text,
           used_at text);
        create index idx_sign_ins_expires_at on sign_ins (expires_at);
        create index idx_seats_lower_email on seats (lower(email));
        alter table games add column public integer not null default 0;
        create table player_vacations (
           email text not null references players(email), since text not null,
           until text not null, created_at text not null);
        create index idx_player_vacations_email on player_vacations (email, since);
        create table ratings (
           email text not null, variant text not null, name text, mu real not null,
           sigma real not null, games integer not null, updated_at text not null,
           primary key (email, variant));
        create index idx_ratings_variant on ratings (variant, mu);
        create table rated_games (game_id text primary key references games(id),
           rated_at text not null);
    """)


def _v17(conn: sqlite3.Connection) -> None:
    """Each game's clocks as a fold kept in its row (service/clock.py), carried forward
    by each append; a game from before is folded from its log when first read. A game's
    pending due rows found by an index of their own: an append replaces them, and
    looking for them among the game's done rows cost more the longer the game."""
    _run(conn, """
        alter table games add column clock text;
        create index idx_due_game_pending on due (game_id, kind) where state = 'pending';
    """)


#: MIGRATIONS[i] takes a database from schema version i to i + 1.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_v1, _v2, _v3, _v4, _v5, _v6, _v7,
                                                          _v8, _v9, _v10, _v11, _v12, _v13,
                                                          _v14, _v15, _v16, _v17]
SCHEMA_VERSION = len(MIGRATIONS)


GAME_COLUMNS = list(COLUMNS["games"])
_GAME_SELECT = "select " + ", ".join(GAME_COLUMNS) + " from games"
SEAT_COLUMNS = list(COLUMNS["seats"])
_SEAT_SELECT = "select " + ", ".join(SEAT_COLUMNS) + " from seats"
_HOOK_SELECT = "select " + ", ".join(COLUMNS["webhooks"]) + " from webhooks"
#: A game's row with its seats (JSON arrays of their columns) and its enabled webhooks'
#: ids, in one statement (each statement a move's request makes lets go of the GIL
#: twice, and a threaded server's other threads take it meanwhile).
_TABLE_SELECT = (
    "select " + ", ".join(f"g.{c}" for c in GAME_COLUMNS) + ", (select json_group_array("
    "json_array(" + ", ".join(SEAT_COLUMNS) + ")) from (select * from seats s where "
    "s.game_id = g.id order by s.seat)) as seats_, (select json_group_array(h.id) from "
    "(select id from webhooks where game_id = g.id and disabled_at is null order by id) h) "
    "as hooks_ from games g where g.id = ?")
_DUE_SELECT = "select id, " + ", ".join(COLUMNS["due"]) + " from due"
_MESSAGE_SELECT = "select " + ", ".join(COLUMNS["messages"]) + " from messages"
_TALK_SELECT = "select " + ", ".join(COLUMNS["talk"]) + " from talk"
#: A due row any worker may claim now (parameters: now, now).
_CLAIMABLE = ("(state = 'pending' and due_at <= ?) or (state = 'claimed' and "
              "claimed_until <= ?)")
_DUE_INSERT = ("insert or ignore into due (game_id, kind, version, from_version, seat, "
               "hook_id, percent, reply, args, due_at, created_at) values "
               "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def _game(row: dict[str, Any]) -> Game:
    return Game(**_from_db(row))


def _seat(row: dict[str, Any]) -> Seat:
    return Seat(**_from_db(row))


_RATING_SELECT = ("select email, variant, name, mu, sigma, games, updated_at from ratings")


class _Conflict(Exception):
    """A rating changed since it was read (``rate``): the transaction is rolled back."""


def _rating(row: dict[str, Any]) -> Rating:
    return Rating(**{**row, "updated_at": _time(row["updated_at"])})


def _player(row: dict[str, Any]) -> Player:
    return Player(row["email"], times.from_text(row["created_at"]), row["language"],
                  row["notify"], row["digest_hour"])


def _webhook(row: dict[str, Any]) -> Webhook:
    return Webhook(**_from_db(row))


def _due(row: dict[str, Any]) -> DueRow:
    return DueRow(**_from_db(row))


def _message(row: dict[str, Any]) -> Message:
    d = _from_db(row)
    d["to"] = d.pop("recipient")
    return Message(**d)


def _talk(row: dict[str, Any]) -> Talk:
    d = _from_db(row)
    return Talk(**{**d, "muted": tuple(d["muted"])})


def _due_values(game_id: str, due: Iterable[Due], stamp: str) -> list[tuple[Any, ...]]:
    return [(game_id, d.kind, d.version, d.from_version, d.seat, d.hook_id, d.percent,
             d.reply, None if d.args is None else json.dumps(d.args), _text(d.due_at),
             stamp) for d in due]


class SqliteStore:
    """The SQLite EventStore. One connection per thread (and per process after a fork)."""

    def __init__(self, path: str | os.PathLike[str], *, check_schema: bool = True) -> None:
        """Open (or create) the database at ``path``; with ``check_schema`` (the embedded
        default) bring its schema up to date at once (SchemaTooNew if it is newer)."""
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._writer_lock, self._writer_pid = threading.Lock(), os.getpid()
        self._lock_file: IO[bytes] | None = None  # the writers' flock (``_writer``)
        if check_schema:
            self.migrate()

    # -- connections ---------------------------------------------------------------------

    def connect(self) -> Database:
        """A new connection, in autocommit mode: writes happen in ``transaction``."""
        db = Database(sqlite3.connect(self.path, isolation_level=None, timeout=30,
                                      check_same_thread=False))
        if self.path != ":memory:":
            db.enable_wal()
        for pragma in ("synchronous=normal", "foreign_keys=on", "busy_timeout=30000"):
            db.execute(f"pragma {pragma}")
        return db

    @property
    def db(self) -> Database:
        """This thread's connection (a new one after a fork)."""
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            local.db = self.connect()
            local.pid = os.getpid()
        db: Database = local.db
        return db

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None
            self._local.pid = None

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """``BEGIN IMMEDIATE`` … ``COMMIT`` (a write lock from the start, so a version
        read inside holds until the commit), one writer at a time (``_writer``); rolled
        back on any exception."""
        db = self.db
        with self._writer():
            db.execute("begin immediate")
            try:
                yield db
            except BaseException:
                db.execute("rollback")
                raise
            db.execute("commit")

    @contextmanager
    def _writer(self) -> Iterator[None]:
        """The turn to write: this process's threads queue at a lock of its own, then
        the processes at an exclusive ``flock`` of the file beside the database (the
        kernel hands it to the next waiter at once), instead of in SQLite's busy
        handler, which sleeps (1, 2, 5, 10… ms) between tries: two API processes lost
        a third of their moves a second to those sleeps. A process that is not ours
        still meets SQLite's own lock."""
        if self._writer_pid != os.getpid():  # a forked child: its own lock and file
            self._writer_lock, self._writer_pid = threading.Lock(), os.getpid()
            self._lock_file = None
        with self._writer_lock:
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

    # -- schema --------------------------------------------------------------------------

    def migrate(self) -> tuple[int, int]:
        """Bring the database to SCHEMA_VERSION, one migration (and transaction) a step;
        SchemaTooNew if it is newer than this code."""
        before = None
        while True:
            with self.transaction() as db:  # one writer migrates; the others wait
                version = db.execute("pragma user_version").fetchone()[0]
                before = version if before is None else before
                if version > SCHEMA_VERSION:
                    raise SchemaTooNew(
                        f"the database {self.path} has schema version {version}, newer "
                        f"than this alhambra-pbem knows ({SCHEMA_VERSION}): upgrade "
                        "alhambra-pbem, or restore a backup made for this version")
                if version == SCHEMA_VERSION:
                    return before, version
                MIGRATIONS[version](db.conn)
                db.execute(f"pragma user_version = {version + 1}")

    def _query(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        """Rows as dicts, read with a plain statement (sqlite-utils' ``query`` wraps each
        read in a savepoint: three statements where one does, on every move's reads)."""
        cur = self.db.conn.execute(sql, params)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur]

    def _one(self, sql: str, params: Any = ()) -> dict[str, Any] | None:
        rows = self._query(sql, params)
        return rows[0] if rows else None

    # -- games and seats -----------------------------------------------------------------

    def create_game(self, game: Game, seats: list[Seat]) -> None:
        with self.transaction() as db:
            self._insert_game(db, game, seats)

    def _insert_game(self, db: Database, game: Game, seats: list[Seat]) -> None:
        db.table("games").insert(_to_row({c: getattr(game, c) for c in GAME_COLUMNS}))
        db.table("seats").insert_all(_to_row(asdict(s)) for s in seats)

    def create_finished_game(self, game: Game, seats: list[Seat], events: list[Event]
                             ) -> None:
        with self.transaction() as db:
            version = game.version
            game.version = 0
            self._insert_game(db, game, seats)
            game.version = version
            self._append(db, game.id, 0, events, GameUpdate(game.status, game.phase, None,
                                                            None, clock=game.clock))

    def game(self, game_id: str) -> Game:
        row = self._one(_TABLE_SELECT, (game_id,))
        if row is None:
            raise GameNotFound(game_id)
        seats = tuple(_seat(dict(zip(SEAT_COLUMNS, s, strict=True)))
                      for s in json.loads(row.pop("seats_")))
        hooks = tuple(json.loads(row.pop("hooks_")))
        return Game(**_from_db(row), seats=seats, hooks=hooks)

    def _with_seats(self, games: list[Game]) -> list[Game]:
        """``games`` with their seats, read in one query."""
        if not games:
            return games
        seats: dict[str, list[Seat]] = {g.id: [] for g in games}
        for r in self._query(_SEAT_SELECT + f" where game_id in ({', '.join('?' * len(seats))}) "
                             "order by game_id, seat", list(seats)):
            seats[r["game_id"]].append(_seat(r))
        return [replace(g, seats=tuple(seats[g.id])) for g in games]

    def version(self, game_id: str) -> int:
        row = self._one("select version from games where id = ?", (game_id,))
        if row is None:
            raise GameNotFound(game_id)
        version: int = row["version"]
        return version

    def seats(self, game_id: str) -> list[Seat]:
        return [_seat(r) for r in self._query(_SEAT_SELECT + " where game_id = ? "
                                                "order by seat", (game_id,))]

    def seat_by_token_hash(self, token_hash: str) -> Seat | None:
        row = self._one(_SEAT_SELECT + " where token_hash = ?", (token_hash,))
        return _seat(row) if row else None

    def games_hosted_by(self, token_hash: str) -> list[str]:
        return [r["id"] for r in self._query("select id from games where "
                                               "host_token_hash = ?", (token_hash,))]

    def list_games(self, *, status: str | None = None, ids: list[str] | None = None,
                   limit: int = 50, offset: int = 0, public: bool | None = None
                   ) -> tuple[list[Game], int]:
        where: list[str] = []
        params: list[Any] = []
        if public is not None:
            where.append("public = ?")
            params.append(public)
        if status:
            where.append("status = ?")
            params.append(status)
        if ids is not None:
            if not ids:
                return [], 0
            where.append(f"id in ({', '.join('?' * len(ids))})")
            params.extend(ids)
        clause = (" where " + " and ".join(where)) if where else ""
        total = self.db.execute("select count(*) from games" + clause, params).fetchone()[0]
        rows = self._query(_GAME_SELECT + clause +
                             " order by created_at desc, id limit ? offset ?",
                             [*params, limit, offset])
        return self._with_seats([_game(r) for r in rows]), total

    def rotate_token(self, game_id: str, seat: int, generation: int, token_hash: str
                     ) -> bool:
        with self.transaction() as db:
            cur = db.execute("update seats set token_hash = ?, token_generation = ? "
                             "where game_id = ? and seat = ? and token_generation = ?",
                             (token_hash, generation, game_id, seat, generation - 1))
            return cur.rowcount == 1

    def join(self, game_id: str, seat: int, name: str, email: str | None,
             token_hash: str, language: str | None = None) -> bool:
        with self.transaction() as db:
            cur = db.execute("update seats set name = ?, email = ?, token_hash = ?, "
                             "joined_at = ?, language = ? where game_id = ? and seat = ? "
                             "and token_hash is null and bot is null",
                             (name, email, token_hash, _stamp(), language, game_id, seat))
            return cur.rowcount == 1

    def unseat(self, game_id: str, seat: int) -> bool:
        with self.transaction() as db:
            cur = db.execute(
                "update seats set name = null, email = null, token_hash = null, "
                "joined_at = null, language = null, bot = null, token_generation = "
                "token_generation + 1 where game_id = ? and seat = ? and (token_hash is not "
                "null or bot is not null) and (select status from games where id = ?) = "
                "'open'", (game_id, seat, game_id))
            return cur.rowcount == 1

    def set_language(self, game_id: str, seat: int, language: str | None) -> None:
        with self.transaction() as db:
            cur = db.execute("update seats set language = ? where game_id = ? and seat = ?",
                             (language, game_id, seat))
            if cur.rowcount != 1:
                raise GameNotFound(game_id)

    def seat_bot(self, game_id: str, seat: int, name: str, bot: str) -> bool:
        with self.transaction() as db:
            cur = db.execute("update seats set name = ?, bot = ?, joined_at = ? where "
                             "game_id = ? and seat = ? and token_hash is null and "
                             "bot is null", (name, bot, _stamp(), game_id, seat))
            return cur.rowcount == 1

    # -- events --------------------------------------------------------------------------

    def read(self, game_id: str, since: int = 0, until: int | None = None) -> list[Event]:
        rows = self.db.execute("select first, data from event_batches where game_id = ? "
                               "and version > ? and first <= ? order by version",
                               (game_id, since, 1 << 62 if until is None else until))
        return [e for _, e in codec.flatten(rows, since, until)]

    def read_timed(self, game_id: str, types: Sequence[str]
                   ) -> list[tuple[int, Event, datetime]]:
        rows = self.db.execute("select first, data, at from event_batches where "
                               "game_id = ? order by version", (game_id,))
        return [(v, e, codec.from_ms(at)) for first, data, at in rows
                for v, e in enumerate(codec.decode(data), start=first) if e["type"] in types]

    def append(self, game_id: str, expected_version: int, events: list[Event],
               update: GameUpdate, answer: Answer | None = None, due: Sequence[Due] = (),
               replaces: Sequence[str] = (), done: Claim | None = None) -> int:
        with self.transaction() as db:
            version = self._append(db, game_id, expected_version, events, update)
            stamp = _text(update.at) if update.at else _stamp()
            if replaces:
                db.execute(f"update due set state = 'done', result = 'replaced', "
                           f"done_at = ? where game_id = ? and state = 'pending' and kind "
                           f"in ({', '.join('?' * len(replaces))})",
                           (stamp, game_id, *replaces))
            db.conn.executemany(_DUE_INSERT, _due_values(game_id, due, stamp))
            if done is not None:
                self._finish(db, done, Finish("applied"))
            if answer is not None:
                self._answer(db, game_id, answer, stamp)
        return version

    @staticmethod
    def _answer(db: Database, game_id: str, answer: Answer, stamp: str) -> None:
        """Keep ``answer``, replacing a forgotten one of its key (AnswerExists: one is
        kept still; the transaction is rolled back)."""
        cur = db.execute(
            "insert into idempotency (game_id, seat, key, fingerprint, status, version, "
            "from_version, created_at) values (?, ?, ?, ?, ?, ?, ?, ?) on conflict "
            "(game_id, seat, key) do update set fingerprint = excluded.fingerprint, "
            "status = excluded.status, version = excluded.version, from_version = "
            "excluded.from_version, created_at = excluded.created_at where "
            "idempotency.created_at < ?",
            (game_id, answer.seat, answer.key, answer.fingerprint, answer.status,
             answer.version, answer.from_version, stamp,
             _text(answer.forgotten_before) if answer.forgotten_before else ""))
        if cur.rowcount != 1:
            raise AnswerExists(answer.key)

    def _append(self, db: Database, game_id: str, expected: int,
                events: list[Event], update: GameUpdate) -> int:
        """The game row moved on from version ``expected`` (else VersionConflict or
        GameNotFound) and the batch logged. Every move passes here: plain statements,
        not sqlite-utils' inserts (which cost twice the time a move: 0.33 against 0.67 ms
        median in benchmarks/store.py)."""
        at = update.at or times.now()
        version = expected + len(events)
        moved = db.execute(
            "update games set status = ?, phase = ?, current_seat = ?, deadline = ?, "
            "version = ?, updated_at = ?, clock = ? where id = ? and version = ?",
            (update.status, update.phase, update.current_seat, _text(update.deadline),
             version, _text(at), _to_db("clock", update.clock), game_id, expected))
        if moved.rowcount != 1:
            row = db.execute("select version from games where id = ?", (game_id,)).fetchone()
            if row is None:
                raise GameNotFound(game_id)
            raise VersionConflict(row[0])
        if events:
            db.execute("insert into event_batches (game_id, version, first, at, data) "
                       "values (?, ?, ?, ?, ?)", (game_id, version, expected + 1,
                                                  codec.to_ms(at), codec.encode(events)))
        return version

    def idempotent_answer(self, game_id: str, seat: int, key: str) -> Answer | None:
        row = self.db.execute("select fingerprint, status, version, from_version, "
                              "created_at from idempotency where game_id = ? and seat = ? "
                              "and key = ?", (game_id, seat, key)).fetchone()
        if row is None:
            return None
        return Answer(seat, key, row[0], row[1], row[2], row[3], times.from_text(row[4]))

    # -- the workers' side ---------------------------------------------------------------

    # -- due work --------------------------------------------------------------------------

    def add_due(self, game_id: str, due: Sequence[Due], done: Claim | None = None
                ) -> int:
        with self.transaction() as db:
            before = db.conn.total_changes
            db.conn.executemany(_DUE_INSERT, _due_values(game_id, due, _stamp()))
            added = db.conn.total_changes - before
            if done is not None:
                self._finish(db, done, Finish("planned"))
        return added

    def claim_due(self, limit: int = 100, lease_seconds: float = 300) -> list[DueRow]:
        now = _stamp()
        free = f"where {_CLAIMABLE} order by due_at, id limit ?"
        if self._one("select 1 from due " + free, (now, now, 1)) is None:
            return []  # nothing to take: no write lock
        until = _text(times.later(lease_seconds))
        with self.transaction() as db:
            ids = [r[0] for r in db.execute("select id from due " + free, (now, now, limit))]
            marks = ", ".join("?" * len(ids))
            db.execute(f"update due set state = 'claimed', claimed_until = ?, "
                       f"started_at = null, attempts = attempts + 1 where id in ({marks})",
                       (until, *ids))
            rows = [_due(r) for r in db.query(_DUE_SELECT + f" where id in ({marks}) "
                                              "order by due_at, id", ids)]
        return rows

    def release_due(self, claims: Sequence[Claim]) -> None:
        if not claims:
            return
        with self.transaction() as db:
            db.conn.executemany("update due set state = 'pending', claimed_until = null, "
                                "started_at = null where id = ? and attempts = ? and "
                                "state = 'claimed'", [(c.id, c.attempt) for c in claims])

    def start_due(self, claim: Claim, lease_seconds: float) -> DueRow | None:
        with self.transaction() as db:
            cur = db.execute("update due set claimed_until = ?, started_at = ? where id = ? "
                             "and attempts >= ? and state = 'claimed' and started_at is null",
                             (_text(times.later(lease_seconds)), _stamp(), claim.id,
                              claim.attempt))
            if cur.rowcount != 1:
                return None
            row = self._one(_DUE_SELECT + " where id = ?", (claim.id,))
        return _due(row) if row else None

    def finish_due(self, claim: Claim, finish: Finish) -> bool:
        with self.transaction() as db:
            return self._finish(db, claim, finish)

    def _finish(self, db: Database, claim: Claim, finish: Finish) -> bool:
        state, due_at = ("pending", _text(finish.retry_at)) \
            if finish.retry_at is not None else \
            ("failed" if finish.error is not None else "done", None)
        cur = db.execute(
            "update due set state = ?, due_at = coalesce(?, due_at), claimed_until = null, "
            "result = ?, last_error = coalesce(?, last_error), done_at = ? where id = ? "
            "and attempts = ? and state = 'claimed'",
            (state, due_at, finish.result, finish.error,
             _stamp() if state != "pending" else None, claim.id, claim.attempt))
        if cur.rowcount != 1:
            return False
        if finish.hook_failures is not None:
            (hook_id,) = db.execute("select hook_id from due where id = ?",
                                    (claim.id,)).fetchone()
            self._webhook_attempt(db, hook_id, finish.error, finish.hook_failures)
        return True

    def due_rows(self, game_id: str) -> list[DueRow]:
        return [_due(r) for r in self._query(_DUE_SELECT + " where game_id = ? "
                                               "order by id", (game_id,))]

    def next_due(self) -> datetime | None:
        row = self.db.execute("select min(t) from (select min(due_at) as t from due where "
                              "state = 'pending' union all select min(claimed_until) from "
                              "due where state = 'claimed')").fetchone()
        first: str | None = row[0]
        return _time(first)

    def wait_for_due(self, timeout: float) -> bool:
        return False  # another process's insert cannot wake this one: the caller polls

    def claim_mail_answer(self, address: str, key: str, limit: int, window_seconds: float
                          ) -> bool:
        since = _text(times.later(-window_seconds))
        with self.transaction() as db:  # a write lock from the start: the count holds
            db.execute("delete from mail_answers where allowed_at < ?", (since,))
            if db.execute("select 1 from mail_answers where address = ? and key = ?",
                          (address, key)).fetchone():
                return True
            (count,) = db.execute("select count(*) from mail_answers where address = ?",
                                  (address,)).fetchone()
            if count >= limit:
                return False
            db.execute("insert into mail_answers (address, key, allowed_at) values (?, ?, ?)",
                       (address, key, _stamp()))
            return True

    def record_mail_failure(self, failure: MailFailure, limit: int) -> str | None:
        f = failure
        with self.transaction() as db:
            db.execute("insert into mail_failures (game_id, seat, address, reason, "
                       "permanent, at) values (?, ?, ?, ?, ?, ?)",
                       (f.game_id, f.seat, f.address.lower(), f.reason, int(f.permanent),
                        _text(f.at)))
            if f.permanent:
                db.execute("update seats set mail_failures = mail_failures + 1, "
                           "mail_failing = case when mail_failures + 1 >= ? "
                           "then coalesce(mail_failing, ?) else mail_failing end "
                           "where game_id = ? and seat = ? and lower(email) = ?",
                           (limit, f.reason, f.game_id, f.seat, f.address.lower()))
            row = db.execute("select mail_failing from seats where game_id = ? and "
                             "seat = ?", (f.game_id, f.seat)).fetchone()
        return row[0] if row else None

    def set_mail_address(self, game_id: str, seat: int, email: str | None) -> None:
        with self.transaction() as db:
            cur = db.execute("update seats set email = ?, mail_failures = 0, "
                             "mail_failing = null where game_id = ? and seat = ?",
                             (email, game_id, seat))
            if cur.rowcount != 1:
                raise GameNotFound(game_id)

    def mail_failures(self, game_id: str, limit: int = 50) -> list[MailFailure]:
        rows = self.db.execute("select game_id, seat, address, reason, permanent, at from "
                               "mail_failures where game_id = ? order by id desc limit ?",
                               (game_id, limit)).fetchall()
        return [MailFailure(g, seat, a, r, bool(p), times.from_text(at)) for g, seat, a, r, p, at
                in rows]

    def count_mail_failures(self, since: datetime) -> int:
        n: int
        (n,) = self.db.execute("select count(*) from mail_failures where at >= ?",
                               (_text(since),)).fetchone()
        return n

    def add_webhook(self, game_id: str, seat: int | None, url: str, secret: str,
                    limits: tuple[int, int] | None = None) -> Webhook:
        stamp = times.now()
        with self.transaction() as db:  # a write lock from the start: counts hold
            counts = db.execute("select count(*), coalesce(sum(seat is ?), 0) from webhooks "
                                "where game_id = ?", (seat, game_id)).fetchone()
            check_webhook_limits(counts, seat, limits)
            hook_id = db.table("webhooks").insert(_to_row({
                "game_id": game_id, "seat": seat, "url": url, "secret": secret,
                "created_at": stamp})).last_pk
        assert isinstance(hook_id, int)
        return Webhook(hook_id, game_id, seat, url, secret, stamp)

    def webhooks(self, game_id: str) -> list[Webhook]:
        return [_webhook(r) for r in self._query(_HOOK_SELECT + " where game_id = ? "
                                                   "order by id", (game_id,))]

    def webhook(self, hook_id: int) -> Webhook | None:
        if not -(1 << 63) <= hook_id < 1 << 63:  # beyond SQLite's integers: not there
            return None
        row = self._one(_HOOK_SELECT + " where id = ?", (hook_id,))
        return _webhook(row) if row else None

    def delete_webhook(self, game_id: str, hook_id: int) -> bool:
        if not -(1 << 63) <= hook_id < 1 << 63:
            return False
        with self.transaction() as db:
            cur = db.execute("delete from webhooks where game_id = ? and id = ?",
                             (game_id, hook_id))
            return cur.rowcount == 1

    def webhook_attempt(self, hook_id: int, error: str | None, disable_after: int) -> None:
        with self.transaction() as db:
            self._webhook_attempt(db, hook_id, error, disable_after)

    @staticmethod
    def _webhook_attempt(db: Database, hook_id: int, error: str | None, disable_after: int
                         ) -> None:
        if error is None:
            db.execute("update webhooks set failures = 0 where id = ?", (hook_id,))
        else:
            db.execute("update webhooks set failures = failures + 1, last_error = ?, "
                       "disabled_at = case when disabled_at is null and failures + 1 >= ? "
                       "then ? else disabled_at end where id = ?",
                       (error, disable_after, _stamp(), hook_id))

    # -- players --------------------------------------------------------------------------

    def add_sign_in(self, sign_in: SignIn) -> None:
        with self.transaction() as db:
            db.execute("delete from sign_ins where expires_at < ?",
                       (_text(times.later(-86400)),))
            db.execute("insert into sign_ins (id, email, code_hash, created_at, expires_at, "
                       "language) values (?, ?, ?, ?, ?, ?)",
                       (sign_in.id, sign_in.email, sign_in.code_hash,
                        _text(sign_in.created_at), _text(sign_in.expires_at),
                        sign_in.language))

    def sign_in(self, sign_in_id: str) -> SignIn | None:
        row = self._one("select id, email, code_hash, created_at, expires_at, language, "
                        "used_at from sign_ins where id = ?", (sign_in_id,))
        if row is None:
            return None
        return SignIn(id=row["id"], email=row["email"], code_hash=row["code_hash"],
                      created_at=_time(row["created_at"]),
                      expires_at=_time(row["expires_at"]), language=row["language"],
                      used_at=_time(row["used_at"]))

    def use_sign_in(self, code_hash: str, at: datetime) -> str | None:
        with self.transaction() as db:
            row = db.execute("update sign_ins set used_at = ? where code_hash = ? and "
                             "used_at is null and expires_at > ? returning email",
                             (_text(at), code_hash, _text(at))).fetchone()
        return row[0] if row else None

    def add_session(self, token_hash: str, email: str, at: datetime) -> Player:
        with self.transaction() as db:
            db.execute("insert or ignore into players (email, created_at) values (?, ?)",
                       (email, _text(at)))
            db.execute("insert into player_sessions (token_hash, email, created_at) "
                       "values (?, ?, ?)", (token_hash, email, _text(at)))
        player = self.player(email)
        assert player is not None
        return player

    def session_player(self, token_hash: str) -> Player | None:
        row = self._one("select p.email, p.created_at, p.language, p.notify, p.digest_hour "
                        "from player_sessions s join players p on p.email = s.email "
                        "where s.token_hash = ?", (token_hash,))
        return _player(row) if row else None

    def delete_session(self, token_hash: str) -> bool:
        with self.transaction() as db:
            cur = db.execute("delete from player_sessions where token_hash = ?",
                             (token_hash,))
            return cur.rowcount == 1

    def player(self, email: str) -> Player | None:
        row = self._one("select email, created_at, language, notify, digest_hour from "
                        "players where email = ?", (email,))
        return _player(row) if row else None

    def update_player(self, email: str, changes: dict[str, Any]) -> Player:
        cols = [c for c in ("language", "notify", "digest_hour") if c in changes]
        if cols:
            with self.transaction() as db:
                db.execute(f"update players set {', '.join(f'{c} = ?' for c in cols)} "
                           f"where email = ?", (*(changes[c] for c in cols), email))
        player = self.player(email)
        if player is None:
            raise KeyError(email)
        return player

    def digest_players(self, hour: int | None) -> list[Player]:
        rows = self.db.query("select email, created_at, language, notify, digest_hour from "
                             "players where notify = 'digest' and (? is null or "
                             "digest_hour = ?) order by email", (hour, hour))
        return [_player(r) for r in rows]

    def mark_digest(self, email: str, day: str) -> bool:
        with self.transaction() as db:
            cur = db.execute("update players set digest_day = ? where email = ? and "
                             "(digest_day is null or digest_day <> ?)", (day, email, day))
            return cur.rowcount == 1

    def vacations(self, email: str) -> list[tuple[datetime, datetime]]:
        rows = self.db.execute("select since, until from player_vacations where email = ? "
                               "order by since", (email,))
        return [(times.from_text(a), times.from_text(b)) for a, b in rows]

    def set_vacation(self, email: str, since: datetime | None, until: datetime | None,
                     at: datetime) -> None:
        stamp = _text(at)
        with self.transaction() as db:
            db.execute("delete from player_vacations where email = ? and since >= ?",
                       (email, stamp))
            db.execute("update player_vacations set until = ? where email = ? and "
                       "until > ?", (stamp, email, stamp))
            if since is not None and until is not None:
                db.execute("insert into player_vacations (email, since, until, created_at) "
                           "values (?, ?, ?, ?)", (email, _text(since), _text(until), stamp))

    def ratings(self, variant: str, emails: Sequence[str]) -> dict[str, Rating]:
        marks = ", ".join("?" * len(emails))
        rows = self.db.query(_RATING_SELECT + f" where variant = ? and email in ({marks})",
                             (variant, *emails))
        return {r["email"]: _rating(r) for r in rows}

    def rate(self, game_id: str, before: Sequence[Rating], after: Sequence[Rating]
             ) -> str:
        stamp = _stamp()
        try:
            with self.transaction() as db:
                return self._rate(db, game_id, before, after, stamp)
        except _Conflict:
            return "conflict"

    @staticmethod
    def _rate(db: Database, game_id: str, before: Sequence[Rating], after: Sequence[Rating],
              stamp: str) -> str:
        if db.execute("select 1 from rated_games where game_id = ?", (game_id,)).fetchone():
            return "already"
        for old in before:
            (games,) = db.execute("select coalesce(max(games), 0) from ratings where "
                                  "email = ? and variant = ?",
                                  (old.email, old.variant)).fetchone()
            if games != old.games:
                raise _Conflict()  # rolled back
        db.conn.executemany(
            "insert into ratings (email, variant, name, mu, sigma, games, updated_at) "
            "values (?, ?, ?, ?, ?, ?, ?) on conflict (email, variant) do update set "
            "name = excluded.name, mu = excluded.mu, sigma = excluded.sigma, "
            "games = excluded.games, updated_at = excluded.updated_at",
            [(r.email, r.variant, r.name, r.mu, r.sigma, r.games, stamp) for r in after])
        db.execute("insert into rated_games (game_id, rated_at) values (?, ?)",
                   (game_id, stamp))
        return "rated"

    def leaderboard(self, variant: str, limit: int = 50) -> list[Rating]:
        return [_rating(r) for r in self.db.query(
            _RATING_SELECT + " where variant = ? order by mu - 3 * sigma desc, email "
            "limit ?", (variant, limit))]

    def ratings_of(self, email: str) -> list[Rating]:
        return [_rating(r) for r in self.db.query(
            _RATING_SELECT + " where email = ? order by variant", (email,))]

    def seats_of(self, email: str, finished: bool = False) -> list[tuple[Game, Seat]]:
        cond = "g.status = 'over'" if finished else "g.status <> 'over'"
        games = ", ".join(f"g.{c}" for c in GAME_COLUMNS)
        seats = ", ".join(f"s.{c} as s_{c}" for c in SEAT_COLUMNS)
        rows = self.db.query(f"select {games}, {seats} from seats s join games g on "
                             f"g.id = s.game_id where lower(s.email) = ? and {cond} "
                             f"order by g.created_at, g.id, s.seat", (email.lower(),))
        out = []
        for r in rows:
            seat = {c: r.pop(f"s_{c}") for c in SEAT_COLUMNS}
            out.append((_game(r), _seat(seat)))
        games_ = {g.id: g for g in self._with_seats([g for g, _ in out])}
        return [(games_[g.id], seat) for g, seat in out]

    # -- table talk ------------------------------------------------------------------------

    def add_message(self, message: Message, limit: tuple[int, float] | None = None,
                    notify: Sequence[int] = ()) -> Message:
        game_id, stamp = message.game_id, _text(message.created_at)
        with self.transaction() as db:  # a write lock from the start: counts hold
            if db.execute("select 1 from games where id = ?", (game_id,)).fetchone() is None:
                raise GameNotFound(game_id)
            if limit is not None:
                since = _text(times.later(-limit[1], message.created_at))
                (count,) = db.execute(
                    "select count(*) from messages where game_id = ? and sender is ? and "
                    "created_at > ?", (game_id, message.sender, since)).fetchone()
                if count >= limit[0]:
                    raise TooManyMessages(limit[0])
            (last,) = db.execute("select coalesce(max(id), 0) from messages where "
                                 "game_id = ?", (game_id,)).fetchone()
            kept = replace(message, id=last + 1, deleted_at=None)
            db.execute("insert into messages (game_id, id, sender, recipient, text, version, "
                       "created_at) values (?, ?, ?, ?, ?, ?, ?)",
                       (game_id, kept.id, kept.sender, kept.to, kept.text, kept.version,
                        stamp))
            db.conn.executemany(_DUE_INSERT, _due_values(
                game_id, message_due(kept, notify), stamp))
        return kept

    def messages(self, game_id: str, since: int = 0) -> list[Message]:
        rows = self.db.query(_MESSAGE_SELECT + " where game_id = ? and id > ? order by id",
                             (game_id, min(since, 1 << 62)))
        return [_message(r) for r in rows]

    def message_marks(self, game_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        if not game_ids:
            return {}
        rows = self.db.execute(f"select game_id, max(id), count(deleted_at) from messages "
                               f"where game_id in ({', '.join('?' * len(game_ids))}) "
                               f"group by game_id", list(game_ids))
        return {g: (last, deleted) for g, last, deleted in rows}

    def delete_message(self, game_id: str, message_id: int, at: datetime) -> bool:
        if not -(1 << 63) <= message_id < 1 << 63:
            return False
        with self.transaction() as db:
            cur = db.execute("update messages set text = '', deleted_at = ? where "
                             "game_id = ? and id = ? and deleted_at is null",
                             (_text(at), game_id, message_id))
            return cur.rowcount == 1

    def talk(self, game_id: str) -> list[Talk]:
        rows = self.db.query(_TALK_SELECT + " where game_id = ? order by seat", (game_id,))
        return [_talk(r) for r in rows]

    def set_talk(self, talk: Talk) -> None:
        with self.transaction() as db:
            db.execute("insert into talk (game_id, seat, muted, mail_messages, notes, "
                       "notes_in_mail) values (?, ?, ?, ?, ?, ?) on conflict (game_id, seat) "
                       "do update set muted = excluded.muted, mail_messages = "
                       "excluded.mail_messages, notes = excluded.notes, notes_in_mail = "
                       "excluded.notes_in_mail",
                       (talk.game_id, talk.seat, json.dumps(list(talk.muted)),
                        talk.mail_messages, talk.notes, int(talk.notes_in_mail)))

    def mailed_through(self, game_id: str, seat: int, message_id: int) -> None:
        with self.transaction() as db:
            db.execute("insert into talk (game_id, seat, mailed_through) values (?, ?, ?) "
                       "on conflict (game_id, seat) do update set mailed_through = "
                       "max(mailed_through, excluded.mailed_through)",
                       (game_id, seat, message_id))

    # -- upkeep --------------------------------------------------------------------------

    def count(self, table: str) -> int:
        if table not in TABLES:
            raise ValueError(f"unknown table {table!r}")
        if table == "events":
            events: int = self.db.execute("select coalesce(sum(version - first + 1), 0) "
                                          "from event_batches").fetchone()[0]
            return events
        return self.db[table].count

    def prune(self, answers_before: datetime, due_before: datetime) -> dict[str, int]:
        answers = self._delete_batches(
            "delete from idempotency where (game_id, seat, key) in (select game_id, seat, "
            "key from idempotency where created_at < ? limit 1000)", _text(answers_before))
        due = self._delete_batches(
            "delete from due where id in (select id from due where state = 'done' and "
            "done_at < ? limit 1000)", _text(due_before))
        return {"idempotency": answers, "due": due}

    def _delete_batches(self, statement: str, before: str | None) -> int:
        """Run a delete of at most 1,000 rows until it deletes none (short write locks)."""
        total = 0
        while True:
            with self.transaction() as db:
                n = db.execute(statement, (before,)).rowcount
            total += n
            if n == 0:
                return total

    # -- export and import ---------------------------------------------------------------

    def game_ids(self) -> list[str]:
        return [r["id"] for r in self._query("select id from games order by created_at, id")]

    def dump_game(self, game_id: str) -> GameRows:
        out: GameRows = {}
        for table, columns in COLUMNS.items():
            if table == "events":
                out[table] = [
                    {"game_id": game_id, "version": v, "type": e["type"], "payload": e,
                     "created_at": codec.from_ms(at)}
                    for first, data, at in self.db.execute(
                        "select first, data, at from event_batches where game_id = ? "
                        "order by version", (game_id,))
                    for v, e in enumerate(codec.decode(data), start=first)]
                continue
            key = "id" if table == "games" else "game_id"
            order = {"due": " order by id", "webhooks": " order by id",
                     "seats": " order by seat", "messages": " order by id",
                     "talk": " order by seat"}.get(table, "")
            rows = self._query(f"select {', '.join(columns)} from {table} "
                                 f"where {key} = ?{order}", (game_id,))
            out[table] = [_from_db(r) for r in rows]
        if not out["games"]:
            raise GameNotFound(game_id)
        return out

    def load_game(self, rows: GameRows) -> None:
        with self.transaction() as db:
            for table, columns in COLUMNS.items():
                if table == "events":
                    db.conn.executemany(
                        "insert into event_batches (game_id, version, first, at, data) "
                        "values (?, ?, ?, ?, ?)",
                        [_batch_row(run) for run in codec.batches(rows.get(table, []))])
                    continue
                db.table(table).insert_all(_to_row({c: r.get(c, DEFAULTS.get(c)) for c in columns})
                                     for r in rows.get(table, []))


#: SQLite keeps them as 0 and 1.
BOOL_COLUMNS = {"imported", "replay_public", "public", "spectators_read_chat",
                "notes_in_mail"}


def _from_db(row: dict[str, Any]) -> dict[str, Any]:
    """A row as read (times and JSON as text) in the store's values."""
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


def _to_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row of the store's values (times, JSON, booleans) as SQLite keeps them."""
    return {col: _to_db(col, value) for col, value in row.items()}


def _to_db(col: str, value: Any) -> Any:
    if value is None:
        return None
    if col in JSON_COLUMNS:
        return json.dumps(value, separators=(",", ":") if col == "payload" else None)
    if col in TIME_COLUMNS:
        return times.to_text(value)
    if col in BOOL_COLUMNS:
        return int(value)
    return value
