"""Players: a verified e-mail address, signed in without a password, and its games.

Signing in: ``request_sign_in`` keeps a request (a random id, the address, when it ends:
``SIGN_IN_MINUTES``) and hands its id to ``send`` (the app enqueues the worker's
``workers.players.send_sign_in``, which mails the code and the link
``{PUBLIC_URL}/me#code=…``). The code is derived from the id and the server's key (an
HMAC, like the seat tokens of auth.py), so that neither the database nor the queue holds
it: the store keeps only its hash. ``open_session`` uses a code once, before it ends, and
gives a player token (random; only its hash is kept), revoked by ``end_session``.

A player is an account: its address, proven by signing in, and a public ``handle`` it
chooses (PRECIS UsernameCaseMapped, RFC 8265; reading like no other's). A seat whose
creator wrote an address on it is an invitation to that address, not the address's seat:
it becomes the player's when claimed (``claim``), signed in with that address or with
the claim code mailed to it; the claim moves the seat to a new token the creator never
saw. Until then the seat plays with the creator's copy of its token but counts for
nobody: no rating, not in the address's games, no vacation, no table-talk mails beyond
the turn mails. One seat per account per game. The seats written before claims existed
are claimed by their address's next sign-in (``add_session``).

Personal access tokens (``create_token``): made, listed and deleted with the session's
token only, shown once (only the hash is kept), each with some of ``auth.SCOPES``; it acts
in every seat the account claimed (auth.Caller), and reads the player's games and stream
(``account``).

Moderation (service/moderation.py): a suspended account's tokens are refused
(AccountSuspended) and it cannot sign in; a banned address gets no sign-in mail (the
answer is the same, as for any address) and a code mailed before the ban is refused
(AddressBanned). ``blocks_between`` says whether either of two accounts blocked the other.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import precis_i18n

import engine

from . import names, times
from .auth import (
    PERSONAL_PREFIX,
    SCOPES,
    SESSION_PREFIX,
    claim_code,
    hash_token,
    new_token,
    same_hash,
)
from .errors import (
    AccountSuspended,
    AddressBanned,
    AlreadySeated,
    BotAccountRefused,
    DomainError,
    HandleRefused,
    InvalidPlayerToken,
    InvalidSignInCode,
    MissingScope,
    NotYourInvitation,
    SeatNotClaimable,
    SessionNeeded,
    TokenNotFound,
    TooManyTokens,
    VacationRefused,
)
from .games import Games
from .i18n import msg
from .ratings import Ratings
from .results import Joined, MyGame
from .store import Due, EventStore, Game, Player, PlayerToken, Seat, SignIn

log = logging.getLogger(__name__)

SIGN_IN_MINUTES = 15
#: A code's letters: no 0/O, 1/I (read from a mail, typed by hand).
ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 12  # 60 bits
NOTIFY = ("turn", "digest", "none")
#: A player token's start: a join with such a bearer token joins as the player (a seat
#: token, which a join never needs, may start so too: 1 in 4096)
PLAYER_PREFIX = SESSION_PREFIX
HANDLE_LENGTH = range(2, 31)
#: What a deleted account's seats are called from then on.
DELETED = "(deleted)"
MAX_TOKENS = 20  # personal tokens an account may hold
_USERNAME = precis_i18n.get_profile("UsernameCaseMapped")


def handle(text: str) -> tuple[str, str]:
    """A handle as kept (PRECIS UsernameCaseMapped: case-folded, width-mapped, NFC) and
    its key: the skeleton that another handle reading alike shares (Unicode's
    confusables, ``Аlice`` with a Cyrillic А reads as ``alice``); HandleRefused."""
    try:
        kept = _USERNAME.enforce(text.strip())
    except UnicodeEncodeError as exc:
        raise HandleRefused(msg("a handle is letters, digits and punctuation without "
                                "spaces ({reason})", reason=exc.reason),
                            reason=exc.reason) from None
    if len(kept) not in HANDLE_LENGTH or "@" in kept:
        raise HandleRefused(msg("a handle is 2 to 30 characters, and no address"),
                            reason="length")
    try:
        names.readable(kept)
    except names.NameRefused as exc:
        raise HandleRefused(exc.reason, reason=exc.code) from None
    return kept, names.skeleton(kept)


def by_handle(store: EventStore, text: str) -> Player | None:
    """The account whose handle is ``text`` as a player types it (None: no account has
    it, or it could be no handle)."""
    try:
        kept, _ = handle(text)
    except HandleRefused:
        return None
    return store.players.player_by_handle(kept)


def sign_in_code(key: bytes, sign_in_id: str) -> str:
    """The code of a sign-in request: ``ABCD-EFGH-JKLM`` (60 bits from an HMAC)."""
    mac = hmac.new(key, f"alhambra-pbem sign-in {sign_in_id}".encode(), hashlib.sha256)
    number = int.from_bytes(mac.digest()[:8], "big")
    chars = "".join(ALPHABET[(number >> (5 * i)) & 31] for i in range(CODE_LENGTH))
    return "-".join(chars[i:i + 4] for i in range(0, CODE_LENGTH, 4))


def normal_code(code: str) -> str:
    """A code as typed (any case, spaces or dashes) in its one form: ``ABCDEFGHJKLM``."""
    return re.sub(r"[^0-9A-Za-z]", "", code).upper()


def me_path(code: str | None = None) -> str:
    """The path of the player's page; with a sign-in code in the fragment (never sent)."""
    return "/me" + (f"#code={code}" if code else "")


class Players:
    """Sign-in, sessions, preferences and a player's games, over the store and Games."""

    def __init__(self, games: Games, send: Callable[[str], None] | None = None,
                 vacation_days: int = 21, vacation_stretch: int = 14) -> None:
        self.games = games
        self.store: EventStore = games.store
        self.send = send or (lambda sign_in_id: None)
        self.vacation_days = vacation_days  # a calendar year's allowance (UTC)
        self.vacation_stretch = vacation_stretch  # the most days of one vacation

    # -- identity -------------------------------------------------------------------------

    def request_sign_in(self, email: str, language: str | None = None,
                        now: datetime | None = None) -> SignIn:
        """Keep a sign-in request for ``email`` and have its mail sent."""
        now = now or times.now()
        sign_in_id = secrets.token_hex(16)
        code = sign_in_code(self.games.secret_key, sign_in_id)
        sign_in = SignIn(sign_in_id, email.strip().lower(), hash_token(normal_code(code)),
                         now, now + timedelta(minutes=SIGN_IN_MINUTES), language)
        if self.store.moderation.banned(sign_in.email):  # no mail; the answer is the same
            log.info("sign-in %s: the address is banned, no mail sent", sign_in_id)
            return sign_in
        self.store.players.add_sign_in(sign_in)
        self.send(sign_in_id)
        return sign_in

    def open_session(self, code: str, now: datetime | None = None) -> dict[str, Any]:
        """A player token for the request of ``code`` (used now); InvalidSignInCode."""
        now = now or times.now()
        email = self.store.players.use_sign_in(hash_token(normal_code(code)), now)
        if email is None:
            raise InvalidSignInCode()
        self.admitted(email)
        token = PLAYER_PREFIX + new_token()
        for game_id in self.store.players.add_session(hash_token(token), email, now):
            self._rate_if_over(game_id)
        return {"token": token, "email": email}

    def admitted(self, email: str) -> None:
        """AddressBanned or AccountSuspended if ``email`` may not sign in (moderation)."""
        if self.store.moderation.banned(email):
            raise AddressBanned()
        found = self.store.players.player(email)
        if found is not None and found.suspended_at is not None:
            raise AccountSuspended(found.suspended_reason)

    def blocks_between(self, a_email: str, b_email: str) -> bool:
        """Did either account block the other (service/moderation.py)? What a block
        forbids between them: private messages, a shared public game (and, for whoever
        builds them, invitations)."""
        return bool(self.store.moderation.blocked_among(a_email.lower(), [b_email.lower()]))

    # -- claiming seats ------------------------------------------------------------------

    def claim(self, game_id: str, seat: int, player: Player | None, code: str | None,
              verified: bool = False) -> Joined:
        """Make ``seat`` of ``game_id`` the claimer's: a signed-in ``player`` whose
        address the seat names, whoever holds the seat's claim ``code`` (mailed to that
        address: it proves the address, whose account it makes), or with ``verified``
        the seat's address itself (a mail reply whose sender MAIL_IN_AUTH verified). The
        seat moves to a new token (the creator's copy stops) and its talk mails to their
        default. A game over is rated once its last seat is claimed. SeatNotClaimable,
        NotYourInvitation, AlreadySeated."""
        game = self.games.game(game_id)
        current = next((s for s in game.seats if s.seat == seat), None)
        if current is None or current.email is None or current.bot is not None or \
                current.claimed_by is not None or current.token_hash is None:
            raise SeatNotClaimable(seat)
        email = current.email.lower()
        key = self.games.secret_key
        if player is not None and player.email != email or player is None and not (
                verified or code and same_hash(code, hash_token(claim_code(
                    key, game_id, seat, current.token_generation)))):
            raise NotYourInvitation(seat)
        if any(s.claimed_by == email for s in game.seats):
            raise AlreadySeated()
        if player is None:
            self.admitted(email)
            self.store.players.add_player(email, times.now())
        generation = current.token_generation + 1
        token = self.games.seat_token(game_id, seat, generation)
        if not self.store.players.claim(game_id, seat, email, generation, hash_token(token)):
            raise SeatNotClaimable(seat)  # claimed (or rotated) meanwhile
        self._rate_if_over(game_id)
        return Joined(game_id=game_id, seat=seat, name=current.name or "", token=token)

    def invitations(self, player: Player) -> list[MyGame]:
        """The seats naming the player's address that nobody claimed yet (games not
        over): each may be claimed (``claim``)."""
        return [self._item(game, seat, token=False)
                for game, seat in self.store.seats_of(player.email, claimed=False)]

    def _rate_if_over(self, game_id: str) -> None:
        if self.games.game(game_id).status == "over":
            Ratings(self.games).rate_game(game_id)

    def player(self, token: str | None, scope: str = "read") -> Player:
        """The player of a session's token, or of a personal token with ``scope``
        (MissingScope); InvalidPlayerToken."""
        if token and token.startswith(PERSONAL_PREFIX):
            personal = self.store.players.token(hash_token(token), times.now())
            if personal is not None:
                if scope not in personal.scopes:
                    raise MissingScope(scope)
                found = self.store.players.player(personal.email)
                if found is not None:
                    return _active(found)
        player = self.store.players.session_player(hash_token(token)) if token else None
        if player is None:
            raise InvalidPlayerToken()
        return _active(player)

    def session(self, token: str | None) -> Player:
        """The player of a session's token, where a personal token will not do (its
        preferences, claims, tokens: SessionNeeded); InvalidPlayerToken."""
        if token and token.startswith(PERSONAL_PREFIX) and \
                self.store.players.token(hash_token(token), times.now()) is not None:
            raise SessionNeeded()
        player = self.store.players.session_player(hash_token(token)) if token else None
        if player is None:
            raise InvalidPlayerToken()
        return _active(player)

    def create_token(self, player: Player, description: str, scopes: list[str],
                     now: datetime | None = None) -> tuple[PlayerToken, str]:
        """A new personal token of the player with ``scopes`` (of auth.SCOPES, in that
        order) and its secret, which is not kept (only its hash); TooManyTokens past
        ``MAX_TOKENS``."""
        token = PERSONAL_PREFIX + new_token()
        record = PlayerToken(secrets.token_hex(8), player.email, description.strip(),
                             tuple(s for s in SCOPES if s in scopes), now or times.now())
        if not self.store.players.add_token(record, hash_token(token), MAX_TOKENS):
            raise TooManyTokens(MAX_TOKENS)
        return record, token

    def tokens(self, player: Player) -> list[PlayerToken]:
        return self.store.players.tokens(player.email)

    def delete_token(self, player: Player, token_id: str) -> None:
        """The token stops working at once; TokenNotFound if it is not the player's."""
        if not self.store.players.delete_token(player.email, token_id):
            raise TokenNotFound(token_id)

    def end_session(self, token: str | None) -> None:
        """Sign out: the token stops working; InvalidPlayerToken if it was no session."""
        if not token or not self.store.players.delete_session(hash_token(token)):
            raise InvalidPlayerToken()

    # -- preferences ---------------------------------------------------------------------

    def update(self, player: Player, changes: dict[str, Any]) -> Player:
        """Set ``language``, ``notify`` and ``digest_hour`` (the schema checked them),
        ``handle`` (``handle``'s rules; HandleRefused if another player's reads alike)
        and ``bot`` (a bot account or not: BotAccountRefused once the account held a seat
        or a rating)."""
        if changes.get("handle") is not None:
            kept, key = handle(changes["handle"])
            if not self.store.players.set_handle(player.email, kept, key):
                raise HandleRefused(msg("the handle {handle} reads like another player's",
                                        handle=kept), reason="taken")
        if changes.get("bot") is not None and changes["bot"] != player.is_bot and \
                not self.store.players.set_bot(player.email, changes["bot"]):
            raise BotAccountRefused()
        return self.store.players.update_player(player.email, changes)

    def export(self, player: Player) -> dict[str, Any]:
        """Everything the service keeps of the player's account (``GET /me/export``), by
        table (store.players.export): what a player may ask for under the GDPR's right of
        access, as JSON."""
        rows = self.store.players.export(player.email)
        return {"exported_at": times.now(), "email": player.email,
                "tables": {table: [{k: times.to_text(v) if isinstance(v, datetime) else v
                                    for k, v in row.items()} for row in found]
                           for table, found in rows.items()}}

    def delete(self, player: Player) -> list[str]:
        """Delete the player's account (``DELETE /me``): in each running game a bot takes
        its seat over (S-2, as a resignation); then its address, preferences, sessions,
        tokens, vacations and notes are erased, its seats called ``DELETED`` in every
        reader's view (the logs stay as they were: they replay), its ratings kept by an
        anonymous key. The games where a bot took over."""
        taken = []
        for game, seat in self.store.seats_of(player.email):
            if game.status == "active" and not seat.bot:
                try:
                    self.games.resign(game, seat.seat)
                    taken.append(game.id)
                except (DomainError, engine.RuleViolation):
                    pass  # over, or a bot plays it already, meanwhile
        self.store.players.erase(player.email, f"deleted-{secrets.token_hex(12)}", DELETED)
        return taken

    def document(self, player: Player, now: datetime | None = None) -> dict[str, Any]:
        """The player as ``GET /me`` shows it: preferences, the vacation going on or to
        come, and the days of this year's allowance left."""
        now = now or times.now()
        spans = self.store.players.vacations(player.email)
        coming = next(({"from": a, "until": b} for a, b in spans if b > now), None)
        return {"email": player.email, "handle": player.handle, "bot": player.is_bot,
                "language": player.language,
                "notify": player.notify, "digest_hour": player.digest_hour,
                "created_at": player.created_at, "vacation": coming,
                "ratings": Ratings(self.games).of(player.email),
                "vacation_days_left": self.vacation_days - used_days(spans, now.year)}

    # -- vacations -----------------------------------------------------------------------

    def set_vacation(self, player: Player, since: datetime | None, until: datetime | None,
                     now: datetime | None = None) -> list[str]:
        """Go on vacation from ``since`` (now at the earliest) until ``until``, or (None,
        None) call it off: within the yearly allowance and the longest stretch
        (VacationRefused), recorded for the player and as an event in each running game
        of a seat it claimed (the seat's clock stops meanwhile: service/clock.py; the
        opponents' moves are not refused for it: Games.submit). Returns those games'
        ids."""
        now = now or times.now()
        if since is not None and until is not None:
            since = max(since, now)
            if until <= since:
                raise VacationRefused(msg("a vacation ends after it begins, and in the "
                                          "future"))
            if until - since > timedelta(days=self.vacation_stretch):
                raise VacationRefused(
                    msg("a vacation lasts {days} days in a row at most",
                        days=self.vacation_stretch), stretch=self.vacation_stretch)
            kept = [(a, min(b, now)) for a, b in self.store.players.vacations(player.email)
                    if a < now]
            spans = [*kept, (since, until)]
            for year in range(since.year, until.year + 1):
                left = self.vacation_days - used_days(spans, year)
                if left < 0:
                    raise VacationRefused(
                        msg("that is more vacation than the {allowance} days a year allow "
                            "(in {year}: {left} days left before this one)",
                            allowance=self.vacation_days, year=year,
                            left=self.vacation_days - used_days(kept, year)),
                        allowance=self.vacation_days, year=year,
                        days_left=self.vacation_days - used_days(kept, year))
        away = any(a <= now < b for a, b in self.store.players.vacations(player.email))
        self.store.players.set_vacation(player.email, since, until, now)
        begun = since is None or since <= now
        changed = []
        for game, seat in self.store.seats_of(player.email):
            if game.status != "active" or seat.bot or not self.vacations_pause(game.id):
                continue
            if begun and since is not None or away:  # a new one ends the one going on
                if self.games.record_vacation(game.id, seat.seat, *(
                        (since, until) if begun else (None, None))):
                    changed.append(game.id)
            if not begun:  # recorded in the game when it begins, if it still stands then
                assert since is not None
                self.store.add_due(game.id, [Due("vacation", game.version, since,
                                                 seat=seat.seat, reply=times.to_text(since))])
        return changed

    def begin_vacation(self, game_id: str, seat: int) -> str:
        """The vacation the seat's player set to begin now, recorded in the game (due
        work ``vacation``): ``applied``, or ``stale`` if it was called off or changed
        meanwhile, or the game is not running."""
        game = self.games.game(game_id)
        player = game.seats[seat].claimed_by if seat < len(game.seats) else None
        now = times.now()
        span = next(((a, b) for a, b in self.store.players.vacations(player)
                     if a <= now < b), None) if player else None
        if span is None or game.status != "active" or not self.vacations_pause(game_id) \
                or self.games.record_vacation(game_id, seat, *span) is None:
            return "stale"
        return "applied"

    def vacations_pause(self, game_id: str) -> bool:
        """Does a vacation stop the clock in this game? Yes, but in a game of a
        tournament whose organiser said no (``vacations_pause``: service/tournaments.py)."""
        table = self.store.tournaments.table_of_game(game_id)
        t = self.store.tournaments.get(table.tournament_id) if table else None
        return t is None or t.settings.get("vacations_pause") is not False

    # -- my games ------------------------------------------------------------------------

    def my_games(self, player: Player, finished: bool = False) -> list[MyGame]:
        """Every game with a seat of the player's address (over, with ``finished``): the
        games where it is the player's turn first, then by the player's deadline, then
        the latest activity first."""
        items = [self._item(game, seat) for game, seat in
                 self.store.seats_of(player.email, finished)]
        far = times.now() + timedelta(days=365 * 100)
        items.sort(key=lambda i: -i.game.updated_at.timestamp())
        items.sort(key=lambda i: (not i.your_turn, i.deadline or far))
        return items

    def _item(self, game: Game, seat: Seat, token: bool = True) -> MyGame:
        seats = game.seats
        active = game.status == "active"
        current = next((s for s in seats if s.seat == game.current_seat), None)
        mine = active and game.current_seat == seat.seat and not seat.bot
        playing = seat.token_hash is not None and not seat.bot
        return MyGame(
            game=game, seat=seat.seat, name=seat.name,
            players=tuple((s.seat, s.name, s.bot) for s in seats),
            current_name=current.name if current and active else None,
            your_turn=mine, deadline=game.deadline if mine else None,
            token=self.games.seat_token(game.id, seat.seat, seat.token_generation)
            if playing and token else None)


def _active(player: Player) -> Player:
    """``player``, unless an operator suspended it (AccountSuspended)."""
    if player.suspended_at is not None:
        raise AccountSuspended(player.suspended_reason)
    return player


def token_document(token: PlayerToken) -> dict[str, Any]:
    """A personal token as ``GET /me/tokens`` shows it (never its secret)."""
    return {"id": token.id, "description": token.description, "scopes": list(token.scopes),
            "created_at": token.created_at, "last_used_at": token.last_used_at}


def used_days(spans: list[tuple[datetime, datetime]], year: int) -> int:
    """Days of ``spans`` in the calendar year ``year`` (UTC), rounded up to whole days
    per span."""
    start = datetime(year, 1, 1, tzinfo=UTC)
    end = datetime(year + 1, 1, 1, tzinfo=UTC)
    total = 0
    for a, b in spans:
        inside = (min(b, end) - max(a, start)).total_seconds()
        if inside > 0:
            total += int(-(-inside // 86400))
    return total


def rq_sender(redis_url: str | None, queue: str) -> Callable[[str], None]:
    """``send`` for ``Players``: the worker's job ``workers.players.send_sign_in`` on the
    mail queue (named, not imported: the service does not import the workers). Without
    Redis no mail can go: logged."""
    if not redis_url:
        def nowhere(sign_in_id: str) -> None:
            log.warning("sign-in %s: no mail sent (REDIS_URL is not set)", sign_in_id)
        return nowhere
    from redis import Redis
    from rq import Queue, Retry

    client = Redis.from_url(redis_url, socket_timeout=5, socket_connect_timeout=5)

    def send(sign_in_id: str) -> None:
        Queue(queue, connection=client).enqueue(
            "workers.players.send_sign_in", sign_in_id, job_timeout=60, result_ttl=3600,
            failure_ttl=86400, retry=Retry(max=3, interval=[5, 30, 120]))
    return send
