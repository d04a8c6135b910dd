"""The store, written once for SQLite and PostgreSQL (their differences: dialect.py).

Tables: ``games`` (a row per game: its summary and its clocks), ``seats`` (only the
SHA-256 of a seat's token), ``event_batches`` (the log: a row per appended batch in the
compact form of codec.py, keyed by the version of its last event, so a batch is not
appended twice; the database refuses any change of it), ``idempotency`` (the first answer
to each submission with a key), ``due`` (the workers' due work, written with the batch
that calls for it), and the records of players, table talk, webhooks, mails,
invitations, moderation, notification channels and tournaments (players.py, talk.py,
webhooks.py, mail.py, invitations.py, moderation.py, channels.py, tournaments.py), reached
through ``SqlStore.players``, ``.talk``, ``.hooks``, ``.mail``, ``.invitations``,
``.moderation``, ``.channels`` and ``.tournaments``, or inside one transaction (``transaction``).

Every write is atomic: an append checks the expected version inside its transaction, so
of two writers racing for a version exactly one succeeds, and workers claiming due work
at once get disjoint rows.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import fields, replace
from datetime import datetime
from typing import Any

from .. import times
from ..errors import GameNotFound, VersionConflict
from . import codec, schema
from .access import Access
from .base import (
    COLUMNS,
    Answer,
    AnswerExists,
    Census,
    Claim,
    Due,
    DueRow,
    Event,
    Finish,
    Game,
    GameUpdate,
    Message,
    Seat,
)
from .channels import ChannelRecords
from .dialect import Conn, Dialect, as_time
from .invitations import InvitationRecords
from .mail import MailRecords
from .moderation import ModerationRecords
from .players import PlayerRecords
from .talk import TalkRecords
from .tournaments import TournamentRecords
from .transfer import TransferRecords
from .webhooks import WebhookRecords, attempt

GAME = ", ".join(COLUMNS["games"])
SEAT = ", ".join(COLUMNS["seats"])
DUE = ", ".join(("id", *COLUMNS["due"]))
DUE_INSERT = ("insert into due (game_id, kind, version, from_version, seat, hook_id, "
              "percent, reply, args, due_at, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, "
              "?, ?) on conflict do nothing")
#: A due row any worker may claim now (parameters: now, now).
CLAIMABLE = ("(state = 'pending' and due_at <= ?) or (state = 'claimed' and "
             "claimed_until <= ?)")
_GAME_FIELDS = frozenset(f.name for f in fields(Game))


def due_values(d: Dialect, game_id: str, due: Sequence[Due], at: datetime
               ) -> list[tuple[Any, ...]]:
    """``due`` as DUE_INSERT's parameters, added at ``at`` (``game_id`` "": of no game,
    stored null)."""
    stamp = d.time(at)
    return [(game_id or None, x.kind, x.version, x.from_version, x.seat, x.hook_id, x.percent,
             x.reply, None if x.args is None else d.doc(x.args), d.time(x.due_at), stamp)
            for x in due]


def due_row(row: dict[str, Any]) -> DueRow:
    """A stored due row (of no game: ``game_id`` "")."""
    return DueRow(**{**row, "game_id": row["game_id"] or ""})


def _seat(row: dict[str, Any]) -> Seat:
    return Seat(**{**row, "joined_at": as_time(row["joined_at"]),
                   "claim_on_sign_in": bool(row["claim_on_sign_in"])})


def _game(row: dict[str, Any], seats: Sequence[Seat] = (), hooks: Sequence[int] = ()
          ) -> Game:
    return Game(**{k: v for k, v in row.items() if k in _GAME_FIELDS},
                seats=tuple(seats), hooks=tuple(hooks))


class Tx:
    """One transaction of a store (``SqlStore.transaction``): the records of talk,
    webhooks, mails, invitations and tournaments, and due work, written in it; locks held
    until it commits."""

    def __init__(self, d: Dialect, conn: Conn) -> None:
        self.d, self.conn = d, conn
        access = Access(d, conn)
        self.talk, self.hooks, self.mail = (TalkRecords(access), WebhookRecords(access),
                                            MailRecords(access))
        self.invitations = InvitationRecords(access)
        self.tournaments = TournamentRecords(access)

    def lock_game(self, game_id: str) -> None:
        """No other writer of the game until this transaction ends."""
        self.d.lock_game(self.conn, game_id)

    def add_due(self, game_id: str, due: Sequence[Due], at: datetime) -> int:
        return self.conn.executemany(DUE_INSERT, due_values(self.d, game_id, due, at))


class SqlStore:
    """The EventStore of base.py over a ``Dialect``."""

    def __init__(self, dialect: Dialect, *, check_schema: bool = True,
                 migrate: bool = False) -> None:
        """With ``migrate`` bring the schema up to date at once (the embedded default);
        else with ``check_schema`` refuse a database not at this code's schema."""
        self.d = dialect
        self.a = access = Access(dialect)
        self.players, self.talk = PlayerRecords(access), TalkRecords(access)
        self.hooks, self.mail = WebhookRecords(access), MailRecords(access)
        self.transfer = TransferRecords(access)
        self.invitations = InvitationRecords(access)
        self.moderation = ModerationRecords(access)
        self.channels = ChannelRecords(access)
        self.tournaments = TournamentRecords(access)
        try:
            if migrate:
                self.migrate()
            elif check_schema:
                schema.check(dialect)
        except BaseException:
            self.close()
            raise

    def __repr__(self) -> str:
        return f"SqlStore({self.d.where})"

    # -- upkeep ----------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """One transaction for an application-layer rule that must hold (a limit counted
        before an insert): all or nothing."""
        with self.d.writing() as conn:
            yield Tx(self.d, conn)

    def migrate(self) -> tuple[int, int]:
        """Bring the schema up to date (schema.py); the versions before and after."""
        return schema.migrate(self.d)

    def close(self) -> None:
        self.d.close()

    def prune(self, answers_before: datetime, due_before: datetime) -> dict[str, int]:
        """Remove the idempotent answers kept before ``answers_before`` and the due rows
        done before ``due_before``, a thousand at a time; how many of each went."""
        answers = self._delete_batches(
            "delete from idempotency where (game_id, seat, key) in (select game_id, seat, "
            "key from idempotency where created_at < ? limit 1000)", answers_before)
        due = self._delete_batches(
            "delete from due where id in (select id from due where state = 'done' and "
            "done_at < ? limit 1000)", due_before)
        return {"idempotency": answers, "due": due}

    def _delete_batches(self, statement: str, before: datetime) -> int:
        total = 0
        while True:
            with self.d.writing() as db:  # short locks
                n = db.execute(statement, (self.d.time(before),))
            total += n
            if n == 0:
                return total

    # -- games and seats -----------------------------------------------------------------

    def create_game(self, game: Game, seats: Sequence[Seat]) -> None:
        """Insert a new game (no events yet) and its seats."""
        with self.a.write() as db:
            self._insert_game(db, game, seats)

    def _insert_game(self, db: Conn, game: Game, seats: Sequence[Seat]) -> None:
        columns = COLUMNS["games"]
        db.execute(f"insert into games ({GAME}) values ({', '.join('?' * len(columns))})",
                   [self.d.encode(c, getattr(game, c)) for c in columns])
        columns = COLUMNS["seats"]
        db.executemany(f"insert into seats ({SEAT}) values ({', '.join('?' * len(columns))})",
                       [[self.d.encode(c, getattr(s, c)) for c in columns] for s in seats])

    def create_finished_game(self, game: Game, seats: Sequence[Seat], events: list[Event],
                             messages: Sequence[Message] = ()) -> None:
        """Insert an imported game with its whole log and its table talk (a message
        deleted there stays so), all or nothing."""
        with self.a.write() as db:
            self._insert_game(db, Game(**{**game.__dict__, "version": 0}), seats)
            self._log(db, game.id, 0, events, GameUpdate(game.status, game.phase, None, None,
                                                         clock=game.clock))
            talk = TalkRecords(Access(self.d, db))
            for m in messages:
                kept = talk.add(replace(m, game_id=game.id))
                if m.deleted_at:
                    talk.delete(game.id, kept.id, m.deleted_at)

    def game(self, game_id: str) -> Game:
        """The game's row with its seats and the ids of its enabled webhooks, in one
        statement (each statement of a request lets go of the GIL, which a threaded
        server's other threads take meanwhile); GameNotFound."""
        d = self.d
        seats = d.rows_json(COLUMNS["seats"], "select * from seats s where s.game_id = g.id",
                            "seat")
        hooks = d.rows_json(["id"], "select id from webhooks h where h.game_id = g.id and "
                                    "h.disabled_at is null", "id")
        with self.a.read() as db:
            row = db.one(f"select {GAME}, {seats} as seats_, {hooks} as hooks_ from games g "
                         f"where g.id = ?", (game_id,))
        if row is None:
            raise GameNotFound(game_id)
        return _game(row, [_seat(d.decode(dict(zip(COLUMNS["seats"], s, strict=True))))
                           for s in d.json_rows(row["seats_"])],
                     [h for (h,) in d.json_rows(row["hooks_"])])

    def _with_seats(self, db: Conn, rows: list[dict[str, Any]]) -> list[Game]:
        """Games of ``rows`` with their seats, read in one query."""
        seats: dict[str, list[Seat]] = {r["id"]: [] for r in rows}
        if seats:
            for s in db.query(f"select {SEAT} from seats where game_id in "
                              f"({', '.join('?' * len(seats))}) order by game_id, seat",
                              list(seats)):
                seats[s["game_id"]].append(_seat(s))
        return [_game(r, seats[r["id"]]) for r in rows]

    def list_games(self, *, status: str | None = None, ids: list[str] | None = None,
                   limit: int = 50, offset: int = 0, public: bool | None = None
                   ) -> tuple[list[Game], int]:
        """Games (with their seats), newest first, and how many match. ``ids``: only
        those (``[]``: none); ``public``: only the public (or private) ones."""
        where, params = [], []
        if public is not None:
            where.append("public = ?")
            params.append(self.d.encode("public", public))
        if status:
            where.append("status = ?")
            params.append(status)
        if ids is not None:
            if not ids:
                return [], 0
            where.append(f"id in ({', '.join('?' * len(ids))})")
            params.extend(ids)
        clause = (" where " + " and ".join(where)) if where else ""
        with self.a.read() as db:
            total: int = db.scalar("select count(*) from games" + clause, params)
            rows = db.query(f"select {GAME} from games{clause} order by created_at desc, id "
                            f"limit ? offset ?", [*params, limit, offset])
            return self._with_seats(db, rows), total

    def seats_of(self, email: str, finished: bool = False, claimed: bool = True
                 ) -> list[tuple[Game, Seat]]:
        """Every seat this account (an address in lower case) claimed, or with ``claimed``
        False every seat naming the address that nobody claimed yet, and its game: of
        games not over, or with ``finished`` of games over; by game creation."""
        cond = "g.status = 'over'" if finished else "g.status <> 'over'"
        whose = "s.claimed_by = ?" if claimed else \
            "lower(s.email) = ? and s.claimed_by is null and s.bot is null"
        with self.a.read() as db:
            rows = db.query(f"select {', '.join('g.' + c for c in COLUMNS['games'])}, "
                            f"s.seat as seat_ from seats s join games g on g.id = s.game_id "
                            f"where {whose} and {cond} "
                            f"order by g.created_at, g.id, s.seat", (email.lower(),))
            games = {g.id: g for g in self._with_seats(db, rows)}
        return [(games[r["id"]], games[r["id"]].seats[r["seat_"]]) for r in rows]

    def seat_by_token_hash(self, token_hash: str) -> Seat | None:
        with self.a.read() as db:
            row = db.one(f"select {SEAT} from seats where token_hash = ?", (token_hash,))
        return _seat(row) if row else None

    def games_hosted_by(self, token_hash: str) -> list[str]:
        with self.a.read() as db:
            return [r["id"] for r in db.query("select id from games where host_token_hash = ?",
                                              (token_hash,))]

    def _seat_update(self, sql: str, params: Sequence[Any]) -> bool:
        with self.a.write() as db:
            return db.execute(sql, params) == 1

    def join(self, game_id: str, seat: int, name: str, email: str | None, token_hash: str,
             language: str | None = None, claimed: bool = False) -> bool:
        """Fill an open seat (``claimed``: by the account of ``email``, which holds no
        other seat of the game); False if it was taken meanwhile (or the account holds
        one)."""
        return self._seat_update(
            "update seats set name = ?, email = ?, token_hash = ?, joined_at = ?, "
            "language = ?, claimed_by = ? where game_id = ? and seat = ? and token_hash "
            "is null and bot is null and (cast(? as text) is null or not exists "
            "(select 1 from seats o where o.game_id = ? and o.claimed_by = ?))",
            (name, email, token_hash, self.d.time(times.now()), language,
             email if claimed else None, game_id, seat, email if claimed else None, game_id,
             email))

    def seat_bot(self, game_id: str, seat: int, name: str, bot: str) -> bool:
        """Fill an open seat with a bot of level ``bot``; False if it was taken."""
        return self._seat_update(
            "update seats set name = ?, bot = ?, joined_at = ? where game_id = ? and seat = ? "
            "and token_hash is null and bot is null",
            (name, bot, self.d.time(times.now()), game_id, seat))

    def unseat(self, game_id: str, seat: int) -> bool:
        """Open a taken seat of a game not started again (its token generation one more);
        False if the game started or the seat was open."""
        return self._seat_update(
            "update seats set name = null, email = null, token_hash = null, joined_at = null, "
            "language = null, bot = null, claimed_by = null, "
            "token_generation = token_generation + 1 where game_id = ? and seat = ? and "
            "(token_hash is not null or bot is not null) and "
            "(select status from games where id = ?) = 'open'", (game_id, seat, game_id))

    def rotate_token(self, game_id: str, seat: int, generation: int, token_hash: str
                     ) -> bool:
        """A new token (its hash) of ``generation`` for the seat, if it is at
        ``generation - 1`` still (False: another rotation came first)."""
        return self._seat_update(
            "update seats set token_hash = ?, token_generation = ? where game_id = ? and "
            "seat = ? and token_generation = ?",
            (token_hash, generation, game_id, seat, generation - 1))

    def set_language(self, game_id: str, seat: int, language: str | None) -> None:
        """The seat's language from now on (GameNotFound: no such seat)."""
        if not self._seat_update("update seats set language = ? where game_id = ? and "
                                 "seat = ?", (language, game_id, seat)):
            raise GameNotFound(game_id)

    # -- the log ---------------------------------------------------------------------------

    def read(self, game_id: str, since: int = 0, until: int | None = None) -> list[Event]:
        """The events after version ``since`` up to ``until`` (None: the last), in order."""
        with self.a.read() as db:
            rows = db.cursor("select first, data from event_batches where game_id = ? and "
                             "version > ? and first <= ? order by version",
                             (game_id, since, 1 << 62 if until is None else until)).fetchall()
        return [e for _, e in codec.flatten(rows, since, until)]

    def read_timed(self, game_id: str, types: Sequence[str]
                   ) -> list[tuple[int, Event, datetime]]:
        """The game's events of ``types``, each as (version, event, its batch's time)."""
        with self.a.read() as db:
            rows = db.cursor("select first, data, at from event_batches where game_id = ? "
                             "order by version", (game_id,)).fetchall()
        return [(v, e, self.d.batch_time(at)) for first, data, at in rows
                for v, e in enumerate(codec.decode(data), start=first) if e["type"] in types]

    def append(self, game_id: str, expected_version: int, events: list[Event],
               update: GameUpdate, answer: Answer | None = None, due: Sequence[Due] = (),
               replaces: Sequence[str] = (), done: Claim | None = None) -> int:
        """Append ``events`` after ``expected_version`` with the row's new fields, the
        batch's ``due`` work (the game's pending rows of the kinds it ``replaces`` done:
        "replaced"), the idempotent ``answer`` and ``done`` (the due row this append is
        the result of); all or nothing, at ``update.at`` (None: now). The new version;
        VersionConflict if the game is at another, AnswerExists if the answer's key has
        one kept from ``forgotten_before`` on (an older one is replaced)."""
        at = update.at or times.now()
        version = self.d.append(game_id, expected_version, events, update, answer, due,
                                replaces, done, at)
        if version is not None:  # PostgreSQL's: one statement, one round trip
            return version
        with self.a.write() as db:
            version = self._log(db, game_id, expected_version, events, update)
            if replaces:
                db.execute(f"update due set state = 'done', result = 'replaced', done_at = ? "
                           f"where game_id = ? and state = 'pending' and kind in "
                           f"({', '.join('?' * len(replaces))})",
                           (self.d.time(at), game_id, *replaces))
            db.executemany(DUE_INSERT, due_values(self.d, game_id, due, at))
            if done is not None:
                self._finish(db, done, Finish("applied"))
            if answer is not None:
                if not db.execute(
                        "insert into idempotency (game_id, seat, key, fingerprint, status, "
                        "version, from_version, created_at) values (?, ?, ?, ?, ?, ?, ?, ?) "
                        "on conflict (game_id, seat, key) do update set fingerprint = "
                        "excluded.fingerprint, status = excluded.status, version = "
                        "excluded.version, from_version = excluded.from_version, created_at "
                        "= excluded.created_at where idempotency.created_at < ?",
                        (game_id, answer.seat, answer.key, answer.fingerprint, answer.status,
                         answer.version, answer.from_version, self.d.time(at),
                         self.d.time(answer.forgotten_before or codec.EPOCH))):
                    raise AnswerExists(answer.key)  # rolled back
        return version

    def _log(self, db: Conn, game_id: str, expected: int, events: list[Event],
             update: GameUpdate) -> int:
        """The game row moved on from ``expected`` (else VersionConflict or GameNotFound)
        and the batch logged."""
        at = update.at or times.now()
        version = expected + len(events)
        if db.execute("update games set status = ?, phase = ?, current_seat = ?, "
                      "deadline = ?, version = ?, updated_at = ?, clock = ? where id = ? "
                      "and version = ?",
                      (update.status, update.phase, update.current_seat,
                       self.d.time(update.deadline), version, self.d.time(at),
                       self.d.encode("clock", update.clock), game_id, expected)) != 1:
            current = db.scalar("select version from games where id = ?", (game_id,))
            if current is None:
                raise GameNotFound(game_id)
            raise VersionConflict(current)
        if events:
            db.execute("insert into event_batches (game_id, version, first, at, data) values "
                       "(?, ?, ?, ?, ?)", (game_id, version, expected + 1, self.d.batch_at(at),
                                           codec.encode(events)))
        return version

    def idempotent_answer(self, game_id: str, seat: int, key: str) -> Answer | None:
        """The first answer kept of ``seat``'s submission with this key."""
        with self.a.read() as db:
            row = db.one("select seat, key, fingerprint, status, version, from_version, "
                         "created_at from idempotency where game_id = ? and seat = ? and "
                         "key = ?", (game_id, seat, key))
        return Answer(**row) if row else None

    # -- due work --------------------------------------------------------------------------

    def add_due(self, game_id: str, due: Sequence[Due], done: Claim | None = None) -> int:
        """Add due rows of the game ``game_id`` ("": of none) (one there already, done or
        not, is kept) and mark ``done`` done, in one transaction; how many were added."""
        with self.a.write() as db:
            added = db.executemany(DUE_INSERT, due_values(self.d, game_id, due, times.now()))
            if done is not None:
                self._finish(db, done, Finish("planned"))
        return added

    def claim_due(self, limit: int = 100, lease_seconds: float = 300) -> list[DueRow]:
        """Claim up to ``limit`` rows due now (pending and due, or claimed by a worker
        whose lease ran out), earliest first, for ``lease_seconds``; each claim counts an
        attempt. Workers claiming at once get disjoint rows."""
        now = self.d.time(times.now())
        rows = self.d.claim(CLAIMABLE, (now, now), limit,
                            "state = 'claimed', claimed_until = ?, started_at = null, "
                            "attempts = attempts + 1",
                            (self.d.time(times.later(lease_seconds)),), DUE)
        return [due_row(r) for r in rows]

    def release_due(self, claims: Sequence[Claim]) -> None:
        """Give claimed rows back, pending at once."""
        with self.a.write() as db:
            db.executemany("update due set state = 'pending', claimed_until = null, "
                           "started_at = null where id = ? and attempts = ? and "
                           "state = 'claimed'", [(c.id, c.attempt) for c in claims])

    def start_due(self, claim: Claim, lease_seconds: float) -> DueRow | None:
        """The claimed row for the job of ``claim`` that starts now, its lease renewed;
        None if a job of this claim or a later one started already, or it is no longer
        claimed (of the jobs of a row claimed again, the first to start runs it)."""
        with self.a.write() as db:
            row = db.one(f"update due set claimed_until = ?, started_at = ? where id = ? and "
                         f"attempts >= ? and state = 'claimed' and started_at is null "
                         f"returning {DUE}",
                         (self.d.time(times.later(lease_seconds)), self.d.time(times.now()),
                          claim.id, claim.attempt))
        return due_row(row) if row else None

    def finish_due(self, claim: Claim, finish: Finish) -> bool:
        """End this attempt at the row (see ``Finish``); False if it was claimed again
        since (nothing written)."""
        with self.a.write() as db:
            return self._finish(db, claim, finish)

    def _finish(self, db: Conn, claim: Claim, finish: Finish) -> bool:
        state = "pending" if finish.retry_at is not None else \
            "failed" if finish.error is not None else "done"
        row = db.one("update due set state = ?, due_at = coalesce(?, due_at), claimed_until = "
                     "null, result = ?, last_error = coalesce(?, last_error), done_at = ? "
                     "where id = ? and attempts = ? and state = 'claimed' returning hook_id",
                     (state, self.d.time(finish.retry_at), finish.result, finish.error,
                      None if state == "pending" else self.d.time(times.now()), claim.id,
                      claim.attempt))
        if row is None:
            return False
        if finish.hook_failures is not None:
            attempt(self.d, db, row["hook_id"], finish.error, finish.hook_failures)
        return True

    def due_rows(self, game_id: str) -> list[DueRow]:
        """The game's due rows, by id ("": the rows of no game)."""
        with self.a.read() as db:
            if not game_id:
                return [due_row(r) for r in db.query(f"select {DUE} from due where game_id "
                                                     f"is null order by id")]
            return [due_row(r) for r in db.query(f"select {DUE} from due where game_id = ? "
                                                 f"order by id", (game_id,))]

    def census(self) -> Census:
        """Games by status, and the due work due now and not claimed by kind (the
        metrics' scrape)."""
        now = self.d.time(times.now())
        with self.a.read() as db:
            games = {r["status"]: r["n"] for r in db.query(
                "select status, count(*) as n from games group by status")}
            due = {r["kind"]: (r["n"], as_time(r["first"])) for r in db.query(
                "select kind, count(*) as n, min(due_at) as first from due where state = "
                "'pending' and due_at <= ? group by kind", (now,))}
        return Census(games, due)

    def next_due(self) -> datetime | None:
        """When the earliest row not done becomes claimable (None: there is none)."""
        with self.a.read() as db:
            first = db.scalar("select min(t) from (select min(due_at) as t from due where "
                              "state = 'pending' union all select min(claimed_until) from "
                              "due where state = 'claimed') x")
        return as_time(first)

    def wait_for_due(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for due work any process adds: True when told of some
        (PostgreSQL's NOTIFY); False at once where the store cannot tell (SQLite)."""
        return self.d.wait_for_due(timeout)
