"""The mails' records: the mails that failed and the seat addresses that fail
(workers/mail_bounces.py), the answers each address was allowed lately (its cap is
workers/mail_in.py's rule), and the replies refused one after another for want of the
MTA's authentication results (``/health``: service/health.py)."""

from __future__ import annotations

from datetime import datetime

from ..errors import GameNotFound
from .access import Access
from .base import MailFailure
from .dialect import as_time


class MailRecords:
    def __init__(self, access: Access) -> None:
        self.a, self.d = access, access.d

    # -- failures ------------------------------------------------------------------------

    def record_failure(self, failure: MailFailure, limit: int) -> str | None:
        """Keep ``failure``; a permanent one to the seat's current address counts one
        more hard failure, and at the ``limit``-th the address is marked failing with its
        reason. The seat's failing reason after it (None: not failing)."""
        f = failure
        with self.a.write() as db:
            db.execute("insert into mail_failures (game_id, seat, address, reason, "
                       "permanent, at) values (?, ?, ?, ?, ?, ?)",
                       (f.game_id, f.seat, f.address.lower(), f.reason,
                        self.d.encode("permanent", f.permanent), self.d.time(f.at)))
            if f.permanent:
                db.execute("update seats set mail_failures = mail_failures + 1, "
                           "mail_failing = case when mail_failures + 1 >= ? "
                           "then coalesce(mail_failing, ?) else mail_failing end "
                           "where game_id = ? and seat = ? and lower(email) = ?",
                           (limit, f.reason, f.game_id, f.seat, f.address.lower()))
            failing: str | None = db.scalar("select mail_failing from seats where "
                                            "game_id = ? and seat = ?", (f.game_id, f.seat))
        return failing

    def set_address(self, game_id: str, seat: int, email: str | None) -> None:
        """The seat's address from now on (or the same, confirmed): its hard failures
        forgotten, the failing mark cleared. GameNotFound: no such seat."""
        with self.a.write() as db:
            if db.execute("update seats set email = ?, mail_failures = 0, mail_failing = "
                          "null where game_id = ? and seat = ?", (email, game_id, seat)) != 1:
                raise GameNotFound(game_id)

    def keep_subject(self, game_id: str, seat: int, subject: str) -> None:
        """The seat's thread goes on under ``subject`` (its first mail's), whatever
        language its later mails come in."""
        with self.a.write() as db:
            db.execute("update seats set thread_subject = ? where game_id = ? and seat = ? "
                       "and thread_subject is null", (subject, game_id, seat))

    def failures(self, game_id: str, limit: int = 50) -> list[MailFailure]:
        """The game's failed mails, newest first."""
        with self.a.read() as db:
            rows = db.query("select game_id, seat, address, reason, permanent, at from "
                            "mail_failures where game_id = ? order by id desc limit ?",
                            (game_id, limit))
        return [MailFailure(**{**r, "at": as_time(r["at"])}) for r in rows]

    def count_failures(self, since: datetime) -> int:
        """Failed mails, of every game, since ``since``."""
        with self.a.read() as db:
            count: int = db.scalar("select count(*) from mail_failures where at >= ?",
                                   (self.d.time(since),))
        return count

    # -- answers to replies --------------------------------------------------------------

    def answers(self, address: str, key: str, since: datetime) -> tuple[bool, int]:
        """Was the reply ``key`` from ``address`` allowed an answer, and how many answers
        the address was allowed since ``since`` (those before are forgotten)."""
        with self.a.write() as db:
            self.d.lock_name(db, f"mail_answers {address}")
            db.execute("delete from mail_answers where allowed_at < ?", (self.d.time(since),))
            allowed = bool(db.scalar("select 1 from mail_answers where address = ? and "
                                     "key = ?", (address, key)))
            count: int = db.scalar("select count(*) from mail_answers where address = ?",
                                   (address,))
        return allowed, count

    def allow_answer(self, address: str, key: str, at: datetime) -> None:
        with self.a.write() as db:
            db.execute("insert into mail_answers (address, key, allowed_at) values (?, ?, ?) "
                       "on conflict do nothing", (address, key, self.d.time(at)))

    # -- replies refused for want of the MTA's Authentication-Results ------------------

    def unauthenticated(self, reason: str, at: datetime) -> None:
        """One more reply refused because no Authentication-Results header of the MTA
        came with it (``reason`` says so)."""
        with self.a.write() as db:
            db.execute("insert into mail_in_unauthenticated (id, in_a_row, last_at, reason) "
                       "values (1, 1, ?, ?) on conflict (id) do update set in_a_row = "
                       "mail_in_unauthenticated.in_a_row + 1, last_at = excluded.last_at, "
                       "reason = excluded.reason", (self.d.time(at), reason))

    def authenticated(self) -> None:
        """A reply was authenticated: the refusals before it are over."""
        with self.a.read() as db:
            if not db.scalar("select count(*) from mail_in_unauthenticated"):
                return
        with self.a.write() as db:
            db.execute("delete from mail_in_unauthenticated")

    def unauthenticated_in_a_row(self) -> tuple[int, datetime | None, str | None]:
        """How many replies were refused so since the last authenticated one, when the
        last was, and why."""
        with self.a.read() as db:
            rows = db.query("select in_a_row, last_at, reason from mail_in_unauthenticated")
        if not rows:
            return 0, None, None
        return int(rows[0]["in_a_row"]), as_time(rows[0]["last_at"]), rows[0]["reason"]
