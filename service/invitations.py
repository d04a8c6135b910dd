"""Invitations: a game proposed by an account to others, by their handles (issue 33).

The inviter sends the game's settings (as a create request's, without seats), the
handles it invites and the bots it wants at the table; it takes the first seat, the
invitees the next ones in the order given, the bots the last. Each invitee accepts or
declines; the game is made, every person's seat claimed by its account from the start,
when the last one accepts (and starts at once: no seat is open), so every seat is
played with its account's tokens and the game is rated like any other. A decline, the
inviter's cancellation or the end of ``expires_at`` closes it: no game. An account sees
the invitations it sent and was sent, no other.

The same account is not invited twice, nor is the inviter, nor two accounts one of
which blocked the other (service/moderation.py); handles are looked up as kept
(service/players.handle); a bot account (``Player.is_bot``, a program plays for
it) is invited like anyone. Each invitee's channels beyond e-mail that chose
``invitation`` are told of it as it is sent (``told``).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from . import times
from .errors import (
    AlreadyAnswered,
    Blocked,
    DomainError,
    HandleNeeded,
    InvalidOption,
    InvitationClosed,
    InvitationNotFound,
    NotInvited,
    TooManyInvitations,
    UnknownHandle,
)
from .games import GAME_SETTINGS, Games, account_seat, check_level, check_variant
from .i18n import msg
from .players import by_handle
from .store import Due, Player
from .store.invitations import Invitation, Invitee

__all__ = ["Invitation", "Invitations", "status"]

log = logging.getLogger(__name__)

#: Open invitations an account may have sent at once.
MAX_OPEN = 50


def status(invitation: Invitation, now: datetime) -> str:
    """``open``, ``started``, ``declined``, ``cancelled`` or ``expired`` (open past its
    end)."""
    if invitation.status == "open" and now >= invitation.expires_at:
        return "expired"
    return invitation.status


class Invitations:
    """Sending, answering and reading invitations, over the games' store."""

    def __init__(self, games: Games) -> None:
        self.games = games
        self.store = games.store

    def send(self, inviter: Player, settings: dict[str, Any], invitees: Sequence[str],
             bots: Sequence[str], expires_in: timedelta, now: datetime | None = None
             ) -> Invitation:
        """A new invitation from ``inviter`` (who needs a handle: HandleNeeded) to the
        accounts of ``invitees`` (handles: UnknownHandle; none twice, not the inviter:
        InvalidOption), with ``bots`` (levels) at the table. The settings are checked
        as a create request's (InvalidOption), so a game that cannot be is refused now,
        not at the last acceptance."""
        now = now or times.now()
        if not inviter.handle:
            raise HandleNeeded()
        accounts = [self._account(h) for h in invitees]
        emails = [inviter.email, *(a.email for a in accounts)]
        if len(set(emails)) != len(emails):
            raise InvalidOption("invitees", msg("each player is invited once, and not the "
                                                "inviter"))
        people = [inviter, *accounts]
        for i, person in enumerate(people):
            blocked = self.store.moderation.blocked_among(
                person.email, [p.email for p in people[i + 1:]])
            if blocked:
                other = next(p for p in people if p.email in blocked)
                raise Blocked(msg("{a} and {b} cannot sit at one table: one blocked the "
                                  "other", a=person.handle, b=other.handle))
        for i, level in enumerate(bots):
            check_level(level, f"bots.{i}")
        check_variant(settings["variant"], len(emails) + len(bots), settings["options"])
        self.games.time_control(settings["time_per_move"], settings["time_control"])
        open_now = [i for i in self.store.invitations.of_account(inviter.email)
                    if i.inviter == inviter.email and status(i, now) == "open"]
        if len(open_now) >= MAX_OPEN:
            raise TooManyInvitations(MAX_OPEN)
        invitation_id = "inv_" + secrets.token_hex(8)
        kept = {k: settings[k] for k in GAME_SETTINGS}
        invitation = Invitation(
            invitation_id, inviter.email, {**kept, "bots": list(bots)}, "open", None, now,
            now + expires_in, None, tuple(Invitee(invitation_id, n, a.email)
                                          for n, a in enumerate(accounts, 1)))
        told = self.told(invitation)
        with self.store.transaction() as tx:
            tx.invitations.add(invitation)
            tx.add_due("", told, now)
        return invitation

    def told(self, invitation: Invitation) -> list[Due]:
        """The notices of ``invitation`` (rows of no game): a mail to each invitee
        (workers/invitation_mail.py) and one ``push`` row (workers/push.py) for each
        channel of an invitee's account that chose ``invitation``
        (service/notify_channels.py)."""
        mails = [Due("invitation_mail", 0, invitation.created_at, seat=n.position,
                     reply=invitation.id) for n in invitation.invitees]
        return mails + [Due("push", 0, invitation.created_at, seat=n.position, hook_id=c.id,
                    reply=invitation.id, args={
                        "what": "invitation", "invitation": invitation.id,
                        "deadline": times.to_text(invitation.expires_at)})
                for n in invitation.invitees
                for c in self.store.channels.of_account(n.email) if "invitation" in c.events]

    def _account(self, handle: str) -> Player:
        player = by_handle(self.store, handle)
        if player is None:
            raise UnknownHandle(handle)
        return player

    def get(self, player: Player, invitation_id: str) -> Invitation:
        """An invitation sent by or to the player (InvitationNotFound otherwise)."""
        invitation = self.store.invitations.get(invitation_id)
        if invitation is None or player.email != invitation.inviter and \
                all(n.email != player.email for n in invitation.invitees):
            raise InvitationNotFound(invitation_id)
        return invitation

    def of(self, player: Player, state: str | None = None) -> list[Invitation]:
        """The invitations the player sent or was sent (of ``state`` only), newest
        first."""
        now = times.now()
        return [i for i in self.store.invitations.of_account(player.email)
                if state is None or status(i, now) == state]

    def accept(self, player: Player, invitation_id: str) -> Invitation:
        """The invitee's yes; the last one makes the game (its id in ``game_id``)."""
        invitation = self._answerable(player, invitation_id)
        if not self.store.invitations.answer(invitation.id, player.email, "accepted",
                                             times.now()):
            raise InvitationClosed(status(self.get(player, invitation_id), times.now()))
        invitation = self.get(player, invitation_id)
        if all(n.answer == "accepted" for n in invitation.invitees):
            self._start(invitation, player.email)
        return self.get(player, invitation_id)

    def decline(self, player: Player, invitation_id: str) -> Invitation:
        """The invitee's no: the invitation closes (no game)."""
        invitation = self._answerable(player, invitation_id)
        now = times.now()
        if not self.store.invitations.answer(invitation.id, player.email, "declined", now) \
                or not self.store.invitations.close(invitation.id, "declined", now):
            raise InvitationClosed(status(self.get(player, invitation_id), now))
        return self.get(player, invitation_id)

    def cancel(self, player: Player, invitation_id: str) -> Invitation:
        """The inviter's withdrawal of an open invitation (InvitationClosed otherwise);
        an invitee's: InvitationNotFound (it is not theirs to cancel)."""
        invitation = self.get(player, invitation_id)
        if invitation.inviter != player.email:
            raise InvitationNotFound(invitation_id)
        now = times.now()
        if status(invitation, now) != "open" or \
                not self.store.invitations.close(invitation.id, "cancelled", now):
            raise InvitationClosed(status(self.get(player, invitation_id), now))
        return self.get(player, invitation_id)

    def _answerable(self, player: Player, invitation_id: str) -> Invitation:
        invitation = self.get(player, invitation_id)
        if invitation.inviter == player.email:
            raise NotInvited()
        now = times.now()
        if status(invitation, now) != "open":
            raise InvitationClosed(status(invitation, now))
        answered = next(n.answer for n in invitation.invitees if n.email == player.email)
        if answered is not None:
            raise AlreadyAnswered(answered)
        return invitation

    def _start(self, invitation: Invitation, last: str) -> None:
        """Make the game of a fully accepted invitation, once (of two last answers at
        once, the one that closes it); if the game cannot be made, the invitation is
        open again without the ``last`` answer (who may accept again) and the error
        said."""
        if not self.store.invitations.close(invitation.id, "started", times.now()):
            return
        s = invitation.settings
        people = [invitation.inviter, *(n.email for n in invitation.invitees)]
        seats: list[dict[str, Any] | None] = []
        for email in people:
            player = self.store.players.player(email)
            if player is None or not player.handle:  # deleted meanwhile
                self.store.invitations.reopen(invitation.id, last)
                raise InvitationClosed("open")
            seats.append(account_seat(player))
        seats += [{"bot": level} for level in s["bots"]]
        try:
            created = self.games.create_seated(s, seats)
        except DomainError:
            self.store.invitations.reopen(invitation.id, last)
            log.exception("invitation %s: its game could not be made", invitation.id)
            raise
        self.store.invitations.set_game(invitation.id, created["game_id"])

    def document(self, invitation: Invitation) -> dict[str, Any]:
        """An invitation as the API shows it: who invites whom (handles), the answers,
        the game's settings, its status and, once started, its game."""
        def who(email: str) -> dict[str, Any]:
            player = self.store.players.player(email)
            return {"handle": player.handle if player else None,
                    "bot": bool(player and player.is_bot)}
        s = invitation.settings
        return {"id": invitation.id, "status": status(invitation, times.now()),
                "game_id": invitation.game_id, "inviter": who(invitation.inviter),
                "invitees": [{**who(n.email), "answer": n.answer,
                              "answered_at": n.answered_at} for n in invitation.invitees],
                "bots": s["bots"], "settings": {k: s[k] for k in GAME_SETTINGS},
                "players": 1 + len(invitation.invitees) + len(s["bots"]),
                "created_at": invitation.created_at, "expires_at": invitation.expires_at,
                "closed_at": invitation.closed_at}
