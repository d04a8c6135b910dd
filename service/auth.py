"""Secret tokens: bearer tokens for seats and hosts, invite codes for open seats.

Only the SHA-256 of a token is stored. A seat's token is derived from the server's secret
key (HMAC of the game id and the seat), so that the workers can put the seat's secret link
into the "game started" mail without any token being kept in the database. The key is
``ALHAMBRA_SECRET_KEY`` or, by default, a random key kept in ``secret.key`` beside the
database (mode 0600).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from flask import request

from .errors import ApiError


def new_token() -> str:
    return secrets.token_urlsafe(24)


def seat_token(key: bytes, game_id: str, seat: int) -> str:
    """The secret bearer token of a seat: 32 URL-safe characters (192 bits)."""
    mac = hmac.new(key, f"alhambra-pbem seat {game_id} {seat}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:24]).decode()


def load_secret_key(db_path: str | os.PathLike[str] | None) -> bytes:
    """The server's secret key: ``$ALHAMBRA_SECRET_KEY``, else ``secret.key`` beside the
    database (created once), else (an in-memory database) a random key for this process."""
    env = os.environ.get("ALHAMBRA_SECRET_KEY")
    if env:
        return hashlib.sha256(env.encode()).digest()
    if db_path is None or str(db_path) == ":memory:":
        return secrets.token_bytes(32)
    path = Path(db_path).parent / "secret.key"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32) + "\n")
    for _ in range(50):  # another process may be writing it right now
        text = path.read_text().strip()
        if len(text) == 64:
            return bytes.fromhex(text)
        time.sleep(0.01)
    raise RuntimeError(f"{path} does not hold a 64-digit hex key")


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
