"""The invitations' records (service/invitations.py is their rules): a game proposed by
an account to others by handle, each invitee's answer, and the game made once the last
one accepted. Status changes are compare-and-set: of two answers at once, one closes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .access import Access

INVITATION = "id, inviter, settings, status, game_id, created_at, expires_at, closed_at"
INVITEE = "invitation_id, position, email, answer, answered_at"


@dataclass(frozen=True)
class Invitee:
    """An invited account (its address) in the order of the seats, and its answer
    (``accepted``, ``declined``; None: not yet)."""

    invitation_id: str
    position: int
    email: str
    answer: str | None = None
    answered_at: datetime | None = None


@dataclass(frozen=True)
class Invitation:
    """A game proposed by ``inviter`` (an address): ``settings`` as the create request's
    fields, ``status`` ``open``, ``started`` (``game_id``), ``declined``, ``cancelled``
    (an open one past ``expires_at`` is expired: service/invitations.py says so)."""

    id: str
    inviter: str
    settings: dict[str, Any]
    status: str
    game_id: str | None
    created_at: datetime
    expires_at: datetime
    closed_at: datetime | None
    invitees: tuple[Invitee, ...] = ()


class InvitationRecords:
    def __init__(self, access: Access) -> None:
        self.a, self.d = access, access.d

    def add(self, invitation: Invitation) -> None:
        """Keep a new invitation with its invitees."""
        i, d = invitation, self.d
        with self.a.write() as db:
            db.execute(f"insert into invitations ({INVITATION}) values (?, ?, ?, ?, ?, ?, ?, ?)",
                       (i.id, i.inviter, d.doc(i.settings), i.status, i.game_id,
                        d.time(i.created_at), d.time(i.expires_at), d.time(i.closed_at)))
            db.executemany(f"insert into invitees ({INVITEE}) values (?, ?, ?, ?, ?)",
                           [(i.id, n.position, n.email, None, None) for n in i.invitees])

    def get(self, invitation_id: str) -> Invitation | None:
        with self.a.read() as db:
            row = db.one(f"select {INVITATION} from invitations where id = ?",
                         (invitation_id,))
            if row is None:
                return None
            invitees = db.query(f"select {INVITEE} from invitees where invitation_id = ? "
                                "order by position", (invitation_id,))
        return Invitation(**row, invitees=tuple(Invitee(**r) for r in invitees))

    def of_account(self, email: str, since: datetime | None = None) -> list[Invitation]:
        """The invitations ``email`` sent or was sent (made at ``since`` or later), the
        newest first."""
        where = "(inviter = ? or id in (select invitation_id from invitees where email = ?))"
        params: list[Any] = [email, email]
        if since is not None:
            where += " and created_at >= ?"
            params.append(self.d.time(since))
        with self.a.read() as db:
            ids = [r["id"] for r in db.query(f"select id from invitations where {where} "
                                             "order by created_at desc, id", params)]
        return [i for i in map(self.get, ids) if i is not None]

    def answer(self, invitation_id: str, email: str, answer: str, at: datetime) -> bool:
        """Record the invitee's answer while the invitation is open and not expired at
        ``at``; False otherwise (answered, closed, expired or not invited)."""
        t = self.d.time(at)
        with self.a.write() as db:
            return db.execute(
                "update invitees set answer = ?, answered_at = ? where invitation_id = ? "
                "and email = ? and answer is null and invitation_id in (select id from "
                "invitations where status = 'open' and expires_at > ?)",
                (answer, t, invitation_id, email, t)) == 1

    def close(self, invitation_id: str, status: str, at: datetime,
              game_id: str | None = None) -> bool:
        """Move an open invitation to ``status`` (with its game); False if it was no
        longer open (another answer closed it)."""
        with self.a.write() as db:
            return db.execute("update invitations set status = ?, game_id = ?, closed_at = ? "
                              "where id = ? and status = 'open'",
                              (status, game_id, self.d.time(at), invitation_id)) == 1

    def reopen(self, invitation_id: str, email: str) -> None:
        """Undo ``close`` to ``started`` when its game could not be made, and the answer
        of ``email`` that closed it (it may accept again)."""
        with self.a.write() as db:
            if db.execute("update invitations set status = 'open', game_id = null, "
                          "closed_at = null where id = ? and status = 'started'",
                          (invitation_id,)) == 1:
                db.execute("update invitees set answer = null, answered_at = null where "
                           "invitation_id = ? and email = ?", (invitation_id, email))

    def set_game(self, invitation_id: str, game_id: str) -> None:
        """The game a started invitation made."""
        with self.a.write() as db:
            db.execute("update invitations set game_id = ? where id = ?",
                       (game_id, invitation_id))
