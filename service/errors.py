"""What the application refuses, and why: domain errors, with no HTTP in them.

Each carries a sentence a player understands (``detail``) and named details (``extra``:
the offending ``field``, the ``current_version``…). The engine's own errors
(``engine.RuleViolation`` with its rule id, ``engine.NotationError`` with its column) pass
through unchanged. The HTTP layer maps each class to a status and a stable code in one
table (``service/problems.py``); the workers branch on these classes.
"""

from __future__ import annotations

from typing import Any

from engine import terms
from engine.words import Msg, msg


class DomainError(Exception):
    """A request the application refuses: ``detail`` says why, ``extra`` names details."""

    def __init__(self, detail: Msg | str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


# -- who may do what -------------------------------------------------------------------------

class Unauthenticated(DomainError):
    """No token, or not a bearer token, where one is needed."""


class InvalidToken(DomainError):
    """A token that belongs to no seat and no game host."""

    def __init__(self) -> None:
        super().__init__(msg("this token belongs to no seat and no game host"))


class Forbidden(DomainError):
    """A known token that may not do this (another game's, the host's where a seat plays)."""


class MissingScope(DomainError):
    """An account's personal token used for what its scopes do not allow (auth.SCOPES)."""

    def __init__(self, scope: str) -> None:
        super().__init__(msg("this token lacks the scope {scope}: make a token with it "
                             "(POST /me/tokens)", scope=scope), scope=scope)


class InvalidInvite(DomainError):
    """An invite code that does not open a seat of the game."""

    def __init__(self) -> None:
        super().__init__(msg("this invite code does not open a seat of this game"))


# -- what there is -------------------------------------------------------------------------

class GameNotFound(DomainError):
    def __init__(self, game_id: str) -> None:
        super().__init__(msg("there is no game {game}", game=repr(game_id)))
        self.game_id = game_id


class WebhookNotFound(DomainError):
    def __init__(self, hook_id: int) -> None:
        super().__init__(msg("this game has no webhook {hook} of yours", hook=hook_id))


class WebhookUrlRefused(DomainError):
    """A webhook URL no delivery may call (service/webhook_urls.py): ``detail`` says why."""

    def __init__(self, reason: Msg | str) -> None:
        super().__init__(msg("webhook URL refused: {reason}", reason=reason), field="url",
                         reason=reason)
        self.reason = reason


class TooManyWebhooks(DomainError):
    def __init__(self, limit: int, whose: str) -> None:
        words = {"game": msg("a game may have at most {limit} webhooks: delete one first",
                             limit=limit),
                 "host": msg("the host may have at most {limit} webhooks: delete one first",
                             limit=limit),
                 "seat": msg("a seat may have at most {limit} webhooks: delete one first",
                             limit=limit)}
        super().__init__(words[whose], limit=limit)


# -- where the game stands ---------------------------------------------------------------

class VersionConflict(DomainError):
    """The game is not at the version the move was made against (someone wrote first)."""

    def __init__(self, current: int) -> None:
        super().__init__(msg("the game is at version {version}; read it again and submit "
                             "against that version", version=current),
                         current_version=current)
        self.current = current


class GameNotStarted(DomainError):
    def __init__(self) -> None:
        super().__init__(msg("seats are still open: the game starts when every seat is "
                             "taken"))


class GameOver(DomainError):
    def __init__(self, version: int) -> None:
        super().__init__(msg("the game is over"), current_version=version)


class GameFull(DomainError):
    def __init__(self) -> None:
        super().__init__(msg("every seat of this game is taken"))


class RecordUnavailable(DomainError):
    def __init__(self) -> None:
        super().__init__(msg("the record (with the seed that decides every hand) is served "
                             "once the game is over"))


class SeatPlayedByBot(DomainError):
    """The seat resigned or was abandoned: a bot plays it now (docs/rules.md S-2)."""

    def __init__(self, seat: int, bot: str) -> None:
        super().__init__(msg("seat {seat} is played by a {bot} bot now (it resigned or its "
                             "time ran out too often, rule S-2): its token can no longer "
                             "move", seat=seat, bot=terms.bot(bot)),
                         rule="S-2", seat=seat, bot=bot)


class SeatTaken(DomainError):
    """A seat that is not open (filled by a person or a bot already, or no such seat)."""

    def __init__(self, seat: int) -> None:
        super().__init__(msg("seat {seat} is not an open seat of this game", seat=seat),
                         seat=seat)


class OutOfTurn(DomainError):
    """The engine's ``NotYourTurn`` (rule A-3), with the seat whose turn it is."""

    def __init__(self, detail: Msg | str, rule: str, current_seat: int | None) -> None:
        super().__init__(detail, rule=rule, current_seat=current_seat)


# -- what was asked ------------------------------------------------------------------------

class InvalidOption(DomainError):
    """An unknown variant, a bad option, player count or time per move (``field``)."""

    def __init__(self, field: str, detail: Msg | str) -> None:
        super().__init__(detail, field=field)


class InvalidMove(DomainError):
    """A structured (JSON) move that is not a move."""

    def __init__(self, index: int, reason: Msg | str) -> None:
        super().__init__(msg("moves[{index}] is not a move: {reason}", index=index,
                             reason=reason), move_index=index)


class InvalidRecord(DomainError):
    """A record that does not replay to a finished game."""

    def __init__(self, detail: Msg | str, move_number: int | None, rule: str | None = None
                 ) -> None:
        extra: dict[str, Any] = {"move_number": move_number}
        if rule:
            extra["rule"] = rule
        super().__init__(detail, **extra)


class IdempotencyKeyReused(DomainError):
    def __init__(self) -> None:
        super().__init__(msg("this Idempotency-Key was used for a different submission"))


# -- table talk (service/talk.py) --------------------------------------------------------

class MessageRefused(DomainError):
    """A message (or note, or talk setting) that cannot be kept as written: each subclass
    is one reason, with its own code (problems.py)."""


class MessageEmpty(MessageRefused):
    def __init__(self) -> None:
        super().__init__(msg("the message is empty"))


class MessageTooLong(MessageRefused):
    def __init__(self, limit: int, length: int) -> None:
        super().__init__(msg("the text has {length} characters; at most {limit} are kept",
                             length=length, limit=limit), limit=limit)


class MessageControlCharacters(MessageRefused):
    def __init__(self) -> None:
        super().__init__(msg("the text holds control or invisible formatting characters "
                             "(only line breaks and tabs are allowed)"))


class UnknownSeat(MessageRefused):
    def __init__(self, seat: int) -> None:
        super().__init__(msg("this game has no seat {seat}", seat=seat), seat=seat)


class BotAddressee(MessageRefused):
    def __init__(self, seat: int) -> None:
        super().__init__(msg("seat {seat} is played by a bot, which reads no messages",
                             seat=seat), seat=seat)


class TooManyMessages(DomainError):
    def __init__(self, limit: int) -> None:
        super().__init__(msg("at most {limit} messages an hour: wait a little",
                             limit=limit), limit=limit)


class MessageNotFound(DomainError):
    def __init__(self, message_id: int) -> None:
        super().__init__(msg("this game has no message {id}", id=message_id),
                         message_id=message_id)


# -- players (service/players.py) ------------------------------------------------------------

class InvalidSignInCode(DomainError):
    """A sign-in code that is unknown, used already or expired."""

    def __init__(self) -> None:
        super().__init__(msg("this sign-in code is unknown, used already or expired: ask "
                             "for a new one"))


class InvalidPlayerToken(DomainError):
    """A player token that belongs to no session (never made, or signed out)."""

    def __init__(self) -> None:
        super().__init__(msg("this player token belongs to no session: sign in again"))


class TokenNotFound(DomainError):
    """A personal access token that is not the player's (or was deleted)."""

    def __init__(self, token_id: str) -> None:
        super().__init__(msg("you have no token {id}", id=repr(token_id)), token_id=token_id)


class TooManyTokens(DomainError):
    """An account's personal token beyond the most it may hold."""

    def __init__(self, limit: int) -> None:
        super().__init__(msg("an account may hold at most {limit} personal tokens: delete "
                             "one first", limit=limit), limit=limit)


class SessionNeeded(DomainError):
    """A personal access token where only the sign-in session's token will do (tokens,
    preferences, claims)."""

    def __init__(self) -> None:
        super().__init__(msg("a personal token cannot do this: use the token of your "
                             "sign-in session"))


class VacationRefused(DomainError):
    """A vacation that cannot be: beyond the yearly allowance, or ending before it
    begins or in the past."""


class SeatNotRemovable(DomainError):
    """A seat the creator cannot open again: the game started, or no one holds it."""

    def __init__(self, seat: int) -> None:
        super().__init__(msg("seat {seat} cannot be opened again: only a joined seat of a "
                             "game that has not started can", seat=seat), seat=seat)


# -- identity (service/players.py) ---------------------------------------------------------

class SeatNotClaimable(DomainError):
    """A seat no one may claim: it names no address, a bot plays it, or it is claimed."""

    def __init__(self, seat: int) -> None:
        super().__init__(msg("seat {seat} cannot be claimed: it names no address, a bot "
                             "plays it, or its player claimed it already", seat=seat),
                         seat=seat)


class NotYourInvitation(DomainError):
    """A claim by a player whose address is not the seat's, or with a wrong claim code."""

    def __init__(self, seat: int) -> None:
        super().__init__(msg("seat {seat} was offered to another address: only its holder "
                             "can claim it (signed in with it, or with the link mailed to "
                             "it)", seat=seat), seat=seat)


class AlreadySeated(DomainError):
    """An account's second seat in one game."""

    def __init__(self) -> None:
        super().__init__(msg("you hold a seat of this game already: one seat per player"))


class HandleRefused(DomainError):
    """A handle that does not pass the rules of names, or reads like another's."""


class NamesAlike(DomainError):
    """Two seats of one table whose names read alike (service/names.py)."""

    def __init__(self, seats: tuple[int, ...], names: tuple[str, str]) -> None:
        super().__init__(msg("the name {name} reads like {other}, another seat's: no two "
                             "seats of a table may read alike", name=repr(names[1]),
                             other=repr(names[0])), seats=list(seats))


# -- invitations (service/invitations.py) ---------------------------------------------------

class InvitationNotFound(DomainError):
    """An invitation that is not there, or neither sent by nor to the caller."""

    def __init__(self, invitation_id: str) -> None:
        super().__init__(msg("you have no invitation {id}", id=repr(invitation_id)),
                         invitation_id=invitation_id)


class NotInvited(DomainError):
    """An answer to an invitation by its inviter (who is seated already)."""

    def __init__(self) -> None:
        super().__init__(msg("you sent this invitation: only the players invited answer it "
                             "(cancel it with DELETE)"))


class InvitationClosed(DomainError):
    """An answer or a cancellation once the invitation was answered, started, declined,
    cancelled or expired (``state``)."""

    def __init__(self, state: str) -> None:
        super().__init__(msg("this invitation takes no more answers (state: {state})",
                             state=state), state=state)


class AlreadyAnswered(DomainError):
    """A second answer of one invitee."""

    def __init__(self, answer: str) -> None:
        super().__init__(msg("you answered this invitation already ({answer})",
                             answer=answer), answer=answer)


class HandleNeeded(DomainError):
    """An invitation sent (or to be sent) by an account without a handle."""

    def __init__(self) -> None:
        super().__init__(msg("choose a handle first (PATCH /me): the invited see who "
                             "invites them by it"))


class UnknownHandle(DomainError):
    """An invitee's handle that no account has."""

    def __init__(self, handle: str) -> None:
        super().__init__(msg("no player has the handle {handle}", handle=repr(handle)),
                         field="invitees", handle=handle)


class TooManyInvitations(DomainError):
    """An invitation beyond the open ones an account may have sent."""

    def __init__(self, limit: int) -> None:
        super().__init__(msg("you have {limit} open invitations already: wait for answers "
                             "or cancel some", limit=limit), limit=limit)


class BotAccountRefused(DomainError):
    """An account made a bot account (or a person's again) once it held a seat or a
    rating."""

    def __init__(self) -> None:
        super().__init__(msg("only an account that has held no seat and has no rating "
                             "becomes a bot account (or a person's again): make a new "
                             "account for your bot"))
# -- moderation (service/moderation.py) ----------------------------------------------------

class AccountSuspended(DomainError):
    """A token (session or personal) of an account an operator suspended, or a sign-in
    to it."""

    def __init__(self, reason: str | None = None) -> None:
        super().__init__(msg("this account is suspended by the operator of this server: "
                             "its tokens do not work and it cannot sign in; a bot plays its "
                             "seats (write to the operator to appeal)"), reason=reason)


class AddressBanned(DomainError):
    """A sign-in of an address an operator banned."""

    def __init__(self) -> None:
        super().__init__(msg("this address is banned from this server: it cannot sign in"))


class PlayerNotFound(DomainError):
    """No account has this handle."""

    def __init__(self, handle: str) -> None:
        super().__init__(msg("no player has the handle {handle}", handle=repr(handle)),
                         handle=handle)


class BlockRefused(DomainError):
    """A block that cannot be: of oneself."""

    def __init__(self) -> None:
        super().__init__(msg("you cannot block yourself"))


class Blocked(DomainError):
    """What a block forbids between two accounts: a private message, a seat at a public
    game where the other sits (``detail`` says which)."""


class TooManyReports(DomainError):
    def __init__(self, limit: int) -> None:
        super().__init__(msg("at most {limit} reports a day: the operator reads them all, "
                             "wait a little", limit=limit), limit=limit, retry_after=3600)
# -- notification channels (service/notify_channels.py) ---------------------------------------

class ChannelNotFound(DomainError):
    """A notification channel that is not the player's (or was removed)."""

    def __init__(self, channel_id: int) -> None:
        super().__init__(msg("you have no notification channel {id}", id=channel_id),
                         channel_id=channel_id)


class TooManyChannels(DomainError):
    """An account's notification channel beyond the most it may hold."""

    def __init__(self, limit: int) -> None:
        super().__init__(msg("an account may hold at most {limit} notification channels: "
                             "remove one first", limit=limit), limit=limit)


class ChannelRefused(DomainError):
    """A push subscription or an Apprise URL that cannot be a channel: ``field`` names
    what, ``reason`` says why."""

    def __init__(self, field: str, reason: Msg | str) -> None:
        super().__init__(msg("this notification channel is refused: {reason}",
                             reason=reason), field=field, reason=reason)
        self.reason = reason


# -- tournaments (service/tournaments.py) ------------------------------------------------

class TournamentNotFound(DomainError):
    """A tournament that is not there."""

    def __init__(self, tournament_id: str) -> None:
        super().__init__(msg("there is no tournament {id}", id=repr(tournament_id)),
                         tournament_id=tournament_id)


class NotOrganiser(DomainError):
    """What only a tournament's organiser may do (start it), asked by another account."""

    def __init__(self) -> None:
        super().__init__(msg("only the tournament's organiser may do this"))


class TournamentClosed(DomainError):
    """An entry or a start once the tournament started or finished (``state``)."""

    def __init__(self, state: str) -> None:
        super().__init__(msg("this tournament is not open any more (state: {state})",
                             state=state), state=state)


class TournamentFull(DomainError):
    """An entry beyond the organiser's cap."""

    def __init__(self, cap: int) -> None:
        super().__init__(msg("this tournament has its {cap} entrants already", cap=cap),
                         cap=cap)


class RatingOutOfRange(DomainError):
    """An entry whose rating is outside the tournament's range."""

    def __init__(self, rating: float) -> None:
        super().__init__(msg("your rating ({rating}) is outside this tournament's range",
                             rating=round(rating, 1)), rating=round(rating, 3))


class NotInvitedToEnter(DomainError):
    """An entry to a tournament entered by invitation, by an account it does not name."""

    def __init__(self) -> None:
        super().__init__(msg("this tournament is entered by invitation, and its organiser "
                             "did not name you"))


class TimeoutRecord(DomainError):
    """An entry by an account that let its time run out more often in its last finished
    games than the tournament takes."""

    def __init__(self, timeouts: int, limit: int, games: int) -> None:
        super().__init__(msg("turns whose time ran out in your last finished games "
                             "({games}): {timeouts}; this tournament takes {limit} at "
                             "most",
                             timeouts=timeouts, games=games, limit=limit),
                         timeouts=timeouts, max_timeouts=limit, games=games)


class NotEntered(DomainError):
    """A withdrawal by an account that has no entry (or withdrew already)."""

    def __init__(self) -> None:
        super().__init__(msg("you have no entry in this tournament"))


class TooFewEntrants(DomainError):
    """A start with fewer entrants than one table's least size."""

    def __init__(self, least: int) -> None:
        super().__init__(msg("a tournament starts with {least} entrants at least",
                             least=least), least=least)
