"""What the service and the workers ask of a store: the ``EventStore`` protocol and the
records it reads and writes.

A game is an append-only log of events; its version is the number of events. Beside the
log a store keeps a row per game (its summary: status, whose turn, the deadline, the
clocks), the seats (only hashes of their tokens), the first answer to each idempotent
submission, the due work (``due``: every mail, webhook call, bot move, reminder and
deadline a batch calls for, written in the append's transaction, claimed and finished by
the workers), and the records of players, table talk, webhooks and mails. One store
keeps these promises, its SQL written once for SQLite (the embedded default) and
PostgreSQL (for many hosts): sql.py over dialect.py; ``tests/store/`` holds both
databases to them.

A store feature is a method (sql.py or a records module), a step of schema.py, and a case
in the contract tests. ``COLUMNS`` is every table's columns as ``transfer`` dumps and
loads them (and so ``alhambra-pbem export``/``import``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, Literal, get_args

from ..errors import GameNotFound, VersionConflict  # noqa: F401 - what stores raise

Event = dict[str, Any]
#: Where a game stands: seats to fill, in play, finished.
Status = Literal["open", "active", "over"]


class SchemaTooNew(Exception):
    """The database was written by a newer alhambra-pbem than this one."""


class SchemaTooOld(Exception):
    """The database lacks migrations this alhambra-pbem needs (``alhambra-pbem
    migrate``)."""


@dataclass
class Game:
    """A game's row: what it is and where it stands (kept in step with its log); as a
    store reads it, with its seats and the ids of its enabled webhooks (what a move and a
    document need, in the one read)."""

    id: str
    variant: str
    options: dict[str, Any]
    players: int
    status: Status
    phase: str | None
    version: int
    current_seat: int | None
    time_per_move: int
    timeout_policy: str
    deadline: datetime | None
    imported: bool
    created_at: datetime
    updated_at: datetime
    host_token_hash: str | None = None
    invite_hash: str | None = None
    takeover_after_timeouts: int = 0  # S-2: timed-out turns in a row before a bot takes over
    takeover_bot: str | None = None  # the level of that bot (and of a resigned seat's)
    time_control: dict[str, Any] | None = None  # bank, days off (service/clock.py); None: none
    replay_public: bool = True  # a finished game's events and record for anyone (else: its own)
    public: bool = False  # its open seats are anyone's to join, no invite code (the lobby)
    spectators_read_chat: bool = False  # spectators read the table's messages (talk.py)
    clock: dict[str, Any] | None = None  # the clocks' fold (service/clock.py); None: not kept
    seats: tuple[Seat, ...] = field(default=(), compare=False)  # read with it, in order
    hooks: tuple[int, ...] = field(default=(), compare=False)  # its webhooks not disabled


@dataclass
class Seat:
    game_id: str
    seat: int
    name: str | None
    email: str | None
    token_hash: str | None  # None: an open seat (unless a bot plays it)
    joined_at: datetime | None
    token_generation: int = 0  # how many times the seat's token was rotated (auth.py)
    bot: str | None = None  # the level of the bot created to play the seat (docs/rules.md S-2)
    language: str | None = None  # its mails' and page's (service/i18n.py); None: not chosen
    mail_failures: int = 0  # hard failures of mail to ``email`` since it was set or confirmed
    mail_failing: str | None = None  # why mails to ``email`` stopped (None: they go)
    #: the account (its address) whose seat this is; None: nobody's yet (service/players.py)
    claimed_by: str | None = None
    claim_on_sign_in: bool = False  # a seat from before claims: its address's next sign-in
    #: the subject of the seat's mails, kept as the first one said it (workers/notify.py)
    thread_subject: str | None = None


@dataclass(frozen=True)
class Census:
    """What the metrics read at a scrape (service/metrics.py): games by status, and the
    due rows due now and not claimed by kind, with the earliest's due time."""

    games: dict[str, int]
    due: dict[str, tuple[int, datetime | None]]


@dataclass(frozen=True)
class GameUpdate:
    """The game row's fields that an append sets, with the events."""

    status: Status
    phase: str | None
    current_seat: int | None
    deadline: datetime | None
    at: datetime | None = None  # the batch's time (its events' created_at); None: now
    clock: dict[str, Any] | None = None  # the clocks after the batch (service/clock.py)


@dataclass(frozen=True)
class Answer:
    """What the first answer to a submission made with an Idempotency-Key needs to be
    given again: its status and the batch it appended (versions ``from_version`` to
    ``version``; the application layer rebuilds the body from them), and ``created_at``
    (as stored; None before: the append's time), whose age says whether it expired."""

    seat: int
    key: str
    fingerprint: str  # of the submission: the same key for another one is refused
    status: int
    version: int  # the game's version after the batch
    from_version: int  # the batch's first event
    created_at: datetime | None = None
    #: (appending) an earlier answer to the key stored before this is forgotten: replaced
    forgotten_before: datetime | None = None


class AnswerExists(Exception):
    """``append``: the seat's key has an answer already (one not forgotten); nothing was
    written (the application layer gives that answer, or refuses the key)."""


@dataclass(frozen=True)
class Player:
    """A verified e-mail address (service/players.py) and its preferences: ``language``
    (its seats' unless a seat says otherwise; None: not chosen) and ``notify`` (turn,
    digest, none)."""

    email: str
    created_at: datetime
    language: str | None = None
    notify: str = "turn"
    digest_hour: int = 7  # the UTC hour of its daily digest (notify: digest)
    handle: str | None = None  # its public name (ratings, lobbies): unique, chosen by it
    is_bot: bool = False  # a bot account: a program plays for it (service/invitations.py)
    #: when an operator suspended the account, and why (service/moderation.py)
    suspended_at: datetime | None = None
    suspended_reason: str | None = None


@dataclass(frozen=True)
class PlayerToken:
    """A personal access token of an account (service/players.py): its public ``id``,
    what the player wrote of it, its scopes (auth.SCOPES); the secret is never kept."""

    id: str
    email: str
    description: str
    scopes: tuple[str, ...]
    created_at: datetime
    last_used_at: datetime | None = None
    suspended: bool = False  # its account is suspended (service/moderation.py)


@dataclass(frozen=True)
class SignIn:
    """A sign-in request: its ``id`` (the code is derived from it and the server's key,
    never kept: only ``code_hash``), the address, when it ends and when it was used."""

    id: str
    email: str
    code_hash: str
    created_at: datetime
    expires_at: datetime
    language: str | None = None
    used_at: datetime | None = None


@dataclass(frozen=True)
class Rating:
    """A player's (an address's) rating in a variant (service/ratings.py): openskill's
    ``mu`` and ``sigma``, the number of rated ``games``, the name of its latest seat."""

    email: str
    variant: str
    name: str | None
    mu: float
    sigma: float
    games: int
    updated_at: datetime | None = None
    is_bot: bool | None = None  # a bot account's (None: not known to the reader)

    @property
    def ordinal(self) -> float:
        """The leaderboard's number: mu - 3 sigma (a new player starts near 0)."""
        return self.mu - 3 * self.sigma


#: What a due row is (its ``kind``): the mails a batch calls for (``MAIL_KINDS``), a
#: reminder, the answer to a mail reply, a webhook call, a bot's move, the game's deadline,
#: ``plan``: a batch appended before due work existed, to plan (the upgrade), and
#: ``rating``: a finished game's ratings (service/ratings.py), ``message``: a table-talk
#: message mailed at once to a seat that asked so (talk.py), ``vacation``: a seat's
#: vacation begins (service/players.py: recorded in the game then, not before),
#: ``tournament``: a finished game's tournament runs on (service/tournaments.py),
#: ``tournament_mail``: a tournament's mail to an entrant (of no game: its round's table
#: and the standings, or the final standings), ``invitation_mail``: an invitation's mail
#: to an invitee (of no game).
MailKind = Literal["started", "timeout", "taken_over", "game_over", "your_turn"]
#: ``notify``: an event told to the channels of a seat's account (its turn, the game
#: over: service/notify_channels.py), ``notify_deadline``: its deadline near (replaced
#: with the reminders), both planning one ``push`` row per channel that wants it (one
#: delivery, ``hook_id`` its channel).
DueKind = Literal[MailKind, "reminder", "answer", "webhook", "bot", "deadline", "plan",
                  "rating", "message", "vacation", "notify", "notify_deadline", "push",
                  "tournament", "tournament_mail", "invitation_mail"]
#: A due row's state: pending, claimed by a worker, done, failed for good.
DueState = Literal["pending", "claimed", "done", "failed"]
MAIL_KINDS: tuple[MailKind, ...] = get_args(MailKind)
DUE_KINDS: tuple[DueKind, ...] = get_args(DueKind)


@dataclass(frozen=True)
class Due:
    """Work a batch (or a mail reply) calls for, at ``due_at``: its ``kind`` and target
    (a ``seat``, or a webhook ``hook_id``), the game's ``version`` it is about (a batch's
    last; ``from_version``: its first), and what some kinds need beside: a reminder's
    ``percent`` (of the seat's time used), an answer's ``reply`` (the Message-ID it
    answers) and ``args`` (the answer's outcome and references; a plan's ``mails``). A
    store keeps one row per (game, kind, version, seat, hook_id, percent, reply)."""

    kind: DueKind
    version: int
    due_at: datetime
    seat: int | None = None
    hook_id: int | None = None
    from_version: int | None = None
    percent: int | None = None
    reply: str | None = None
    args: dict[str, Any] | None = None


@dataclass(frozen=True)
class DueRow(Due):
    """A stored due row: its ``state`` (pending; claimed by a worker until
    ``claimed_until``, its job ``started_at`` or still queued; done with its ``result``;
    failed), ``attempts`` (claims so far) and ``last_error``."""

    id: int = 0
    game_id: str = ""
    state: DueState = "pending"
    attempts: int = 0
    claimed_until: datetime | None = None
    started_at: datetime | None = None
    result: str | None = None
    last_error: str | None = None
    created_at: datetime | None = None
    done_at: datetime | None = None


@dataclass(frozen=True)
class Claim:
    """A worker's hold on a due row: its id and the attempt (the number of its claims)."""

    id: int
    attempt: int


@dataclass(frozen=True)
class Finish:
    """How a claimed row ends: pending again at ``retry_at`` if given (with ``error``:
    it failed); else failed for good with an ``error``; else done, with ``result``.
    ``hook_failures``: a webhook row's attempt is recorded on its hook too (disabled at
    that many failures in a row)."""

    result: str | None = None
    error: str | None = None
    retry_at: datetime | None = None
    hook_failures: int | None = None


@dataclass(frozen=True)
class MailFailure:
    """A mail to a seat's address that failed: refused at send time (a 4xx or 5xx
    answer) or bounced later (a DSN); ``permanent``: a hard failure (5xx, a DSN's
    ``failed``), counted towards the address's failing mark."""

    game_id: str
    seat: int
    address: str
    reason: str
    permanent: bool
    at: datetime


@dataclass(frozen=True)
class Webhook:
    id: int
    game_id: str
    seat: int | None  # None: the game's host (the spectator's view)
    url: str
    secret: str
    created_at: datetime
    failures: int = 0  # consecutive failed attempts (0 after a success)
    last_error: str | None = None  # of the latest failed attempt
    disabled_at: datetime | None = None  # set after too many failures: no more deliveries


#: What an account's notification channel is: a browser's Web Push subscription or an
#: Apprise URL (ntfy, Telegram, Discord, Matrix, JSON…).
ChannelKind = Literal["push", "apprise"]


@dataclass(frozen=True)
class Channel:
    """An account's notification channel (service/notify_channels.py): ``target`` is a
    push subscription's endpoint or an Apprise URL (secret: never shown back whole),
    ``p256dh`` and ``auth`` a subscription's keys, ``events`` what it wants told."""

    id: int
    email: str
    kind: ChannelKind
    target: str
    events: tuple[str, ...]
    created_at: datetime
    p256dh: str | None = None
    auth: str | None = None
    failures: int = 0  # consecutive failed deliveries (0 after a success)
    last_error: str | None = None  # of the latest failed delivery
    last_sent_at: datetime | None = None


@dataclass(frozen=True)
class Message:
    """A table-talk message (service/talk.py): not a game event, kept beside the log.
    ``id`` counts from 1 in each game; ``sender`` is a seat (None: the host), ``to`` a
    seat (None: the table); ``version`` is the game's when it was written. A deleted
    message keeps its row (the deletion is recorded) without its text."""

    game_id: str
    id: int
    sender: int | None
    to: int | None
    text: str
    version: int
    created_at: datetime
    deleted_at: datetime | None = None


#: How a seat wants messages mailed: in its next mail, or each in a mail at once.
MAIL_MESSAGES = ("with_next", "at_once")


@dataclass(frozen=True)
class Talk:
    """A seat's table-talk settings and private notes: the seats it ``muted``, how
    messages reach it by mail, its ``notes`` (itself only) and whether its mails show
    them; ``mailed_through``: the last message id its mails have shown."""

    game_id: str
    seat: int
    muted: tuple[int, ...] = ()
    mail_messages: str = "with_next"
    notes: str = ""
    notes_in_mail: bool = False
    mailed_through: int = 0


#: The columns of a game's rows in every table, as ``transfer.dump`` gives them and
#: ``transfer.load`` takes them (due rows without their id; a store numbers them).
COLUMNS: dict[str, tuple[str, ...]] = {
    "games": tuple(f.name for f in fields(Game) if f.name not in ("seats", "hooks")),
    "seats": tuple(f.name for f in fields(Seat)),
    "events": ("game_id", "version", "type", "payload", "created_at"),
    "due": ("game_id", "kind", "version", "from_version", "seat", "hook_id", "percent",
            "reply", "args", "due_at", "state", "attempts", "claimed_until", "started_at",
            "result", "last_error", "created_at", "done_at"),
    "idempotency": ("game_id", "seat", "key", "fingerprint", "status", "version",
                    "from_version", "created_at"),
    "webhooks": ("id", "game_id", "seat", "url", "secret", "created_at", "failures",
                 "last_error", "disabled_at"),
    "messages": ("game_id", "id", "sender", "recipient", "text", "version", "created_at",
                 "deleted_at", "hidden_at", "hidden_by"),
    "talk": ("game_id", "seat", "muted", "mail_messages", "notes", "notes_in_mail",
             "mailed_through"),
}
#: Values of columns an older export lacks.
DEFAULTS: dict[str, Any] = {"failures": 0, "replay_public": True, "mail_failures": 0,
                            "claimed_by": None, "claim_on_sign_in": False,
                            "public": False, "spectators_read_chat": False,
                            "hidden_at": None, "hidden_by": None}
#: Columns holding times (aware UTC datetimes in a dump) and JSON documents.
TIME_COLUMNS = {"deadline", "created_at", "updated_at", "joined_at", "disabled_at",
                "due_at", "claimed_until", "started_at", "done_at", "deleted_at",
                "expires_at", "closed_at", "answered_at", "hidden_at", "withdrawn_at",
                "finished_at"}
JSON_COLUMNS = {"options", "payload", "time_control", "args", "muted", "clock", "settings",
                "seating", "outcome"}

#: One game's rows: table name → rows (column → value).
GameRows = dict[str, list[dict[str, Any]]]
