"""What the application refuses, and why: domain errors, with no HTTP in them.

Each carries a sentence a player understands (``detail``) and named details (``extra``:
the offending ``field``, the ``current_version``…). The engine's own errors
(``engine.RuleViolation`` with its rule id, ``engine.NotationError`` with its column) pass
through unchanged. The HTTP layer maps each class to a status and a stable code in one
table (``service/problems.py``); the workers branch on these classes.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """A request the application refuses: ``detail`` says why, ``extra`` names details."""

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


# -- who may do what -------------------------------------------------------------------------

class Unauthenticated(DomainError):
    """No token, or not a bearer token, where one is needed."""


class InvalidToken(DomainError):
    """A token that belongs to no seat and no game host."""

    def __init__(self) -> None:
        super().__init__("this token belongs to no seat and no game host")


class Forbidden(DomainError):
    """A known token that may not do this (another game's, the host's where a seat plays)."""


class InvalidInvite(DomainError):
    """An invite code that does not open a seat of the game."""

    def __init__(self) -> None:
        super().__init__("this invite code does not open a seat of this game")


# -- what there is -------------------------------------------------------------------------

class GameNotFound(DomainError):
    def __init__(self, game_id: str) -> None:
        super().__init__(f"there is no game {game_id!r}")
        self.game_id = game_id


class WebhookNotFound(DomainError):
    def __init__(self, hook_id: int) -> None:
        super().__init__(f"this game has no webhook {hook_id} of yours")


class WebhookUrlRefused(DomainError):
    """A webhook URL no delivery may call (service/webhook_urls.py): ``detail`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"webhook URL refused: {reason}", field="url", reason=reason)
        self.reason = reason


class TooManyWebhooks(DomainError):
    def __init__(self, limit: int, whose: str) -> None:
        super().__init__(f"{whose} may have at most {limit} webhooks: delete one first",
                         limit=limit)


# -- where the game stands ---------------------------------------------------------------

class VersionConflict(DomainError):
    """The game is not at the version the move was made against (someone wrote first)."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}; read it again and submit "
                         "against that version", current_version=current)
        self.current = current


class GameNotStarted(DomainError):
    def __init__(self) -> None:
        super().__init__("seats are still open: the game starts when every seat is taken")


class GameOver(DomainError):
    def __init__(self, version: int) -> None:
        super().__init__("the game is over", current_version=version)


class GameFull(DomainError):
    def __init__(self) -> None:
        super().__init__("every seat of this game is taken")


class RecordUnavailable(DomainError):
    def __init__(self) -> None:
        super().__init__("the record (with the seed that decides every hand) is served once "
                         "the game is over")


class NotYourTurn(DomainError):
    """The engine's ``NotYourTurn`` (rule A-3), with the seat whose turn it is."""

    def __init__(self, detail: str, rule: str, current_seat: int | None) -> None:
        super().__init__(detail, rule=rule, current_seat=current_seat)


# -- what was asked ------------------------------------------------------------------------

class InvalidOption(DomainError):
    """An unknown variant, a bad option, player count or time per move (``field``)."""

    def __init__(self, field: str, detail: str) -> None:
        super().__init__(detail, field=field)


class InvalidMove(DomainError):
    """A structured (JSON) move that is not a move."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"moves[{index}] is not a move: {reason}", move_index=index)


class InvalidRecord(DomainError):
    """A record that does not replay to a finished game."""

    def __init__(self, detail: str, move_number: int | None, rule: str | None = None
                 ) -> None:
        extra: dict[str, Any] = {"move_number": move_number}
        if rule:
            extra["rule"] = rule
        super().__init__(detail, **extra)


class IdempotencyKeyReused(DomainError):
    def __init__(self) -> None:
        super().__init__("this Idempotency-Key was used for a different submission")
