"""What a job needs, built once per process from the settings: the store, the service's
Games (the same submit path as the API), the mailer and the Redis connection."""

from __future__ import annotations

import threading

from redis import Redis
from rq import Queue

from service import metrics
from service.games import Games
from service.presence import Presence
from service.settings import Settings
from service.store import open_store

from .mail import Mailer


class Context:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        metrics.setup(settings)  # this process counts its due work and bounces
        self.store = open_store(settings)
        self.games = Games(self.store, cache_size=64, secret_key=settings.secret_key,
                           takeover_bot=settings.takeover_level,
                           bot_turns=settings.bot_turns, reminders=settings.reminders,
                           messages_per_hour=settings.messages_per_hour,
                           idempotency_retention=settings.idempotency_retention,
                           rate_bot_accounts=settings.rate_bot_accounts,
                           cache_depth=8)  # a mail about a batch the bots played on from
        self.mailer = Mailer(settings)
        self.wake = threading.Event()  # set by a job that added due work (dispatch.py)
        self._redis: Redis | None = None
        self._presence: Presence | None = None

    @property
    def redis(self) -> Redis:
        if self._redis is None:
            if not self.settings.redis_url:
                raise RuntimeError("REDIS_URL is not set")
            self._redis = Redis.from_url(self.settings.redis_url, socket_timeout=10,
                                         socket_connect_timeout=5, health_check_interval=30)
        return self._redis

    @property
    def presence(self) -> Presence:
        """Who is watching now (service/presence.py): over Redis when the settings name
        one, as the API marks it."""
        if self._presence is None:
            self._presence = Presence(self.settings,
                                      self.redis if self.settings.redis_url else None)
        return self._presence

    def queue(self) -> Queue:
        """The queue of mails, reminders, answers and deadlines."""
        return Queue(self.settings.queue, connection=self.redis)

    def bot_queue(self) -> Queue:
        """Bots' moves (a strong bot thinks for seconds): after the mails in each worker."""
        return Queue(self.settings.bot_queue, connection=self.redis)

    def webhook_queue(self) -> Queue:
        """The webhooks' own queue (served by its own worker process)."""
        return Queue(self.settings.webhook_queue, connection=self.redis)

    def close(self) -> None:
        self.mailer.close()
        self.store.close()
        if self._redis is not None:
            self._redis.close()


_context: Context | None = None
_lock = threading.Lock()


def context() -> Context:
    """This process's context, for RQ's entry points (jobs.py): the one the worker set
    at start, or (a job run by another RQ worker) one from the environment."""
    global _context
    with _lock:
        if _context is None:
            _context = Context(Settings.from_env())
        return _context


def set_context(ctx: Context | None) -> None:
    global _context
    with _lock:
        _context = ctx
