"""What ``/health`` checks: the database, Redis, the workers' heartbeats and the due-work lag.

Each worker process writes a heartbeat key per queue it serves every
``HEARTBEAT_INTERVAL`` seconds, living ``HEARTBEAT_TTL`` seconds, and names itself in the
queue's set of workers (``beat``): a queue none of whose workers has a live key has no
worker. The due-work lag is how long the earliest due row (a mail, a webhook call, a
deadline…) has waited past its time without a worker claiming it (or, claimed by a
worker that died, past its lease). ``mail`` counts the mails refused or bounced in the
last hour (it does not make the service down). ``mail_in`` (with ``MAIL_IN_AUTH`` other
than ``none``) is ``failing`` once the last ``UNAUTHENTICATED_IN_A_ROW`` replies were
refused because no Authentication-Results header of ``MAIL_IN_AUTHSERV_ID`` came with
them (the MTA's milter is not running: every reply is refused), and says so; it does not
make the service down either. A part that is down makes the answer 503.
"""

from __future__ import annotations

from typing import Any

import redis

from . import times
from .settings import Settings
from .store import EventStore

HEARTBEAT_INTERVAL = 0.5  # seconds between a worker's heartbeats
HEARTBEAT_TTL = 2.0  # seconds a heartbeat lives: a worker silent this long is down
#: Replies refused one after another for want of the MTA's Authentication-Results before
#: ``mail_in`` is ``failing`` (one or two may be forged mails that went around the MTA).
UNAUTHENTICATED_IN_A_ROW = 3


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
        if settings.mail_in_auth != "none":
            parts["mail_in"] = _mail_in(settings, store)
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


def _mail_in(settings: Settings, store: EventStore) -> dict[str, Any]:
    """Are replies refused one after another because the MTA writes no
    Authentication-Results (MAIL_IN_AUTH without its milter)?"""
    n, last, reason = store.mail.unauthenticated_in_a_row()
    part: dict[str, Any] = {"status": "ok", "unauthenticated_in_a_row": n}
    if n >= UNAUTHENTICATED_IN_A_ROW and last is not None:
        part.update(status="failing", last_refused_at=times.to_text(last), error=(
            f"the last {n} replies were refused, none authenticated since (the last at "
            f"{times.to_text(last)}): {reason}"))
    return part


def _error(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"[:200]
