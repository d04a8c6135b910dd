"""How many ``/games/{id}/stream`` connections may be open: ``Settings.streams_per_client``
per client address and ``Settings.streams_max`` in all (issue 20.2).

The client address is the one the rate limits count (ratelimit.py: the socket's peer, or
with ``ALHAMBRA_TRUSTED_PROXIES`` the address the outermost proxy saw). Open streams are
counted in Redis when the settings name one, so every API process and host counts
together: one sorted set per address and one for all, each member a stream whose score
is the time it ends at the latest (a server that crashed leaves members that expire by
themselves). Without Redis, or while it fails, each process counts its own in memory.
"""

from __future__ import annotations

import logging
import math
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import redis

from . import metrics
from .settings import Settings

log = logging.getLogger("alhambra.streams")

#: Seconds a stream's place is kept past its planned end (a stream ends a little late).
MARGIN = 10.0
#: Seconds the counting stays in memory after Redis failed.
REDIS_PAUSE = 5.0

# KEYS: the address's set, the set of all; ARGV: now, until, member, per client, in all.
# Answers {0} (taken), or {1 | 2, the score of the oldest stream of the set that is full}.
_ACQUIRE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
for i, limit in ipairs({ARGV[4], ARGV[5]}) do
  if redis.call('ZCARD', KEYS[i]) >= tonumber(limit) then
    return {i, redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')[2]}
  end
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
local ttl = math.ceil(tonumber(ARGV[2]) - tonumber(ARGV[1]))
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
return {0}
"""


class TooManyStreams(Exception):
    """No place for another stream: ``whose`` is ``"address"`` or ``"all"``."""

    def __init__(self, whose: str, retry_after: int) -> None:
        super().__init__(whose)
        self.whose = whose
        self.retry_after = retry_after


@dataclass(eq=False)
class Slot:
    """One open stream's place; ``release()`` gives it back (once)."""

    _release: Callable[[], None]
    _done: bool = field(default=False)

    def __post_init__(self) -> None:
        metrics.stream(opened=True)

    def release(self) -> None:
        if not self._done:
            self._done = True
            self._release()
            metrics.stream(opened=False)


class StreamCaps:
    """``acquire(address, seconds)`` a Slot for a stream lasting ``seconds``, or
    TooManyStreams."""

    def __init__(self, settings: Settings, client: redis.Redis | None) -> None:
        self.per_client = settings.streams_per_client
        self.in_all = settings.streams_max
        self.prefix = f"{settings.redis_prefix}streams:"
        self.client = client
        self.script = client.register_script(_ACQUIRE) if client is not None else None
        self.redis_failed = -math.inf
        self.lock = threading.Lock()
        self.local: dict[str, dict[str, float]] = {}  # address → member → until

    def acquire(self, address: str, seconds: float) -> Slot:
        now = time.time()
        until = now + seconds + MARGIN
        member = secrets.token_hex(8)
        if self.script is not None and time.monotonic() - self.redis_failed > REDIS_PAUSE:
            keys = [f"{self.prefix}{address}", f"{self.prefix}*all"]
            try:
                answer = self.script(keys, [now, until, member, self.per_client, self.in_all])
            except redis.RedisError as exc:
                self._failed(exc)
            else:
                if int(answer[0]):
                    raise self._refusal(int(answer[0]), float(answer[1]), now)
                return Slot(lambda: self._release_redis(keys, member))
        return self._acquire_local(address, member, now, until)

    def _refusal(self, which: int, oldest_until: float, now: float) -> TooManyStreams:
        return TooManyStreams("address" if which == 1 else "all",
                              max(1, math.ceil(oldest_until - MARGIN - now)))

    def _release_redis(self, keys: list[str], member: str) -> None:
        if self.client is None or time.monotonic() - self.redis_failed <= REDIS_PAUSE:
            return  # it expires by itself
        try:
            pipe = self.client.pipeline(transaction=False)
            for key in keys:
                pipe.zrem(key, member)
            pipe.execute()
        except redis.RedisError as exc:
            self._failed(exc)

    def _failed(self, exc: Exception) -> None:
        log.warning("stream counting: Redis failed (%s); counting in this process for "
                    "%.0f s", exc, REDIS_PAUSE)
        self.redis_failed = time.monotonic()

    def _acquire_local(self, address: str, member: str, now: float, until: float) -> Slot:
        with self.lock:
            for members in self.local.values():
                for m in [m for m, u in members.items() if u <= now]:
                    del members[m]
            mine = self.local.setdefault(address, {})
            everyone = [u for members in self.local.values() for u in members.values()]
            for which, until_list, limit in ((1, list(mine.values()), self.per_client),
                                             (2, everyone, self.in_all)):
                if len(until_list) >= limit:
                    raise self._refusal(which, min(until_list), now)
            mine[member] = until

        def release() -> None:
            with self.lock:
                mine.pop(member, None)
                if not mine and self.local.get(address) is mine:
                    del self.local[address]
        return Slot(release)
