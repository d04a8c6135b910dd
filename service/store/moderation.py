"""The moderation records (service/moderation.py is its rules): the accounts each player
blocked, the reports players filed and the operator closed, the messages an operator
hid, suspended accounts, banned addresses, and the log of every operator's action.

Accounts are named by their address here, as everywhere in the store; the application
layer speaks of handles to players and to operators."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .access import Access
from .dialect import as_time
from .talk import INT32


@dataclass(frozen=True)
class Block:
    """An account the player blocked: its handle (None: it has none now) and when."""

    handle: str | None
    created_at: datetime


@dataclass(frozen=True)
class Report:
    """A player's report for the operator's queue: of a message (``game_id``,
    ``message_id``) or of an account (``target``, its ``target_handle`` as given), or
    both. Read back with the reporter's handle and the message's text and writer."""

    id: int
    reporter: str
    game_id: str | None
    message_id: int | None
    target: str | None
    target_handle: str | None
    reason: str
    created_at: datetime
    closed_at: datetime | None = None
    closed_by: str | None = None
    reporter_handle: str | None = None
    message_text: str | None = None  # as written, even if deleted or hidden since
    message_sender: str | None = None  # the name of the seat that wrote it


@dataclass(frozen=True)
class LogEntry:
    """One action of an operator: who, what, on whom or what, when, and any detail."""

    id: int
    at: datetime
    actor: str
    action: str
    target: str
    detail: str | None


REPORT = ("r.id, r.reporter, r.game_id, r.message_id, r.target, r.target_handle, r.reason, "
          "r.created_at, r.closed_at, r.closed_by, p.handle as reporter_handle, "
          "m.text as message_text, s.name as message_sender")
REPORT_FROM = ("reports r left join players p on p.email = r.reporter "
               "left join messages m on m.game_id = r.game_id and m.id = r.message_id "
               "left join seats s on s.game_id = m.game_id and s.seat = m.sender")


def _report(row: dict[str, Any]) -> Report:
    return Report(**{**row, "created_at": as_time(row["created_at"]),
                     "closed_at": as_time(row["closed_at"])})


class ModerationRecords:
    def __init__(self, access: Access) -> None:
        self.a, self.d = access, access.d

    # -- blocks --------------------------------------------------------------------------

    def block(self, blocker: str, blocked: str, at: datetime) -> bool:
        """``blocker`` blocks ``blocked``; False if it did already (nothing changed)."""
        with self.a.write() as db:
            return db.execute("insert into blocks (blocker, blocked, created_at) values "
                              "(?, ?, ?) on conflict do nothing",
                              (blocker, blocked, self.d.time(at))) == 1

    def unblock(self, blocker: str, blocked: str) -> bool:
        """False if ``blocker`` did not block ``blocked``."""
        with self.a.write() as db:
            return db.execute("delete from blocks where blocker = ? and blocked = ?",
                              (blocker, blocked)) == 1

    def blocks(self, blocker: str, limit: int, offset: int) -> list[Block]:
        """The accounts ``blocker`` blocked, the latest first: ``limit`` from ``offset``."""
        with self.a.read() as db:
            rows = db.query("select p.handle, b.created_at from blocks b left join players p "
                            "on p.email = b.blocked where b.blocker = ? order by "
                            "b.created_at desc, b.blocked limit ? offset ?",
                            (blocker, limit, offset))
        return [Block(r["handle"], as_time(r["created_at"]))  # type: ignore[arg-type]
                for r in rows]

    def blocked_among(self, email: str, others: Iterable[str]) -> set[str]:
        """Those of ``others`` that ``email`` blocked or that blocked it."""
        found = sorted(set(others) - {email})
        if not found:
            return set()
        marks = ", ".join("?" * len(found))
        with self.a.read() as db:
            rows = db.query(f"select blocked as other from blocks where blocker = ? and "
                            f"blocked in ({marks}) union select blocker from blocks where "
                            f"blocked = ? and blocker in ({marks})",
                            (email, *found, email, *found))
        return {r["other"] for r in rows}

    def blocked_by(self, email: str, others: Iterable[str]) -> set[str]:
        """Those of ``others`` that ``email`` blocked (whose messages it does not get)."""
        found = sorted(set(others) - {email})
        if not found:
            return set()
        with self.a.read() as db:
            rows = db.query(f"select blocked from blocks where blocker = ? and blocked in "
                            f"({', '.join('?' * len(found))})", (email, *found))
        return {r["blocked"] for r in rows}

    # -- reports -------------------------------------------------------------------------

    def add_report(self, report: Report, most: int, since: datetime) -> int | None:
        """Keep ``report`` (its ``id`` ignored) unless its reporter filed ``most`` since
        ``since`` already (None: nothing kept); its id."""
        r, t = report, self.d.time
        with self.a.write() as db:
            self.d.lock_name(db, f"reports {r.reporter}")
            if db.scalar("select count(*) from reports where reporter = ? and "
                         "created_at > ?", (r.reporter, t(since))) >= most:
                return None
            found: int = db.scalar(
                "insert into reports (reporter, game_id, message_id, target, target_handle, "
                "reason, created_at) values (?, ?, ?, ?, ?, ?, ?) returning id",
                (r.reporter, r.game_id, r.message_id, r.target, r.target_handle, r.reason,
                 t(r.created_at)))
        return found

    def reports(self, closed: bool = False) -> list[Report]:
        """The open reports (with ``closed``: every one), oldest first."""
        with self.a.read() as db:
            rows = db.query(f"select {REPORT} from {REPORT_FROM} where "
                            f"(? or r.closed_at is null) order by r.id",
                            (self.d.encode("closed", closed),))
        return [_report(r) for r in rows]

    def report(self, report_id: int) -> Report | None:
        if report_id not in INT32:
            return None
        with self.a.read() as db:
            row = db.one(f"select {REPORT} from {REPORT_FROM} where r.id = ?", (report_id,))
        return _report(row) if row else None

    def close_report(self, report_id: int, by: str, at: datetime) -> bool:
        """False if no open report has this id."""
        if report_id not in INT32:
            return False
        with self.a.write() as db:
            return db.execute("update reports set closed_at = ?, closed_by = ? where id = ? "
                              "and closed_at is null", (self.d.time(at), by, report_id)) == 1

    # -- messages, accounts, addresses -----------------------------------------------------

    def hide_message(self, game_id: str, message_id: int, by: str, at: datetime) -> bool:
        """The message is served as deleted from now on, its text kept (False: no such
        message, or hidden already)."""
        if message_id not in INT32:
            return False
        with self.a.write() as db:
            return db.execute("update messages set hidden_at = ?, hidden_by = ? where "
                              "game_id = ? and id = ? and hidden_at is null",
                              (self.d.time(at), by, game_id, message_id)) == 1

    def suspend(self, email: str, reason: str | None, at: datetime) -> bool:
        """False if the account is suspended already (or there is none)."""
        with self.a.write() as db:
            return db.execute("update players set suspended_at = ?, suspended_reason = ? "
                              "where email = ? and suspended_at is null",
                              (self.d.time(at), reason, email)) == 1

    def unsuspend(self, email: str) -> bool:
        """False if the account is not suspended."""
        with self.a.write() as db:
            return db.execute("update players set suspended_at = null, suspended_reason = "
                              "null where email = ? and suspended_at is not null",
                              (email,)) == 1

    def ban(self, address: str, reason: str | None, by: str, at: datetime) -> bool:
        """False if the address is banned already."""
        with self.a.write() as db:
            return db.execute("insert into banned_addresses (address, reason, banned_at, "
                              "banned_by) values (?, ?, ?, ?) on conflict do nothing",
                              (address, reason, self.d.time(at), by)) == 1

    def unban(self, address: str) -> bool:
        with self.a.write() as db:
            return db.execute("delete from banned_addresses where address = ?",
                              (address,)) == 1

    def banned(self, address: str) -> bool:
        with self.a.read() as db:
            return bool(db.scalar("select 1 from banned_addresses where address = ?",
                                  (address,)))

    # -- the log -------------------------------------------------------------------------

    def log(self, actor: str, action: str, target: str, detail: str | None,
            at: datetime) -> None:
        with self.a.write() as db:
            db.execute("insert into moderation_log (at, actor, action, target, detail) values "
                       "(?, ?, ?, ?, ?)", (self.d.time(at), actor, action, target, detail))

    def entries(self, limit: int) -> list[LogEntry]:
        """The last ``limit`` actions, oldest first."""
        with self.a.read() as db:
            rows = db.query("select id, at, actor, action, target, detail from "
                            "moderation_log order by id desc limit ?", (limit,))
        return [LogEntry(**{**r, "at": as_time(r["at"])}) for r in reversed(rows)]
