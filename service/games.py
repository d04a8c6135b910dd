"""The application layer: what the API (and the workers) do with games, without HTTP.

Create, join, read, list, submit moves, records, webhooks. The engine decides every rule;
this module checks who may do what (``auth.Caller``), loads states, asks the engine, and
appends the resulting events through the store. What it reads and does comes back as
the typed results of ``results.py`` (a few one-field answers and the engine's own
documents excepted, as it says); ``present.py`` makes the API's documents, the webhook
body and the mails' lines of them. Refusals are the domain errors of
``errors.py`` (and the engine's own). A small in-process cache keeps the latest State of
recently used games; it is refreshed from the store's version on every use, so several
processes can share one database (``tests/service/test_cache.py`` checks it against a
fresh replay).
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast

import engine
from engine.bots import LEVELS, choose
from engine.events import GameCreated, Vacation
from engine.overview import tiles_without_cell
from engine.record import RecordError, export_record, import_record
from engine.words import msg

from . import due as planned
from . import i18n, names, times
from .auth import (
    PERSONAL_PREFIX,
    SESSION_PREFIX,
    Caller,
    hash_token,
    new_invite_code,
    new_token,
    same_hash,
    seat_token,
)
from .clock import TIMED_EVENTS, Clock, ControlError, TimeControl, seconds
from .errors import (
    AccountSuspended,
    AlreadySeated,
    Blocked,
    DomainError,
    Forbidden,
    GameFull,
    GameNotFound,
    GameNotStarted,
    GameOver,
    IdempotencyKeyReused,
    InvalidInvite,
    InvalidMove,
    InvalidOption,
    InvalidRecord,
    InvalidToken,
    NamesAlike,
    OutOfTurn,
    RecordUnavailable,
    SeatNotRemovable,
    SeatPlayedByBot,
    SeatTaken,
    TooManyWebhooks,
    VersionConflict,
    WebhookNotFound,
)
from .i18n import message
from .results import (
    BotSeated,
    Created,
    EventItem,
    EventPage,
    GameDocument,
    GameList,
    GameSummary,
    HookBatch,
    Joined,
    LegalMoves,
    MailBatch,
    Played,
    Previewed,
    Rotated,
    SeatClock,
    SeatToken,
    TimedOut,
)
from .store import (
    MAIL_KINDS,
    Answer,
    AnswerExists,
    Claim,
    EventStore,
    Game,
    GameUpdate,
    Message,
    Player,
    Seat,
    Webhook,
)
from .webhook_urls import check_url

log = logging.getLogger(__name__)

TIMEOUT_POLICIES = ("default_move",)


def from_store(events: list[dict[str, Any]]) -> list[engine.Event]:
    """The store's events as the engine's: the store keeps each event as the JSON document
    the engine decided (or a verified record held), so no field is checked again."""
    return cast(list[engine.Event], events)


def to_store(events: list[engine.Event]) -> list[dict[str, Any]]:
    """The engine's events as the store takes them (JSON documents, written unchanged)."""
    return cast(list[dict[str, Any]], events)


def claimed(game: Game) -> set[int]:
    """The seats of ``game`` an account claimed (and no bot plays): their notices go to
    the account's channels (service/notify_channels.py)."""
    return {s.seat for s in game.seats if s.claimed_by and s.bot is None}


def check_level(level: str, field: str) -> str:
    """A bot level the engine plays (engine.bots.LEVELS), or InvalidOption naming
    ``field``."""
    if level not in LEVELS:
        raise InvalidOption(field, msg("unknown bot level {level}; this server's bots are "
                                       "{levels}", level=repr(level),
                                       levels=", ".join(LEVELS)))
    return level


def bot_name(seat: int, level: str) -> str:
    """The name of a seat created as a bot, unless one is given."""
    return f"Bot {seat + 1} ({level})"


def check_variant(variant: str, players: int, options: dict[str, Any]) -> dict[str, Any]:
    """Validate through the engine's variants (no list of names here): the options with
    their defaults, or InvalidOption naming the field."""
    v = engine.VARIANTS.get(variant)
    try:
        if v is None:
            raise engine.OptionError("variant", msg("unknown variant {variant}; known: "
                                                    "{known}", variant=repr(variant),
                                                    known=str(sorted(engine.VARIANTS))))
        return v.check(players, options)
    except engine.OptionError as exc:
        raise InvalidOption(exc.field, message(exc)) from None


def variants() -> list[dict[str, Any]]:
    """The variants the engine plays, with their player counts and option defaults."""
    return [{"name": name, "min_players": v.min_players, "max_players": v.max_players,
             "options": dict(v.options)} for name, v in sorted(engine.VARIANTS.items())]


def neutral_name(variant: str, players: int) -> str | None:
    """Dirk's or Juan's name in a two-player game, None in the others."""
    return engine.VARIANTS[variant].neutral_name if players == 2 else None


def seat_names(game: Game, state: engine.State) -> list[str]:
    """The seats' names as the service calls them: its rows' (a deleted account's seat by
    the placeholder, service/players.py), else the log's (``state``'s)."""
    rows = {s.seat: s.name for s in game.seats}
    return [rows.get(i) or logged for i, logged in enumerate(state.seats)]


def items_as_seen(events: list[engine.Event], first_version: int, seat: int | None,
                over: bool, names: list[str], neutral: str | None,
                state: engine.State | None = None) -> list[EventItem]:
    """Events as served (the API, webhooks): each with its version, redacted for ``seat``,
    and the engine's words for it (``text``, None when not worth telling; ``state``, the
    game at or after the events, gives double-sided tiles their faces)."""
    items = []
    for version, event in enumerate(events, start=first_version):
        shown = engine.redact_event(event, seat, over)
        if shown["type"] == "game_created" and len(names) == len(shown["seats"]):
            shown = {**shown, "seats": list(names)}  # the seats as called now
        items.append(EventItem(version, shown,
                               engine.describe(shown, names, neutral, state)))
    return items


def read_moves(text: str | None, items: list[dict[str, Any]] | None) -> list[engine.Move]:
    """The moves of a submission: notation ``text`` (NotationError) or structured
    ``items`` (InvalidMove naming the first bad one)."""
    if text is not None:
        return engine.parse_moves(text)
    out = []
    for i, data in enumerate(items or []):
        try:
            move = engine.Move.from_json(data)
            if engine.parse_move(str(move)) != move:
                raise ValueError("fields that do not belong to this action")
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            raise InvalidMove(i, message(exc)) from None
        out.append(move)
    return out


#: A game's settings as a create request gives them (without its seats): what an
#: invitation or a tournament keeps for the games it makes (``create_seated``).
GAME_SETTINGS = ("variant", "options", "time_per_move", "time_control", "replay_public",
                 "spectators_read_chat", "timeout_policy", "takeover_after_timeouts",
                 "takeover_bot")


def account_seat(player: Player) -> dict[str, Any]:
    """The seat spec of an account's seat, claimed from the start and named by its
    handle (the games invitations and tournaments make)."""
    return {"name": player.handle, "email": player.email, "language": player.language,
            "claimed_by": player.email}


class StateCache:
    """The States of the most recently used games (read-only: copy to change): of each,
    its ``depth`` latest versions seen here, so that a reader a few batches behind (a
    worker's mail about a batch the bots have played on from) rolls forward from one."""

    def __init__(self, size: int = 512, depth: int = 1) -> None:
        self.size, self.depth = size, depth
        self._states: OrderedDict[str, list[engine.State]] = OrderedDict()  # oldest first
        self._lock = threading.Lock()

    def get(self, game_id: str, version: int | None = None) -> engine.State | None:
        """The latest State kept of the game at or before ``version`` (None: any)."""
        with self._lock:
            states = self._states.get(game_id)
            if states is None:
                return None
            self._states.move_to_end(game_id)
            return next((s for s in reversed(states)
                         if version is None or s.version <= version), None)

    def put(self, game_id: str, state: engine.State) -> None:
        with self._lock:
            states = self._states.setdefault(game_id, [])
            self._states.move_to_end(game_id)
            if any(s.version == state.version for s in states):
                return
            states.append(state)
            states.sort(key=lambda s: s.version)
            del states[:-self.depth]
            while len(self._states) > self.size:
                self._states.popitem(last=False)


@dataclass(frozen=True)
class WebhookPolicy:
    """What webhooks a game may have (the settings ``ALHAMBRA_WEBHOOK*``)."""

    allow_private: bool = False
    per_game: int = 10
    per_seat: int = 3


class Games:
    def __init__(self, store: EventStore, cache_size: int = 512, secret_key: bytes | None = None,
                 min_time_per_move: int = 60, webhook_policy: WebhookPolicy | None = None,
                 takeover_bot: str = "random", bot_turns: int = 1000,
                 reminders: Sequence[float] = (0.5, 0.9), messages_per_hour: int = 30,
                 idempotency_retention: float = 86400.0, cache_depth: int = 1,
                 rate_bot_accounts: bool = False) -> None:
        self.store = store
        self.rate_bot_accounts = rate_bot_accounts  # people against bot accounts rated?
        self.messages_per_hour = messages_per_hour  # a seat's messages (service/talk.py)
        #: seconds an idempotent answer is given again (ALHAMBRA_IDEMPOTENCY_RETENTION)
        self.idempotency_retention = idempotency_retention
        self.reminders = tuple(reminders)  # fractions of a seat's time (ALHAMBRA_REMINDERS)
        self.webhook_policy = webhook_policy or WebhookPolicy()
        self.takeover_bot = takeover_bot  # the server's default takeover level (settings)
        self.bot_turns = bot_turns  # turns of a game its bots play at once (play_bot)
        self.cache = StateCache(cache_size, cache_depth) if cache_size else None
        self.secret_key = secret_key if secret_key is not None else secrets.token_bytes(32)
        self.min_time_per_move = min_time_per_move

    def seat_token(self, game_id: str, seat: int, generation: int | None = None) -> str:
        """The seat's secret token at ``generation`` (None: its current one); derived,
        never stored (auth.py)."""
        if generation is None:
            generation = next(s.token_generation for s in self.game(game_id).seats
                              if s.seat == seat)
        return seat_token(self.secret_key, game_id, seat, generation)

    def caller(self, token: str | None) -> Caller:
        """Who holds ``token`` (None: nobody, a spectator); InvalidToken if no one. A seat
        token costs one look-up, as before accounts acted in games: a personal token
        (``pat_…``) is looked up first and a session's (``p_…``) last, by their prefixes
        (a seat token that happens to start so is still found)."""
        if token is None:
            return Caller()
        h = hash_token(token)
        if token.startswith(PERSONAL_PREFIX):
            personal = self.store.players.token(h, times.now())
            if personal is not None:
                if personal.suspended:
                    raise AccountSuspended()
                return Caller(token_hash=h, account=personal.email,
                              scopes=frozenset(personal.scopes))
        seat = self.store.seat_by_token_hash(h)
        if seat is not None:
            return Caller(token_hash=h, game_id=seat.game_id, seat=seat.seat)
        hosted = self.store.games_hosted_by(h)
        if hosted:
            return Caller(token_hash=h, hosted=tuple(hosted))
        if token.startswith(SESSION_PREFIX):
            player = self.store.players.session_player(h)
            if player is not None:
                if player.suspended_at is not None:
                    raise AccountSuspended(player.suspended_reason)
                return Caller(token_hash=h, account=player.email)
        raise InvalidToken()

    # -- reading -------------------------------------------------------------------------

    def game(self, game_id: str) -> Game:
        """The game's row (GameNotFound)."""
        return self.store.game(game_id)

    def variant(self, game_id: str) -> str | None:
        """The game's variant (from a State kept here, else its row); None: no such
        game."""
        kept = self.cache.get(game_id) if self.cache else None
        if kept is not None:
            return kept.variant_name
        try:
            return self.game(game_id).variant
        except GameNotFound:
            return None

    def state(self, game_id: str, version: int | None = None) -> engine.State:
        """The game's State at ``version`` (None: the latest), exactly that version for
        every caller. The cache holds the latest States of each game known here: the
        version is rolled forward from the latest of them at or before it, else the log
        replayed. Do not modify the result."""
        if version is None:
            version = self.game(game_id).version
        cached = self.cache.get(game_id, version) if self.cache else None
        if cached is not None and cached.version == version:
            return cached
        if cached is not None and cached.version < version:
            state = cached.copy()
            events = from_store(self.store.read(game_id, since=cached.version,
                                                 until=version))
            for event in events:
                engine.evolve(state, event)
        else:
            state = engine.replay(from_store(self.store.read(game_id, until=version)))
        if state.version != version:
            raise ValueError(f"game {game_id} has no version {version}")
        if self.cache:
            self.cache.put(game_id, state)
        return state

    def summary(self, game: Game, caller: Caller) -> GameSummary:
        """The game's row as the caller may see it (an e-mail address: only to the seat
        it belongs to; a failing address: to it and to the host)."""
        return GameSummary.of(game, game.seats, caller.seat_in(game), caller.hosts(game))

    def document(self, game: Game, caller: Caller) -> GameDocument:
        """The summary and the engine's view for the caller (Forbidden: another game's
        token); the view is None until the game starts."""
        seat = caller.viewer(game)
        summary = self.summary(game, caller)
        state = self.state(game.id, game.version) if game.version else None
        view = engine.view(state, seat, seat_names(game, state)) if state else None
        now = times.now()
        clock = self.clock(game)
        left = clock.time_left(now)
        clocks = tuple(SeatClock(seconds(left[s.seat]), clock.vacation_until(s.seat, now))
                       for s in summary.seats)
        return GameDocument(summary, view, clocks, clock.control.day_off_until(now)
                            if game.status == "active" else None)

    def list_games(self, caller: Caller, status: str | None, limit: int, offset: int
                   ) -> GameList:
        """Newest first. Anonymous: the open games (to join), or (``active``) the public
        games in play (to watch); a seat token: its seat's game; a host token: the games
        it hosts."""
        if caller.anonymous:
            if status == "active":  # public games in play, to watch
                games, total = self.store.list_games(status="active", public=True,
                                                     limit=limit, offset=offset)
                return GameList(total, tuple(self.summary(g, caller) for g in games))
            if status not in (None, "open"):
                return GameList(0, ())
            games, total = self.store.list_games(status="open", limit=limit, offset=offset)
        else:
            ids = ([caller.game_id] if caller.game_id else []) + list(caller.hosted)
            games, total = self.store.list_games(status=status, ids=ids, limit=limit,
                                                 offset=offset)
        return GameList(total, tuple(self.summary(g, caller) for g in games))

    def events(self, game: Game, caller: Caller, since: int) -> EventPage:
        """The events after version ``since``, redacted for the caller."""
        seat = caller.viewer(game)
        items = self.items_for(game, from_store(self.store.read(game.id, since=since)),
                                 since + 1, seat)
        version = max(game.version, items[-1].version if items else 0)
        return EventPage(game.id, version, tuple(items))

    def log(self, game_id: str, since: int, until: int) -> list[engine.Event]:
        """The game's events after version ``since`` up to ``until``, unredacted (what
        the workers' mails read, each as its seat may see it)."""
        return from_store(self.store.read(game_id, since, until))

    def mail_batch(self, game_id: str, from_version: int, to_version: int
                   ) -> MailBatch | None:
        """What the mails about versions ``from_version``..``to_version`` show (None: no
        such game, or not at that version yet): the state at ``to_version`` exactly
        (the game may have moved on), the seats on vacation now from the kept clocks."""
        try:
            game = self.game(game_id)
        except GameNotFound:
            return None
        if game.version < to_version:
            return None
        players = {s.seat: p for s in game.seats if s.email and
                   (p := self.store.players.player(s.email)) is not None}
        return MailBatch(game, players, self.clock(game).away_until(times.now()),
                         tuple(to_store(self.log(game_id, from_version - 1, to_version))),
                         from_version, to_version, self.state(game_id, to_version))

    def hook_batch(self, game_id: str, hook_id: int, first: int, version: int
                   ) -> HookBatch | None:
        """A webhook's delivery of versions ``first``..``version`` (None: the hook is
        gone, or its game): the events as its seat sees them, in its seat's language."""
        hook = self.store.hooks.get(hook_id)
        if hook is None or hook.game_id != game_id:
            return None
        game = self.game(game_id)
        language = i18n.best(None, *(s.language for s in game.seats if s.seat == hook.seat))
        return HookBatch(hook, first, version, tuple(self.items_for(
            game, self.log(game_id, first - 1, version), first, hook.seat)), language)

    def items_for(self, game: Game, events: list[engine.Event], first_version: int,
                    seat: int | None) -> list[EventItem]:
        """``items_as_seen`` of a game's events (versions from ``first_version``), as
        ``seat`` sees them at the last of them (the seed shows once the game is over)."""
        last = first_version + len(events) - 1
        over = game.status == "over" and last >= game.version
        state = self.state(game.id, last) if events else None
        names = seat_names(game, state) if state else []
        return items_as_seen(events, first_version, seat, over, names,
                           neutral_name(game.variant, game.players), state)

    def legal_moves(self, game: Game, caller: Caller) -> LegalMoves:
        """The caller's legal moves now (none if not its turn, or if a bot plays its
        seat)."""
        seat = caller.player(game)
        if not game.version:
            return LegalMoves(game.id, 0, seat, False, None, (), ())
        state = self.state(game.id, game.version)
        moves = [] if seat in state.bots else engine.legal_moves(state, seat)  # S-2
        no_cell = tiles_without_cell(state, seat) if moves else []
        return LegalMoves(game.id, state.version, seat, bool(moves), state.phase,
                          tuple(moves), tuple(no_cell))

    # -- creating and joining ------------------------------------------------------------

    def create(self, *, variant: str, options: dict[str, Any], players: int,
               seats: list[dict[str, Any] | None], time_per_move: int | None = None,
               timeout_policy: str, takeover_after_timeouts: int = 3,
               takeover_bot: str | None = None, time_control: dict[str, Any] | None = None,
               replay_public: bool = True, public: bool = False,
               spectators_read_chat: bool = False) -> Created:
        """A new game; a seat spec is a person (``name``, ``email``, ``language``; an
        account's seat from the start: ``claimed_by``, service/invitations.py), a bot
        (``bot``: its level, ``name`` optional) or None (open). Starts at once when no seat is open.
        ``time_per_move`` (default 72 hours) or a bank in ``time_control``, with days
        off or not (service/clock.py); ``replay_public``: may anyone replay the game once
        it is over? ``public``: may anyone join its open seats without the invite code?"""
        opts = check_variant(variant, players, options)
        control = self.time_control(time_per_move, time_control)
        level = check_level(takeover_bot or self.takeover_bot, "takeover_bot")
        if takeover_after_timeouts < 0:
            raise InvalidOption("takeover_after_timeouts", msg(
                "takeover_after_timeouts must be 0 (never) or more"))
        for i, spec in enumerate(seats):
            if spec is not None and spec.get("bot") is not None:
                check_level(spec["bot"], f"seats.{i}.bot")
        if len(seats) > players:
            raise InvalidOption("seats", msg("{seats} seats given for {players} players",
                                             seats=len(seats), players=players))
        given = [s.get("name") if s else None for s in seats]
        if (pair := names.alike(given)) is not None:
            raise NamesAlike(pair, (str(given[pair[0]]), str(given[pair[1]])))
        seats = list(seats) + [None] * (players - len(seats))
        game_id = secrets.token_hex(8)
        host_token = new_token()
        open_seats = sum(1 for s in seats if s is None)
        invite = new_invite_code() if open_seats else None
        stamp = times.now()
        game = Game(id=game_id, variant=variant, options=opts, players=players,
                    status="open", phase=None, version=0, current_seat=None,
                    time_per_move=control.time_per_move, timeout_policy=timeout_policy,
                    deadline=None, imported=False, created_at=stamp, updated_at=stamp,
                    host_token_hash=hash_token(host_token),
                    invite_hash=hash_token(invite) if invite else None,
                    takeover_after_timeouts=takeover_after_timeouts, takeover_bot=level,
                    time_control=control.to_json(), replay_public=replay_public,
                    public=public, spectators_read_chat=spectators_read_chat)
        rows: list[Seat] = []
        tokens: list[SeatToken] = []
        for i, spec in enumerate(seats):
            if spec is None:
                rows.append(Seat(game_id, i, None, None, None, None))
                continue
            if spec.get("bot") is not None:
                rows.append(Seat(game_id, i, spec.get("name") or bot_name(i, spec["bot"]),
                                 None, None, stamp, bot=spec["bot"]))
                continue
            token = self.seat_token(game_id, i, 0)
            email = spec.get("email")
            rows.append(Seat(game_id, i, spec["name"], email.lower() if email else None,
                             hash_token(token), stamp, language=spec.get("language"),
                             claimed_by=spec.get("claimed_by")))
            tokens.append(SeatToken(seat=i, name=spec["name"], token=token))
        self.store.create_game(game, rows)
        if not open_seats:
            self._start(game_id)
        return Created(game_id=game_id, host_token=host_token, invite_code=invite,
                       seats=tokens)

    def create_seated(self, settings: dict[str, Any], seats: list[dict[str, Any] | None]
                      ) -> Created:
        """A new game of ``settings`` (``GAME_SETTINGS``) with every one of ``seats``."""
        return self.create(players=len(seats), seats=seats,
                           **{k: settings[k] for k in GAME_SETTINGS})

    def time_control(self, time_per_move: int | None, time_control: dict[str, Any] | None
                     ) -> TimeControl:
        """A create request's clock, checked (InvalidOption naming the field)."""
        try:
            return TimeControl.parse(time_per_move, time_control, self.min_time_per_move)
        except ControlError as exc:
            raise InvalidOption(exc.field, message(exc)) from None

    def join(self, game_id: str, invite_code: str | None, name: str, email: str | None,
             language: str | None = None, claimed: bool = False) -> Joined:
        """Take the first open seat: with the invite code, or (None) in a public game;
        ``claimed``: by the signed-in account of ``email`` (service/players.py), which
        holds no other seat of the game (AlreadySeated)."""
        game = self.game(game_id)
        if claimed and any(s.claimed_by == email for s in game.seats):
            raise AlreadySeated()
        if claimed and email and game.public and self.store.moderation.blocked_among(
                email, [s.claimed_by for s in game.seats if s.claimed_by]):
            raise Blocked(msg("you cannot join this public game: one of its players "
                              "blocked you, or you blocked one"))
        if not game.invite_hash:  # every seat was named when the game was created
            raise GameFull()
        if invite_code is None and not game.public or \
                invite_code is not None and not same_hash(invite_code, game.invite_hash):
            raise InvalidInvite()
        taken = [s.name for s in game.seats]
        if (pair := names.alike([*taken, name])) is not None:
            raise NamesAlike((pair[0],), (str(taken[pair[0]]), name))
        for _ in range(game.players):
            open_seats = [s for s in self.game(game_id).seats
                          if s.token_hash is None and s.bot is None]
            if not open_seats:
                break
            seat = open_seats[0]
            token = self.seat_token(game_id, seat.seat, seat.token_generation)
            if not self.store.join(game_id, seat.seat, name,
                                   email.lower() if email else None, hash_token(token),
                                   language, claimed):
                if claimed and any(s.claimed_by == email for s in self.game(game_id).seats):
                    raise AlreadySeated()  # a join of the same account meanwhile
                continue  # someone took that seat meanwhile: try the next one
            if len(open_seats) == 1:
                self._start(game_id)
            return Joined(game_id=game_id, seat=seat.seat, name=name, token=token)
        raise GameFull()

    def add_bot(self, game_id: str, caller: Caller, seat: int, level: str) -> BotSeated:
        """The host fills open seat ``seat`` with a bot of ``level`` (S-2); the last seat
        filled starts the game."""
        game = self.game(game_id)
        if not caller.hosts(game):
            raise Forbidden(msg("only the game's host token may seat a bot"))
        check_level(level, "level")
        name = bot_name(seat, level)
        if not 0 <= seat < game.players or not self.store.seat_bot(game_id, seat, name,
                                                                    level):
            raise SeatTaken(seat)
        if not any(s.token_hash is None and s.bot is None for s in self.game(game_id).seats):
            self._start(game_id)
        return BotSeated(game_id=game_id, seat=seat, name=name, bot=level)

    def remove_seat(self, game_id: str, caller: Caller, seat: int) -> None:
        """The host opens a joined seat again before the game starts (its person or bot
        gone; whoever joins next gets a new token)."""
        game = self.game(game_id)
        if not caller.hosts(game):
            raise Forbidden(msg("only the game's host token may open a seat again"))
        if not 0 <= seat < game.players or not self.store.unseat(game_id, seat):
            raise SeatNotRemovable(seat)

    def choose_language(self, game: Game, caller: Caller, seat: int, language: str
                        ) -> dict[str, Any]:
        """The caller's own seat speaks ``language`` from now on (its mails, its page)."""
        if caller.own_seat(game) != seat:
            raise Forbidden(msg("only a seat's own token can do this"))
        return self.set_language(game, seat, language)

    def set_language(self, game: Game, seat: int, language: str) -> dict[str, Any]:
        """``seat`` speaks ``language`` from now on (a reply ``language fi`` by mail)."""
        self.store.set_language(game.id, seat, language)
        return {"game_id": game.id, "seat": seat, "language": language}

    def set_mail_address(self, game: Game, caller: Caller, seat: int, email: str | None
                         ) -> dict[str, Any]:
        """The caller's own seat's new address (None: it confirms the one it has): mails
        to it go again (a failing mark is cleared)."""
        if caller.own_seat(game) != seat:
            raise Forbidden(msg("only a seat's own token can do this"))
        current = next(s for s in game.seats if s.seat == seat)
        address = email.lower() if email else current.email
        self.store.mail.set_address(game.id, seat, address)
        return {"game_id": game.id, "seat": seat, "email": address, "mail_failing": None}

    def mail_failures(self, game: Game, caller: Caller) -> dict[str, Any]:
        """The game's failed mails and its seats' failing addresses, for its host."""
        if not caller.hosts(game):
            raise Forbidden(msg("only the game's host can do this"))
        return {"game_id": game.id,
                "failing": {str(s.seat): s.mail_failing for s in game.seats
                            if s.mail_failing},
                "failures": [{"seat": f.seat, "address": f.address, "reason": f.reason,
                              "permanent": f.permanent, "at": f.at}
                             for f in self.store.mail.failures(game.id)]}

    def rotate_token(self, game: Game, caller: Caller) -> Rotated:
        """A new token for the caller's seat (its own, or its account's); the old one
        stops working."""
        seat = caller.own_seat(game)
        current = next(s for s in game.seats if s.seat == seat)
        generation = current.token_generation + 1
        token = self.seat_token(game.id, seat, generation)
        if caller.account is None and current.token_hash != caller.token_hash or \
                not self.store.rotate_token(game.id, seat, generation, hash_token(token)):
            raise InvalidToken()  # rotated meanwhile: the caller's token is an old one
        return Rotated(game_id=game.id, seat=seat, token=token)

    def _start(self, game_id: str) -> None:
        """All seats are filled: record the setup events with a secret seed."""
        game = self.store.game(game_id)
        seats = game.seats
        names = [s.name for s in seats if s.name is not None]
        if game.version or len(names) < len(seats):  # a seat is open
            return
        events = engine.new_game(game.variant, names, secrets.randbits(63), game.options,
                                 bots=[s.bot for s in seats],
                                 takeover_after_timeouts=game.takeover_after_timeouts,
                                 takeover_bot=game.takeover_bot or self.takeover_bot)
        state = engine.replay(events)
        try:
            self._record(game, None, state, events)
        except VersionConflict:
            return  # another request started it
        if self.cache:
            self.cache.put(game_id, state)

    def _summary(self, game: Game, before: engine.State | None, after: engine.State,
                 events: list[engine.Event]
                 ) -> tuple[GameUpdate, list[tuple[int, datetime]] | None]:
        """The game row's new fields, for the batch ``events`` appended now: the clocks
        carried forward (a new turn gets their deadline), and the (percent, time) of that
        turn's reminders (None: the deadline stands, and its reminders)."""
        over = after.phase == "over"
        at = times.now()
        first = after.version - len(events) + 1
        clock = self.clock(game).after(
            (v, e, at) for v, e in enumerate(to_store(events), start=first))
        deadline, reminders = game.deadline, None
        if over:
            deadline = None
        elif before is None or before.current != after.current or \
                engine.clock_started(events):
            deadline = clock.deadline()
            reminders = self._reminder_times(clock)
        return GameUpdate(status="over" if over else "active", phase=after.phase,
                          current_seat=None if over else after.current, deadline=deadline,
                          at=at, clock=clock.to_json()), reminders

    def _record(self, game: Game, before: engine.State | None, after: engine.State,
                events: list[engine.Event], answer: Answer | None = None,
                done: Claim | None = None) -> planned.Plan:
        """Append the batch ``events`` (which took ``before`` to ``after``) with its due
        work (service/due.py, returned), the idempotent ``answer`` and the due row it is
        the result of (``done``)."""
        update, reminders = self._summary(game, before, after, events)
        first = after.version - len(events) + 1
        plan = planned.plan(planned.Appended(
            game=game, from_version=first, events=events, after=after, update=update,
            at=update.at or times.now(), reminders=reminders,
            addressed={s.seat for s in game.seats if s.email}, hooks=game.hooks,
            claimed=claimed(game)))
        self.store.append(game.id, first - 1, to_store(events), update, answer, plan.due,
                          plan.replaces, done)
        return plan

    def plan_batch(self, game_id: str, from_version: int, to_version: int, mails: bool,
                   done: Claim | None = None) -> int:
        """Plan the due work of a batch appended before due work existed (an upgrade, an
        old export): its mails and webhooks if ``mails``, and if the game is still at
        that batch its alarm, bot move and the reminders still to come. Returns how many
        rows were added (none twice)."""
        game = self.game(game_id)
        events = self.store.read(game_id, from_version - 1, to_version)
        after = self.state(game_id, to_version)
        if game.version == to_version:
            update = GameUpdate(game.status, game.phase, game.current_seat, game.deadline)
            reminders = self._reminders(game) if game.status == "active" else None
        else:  # the game moved on: that batch's clock and bot went with it
            update, reminders = GameUpdate("over", after.phase, None, None), None
        plan = planned.plan(planned.Appended(
            game=game, from_version=from_version, events=events, after=after,
            update=update, at=times.now(), reminders=reminders,
            addressed={s.seat for s in game.seats if s.email}, hooks=game.hooks,
            claimed=claimed(game)))
        due = [d for d in plan.due if mails or d.kind in ("bot", "deadline", "reminder")]
        return self.store.add_due(game_id, due, done)

    def _reminders(self, game: Game) -> list[tuple[int, datetime]]:
        """(percent, time) of the reminders of the turn going on."""
        return self._reminder_times(self.clock(game))

    def _reminder_times(self, clock: Clock) -> list[tuple[int, datetime]]:
        """(percent, time) of the reminders of the turn going on on ``clock``."""
        fractions = sorted(self.reminders)
        return [(round(f * 100), t) for f, t in zip(
            fractions, clock.reminder_times(fractions), strict=True)]

    # -- the clock (service/clock.py) ------------------------------------------------------

    def clock(self, game: Game) -> Clock:
        """The game's clocks as its row keeps them (a game from before they were kept:
        folded from its log, once: its next batch keeps them)."""
        control = TimeControl.of(game.time_per_move, game.time_control)
        if game.clock is not None:
            return Clock.from_json(control, game.clock)
        clock = Clock.start(control, game.players)
        return clock.after(self.store.read_timed(game.id, TIMED_EVENTS)) if game.version \
            else clock

    # -- moves ---------------------------------------------------------------------------

    def submit(self, game: Game, seat: int, moves: list[engine.Move], expected: int,
               idempotency_key: str | None, timeout: bool = False, bot: str | None = None,
               done: Claim | None = None) -> Played:
        """Play ``moves`` for ``seat`` against version ``expected``; the result says
        whether it is a replay of an earlier answer to the same Idempotency-Key.
        ``timeout``: the workers play the engine's default moves for a seat whose time ran
        out (docs/rules.md, Part S); the events are marked as such. ``bot``: the workers
        play a bot seat's move (S-2); a person may not move for a seat a bot plays.
        ``done``: the due row (a deadline, a bot's move) this move is the result of."""
        fingerprint = hashlib.sha256(json.dumps(
            [expected, [str(m) for m in moves]]).encode()).hexdigest()
        try:
            return self._submit(game, seat, moves, expected, idempotency_key, fingerprint,
                                timeout, bot, done)
        except AnswerExists:  # the key answered another submission (or this one: a race)
            assert idempotency_key is not None
            earlier = self._earlier(game, seat, idempotency_key, fingerprint)
            if earlier is None:
                raise IdempotencyKeyReused() from None
            return earlier
        except (DomainError, engine.RuleViolation):
            # A retry of an answered submission finds the game moved on (or over): the
            # first answer is its answer, as is the one of a concurrent request with the
            # same key that won meanwhile.
            if idempotency_key is not None:
                earlier = self._earlier(game, seat, idempotency_key, fingerprint)
                if earlier is not None:
                    return earlier
            raise

    def _submit(self, game: Game, seat: int, moves: list[engine.Move], expected: int,
                idempotency_key: str | None, fingerprint: str, timeout: bool = False,
                bot: str | None = None, done: Claim | None = None) -> Played:
        state = self._playable(game, seat, expected, person=not (timeout or bot))
        try:
            events, after = engine.decision(state, seat, moves, timeout=timeout, bot=bot)
        except engine.NotYourTurn as exc:
            raise OutOfTurn(exc.message, exc.rule, state.current) from None
        return self._append(game, seat, state, events, after, idempotency_key, fingerprint,
                            done)

    def _playable(self, game: Game, seat: int, expected: int | None, person: bool = True
                  ) -> engine.State:
        """The state a move of ``seat`` is played on (made by a ``person``, not a timeout
        or a bot), at version ``expected`` (None: the latest); refusals as domain errors."""
        if game.status == "open":
            raise GameNotStarted()
        if game.status == "over":
            raise GameOver(game.version)
        state = self.state(game.id, game.version)
        if person and seat in state.bots:
            raise SeatPlayedByBot(seat, state.bots[seat])
        if expected is not None and expected != state.version and not (
                0 < expected < state.version and all(
                    e["type"] == "vacation" for e in self.log(game.id, expected,
                                                              state.version))):
            raise VersionConflict(state.version)  # (a seat's vacation changes no move)
        return state

    def preview(self, game: Game, seat: int, moves: list[engine.Move],
                expected: int | None = None) -> Previewed:
        """What ``moves`` would show ``seat``, with nothing recorded: the refusals of a
        submission, or the events and the seat's view up to the first draw (nothing
        drawn is shown: engine.preview), whether its turn ends with them, and its legal
        moves after them (none once it ends)."""
        state = self._playable(game, seat, expected)
        try:
            shown, turn_ends, after = engine.preview(state, seat, moves)
        except engine.NotYourTurn as exc:
            raise OutOfTurn(exc.message, exc.rule, state.current) from None
        moves_after = [] if turn_ends else engine.legal_moves(after, seat)
        no_cell = tiles_without_cell(after, seat) if moves_after else []
        names = seat_names(game, after)
        items = items_as_seen(shown, state.version + 1, seat, False, names,
                            neutral_name(game.variant, game.players), after)
        return Previewed(game.id, state.version, tuple(items),
                         engine.view(after, seat, names),
                         turn_ends, tuple(moves_after), tuple(no_cell))

    def _append(self, game: Game, seat: int, state: engine.State, events: list[engine.Event],
                after: engine.State, idempotency_key: str | None = None,
                fingerprint: str = "", done: Claim | None = None) -> Played:
        """Append ``events`` (decided by the engine on ``state``, taking it to ``after``)
        for ``seat``; AnswerExists if ``idempotency_key`` has an answer (not forgotten)."""
        game_id, expected = game.id, state.version
        idem = Answer(seat, idempotency_key, fingerprint, 201, after.version, expected + 1,
                      forgotten_before=times.later(-self.idempotency_retention)) \
            if idempotency_key else None
        plan = self._record(game, state, after, events, idem, done)
        if self.cache:
            self.cache.put(game_id, after)
        played = self._played(game, seat, events, expected + 1, after)
        return replace(played, turn_mail=any(d.kind == "your_turn" and d.seat == seat
                                             for d in plan.due))

    @staticmethod
    def _played(game: Game, seat: int, events: list[engine.Event], first: int,
                after: engine.State, replayed: bool = False) -> Played:
        """The batch ``events`` (versions from ``first``) that took the game to ``after``,
        as ``seat`` sees it; ``replayed``: the first answer again (no ``bot``: only a
        new resignation says which bot plays the seat now)."""
        over = after.phase == "over"
        names = seat_names(game, after)
        items = items_as_seen(events, first, seat, over, names,
                            neutral_name(game.variant, game.players), after)
        return Played(game.id, seat, after.version, tuple(items),
                      engine.view(after, seat, names),
                      None if over else after.current, replayed,
                      None if replayed else after.bots.get(seat))

    def play_bot(self, game_id: str, version: int, done: Claim | None = None
                 ) -> Played | None:
        """The move of the bot playing the seat to act at ``version``, chosen from what
        that seat may see and submitted like any move (marked with the bot's level).
        None if the game moved on or no bot is to act. The bot's generator is seeded by
        the game and version and the submission keyed by the version, so a job run twice
        (a crash, a race) plays once. ``done``: the due row it is the result of.

        What a game's bots may cost is bounded: past turn ``bot_turns`` (the setting
        ALHAMBRA_BOT_TURNS, about three times the longest game of bots) no bot plays at
        once (None); a bot's seat then moves when its time runs out, by the default
        moves (Part S), like an absent player's."""
        game = self.game(game_id)
        if game.status != "active" or game.version != version:
            return None
        state = self.state(game_id, version)
        seat = state.current
        level = state.bots.get(seat)
        if level is None or state.phase == "over":
            return None
        if state.turn > self.bot_turns:
            log.warning("game %s: turn %s is past ALHAMBRA_BOT_TURNS (%s): the bot plays "
                        "at its deadline only", game_id, state.turn, self.bot_turns)
            return None
        try:
            move = choose(level, state, seat, random.Random(f"{game_id}:{version}"))
        except ValueError:
            return None
        return self.submit(game, seat, [move], version, f"bot-{version}", bot=level,
                           done=done)

    def time_out(self, game_id: str, version: int, seat: int, done: Claim | None = None
                 ) -> TimedOut:
        """The timeout policy at the game's deadline: the engine's default moves for
        ``seat``, submitted against ``version`` (keyed by it: played once). Nothing if
        the game moved on: a move made in time always wins (the store's version check
        settles a race at the last moment)."""
        game = self.game(game_id)
        if game.status != "active" or game.version != version or \
                game.current_seat != seat or game.timeout_policy != "default_move" or \
                game.deadline is None:
            return TimedOut("stale")
        if times.now() < times.later(-0.5, game.deadline):  # another host's clock
            return TimedOut("early", deadline=game.deadline)
        state = self.state(game_id, version)
        moves = engine.default_moves(state, seat)
        if not moves:
            return TimedOut("no-move")
        try:
            played = self.submit(game, seat, moves, version, f"timeout-{version}",
                                 timeout=True, done=done)
        except (VersionConflict, GameOver, OutOfTurn):
            return TimedOut("stale")
        return TimedOut("applied", played)

    def resign(self, game: Game, seat: int) -> Played:
        """``seat`` resigns: a bot (the game's takeover level) plays it from now on
        (S-2). RuleViolation S-2 if a bot plays it already."""
        for _ in range(5):  # a resignation holds whatever the version: retry a race
            game = self.game(game.id)
            if game.status == "open":
                raise GameNotStarted()
            if game.status == "over":
                raise GameOver(game.version)
            state = self.state(game.id, game.version)
            events = engine.take_over(state, seat, game.takeover_bot or self.takeover_bot,
                                      "resigned")
            after = state.copy()
            for event in events:
                engine.evolve(after, event)
            try:
                return self._append(game, seat, state, events, after)
            except VersionConflict:
                continue
        raise VersionConflict(self.game(game.id).version)

    def record_vacation(self, game_id: str, seat: int, since: datetime | None,
                        until: datetime | None) -> int | None:
        """Record ``seat``'s vacation (None, None: called off) in the game's log, the
        deadline and reminders moved by the clock (service/clock.py); no mail (the seat
        to act keeps its turn). Returns the new version (None: the game is not running)."""
        event: Vacation = {"type": "vacation", "seat": seat,
                           "since": times.to_text(since) if since else None,
                           "until": times.to_text(until) if until else None}
        for _ in range(5):  # whatever the version: retry a race with a move
            game = self.game(game_id)
            if game.status != "active":
                return None
            state = self.state(game_id, game.version)
            after = state.copy()
            engine.evolve(after, event)
            at = times.now()
            clock = self.clock(game).after([(after.version, to_store([event])[0], at)])
            update = GameUpdate(game.status, game.phase, game.current_seat,
                                clock.deadline(), at=at, clock=clock.to_json())
            plan = planned.plan(planned.Appended(
                game=game, from_version=after.version, events=[event], after=after,
                update=update, at=at, reminders=self._reminder_times(clock),
                addressed={s.seat for s in game.seats if s.email}, hooks=game.hooks,
                claimed=claimed(game)))
            due = [d for d in plan.due if d.kind not in (*MAIL_KINDS, "notify")]
            try:
                self.store.append(game_id, game.version, to_store([event]), update, None,
                                  due, plan.replaces)
            except VersionConflict:
                continue
            if self.cache:
                self.cache.put(game_id, after)
            return after.version
        raise VersionConflict(self.game(game_id).version)

    def _earlier(self, game: Game, seat: int, key: str, fingerprint: str
                 ) -> Played | None:
        """The first answer to ``seat``'s submission with ``key``, rebuilt from the batch
        it appended (the same document); None if there was none, or if it is older than
        ``idempotency_retention`` (forgotten, as the workers' prune forgets it: the retry
        is a new submission, against a version the game has left, so it is refused with
        version_conflict or game_over, never played twice). IdempotencyKeyReused for
        another submission (while the answer is kept)."""
        found = self.store.idempotent_answer(game.id, seat, key)
        if found is None:
            return None
        if found.fingerprint != fingerprint:
            raise IdempotencyKeyReused()
        if found.created_at is not None and \
                times.seconds_since(found.created_at) > self.idempotency_retention:
            return None
        events = from_store(self.store.read(game.id, found.from_version - 1, found.version))
        return self._played(game, seat, events, found.from_version,
                            self.state(game.id, found.version), replayed=True)

    # -- records -------------------------------------------------------------------------

    def record(self, game: Game, caller: Caller) -> dict[str, Any]:
        """The engine's record of a finished game (RecordUnavailable before its end)."""
        caller.viewer(game)
        if game.status != "over":
            raise RecordUnavailable()
        events = from_store(self.store.read(game.id))
        state = self.state(game.id, game.version)
        return {**export_record(events, state), "seats": seat_names(game, state)}

    def import_record(self, doc: dict[str, Any], messages: Sequence[Message] = ()) -> Game:
        """Replay and verify a finished game's record and keep it as a new game with its
        table talk (checked by service/talk.py; spectators read it, no seat has a token),
        all or nothing."""
        try:
            events = import_record(doc)
        except RecordError as exc:
            raise InvalidRecord(message(exc), exc.move_number, exc.rule) from None
        state = engine.replay(events)
        if state.phase != "over":
            raise InvalidRecord(msg("only a finished game can be imported; this record stops "
                                    "before the end"), len(doc["moves"]))
        for i, m in enumerate(messages):
            if m.version > len(events):
                raise InvalidRecord(msg("messages[{index}] cannot be imported: {reason}",
                                        index=i, reason=msg(
                                            "version {version} is past the record's last, "
                                            "{last}", version=m.version, last=len(events))),
                                    None)
        created = cast(GameCreated, events[0])  # import_record: a log opens with it
        game_id = secrets.token_hex(8)
        stamp = times.now()
        players = len(created["seats"])
        clock = Clock.start(TimeControl.of(0, None), players).after(
            (v, e, stamp) for v, e in enumerate(to_store(events), start=1))
        game = Game(id=game_id, variant=created["variant"], options=created["options"],
                    players=players, status="over", phase="over",
                    version=len(events), current_seat=None, time_per_move=0,
                    timeout_policy="default_move", deadline=None, imported=True,
                    created_at=stamp, updated_at=stamp,
                    spectators_read_chat=bool(messages), clock=clock.to_json())
        seats = [Seat(game_id, i, name, None, None, None)
                 for i, name in enumerate(created["seats"])]
        self.store.create_finished_game(game, seats, to_store(events), messages)
        if self.cache:
            self.cache.put(game_id, state)
        return game

    # -- webhooks ------------------------------------------------------------------------

    def add_webhook(self, game: Game, caller: Caller, url: str, secret: str | None
                    ) -> Webhook:
        """Register a webhook of the caller's seat (or of the host: the spectator view):
        WebhookUrlRefused for a URL no delivery may call, TooManyWebhooks past the
        limits."""
        owner = caller.owner(game)
        policy = self.webhook_policy
        check_url(url, policy.allow_private)
        with self.store.transaction() as tx:  # registrations at once cannot pass the limits
            tx.lock_game(game.id)
            on_game, mine = tx.hooks.counts(game.id, owner)
            if on_game >= policy.per_game:
                raise TooManyWebhooks(policy.per_game, "game")
            if mine >= policy.per_seat:
                raise TooManyWebhooks(policy.per_seat, "host" if owner is None else "seat")
            return tx.hooks.add(game.id, owner, url, secret or secrets.token_urlsafe(24))

    def webhooks(self, game: Game, caller: Caller) -> list[Webhook]:
        owner = caller.owner(game)
        return [h for h in self.store.hooks.of_game(game.id) if h.seat == owner]

    def webhook(self, game: Game, caller: Caller, hook_id: int) -> Webhook:
        """One of the caller's webhooks on the game (WebhookNotFound)."""
        owner = caller.owner(game)
        hook = self.store.hooks.get(hook_id)
        if hook is None or hook.game_id != game.id or hook.seat != owner:
            raise WebhookNotFound(hook_id)
        return hook

    def delete_webhook(self, game: Game, caller: Caller, hook_id: int) -> None:
        self.webhook(game, caller, hook_id)
        if not self.store.hooks.delete(game.id, hook_id):
            raise WebhookNotFound(hook_id)
