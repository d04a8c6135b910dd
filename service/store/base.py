"""What the service and the workers ask of a store: the ``EventStore`` protocol (made of
one protocol per concern: ``GamesAndSeats``, ``EventLog``, ``DueWork``, ``MailFailures``,
``Webhooks``, ``TableTalk``, ``Upkeep``) and the records it reads and writes.

A game is an append-only log of events; its version is the number of events. Beside the
log a store keeps a row per game (its summary: status, whose turn, the deadline), the
seats (only hashes of their tokens), the first answer to each idempotent submission, the
due work (``due``: every mail, webhook call, bot move, reminder and deadline a batch calls
for, written in the append's transaction, claimed and finished by the workers), the
webhooks, and (not per game) the answers to mail replies each address was allowed
lately. Two stores keep these promises: SQLite
(``sqlite.py``, the embedded default) and PostgreSQL (``postgres.py``, for many hosts);
``tests/store/test_contract.py`` holds both to them.

A store feature is a method here, its implementation in each store, a migration step in
each, and a case in the contract test. ``COLUMNS`` is every table's columns as
``dump_game``/``load_game`` (and so ``alhambra-pbem export``/``import``) carry them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from ..errors import (  # noqa: F401 - what stores raise
    GameNotFound,
    TooManyMessages,
    TooManyWebhooks,
    VersionConflict,
)

Event = dict[str, Any]


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
    status: str  # open (seats to fill), active, over
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


@dataclass(frozen=True)
class GameUpdate:
    """The game row's fields that an append sets, with the events."""

    status: str
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

    @property
    def ordinal(self) -> float:
        """The leaderboard's number: mu - 3 sigma (a new player starts near 0)."""
        return self.mu - 3 * self.sigma


#: What a due row is (its ``kind``): the mails a batch calls for (``MAIL_KINDS``), a
#: reminder, the answer to a mail reply, a webhook call, a bot's move, the game's deadline,
#: ``plan``: a batch appended before due work existed, to plan (the upgrade), and
#: ``rating``: a finished game's ratings (service/ratings.py), ``message``: a table-talk
#: message mailed at once to a seat that asked so (talk.py).
MAIL_KINDS = ("started", "timeout", "taken_over", "game_over", "your_turn")
DUE_KINDS = (*MAIL_KINDS, "reminder", "answer", "webhook", "bot", "deadline", "plan",
             "rating", "message")


@dataclass(frozen=True)
class Due:
    """Work a batch (or a mail reply) calls for, at ``due_at``: its ``kind`` and target
    (a ``seat``, or a webhook ``hook_id``), the game's ``version`` it is about (a batch's
    last; ``from_version``: its first), and what some kinds need beside: a reminder's
    ``percent`` (of the seat's time used), an answer's ``reply`` (the Message-ID it
    answers) and ``args`` (the answer's outcome and references; a plan's ``mails``). A
    store keeps one row per (game, kind, version, seat, hook_id, percent, reply)."""

    kind: str
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
    state: str = "pending"
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


def message_due(message: Message, seats: Sequence[int]) -> list[Due]:
    """The due rows that mail ``message`` at once to ``seats``."""
    return [Due("message", message.version, message.created_at, seat=s,
                reply=f"message-{message.id}", args={"message": message.id}) for s in seats]


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


def check_webhook_limits(counts: tuple[int, int], seat: int | None,
                         limits: tuple[int, int] | None) -> None:
    """TooManyWebhooks if a game with (its hooks, the seat's hooks) may have no more."""
    if limits is None:
        return
    if counts[0] >= limits[0]:
        raise TooManyWebhooks(limits[0], "game")
    if counts[1] >= limits[1]:
        raise TooManyWebhooks(limits[1], "host" if seat is None else "seat")


#: What ``EventStore.count`` counts.
TABLES = ("games", "seats", "events", "due", "idempotency", "webhooks", "messages", "talk")

#: The columns of a game's rows in every table, as ``dump_game`` gives them and
#: ``load_game`` takes them (due rows without their id; a store numbers them).
COLUMNS: dict[str, tuple[str, ...]] = {
    "games": ("id", "variant", "options", "players", "status", "phase", "version",
              "current_seat", "time_per_move", "timeout_policy", "deadline", "imported",
              "created_at", "updated_at", "host_token_hash", "invite_hash",
              "takeover_after_timeouts", "takeover_bot", "time_control", "replay_public",
              "public", "spectators_read_chat", "clock"),
    "seats": ("game_id", "seat", "name", "email", "token_hash", "joined_at",
              "token_generation", "bot", "language", "mail_failures", "mail_failing"),
    "events": ("game_id", "version", "type", "payload", "created_at"),
    "due": ("game_id", "kind", "version", "from_version", "seat", "hook_id", "percent",
            "reply", "args", "due_at", "state", "attempts", "claimed_until", "started_at",
            "result", "last_error", "created_at", "done_at"),
    "idempotency": ("game_id", "seat", "key", "fingerprint", "status", "version",
                    "from_version", "created_at"),
    "webhooks": ("id", "game_id", "seat", "url", "secret", "created_at", "failures",
                 "last_error", "disabled_at"),
    "messages": ("game_id", "id", "sender", "recipient", "text", "version", "created_at",
                 "deleted_at"),
    "talk": ("game_id", "seat", "muted", "mail_messages", "notes", "notes_in_mail",
             "mailed_through"),
}
#: Values of columns an older export lacks.
DEFAULTS: dict[str, Any] = {"failures": 0, "replay_public": True, "mail_failures": 0,
                            "public": False, "spectators_read_chat": False}
#: Columns holding times (aware UTC datetimes in a dump) and JSON documents.
TIME_COLUMNS = {"deadline", "created_at", "updated_at", "joined_at", "disabled_at",
                "due_at", "claimed_until", "started_at", "done_at", "deleted_at"}
JSON_COLUMNS = {"options", "payload", "time_control", "args", "muted", "clock"}

#: One game's rows: table name → rows (column → value).
GameRows = dict[str, list[dict[str, Any]]]


class GamesAndSeats(Protocol):
    """Each game's row (its summary) and its seats."""

    def create_game(self, game: Game, seats: list[Seat]) -> None:
        """Insert a new game (no events yet) and its seats."""

    def create_finished_game(self, game: Game, seats: list[Seat],
                             events: list[Event]) -> None:
        """Insert an imported game with its whole log at once."""

    def game(self, game_id: str) -> Game:
        """The game's row; GameNotFound if there is none."""

    def version(self, game_id: str) -> int:
        """The game's version (its number of events); GameNotFound if there is none."""

    def seats(self, game_id: str) -> list[Seat]:
        """The game's seats, in order."""

    def seat_by_token_hash(self, token_hash: str) -> Seat | None:
        """The seat whose token has this hash."""

    def games_hosted_by(self, token_hash: str) -> list[str]:
        """The ids of the games whose host token has this hash."""

    def list_games(self, *, status: str | None = None, ids: list[str] | None = None,
                   limit: int = 50, offset: int = 0, public: bool | None = None
                   ) -> tuple[list[Game], int]:
        """Games, newest first, and how many match. ``ids`` restricts to those games
        (``ids=[]``: none); ``public`` to the public (or private) games."""

    def rotate_token(self, game_id: str, seat: int, generation: int, token_hash: str
                     ) -> bool:
        """Give the seat a new token (its hash) of ``generation``, if the seat is at
        ``generation - 1`` still (False: another rotation came first)."""

    def join(self, game_id: str, seat: int, name: str, email: str | None,
             token_hash: str, language: str | None = None) -> bool:
        """Fill an open seat; False if it was taken meanwhile."""

    def unseat(self, game_id: str, seat: int) -> bool:
        """Open a joined seat of a game not started yet again (the creator removes who
        joined): its person or bot gone, its token generation one more (a new token for
        whoever joins next); False if the game started or the seat was open."""

    def set_language(self, game_id: str, seat: int, language: str | None) -> None:
        """The seat's language from now on (GameNotFound: no such game or seat)."""

    def seat_bot(self, game_id: str, seat: int, name: str, bot: str) -> bool:
        """Fill an open seat with a bot of level ``bot`` (no token, no e-mail); False if
        the seat was taken meanwhile."""


class EventLog(Protocol):
    """The append-only log of each game, and the first answer to each idempotent
    submission. ``append`` checks the expected version inside its transaction, so of two
    writers racing for one version exactly one succeeds."""

    def read(self, game_id: str, since: int = 0, until: int | None = None) -> list[Event]:
        """The events after version ``since`` up to ``until`` (inclusive; None: the last),
        in order: the first has version ``since + 1``."""

    def read_timed(self, game_id: str, types: Sequence[str]
                   ) -> list[tuple[int, Event, datetime]]:
        """The game's events of ``types``, in order, each as (version, event, the time
        its batch was appended: ``update.at`` of its ``append``)."""

    def append(self, game_id: str, expected_version: int, events: list[Event],
               update: GameUpdate, answer: Answer | None = None, due: Sequence[Due] = (),
               replaces: Sequence[str] = (), done: Claim | None = None) -> int:
        """Append ``events`` after ``expected_version`` with the row's new fields, the
        batch's ``due`` work (the game's pending rows of the kinds it ``replaces`` are
        done, result "replaced"), the idempotent ``answer``, and ``done``: the due row
        this append is the result of, marked done; all or nothing, at ``update.at`` (the
        events' time; None: now). Returns the new version; VersionConflict (nothing
        written) if the game is at another version, AnswerExists (nothing written) if the
        ``answer``'s key has one stored at or after its ``forgotten_before`` (an older
        one is replaced): the look-up of a retry is this append's own."""

    def idempotent_answer(self, game_id: str, seat: int, key: str) -> Answer | None:
        """The stored first answer to ``seat``'s submission with this key."""


class DueWork(Protocol):
    """The work a batch calls for (mails, bot moves, reminders, deadlines, webhook
    calls), claimed and finished by the workers; and the answers mail replies were
    allowed."""

    def add_due(self, game_id: str, due: Sequence[Due], done: Claim | None = None
                ) -> int:
        """Add due rows (a row already there, done or not, is kept: not added twice) and
        mark ``done`` done, in one transaction; returns how many were added."""

    def claim_due(self, limit: int = 100, lease_seconds: float = 300) -> list[DueRow]:
        """Claim up to ``limit`` rows due now (pending and due, or claimed by a worker
        whose lease ran out), earliest first, for ``lease_seconds``; each claim counts an
        attempt. Workers claiming at once get disjoint rows."""

    def release_due(self, claims: Sequence[Claim]) -> None:
        """Give claimed rows back, pending at once (they could not be handed on)."""

    def start_due(self, claim: Claim, lease_seconds: float) -> DueRow | None:
        """The claimed row for the job of ``claim`` that starts now, its lease renewed
        (its ``attempts`` the claim to finish it with); None if a job of this claim or a
        later one started already, or the row is no longer claimed. Of the jobs of a row
        claimed again while one waited in a slow queue, the first to start runs it."""

    def finish_due(self, claim: Claim, finish: Finish) -> bool:
        """End this attempt at the row (see ``Finish``); False if it was claimed again
        since (nothing written)."""

    def due_rows(self, game_id: str) -> list[DueRow]:
        """The game's due rows, by id."""

    def next_due(self) -> datetime | None:
        """When the earliest row not done becomes claimable (None: there is none)."""

    def wait_for_due(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for due work added by any process: True when
        told of some (PostgreSQL's NOTIFY); False at once where the store cannot tell
        (SQLite: the caller polls)."""

    def claim_mail_answer(self, address: str, key: str, limit: int, window_seconds: float
                          ) -> bool:
        """May the reply ``key`` from ``address`` be answered? True if it was allowed
        before (a reply delivered again), or if fewer than ``limit`` answers to the
        address were allowed in the last ``window_seconds`` (this one is counted then);
        False beyond. Counts older than the window are forgotten. (The last guard
        against mail loops: workers/mail_in.py.)"""


class MailFailures(Protocol):
    """Mails that failed, and the seat addresses that fail."""

    def record_mail_failure(self, failure: MailFailure, limit: int) -> str | None:
        """Keep ``failure``; a permanent one to the seat's current address counts one
        more hard failure, and at the ``limit``-th the address is marked failing with
        its reason (mails to it stop). Returns the seat's failing reason after it (None:
        not failing)."""

    def set_mail_address(self, game_id: str, seat: int, email: str | None) -> None:
        """The seat's address from now on (or the same, confirmed): its hard failures
        are forgotten and the failing mark cleared. GameNotFound: no such seat."""

    def mail_failures(self, game_id: str, limit: int = 50) -> list[MailFailure]:
        """The game's failed mails, newest first."""

    def count_mail_failures(self, since: datetime) -> int:
        """Failed mails (of every game) since ``since``."""


class Webhooks(Protocol):
    """The webhooks of each game and their delivery attempts."""

    def add_webhook(self, game_id: str, seat: int | None, url: str, secret: str,
                    limits: tuple[int, int] | None = None) -> Webhook:
        """Register a webhook of ``seat`` (None: the host). ``limits``: (per game, per
        seat), checked in the insert's transaction (registrations at once cannot pass
        them): TooManyWebhooks, nothing added."""

    def webhooks(self, game_id: str) -> list[Webhook]:
        """The game's webhooks, oldest first."""

    def webhook(self, hook_id: int) -> Webhook | None:
        """One webhook by id (None if there is none)."""

    def delete_webhook(self, game_id: str, hook_id: int) -> bool:
        """Remove a webhook of the game; False if it had none of that id."""

    def webhook_attempt(self, hook_id: int, error: str | None, disable_after: int) -> None:
        """Record a delivery attempt: a success (``error`` None) resets the failure count;
        a failure counts one more, keeps ``error`` and disables the hook at the
        ``disable_after``-th failure in a row."""



class Players(Protocol):
    """Players (service/players.py): sign-in requests, sessions, preferences, vacations,
    ratings, and a player's seats."""

    def add_sign_in(self, sign_in: SignIn) -> None:
        """Keep a sign-in request (the hash of its code); requests ended a day ago are
        forgotten."""

    def sign_in(self, sign_in_id: str) -> SignIn | None:
        """One sign-in request by id (None: none, or forgotten)."""

    def use_sign_in(self, code_hash: str, at: datetime) -> str | None:
        """Mark the request of this code used at ``at`` and return its address, if it is
        unused and not expired at ``at``; None otherwise (single use: of two uses at once
        one wins)."""

    def add_session(self, token_hash: str, email: str, at: datetime) -> Player:
        """A player session for ``email`` (the hash of its token); the player is made at
        its first session. Returns the player."""

    def session_player(self, token_hash: str) -> Player | None:
        """The player whose session token has this hash (None: no such session)."""

    def delete_session(self, token_hash: str) -> bool:
        """End a session; False if there was none."""

    def player(self, email: str) -> Player | None:
        """The player of this address (None: it never signed in)."""

    def update_player(self, email: str, changes: dict[str, Any]) -> Player:
        """Set some of a player's preferences (``language``, ``notify``,
        ``digest_hour``); returns the player (KeyError: no such player)."""

    def digest_players(self, hour: int | None) -> list[Player]:
        """The players on the digest (``notify`` digest) whose hour is ``hour`` (None:
        every hour)."""

    def mark_digest(self, email: str, day: str) -> bool:
        """Take the player's digest of ``day`` (``YYYY-MM-DD``): True once per day
        (whoever asks first sends it), False after."""

    def vacations(self, email: str) -> list[tuple[datetime, datetime]]:
        """The player's vacation spans (since, until), earliest first."""

    def set_vacation(self, email: str, since: datetime | None, until: datetime | None,
                     at: datetime) -> None:
        """A change of the player's vacation at ``at``: its spans end at ``at`` at the
        latest (one not begun is dropped), then (since, until) is added (None: none)."""

    def ratings(self, variant: str, emails: Sequence[str]) -> dict[str, Rating]:
        """The ratings of these addresses in ``variant`` (an address never rated: none)."""

    def rate(self, game_id: str, before: Sequence[Rating], after: Sequence[Rating]
             ) -> str:
        """Record a finished game's new ratings, once: ``rated`` (written), ``already``
        (the game was rated: nothing written), or ``conflict`` (a rating changed since
        ``before`` was read: nothing written; read again). ``before``: the ratings read
        (games 0: none yet)."""

    def leaderboard(self, variant: str, limit: int = 50) -> list[Rating]:
        """The ratings of ``variant``, the best ordinal first."""

    def ratings_of(self, email: str) -> list[Rating]:
        """An address's ratings, by variant."""

    def seats_of(self, email: str, finished: bool = False) -> list[tuple[Game, Seat]]:
        """Every seat with this address (in lower case) and its game: of games not over
        (open or active), or with ``finished`` of games over; by game creation."""


class TableTalk(Protocol):
    """Messages between seats and each seat's talk settings and notes (service/talk.py),
    kept beside the log, not in it."""

    def add_message(self, message: Message, limit: tuple[int, float] | None = None,
                    notify: Sequence[int] = ()) -> Message:
        """Keep ``message`` (its ``id`` ignored: the game's next) and, in the same
        transaction, a ``message`` due row for each seat of ``notify`` (mailed at once).
        ``limit``: (messages, seconds): TooManyMessages, nothing written, if its sender
        wrote that many in the window before its ``created_at``. GameNotFound."""

    def messages(self, game_id: str, since: int = 0) -> list[Message]:
        """The game's messages after id ``since``, by id, deleted ones too (no text)."""

    def message_marks(self, game_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """Per game of ``game_ids`` with messages: (its last message id, how many of its
        messages are deleted), in one query (what live streams compare)."""

    def delete_message(self, game_id: str, message_id: int, at: datetime) -> bool:
        """Remove a message's text, recording when; False if there is no such message
        (or it was deleted already)."""

    def talk(self, game_id: str) -> list[Talk]:
        """The seats' talk settings, by seat (a seat that never set any has no row)."""

    def set_talk(self, talk: Talk) -> None:
        """A seat's muted seats, mail choice and notes (not ``mailed_through``)."""

    def mailed_through(self, game_id: str, seat: int, message_id: int) -> None:
        """The seat's mails have shown the messages up to ``message_id`` (kept if
        higher already)."""


class Upkeep(Protocol):
    """Counting, migrating, export and import, closing."""

    def count(self, table: str) -> int:
        """The number of rows of one of ``TABLES`` (health checks, tests)."""

    def prune(self, answers_before: datetime, due_before: datetime) -> dict[str, int]:
        """The workers' periodic upkeep: remove the idempotent answers stored before
        ``answers_before`` (a move names the version it was made against, so a retry
        after that is refused as stale, never played twice) and the due rows done
        before ``due_before``. Returns how many rows of each table went."""

    def migrate(self) -> tuple[int, int]:
        """Bring the schema up to date, one step (and transaction) at a time; returns
        the schema versions before and after. SchemaTooNew for a newer schema."""

    def game_ids(self) -> list[str]:
        """Every game's id, oldest first (export)."""

    def dump_game(self, game_id: str) -> GameRows:
        """Every row of one game in each of ``TABLES`` (with the ``COLUMNS``; due rows
        by id, events by version); GameNotFound if there is none."""

    def load_game(self, rows: GameRows) -> None:
        """Insert a game's rows as ``dump_game`` gives them, all or nothing (import);
        webhooks keep their ids."""

    def close(self) -> None:
        """Release this process's (or thread's) connections."""


class EventStore(GamesAndSeats, EventLog, DueWork, MailFailures, Webhooks, Players,
                 TableTalk, Upkeep, Protocol):
    """What the service and the workers ask of a store, by concern. Every write is
    atomic."""
