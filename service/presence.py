"""Who is watching right now: a player with a live stream open is not pushed (issue 37:
the stream already told them).

A stream marks where it looks while it is open: ``/me/stream`` its account (all its
games and invitations), ``/games/{id}/stream`` the game's seat it reads as. The marks are
kept in Redis when the settings name one, so the workers (another process, another host)
see what every API process marks: one sorted set per account or seat, each member a
stream whose score is the time it stops counting. A stream that ends still counts for
``GRACE`` seconds, the time a page takes to reconnect (streams end after
``ALHAMBRA_STREAM_SECONDS``); a server that crashed leaves members that expire by
themselves. Without Redis, or while it fails, marks are kept in this process only (the
in-process due runner of tests sees them; workers elsewhere push as if nobody watched).
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
import threading
import time
from collections.abc import Callable, Iterable

import redis

from .settings import Settings

log = logging.getLogger("alhambra.presence")

#: Seconds a stream that ended still counts as watching (a page reconnects within them).
GRACE = 15.0
#: Seconds marks stay in memory after Redis failed.
REDIS_PAUSE = 5.0


def account_key(email: str) -> str:
    """Where an account's ``/me/stream`` is marked (the address hashed, never in clear)."""
    return "account:" + hashlib.sha256(email.encode()).hexdigest()[:32]


def seat_key(game_id: str, seat: int) -> str:
    """Where a stream of ``game_id`` read as ``seat`` is marked."""
    return f"seat:{game_id}:{seat}"


class Presence:
    """``watch(key, seconds)`` marks a stream open (call what it returns when the stream
    ends); ``watching(keys)`` says whether any of them is marked now."""

    def __init__(self, settings: Settings, client: redis.Redis | None,
                 grace: float = GRACE) -> None:
        self.grace = grace
        self.prefix = f"{settings.redis_prefix}present:"
        self.client = client
        self.redis_failed = -math.inf
        self.lock = threading.Lock()
        self.local: dict[str, dict[str, float]] = {}  # key → member → until

    def _redis(self) -> redis.Redis | None:
        if self.client is None or time.monotonic() - self.redis_failed <= REDIS_PAUSE:
            return None
        return self.client

    def _failed(self, exc: Exception) -> None:
        log.warning("presence: Redis failed (%s); kept in this process for %.0f s", exc,
                    REDIS_PAUSE)
        self.redis_failed = time.monotonic()

    def watch(self, key: str, seconds: float) -> Callable[[], None]:
        """Mark ``key`` watched for a stream of ``seconds``; the answer ends the mark
        (``grace`` seconds from then)."""
        member = secrets.token_hex(8)
        self._set(key, member, time.time() + seconds + self.grace)
        return lambda: self._set(key, member, time.time() + self.grace)

    def _set(self, key: str, member: str, until: float) -> None:
        client = self._redis()
        if client is not None:
            try:
                pipe = client.pipeline(transaction=False)
                pipe.zremrangebyscore(self.prefix + key, "-inf", time.time())
                pipe.zadd(self.prefix + key, {member: until})
                pipe.expire(self.prefix + key, math.ceil(until - time.time()) + 1)
                pipe.execute()
                return
            except redis.RedisError as exc:
                self._failed(exc)
        with self.lock:
            self.local.setdefault(key, {})[member] = until

    def watching(self, keys: Iterable[str]) -> bool:
        """Whether a stream marks any of ``keys`` now."""
        keys = list(keys)
        now = time.time()
        client = self._redis()
        if client is not None:
            try:
                pipe = client.pipeline(transaction=False)
                for key in keys:
                    pipe.zcount(self.prefix + key, now, "+inf")
                return any(int(n) > 0 for n in pipe.execute())
            except redis.RedisError as exc:
                self._failed(exc)
        with self.lock:
            for members in self.local.values():
                for m in [m for m, until in members.items() if until <= now]:
                    del members[m]
            return any(self.local.get(key) for key in keys)
