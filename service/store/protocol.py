"""The ``EventStore`` protocol: what the service and the workers ask of a store (its one
implementation: sql.py, over SQLite or PostgreSQL)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol

from .base import (
    Answer,
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
from .invitations import InvitationRecords
from .mail import MailRecords
from .moderation import ModerationRecords
from .players import PlayerRecords
from .sql import Tx
from .talk import TalkRecords
from .tournaments import TournamentRecords
from .transfer import TransferRecords
from .webhooks import WebhookRecords


class EventStore(Protocol):
    """What the service and the workers ask of a store (sql.py, over SQLite or
    PostgreSQL): the games and their seats, the log, due work, upkeep; and the records of
    players, table talk, webhooks, mails, invitations, moderation and notification
    channels, each in a small module of its own, reached as ``players``, ``talk``,
    ``hooks``, ``mail``, ``invitations``, ``moderation``, ``channels`` and ``transfer``
    (export and import) or inside one ``transaction``. Every write is atomic; the
    methods' own documents are sql.py's."""

    players: PlayerRecords
    talk: TalkRecords
    hooks: WebhookRecords
    mail: MailRecords
    moderation: ModerationRecords
    transfer: TransferRecords
    invitations: InvitationRecords
    channels: ChannelRecords  # notification channels (issue 37)
    tournaments: TournamentRecords  # tournaments and leagues (issue 36)

    # games and seats
    def create_game(self, game: Game, seats: Sequence[Seat]) -> None: ...
    def create_finished_game(self, game: Game, seats: Sequence[Seat], events: list[Event],
                             messages: Sequence[Message] = ()) -> None: ...
    def game(self, game_id: str) -> Game: ...
    def list_games(self, *, status: str | None = None, ids: list[str] | None = None,
                   limit: int = 50, offset: int = 0, public: bool | None = None
                   ) -> tuple[list[Game], int]: ...
    def seats_of(self, email: str, finished: bool = False, claimed: bool = True
                 ) -> list[tuple[Game, Seat]]: ...
    def seat_by_token_hash(self, token_hash: str) -> Seat | None: ...
    def games_hosted_by(self, token_hash: str) -> list[str]: ...
    def join(self, game_id: str, seat: int, name: str, email: str | None, token_hash: str,
             language: str | None = None, claimed: bool = False) -> bool: ...
    def seat_bot(self, game_id: str, seat: int, name: str, bot: str) -> bool: ...
    def unseat(self, game_id: str, seat: int) -> bool: ...
    def rotate_token(self, game_id: str, seat: int, generation: int, token_hash: str
                     ) -> bool: ...
    def set_language(self, game_id: str, seat: int, language: str | None) -> None: ...

    # the log
    def read(self, game_id: str, since: int = 0, until: int | None = None
             ) -> list[Event]: ...
    def read_timed(self, game_id: str, types: Sequence[str]
                   ) -> list[tuple[int, Event, datetime]]: ...
    def append(self, game_id: str, expected_version: int, events: list[Event],
               update: GameUpdate, answer: Answer | None = None, due: Sequence[Due] = (),
               replaces: Sequence[str] = (), done: Claim | None = None) -> int: ...
    def idempotent_answer(self, game_id: str, seat: int, key: str) -> Answer | None: ...

    # due work
    def add_due(self, game_id: str, due: Sequence[Due], done: Claim | None = None
                ) -> int: ...
    def claim_due(self, limit: int = 100, lease_seconds: float = 300) -> list[DueRow]: ...
    def release_due(self, claims: Sequence[Claim]) -> None: ...
    def start_due(self, claim: Claim, lease_seconds: float) -> DueRow | None: ...
    def finish_due(self, claim: Claim, finish: Finish) -> bool: ...
    def due_rows(self, game_id: str) -> list[DueRow]: ...
    def census(self) -> Census: ...
    def next_due(self) -> datetime | None: ...
    def wait_for_due(self, timeout: float) -> bool: ...

    # upkeep
    def transaction(self) -> AbstractContextManager[Tx]: ...
    def prune(self, answers_before: datetime, due_before: datetime) -> dict[str, int]: ...
    def migrate(self) -> tuple[int, int]: ...
    def close(self) -> None: ...
