"""What the application layer (``Games``, service/games.py) returns: typed results.

Frozen dataclasses of what was read or done, in the application's terms (the store's
``Game`` row, the engine's ``Move`` and view); ``present.py`` alone turns them into the
API's JSON, the webhook body and the lines the mails read. The workers read their
fields; nobody parses an API answer back.

Typed here: a game's summary and document (``GameSummary``, ``GameDocument``), the games
list (``GameList``), event items and pages (``EventItem``, ``EventPage``), legal moves
(``LegalMoves``), a preview (``Previewed``), a batch played (``Played``: a submission, a
bot's move, a resignation, a time-out's default moves; ``TimedOut``); what the workers'
mails and webhooks show of a batch (``MailBatch``, ``HookBatch``); of the table talk
(service/talk.py), a message as its reader sees it (``MessageItem``), what a mail shows
of the talk (``MailTalk``) and a record with its messages (``Recorded``): frozen
dataclasses; and of the players (service/players.py), a game in a player's list
(``MyGame``).

The answers that hand out a secret (``Created``, ``Joined``, ``Rotated``) and
``BotSeated`` are TypedDicts: flat documents their callers index, which the presenter
completes (``join_url``, the new game's document).

Left as small JSON documents (a few fields each, nothing a worker reads):
``set_language``, ``set_mail_address``, ``mail_failures``, the talk's settings,
mutes and notes, a player's own document (``GET /me``) and the ratings; the engine's
own documents (``engine.view``, a game record) stay what the engine makes of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict

import engine
from engine import Move
from engine.overview import NoCell
from engine.words import Msg

from .store import Game, Player, Seat, Webhook


@dataclass(frozen=True)
class EventItem:
    """One event as served: its ``version``, the ``event`` redacted for the reader, and
    the engine's words for it (``text``, English with its message id; None when not
    worth telling)."""

    version: int
    event: dict[str, Any]
    text: Msg | None


@dataclass(frozen=True)
class SeatSummary:
    """A seat as the reader may see it: ``email`` is only the reader's own seat's (None
    for the others), ``mail_failing`` only its own's or, for the host, every seat's."""

    seat: int
    name: str | None
    joined: bool
    bot: str | None
    language: str | None
    email: str | None = None
    mail_failing: str | None = None


@dataclass(frozen=True)
class GameSummary:
    """The game's row as the reader may see it: ``your_seat`` (None: not a seat of it),
    ``hosted`` (the reader is its host)."""

    game: Game
    seats: tuple[SeatSummary, ...]
    your_seat: int | None
    hosted: bool

    @classmethod
    def of(cls, game: Game, seats: Iterable[Seat], your_seat: int | None, hosted: bool
           ) -> GameSummary:
        """The summary of ``game`` and its ``seats`` for that reader: what it may not see
        left out."""
        def summary(s: Seat) -> SeatSummary:
            return SeatSummary(
                s.seat, s.name, s.token_hash is not None or bool(s.bot), s.bot, s.language,
                email=s.email if seat_shows_email(your_seat, s.seat) else None,
                mail_failing=s.mail_failing
                if seat_shows_failing(your_seat, hosted, s.seat) else None)
        return cls(game, tuple(summary(s) for s in seats), your_seat, hosted)

    def shows_email(self, seat: int) -> bool:
        return seat_shows_email(self.your_seat, seat)

    def shows_failing(self, seat: int) -> bool:
        return seat_shows_failing(self.your_seat, self.hosted, seat)


def seat_shows_email(your_seat: int | None, seat: int) -> bool:
    """An address is shown only to its own seat."""
    return seat == your_seat


def seat_shows_failing(your_seat: int | None, hosted: bool, seat: int) -> bool:
    """A failing address is shown to its own seat and to the host."""
    return seat == your_seat or hosted


@dataclass(frozen=True)
class SeatClock:
    """A seat's clock now: whole seconds left, and the end of its vacation (if on one)."""

    time_left: int
    vacation_until: datetime | None


@dataclass(frozen=True)
class GameDocument:
    """The summary, the engine's view for the reader (None until the game starts) and
    the clocks now (``clocks``: one per seat of the summary, in its order;
    ``day_off_until``: None unless a day off runs)."""

    summary: GameSummary
    view: dict[str, Any] | None
    clocks: tuple[SeatClock, ...]
    day_off_until: datetime | None


@dataclass(frozen=True)
class GameList:
    """A page of games, newest first, and how many there are in all."""

    total: int
    games: tuple[GameSummary, ...]


@dataclass(frozen=True)
class EventPage:
    """A game's events after a version: ``version`` is the game's (at least the last
    item's)."""

    game_id: str
    version: int
    items: tuple[EventItem, ...]


@dataclass(frozen=True)
class LegalMoves:
    """A seat's legal moves at ``version`` (``phase`` None: the game has not started),
    and the tiles to place that fit no cell of its city (``no_cell``)."""

    game_id: str
    version: int
    seat: int
    your_turn: bool
    phase: str | None
    moves: tuple[Move, ...]
    no_cell: tuple[NoCell, ...]


@dataclass(frozen=True)
class Previewed:
    """What planned moves would show, nothing recorded: the events up to the first draw,
    the seat's view after them, whether its turn ends with them, and its legal moves
    after them."""

    game_id: str
    version: int
    items: tuple[EventItem, ...]
    view: dict[str, Any]
    turn_ends: bool
    moves: tuple[Move, ...]
    no_cell: tuple[NoCell, ...]


@dataclass(frozen=True)
class Played:
    """A batch recorded for ``seat`` (or the first answer again: ``replayed``): the
    game's new ``version``, its events as the seat sees them (``items``, versions from
    the batch's first), the seat's ``view`` after them, the seat to act now
    (``current``; None once the game is over) and ``bot`` (the level of the bot that
    plays the seat from now on, after a resignation)."""

    game_id: str
    seat: int
    version: int
    items: tuple[EventItem, ...]
    view: dict[str, Any]
    current: int | None
    replayed: bool = False
    bot: str | None = None
    turn_mail: bool = False  # the batch mails the seat its turn (due work written with it)

    def _said(self, own: bool) -> tuple[Msg, ...]:
        return tuple(i.text for i in self.items if i.text and
                     ("move" in i.event and i.event.get("seat") == self.seat) == own)

    @property
    def own(self) -> tuple[Msg, ...]:
        """The words of the seat's own moves, as the history says them."""
        return self._said(True)

    @property
    def news(self) -> tuple[Msg, ...]:
        """The words of the batch's other events, as the seat sees them."""
        return self._said(False)


@dataclass(frozen=True)
class MailBatch:
    """What the mails about a batch show (the workers render them): the game as read
    (its row, seats and clocks), its seats' signed-in players, the seats on vacation now
    (until when), the batch's events (versions ``from_version``..``to_version``) and the
    state at ``to_version`` exactly."""

    game: Game
    players: Mapping[int, Player]
    away: Mapping[int, datetime]
    events: tuple[dict[str, Any], ...]
    from_version: int
    to_version: int
    state: engine.State


@dataclass(frozen=True)
class HookBatch:
    """A webhook's delivery of a batch: the hook, the batch's events as its seat (None:
    the host, the spectator's view) sees them, and the language they are said in (the
    seat's; the host's: English)."""

    hook: Webhook
    first: int
    version: int
    items: tuple[EventItem, ...]
    language: str


@dataclass(frozen=True)
class MyGame:
    """A game with a seat of the player's address, as the player's list shows it:
    ``seat`` is the player's, ``your_turn`` whether that seat is to act now (then
    ``deadline`` is its deadline), ``token`` the seat's token to open it (None: a bot
    plays it, or it was never taken)."""

    game: Game
    seat: int
    name: str | None
    players: tuple[tuple[int, str | None, str | None], ...]  # (seat, name, bot level)
    current_name: str | None
    your_turn: bool
    deadline: datetime | None
    token: str | None

    @property
    def others(self) -> list[str | None]:
        """The names of the other seats, in seat order."""
        return [name for seat, name, _ in self.players if seat != self.seat]


@dataclass(frozen=True)
class TimedOut:
    """What a deadline did: ``applied`` (the default moves, ``played``), ``stale`` (the
    game moved on, or the seat is not to act), ``early`` (the deadline is at
    ``deadline``, later: come back then) or ``no-move``."""

    outcome: str
    played: Played | None = None
    deadline: datetime | None = None


@dataclass(frozen=True)
class MessageItem:
    """A table-talk message as its reader may see it: ``sender`` a seat (None: the
    host), ``to`` a seat (None: the table), with their names; its ``text`` is gone
    ("") once ``deleted``; ``version``: the game's when it was written."""

    id: int
    sender: int | None
    from_name: str | None
    to: int | None
    to_name: str | None
    text: str
    created_at: datetime
    version: int
    deleted: bool


@dataclass(frozen=True)
class MailTalk:
    """What a mail to a seat shows of the talk: its messages not mailed yet (``last``:
    the id to mark once the mail is sent; 0: none) and its notes if it asked for them."""

    messages: tuple[MessageItem, ...]
    last: int
    notes: str | None


@dataclass(frozen=True)
class Recorded:
    """A finished game's record (the engine's document, ``engine.record``) and the
    table-talk messages its reader may read."""

    record: dict[str, Any]
    messages: tuple[MessageItem, ...]


class SeatToken(TypedDict):
    """A seat's secret token, given once (on creation, joining, rotation)."""

    seat: int
    name: str
    token: str


class Created(TypedDict):
    """A new game: its host token, its invite code (None: no seat open) and the tokens
    of the seats named at creation."""

    game_id: str
    host_token: str
    invite_code: str | None
    seats: list[SeatToken]


class Joined(TypedDict):
    """A seat taken with the invite code (or in a public game), and its token."""

    game_id: str
    seat: int
    name: str
    token: str


class Rotated(TypedDict):
    """A seat's new token (the old one stops working)."""

    game_id: str
    seat: int
    token: str


class BotSeated(TypedDict):
    """A bot of level ``bot`` seated by the host as ``name``."""

    game_id: str
    seat: int
    name: str
    bot: str
