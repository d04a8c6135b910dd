"""Secret tokens and who a caller is: bearer tokens for seats and hosts, invite codes.

Only the SHA-256 of a token is stored. A seat's token is derived from the server's secret
key (HMAC of the game id, the seat and the seat's token generation), so that the workers
can put the seat's secret link into the "game started" mail without any token being kept
in the database. Rotating a seat's token (``POST /games/{id}/token``) moves the seat to
the next generation: a new token, and the old one (and the reply addresses bound to its
hash, workers/reply_address.py) stop working. The key is ``Settings.secret_key``
(settings.py).

An account (service/players.py) acts through its sign-in session's token (``p_…``, every
scope) or through a personal access token (``pat_…``) limited to some of ``SCOPES``: either
acts in each seat the account claimed (``seats.claimed_by``), the game saying which.

``Caller`` says what a request's token may do with a game; its checks raise the domain
errors of ``errors.py``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from engine.words import msg

from .errors import Forbidden, MissingScope, Unauthenticated
from .store import Game


def new_token() -> str:
    return secrets.token_urlsafe(24)


def seat_token(key: bytes, game_id: str, seat: int, generation: int = 0) -> str:
    """The secret bearer token of a seat at a generation: 32 URL-safe characters (192
    bits). Generation 0 is the seat's first token (as before rotation existed)."""
    message = f"alhambra-pbem seat {game_id} {seat}" + (f" {generation}" if generation else "")
    mac = hmac.new(key, message.encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:24]).decode()


def claim_code(key: bytes, game_id: str, seat: int, generation: int) -> str:
    """The code that claims a seat at its token's ``generation`` (mailed to the seat's
    address only: the creator, who knows the token, never sees it; a claim moves the
    seat to the next generation, which this code no longer opens)."""
    message = f"alhambra-pbem claim {game_id} {seat} {generation}"
    mac = hmac.new(key, message.encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:18]).decode()


def new_invite_code() -> str:
    return secrets.token_urlsafe(9)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def same_hash(token: str, stored_hash: str | None) -> bool:
    return stored_hash is not None and hmac.compare_digest(hash_token(token), stored_hash)


NEED_TOKEN = "'Authorization: Bearer <token>'"
#: A sign-in session's token starts so (a seat token may too: 1 in 4096).
SESSION_PREFIX = "p_"
#: A personal access token starts so (a seat token may too: 1 in 16.7 million).
PERSONAL_PREFIX = "pat_"
#: What a personal access token may do in its account's seats: ``read`` (my games, a
#: game as my seat sees it, its events and talk, the streams), ``play`` (moves, previews,
#: resigning, the seat's own settings: language, address, token, webhooks) and ``talk``
#: (write table talk, mute, notes).
SCOPES = ("read", "play", "talk")


@dataclass(frozen=True)
class Caller:
    """Who is asking: a seat of a game, the host of games, an account (acting in the seats
    it claimed, within ``scopes``), or nobody (a spectator)."""

    token_hash: str | None = None
    game_id: str | None = None  # the seat's game
    seat: int | None = None
    hosted: tuple[str, ...] = ()  # games this token hosts
    account: str | None = None  # the account's address (a session or personal token)
    scopes: frozenset[str] = frozenset(SCOPES)  # what an account's token may do

    @property
    def anonymous(self) -> bool:
        return self.token_hash is None

    def hosts(self, game: Game) -> bool:
        return game.id in self.hosted

    def seat_in(self, game: Game) -> int | None:
        """The caller's seat of ``game`` (its token's, or the one its account claimed),
        None if it has none."""
        if self.account is not None:
            return next((s.seat for s in game.seats if s.claimed_by == self.account), None)
        return self.seat if self.game_id == game.id else None

    def _account_seat(self, game: Game, scope: str) -> int:
        if scope not in self.scopes:
            raise MissingScope(scope)
        seat = self.seat_in(game)
        if seat is None:
            raise Forbidden(msg("you have no seat in this game"))
        return seat

    def viewer(self, game: Game) -> int | None:
        """The seat whose view of ``game`` the caller gets (None: a spectator's);
        Forbidden for a token of another game, and for a spectator once a game whose
        host keeps its replay private (``replay_public`` false) is over."""
        if self.hosts(game):
            return None
        if self.account is not None:
            return self._account_seat(game, "read")
        if self.anonymous:
            if game.status == "over" and not game.replay_public:
                raise Forbidden(msg("this game is over and its host keeps its replay "
                                    "private: only its seats and its host may see it"))
            return None
        if self.game_id != game.id:
            raise Forbidden(msg("this token belongs to another game"))
        return self.seat

    def player(self, game: Game, scope: str = "play") -> int:
        """The caller's seat in ``game``, to play (an account's token: with ``scope``): a
        seat token of this game, or an account's that claimed a seat of it."""
        if self.anonymous:
            raise Unauthenticated(msg("a seat token is needed: use {header}",
                                      header=NEED_TOKEN))
        if self.account is not None:
            return self._account_seat(game, scope)
        if self.game_id == game.id and self.seat is not None:
            return self.seat
        if self.hosts(game):
            raise Forbidden(msg("the host token cannot play; use a seat token"))
        raise Forbidden(msg("this token is not a seat of this game"))

    def own_seat(self, game: Game) -> int:
        """The seat whose own token the caller holds, or its account claimed (to rotate
        the token, choose its language or address)."""
        if self.anonymous:
            raise Unauthenticated(msg("the seat's token is needed: use {header}",
                                      header=NEED_TOKEN))
        if self.account is not None:
            return self._account_seat(game, "play")
        if self.game_id == game.id and self.seat is not None:
            return self.seat
        raise Forbidden(msg("only a seat's own token can do this"))

    def owner(self, game: Game, scope: str = "play") -> int | None:
        """Whose webhooks (or messages) on ``game`` the caller manages: its seat's, or
        (None) the host's; an account's token needs ``scope``."""
        if self.anonymous:
            raise Unauthenticated(msg("a seat token or the host token is needed: use {header}",
                                      header=NEED_TOKEN))
        if self.account is not None:
            return self._account_seat(game, scope)
        if self.game_id == game.id and self.seat is not None:
            return self.seat
        if self.hosts(game):
            return None
        raise Forbidden(msg("this token is neither a seat nor the host of this game"))
