"""Secret tokens: bearer tokens for seats and hosts, invite codes for open seats.

Only the SHA-256 of a token is stored; the token itself is shown once, when it is made.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from flask import request

from .errors import ApiError


def new_token() -> str:
    return secrets.token_urlsafe(24)


def new_invite_code() -> str:
    return secrets.token_urlsafe(9)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def same_hash(token: str, stored_hash: str | None) -> bool:
    return stored_hash is not None and hmac.compare_digest(hash_token(token), stored_hash)


@dataclass(frozen=True)
class Caller:
    """Who is asking: a seat of a game, the host of games, or nobody (a spectator)."""

    token_hash: str | None = None
    game_id: str | None = None  # the seat's game
    seat: int | None = None
    email: str | None = None
    hosted: tuple[str, ...] = ()  # games this token hosts

    @property
    def anonymous(self) -> bool:
        return self.token_hash is None


def bearer_token() -> str | None:
    """The bearer token of the request, None if there is no Authorization header."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise ApiError(401, "unauthorized", "use 'Authorization: Bearer <token>'",
                       headers={"WWW-Authenticate": 'Bearer realm="alhambra-pbem"'})
    return token


def current_caller(store) -> Caller:
    """Resolve the request's bearer token (401 for a token nobody holds)."""
    token = bearer_token()
    if token is None:
        return Caller()
    h = hash_token(token)
    seat = store.seat_by_token_hash(h)
    if seat is not None:
        return Caller(token_hash=h, game_id=seat.game_id, seat=seat.seat, email=seat.email)
    hosted = store.games_hosted_by(h)
    if hosted:
        return Caller(token_hash=h, hosted=tuple(hosted))
    raise ApiError(401, "invalid_token", "this token belongs to no seat and no game host",
                   headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})
