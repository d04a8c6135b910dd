"""The tournaments' records (service/tournaments.py is their rules): a tournament, its
numbered entries, its rounds and each round's tables with their games and outcomes.

A round is opened once: ``open_round`` moves the tournament from round ``n`` to ``n + 1``
compare-and-set, writing the round and its tables in the same transaction, so of two
runners at once (two games of a round ending together) one pairs the next round."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .access import Access
from .dialect import as_time

TOURNAMENT = ("id, organiser, name, variant, settings, format, table_size, least_size, "
              "rounds, seed, status, round, season, created_at, started_at, finished_at")
ENTRY = "tournament_id, entry, email, joined_at, withdrawn_at, inactive"
ROUND = "tournament_id, round, season, seating, started_at, finished_at"
TABLE = "tournament_id, round, tab, division, seating, game_id, outcome"


@dataclass(frozen=True)
class Tournament:
    """A tournament: ``settings`` holds the games' settings and the points and entry
    rules; ``status`` ``open`` (taking entries), ``running`` or ``finished``; ``round``
    the latest round opened (0: none), ``season`` a league's season (0: none yet)."""

    id: str
    organiser: str
    name: str
    variant: str
    settings: dict[str, Any]
    format: str
    table_size: int
    least_size: int
    rounds: int
    seed: int
    status: str
    round: int
    season: int
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None


@dataclass(frozen=True)
class Entry:
    """An account's entry, numbered in the order of entering (tables name entries by
    number); withdrawn or inactive entries are not seated again."""

    tournament_id: str
    entry: int
    email: str
    joined_at: datetime
    withdrawn_at: datetime | None = None
    inactive: bool = False


@dataclass(frozen=True)
class Table:
    """A round's table: its entries in seat order, its game, and once the game is over
    its ``outcome`` (``scores`` in seat order, ``left``: the entries a bot replaced)."""

    tournament_id: str
    round: int
    tab: int
    division: int
    seating: list[int]
    game_id: str | None = None
    outcome: dict[str, Any] | None = None


@dataclass(frozen=True)
class Round:
    """A round: its season, its ``seating`` (``byes``: entries not seated, scoring a
    bye; ``skipped``: inactive entries left out), its tables."""

    tournament_id: str
    round: int
    season: int
    seating: dict[str, Any]
    started_at: datetime
    finished_at: datetime | None = None
    tables: tuple[Table, ...] = field(default=())


class TournamentRecords:
    def __init__(self, access: Access) -> None:
        self.a, self.d = access, access.d

    def add(self, t: Tournament) -> None:
        """Keep a new tournament."""
        d = self.d
        with self.a.write() as db:
            db.execute(f"insert into tournaments ({TOURNAMENT}) values "
                       "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (t.id, t.organiser, t.name, t.variant, d.doc(t.settings), t.format,
                        t.table_size, t.least_size, t.rounds, t.seed, t.status, t.round,
                        t.season, d.time(t.created_at), d.time(t.started_at),
                        d.time(t.finished_at)))

    def get(self, tournament_id: str) -> Tournament | None:
        with self.a.read() as db:
            row = db.one(f"select {TOURNAMENT} from tournaments where id = ?",
                         (tournament_id,))
        return Tournament(**row) if row else None

    def listed(self, status: str | None, limit: int, offset: int
               ) -> tuple[list[Tournament], int]:
        """Tournaments (of ``status`` only), the newest first, and how many in all."""
        where, params = ("where status = ?", [status]) if status else ("", [])
        with self.a.read() as db:
            rows = db.query(f"select {TOURNAMENT} from tournaments {where} order by "
                            "created_at desc, id limit ? offset ?", [*params, limit, offset])
            total = db.one(f"select count(*) as n from tournaments {where}", params)
        return [Tournament(**r) for r in rows], int(total["n"] if total else 0)

    def of_account(self, email: str) -> list[str]:
        """The tournaments ``email`` entered or organises, the newest first."""
        with self.a.read() as db:
            return [r["id"] for r in db.query(
                "select id from tournaments where organiser = ? or id in (select "
                "tournament_id from tournament_entries where email = ?) order by "
                "created_at desc, id", (email, email))]

    def set_status(self, tournament_id: str, status: str, before: str, at: datetime
                   ) -> bool:
        """Move the tournament from ``before`` to ``status`` (started or finished at
        ``at``); False if it was not at ``before``."""
        column = "started_at" if status == "running" else "finished_at"
        with self.a.write() as db:
            return db.execute(f"update tournaments set status = ?, {column} = ? where "
                              "id = ? and status = ?",
                              (status, self.d.time(at), tournament_id, before)) == 1

    # -- entries ---------------------------------------------------------------------------

    def enter(self, tournament_id: str, email: str, at: datetime, cap: int | None
              ) -> bool:
        """Enter ``email`` (a new number, or its old entry active again); False if
        the tournament holds ``cap`` active entries already."""
        with self.a.write() as db:
            rows = db.query(f"select {ENTRY} from tournament_entries where "
                            "tournament_id = ?", (tournament_id,))
            active = [r for r in rows if r["withdrawn_at"] is None and not r["inactive"]]
            mine = [r for r in rows if r["email"] == email]
            if mine:
                if mine[0] not in active:
                    db.execute("update tournament_entries set withdrawn_at = null, "
                               "inactive = ? where tournament_id = ? and email = ?",
                               (self.d.encode("inactive", False), tournament_id, email))
                return True
            if cap is not None and len(active) >= cap:
                return False
            db.execute(f"insert into tournament_entries ({ENTRY}) values (?, ?, ?, ?, ?, ?)",
                       (tournament_id, len(rows) + 1, email, self.d.time(at), None,
                        self.d.encode("inactive", False)))
            return True

    def entries(self, tournament_id: str) -> list[Entry]:
        with self.a.read() as db:
            rows = db.query(f"select {ENTRY} from tournament_entries where tournament_id = ? "
                            "order by entry", (tournament_id,))
        return [Entry(**{**r, "inactive": bool(r["inactive"])}) for r in rows]

    def withdraw(self, tournament_id: str, email: str, at: datetime) -> bool:
        """The entry withdrawn at ``at``; False if there is none, or withdrawn already."""
        with self.a.write() as db:
            return db.execute("update tournament_entries set withdrawn_at = ? where "
                              "tournament_id = ? and email = ? and withdrawn_at is null",
                              (self.d.time(at), tournament_id, email)) == 1

    def set_inactive(self, tournament_id: str, entries: Sequence[int]) -> None:
        """Those entries are inactive: not seated again unless they enter again."""
        with self.a.write() as db:
            db.executemany("update tournament_entries set inactive = ? where "
                           "tournament_id = ? and entry = ?",
                           [(self.d.encode("inactive", True), tournament_id, e)
                            for e in entries])

    # -- rounds and tables -------------------------------------------------------------

    def open_round(self, tournament_id: str, before: int, season: int,
                   seating: dict[str, Any], tables: Sequence[Table], at: datetime) -> bool:
        """Open round ``before + 1`` (of ``season``) with its tables, once: False if the
        tournament is not at round ``before`` any more (another runner opened it)."""
        d = self.d
        with self.a.write() as db:
            if db.execute("update tournaments set round = ?, season = ? where id = ? and "
                          "round = ? and status = 'running'",
                          (before + 1, season, tournament_id, before)) != 1:
                return False
            db.execute(f"insert into tournament_rounds ({ROUND}) values (?, ?, ?, ?, ?, ?)",
                       (tournament_id, before + 1, season, d.doc(seating), d.time(at), None))
            db.executemany(f"insert into tournament_tables ({TABLE}) values "
                           "(?, ?, ?, ?, ?, ?, ?)",
                           [(tournament_id, before + 1, t.tab, t.division, d.doc(t.seating),
                             None, None) for t in tables])
            return True

    def set_game(self, tournament_id: str, round_: int, tab: int, game_id: str) -> bool:
        """The game made for a table; False if the table had one already."""
        with self.a.write() as db:
            return db.execute("update tournament_tables set game_id = ? where "
                              "tournament_id = ? and round = ? and tab = ? and game_id is "
                              "null", (game_id, tournament_id, round_, tab)) == 1

    def set_outcome(self, game_id: str, outcome: dict[str, Any]) -> bool:
        """A table's game is over: its outcome, once (False: recorded already)."""
        with self.a.write() as db:
            return db.execute("update tournament_tables set outcome = ? where game_id = ? "
                              "and outcome is null", (self.d.doc(outcome), game_id)) == 1

    def finish_round(self, tournament_id: str, round_: int, at: datetime) -> bool:
        """The round over (its last table's game over), once."""
        with self.a.write() as db:
            return db.execute("update tournament_rounds set finished_at = ? where "
                              "tournament_id = ? and round = ? and finished_at is null",
                              (self.d.time(at), tournament_id, round_)) == 1

    def table_of_game(self, game_id: str) -> Table | None:
        with self.a.read() as db:
            row = db.one(f"select {TABLE} from tournament_tables where game_id = ?",
                         (game_id,))
        return Table(**row) if row else None

    def rounds_of(self, tournament_id: str) -> list[Round]:
        """Every round with its tables, in order."""
        with self.a.read() as db:
            rounds = db.query(f"select {ROUND} from tournament_rounds where tournament_id = ? "
                              "order by round", (tournament_id,))
            tables = db.query(f"select {TABLE} from tournament_tables where tournament_id = ? "
                              "order by round, tab", (tournament_id,))
        return [Round(**r, tables=tuple(Table(**t) for t in tables
                                        if t["round"] == r["round"])) for r in rounds]


    # -- what an account's stream tells (service/account_feed.py) ------------------------

    def account_changes(self, email: str, since: datetime
                        ) -> tuple[list[tuple[Table, datetime]], list[tuple[str, datetime]]]:
        """The tables of the seats ``email`` claimed whose games were made at ``since``
        or later (with that time), and the tournaments it entered that finished at
        ``since`` or later (id, time)."""
        at = self.d.time(since)
        with self.a.read() as db:
            tables = db.query(
                "select t.tournament_id, t.round, t.tab, t.division, t.seating, t.game_id, "
                "t.outcome, g.created_at as made_at from seats s join games g on g.id = "
                "s.game_id join tournament_tables t on t.game_id = g.id where s.claimed_by = ? "
                "and g.created_at >= ?", (email, at))
            finished = db.query(
                "select id, finished_at from tournaments where finished_at >= ? and id in "
                "(select tournament_id from tournament_entries where email = ?)", (at, email))
        return ([(Table(**{k: v for k, v in r.items() if k != "made_at"}),
                  as_time(r["made_at"])) for r in tables],  # type: ignore[misc]
                [(r["id"], r["finished_at"]) for r in finished])
