"""What ``/health`` checks: the database, Redis, the workers' heartbeats and the due-work lag.

Each worker process writes a heartbeat key per queue it serves every
``HEARTBEAT_INTERVAL`` seconds, living ``HEARTBEAT_TTL`` seconds, and names itself in the
queue's set of workers (``beat``): a queue none of whose workers has a live key has no
worker. The due-work lag is how long the earliest due row (a mail, a webhook call, a
deadline…) has waited past its time without a worker claiming it (or, claimed by a
worker that died, past its lease). ``mail`` counts the mails refused or bounced in the
last hour (it does not make the service down). A part that is down makes the answer 503.
"""

from __future__ import annotations

from typing import Any

import redis

from . import times
from .settings import Settings
from .store import EventStore

HEARTBEAT_INTERVAL = 0.5  # seconds between a worker's heartbeats
HEARTBEAT_TTL = 2.0  # seconds a heartbeat lives: a worker silent this long is down


def beat(client: redis.Redis, settings: Settings, queue: str, worker: str) -> None:
    """One heartbeat of ``worker`` serving ``queue``."""
    pipe = client.pipeline(transaction=False)
    pipe.set(f"{settings.redis_prefix}heartbeat:{queue}:{worker}", 1,
             px=int(HEARTBEAT_TTL * 1000))
    pipe.sadd(f"{settings.redis_prefix}workers:{queue}", worker)
    pipe.execute()


def live_workers(client: redis.Redis, settings: Settings, queue: str) -> int:
    """How many workers of ``queue`` beat lately (the silent ones are forgotten)."""
    members = sorted(m.decode() if isinstance(m, bytes) else m for m in client.smembers(
        f"{settings.redis_prefix}workers:{queue}"))  # bytes: no decode_responses
    if not members:
        return 0
    alive = client.mget([f"{settings.redis_prefix}heartbeat:{queue}:{m}" for m in members])
    dead = [m for m, a in zip(members, alive, strict=True) if a is None]
    if dead:
        client.srem(f"{settings.redis_prefix}workers:{queue}", *dead)
    return len(members) - len(dead)


def check(settings: Settings, store: EventStore, client: redis.Redis | None
          ) -> tuple[bool, dict[str, Any]]:
    """(all up, the parts): each part ``{"status": "ok" | "down" | "unknown", ...}``."""
    parts: dict[str, dict[str, Any]] = {}
    try:
        due = store.next_due()
        parts["database"] = {"status": "ok"}
        lag = max(0.0, times.seconds_since(due)) if due else 0.0
        parts["due"] = {"status": "ok" if lag <= settings.health_max_lag else "down",
                        "lag_seconds": round(lag, 3)}
        # refused at sending or bounced (a seat's failing address is its own matter)
        parts["mail"] = {"status": "ok", "failed_last_hour": store.mail.count_failures(
            times.later(-3600))}
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        parts["database"] = {"status": "down", "error": _error(exc)}
    if client is None:
        parts["redis"] = {"status": "unknown", "error": "REDIS_URL is not set"}
    else:
        try:
            client.ping()
            parts["redis"] = {"status": "ok"}
            for name, queue in (("worker", settings.queue),
                                ("webhook_worker", settings.webhook_queue)):
                n = live_workers(client, settings, queue)
                parts[name] = {"status": "ok" if n else "down", "count": n}
        except (redis.RedisError, OSError) as exc:
            parts["redis"] = {"status": "down", "error": _error(exc)}
    return all(p["status"] != "down" for p in parts.values()), parts


def _error(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"[:200]
