"""One configuration for the API, the workers and the CLI, read from the environment.

``Settings.from_env()`` reads the variables below once; ``create_app(settings)`` and the
workers' ``Context(settings)`` take the same object, so both derive seat tokens from the
same key, open the same database and link to the same public URL. The README has the
same table for operators.

=============================  =========================================================
``ALHAMBRA_DATA``              the data folder: database, secret key, outbox mails,
                               embedded Redis (default ``./data``, made absolute once)
``ALHAMBRA_DB``                the SQLite file (default ``$ALHAMBRA_DATA/alhambra.db``)
``DATABASE_URL``               ``postgresql://user:password@host:port/dbname``: keep games
                               in PostgreSQL instead of SQLite (many API hosts and
                               workers); needs ``ALHAMBRA_SECRET_KEY``
``DATABASE_POOL_SIZE``         PostgreSQL connections each process may hold (``10``)
``DATABASE_POOL_TIMEOUT``      seconds a request waits for a free connection (``30``)
``ALHAMBRA_SECRET_KEY``        the key seat tokens derive from (default: a random key kept
                               in ``secret.key`` beside the SQLite database)
``PUBLIC_URL``                 the base of links in mails and join links (the API
                               defaults to the request's host; mails to
                               ``http://127.0.0.1:8000``)
``ALHAMBRA_MIN_TIME_PER_MOVE`` the least time per move a game may have, seconds (``60``)
``ALHAMBRA_STATE_CACHE``       games whose latest state each process keeps (``512``;
                               ``0``: none)
``REDIS_URL``                  the Redis (or Valkey) of the queues; ``serve`` starts a
                               private one when it is unset
``SMTP_URL``                   ``smtp://[user:password@]host:port[?starttls=1]`` (or
                               ``smtps://``); unset: mails are written to
                               ``$ALHAMBRA_DATA/outbox/``
``MAIL_FROM``                  the sender (``alhambra-pbem <alhambra@localhost>``)
``MAIL_REPLY_TO``              the address replies with moves go to, e.g.
                               ``moves@example.org``: each mail's ``Reply-To`` is then
                               ``moves+<tag>@example.org`` (unset: no play by e-mail)
``MAIL_IN_LISTEN``             ``HOST:PORT`` where ``serve`` also runs the SMTP listener of
                               ``alhambra-pbem mail-in --listen`` (unset: none)
``MAIL_IN_MAX_SIZE``           the largest reply accepted, bytes (``1048576``)
``MAIL_IN_AUTH``               what proves a reply's sender: ``none`` (the From header
                               alone, the default), ``dkim``, ``spf`` or ``any`` (either):
                               a pass aligned with the From domain in an
                               ``Authentication-Results`` header of ``MAIL_IN_AUTHSERV_ID``
``MAIL_IN_AUTHSERV_ID``        the authserv-id of the MTA that adds those headers (needed
                               unless ``MAIL_IN_AUTH=none``)
``MAIL_IN_ANSWERS_PER_HOUR``   answers to replies one address gets in an hour, at most
                               (``10``; beyond it a reply is still played, not answered)
``ALHAMBRA_REMINDERS``         reminder times, fractions of the time the seat had as
                               its turn began (``0.5,0.9``)
``ALHAMBRA_WEBHOOK_RETRIES``   seconds between webhook attempts (``10,60,300,1800,7200``)
``ALHAMBRA_WEBHOOK_CONNECT_TIMEOUT`` seconds a webhook delivery waits to connect (``3``)
``ALHAMBRA_WEBHOOK_READ_TIMEOUT`` seconds a webhook delivery waits for each read of the
                               answer (``5``)
``ALHAMBRA_WEBHOOK_MAX_FAILURES`` failed attempts in a row that disable a webhook (``15``)
``ALHAMBRA_WEBHOOKS_PER_GAME`` webhooks a game may have (``10``)
``ALHAMBRA_WEBHOOKS_PER_SEAT`` webhooks a seat (or the host) may have on a game (``3``)
``ALHAMBRA_WEBHOOK_ALLOW_PRIVATE`` ``1``: webhooks may call loopback, private and
                               link-local addresses (a closed network, tests); default:
                               only public addresses
``ALHAMBRA_BOT_TURNS``         turns of a game its bots play at once; past them a bot's
                               seat moves at its deadline only (``1000``)
``ALHAMBRA_VACATION_DAYS``     days of vacation a player may take in a calendar year
                               (UTC; ``21``; ``PATCH /me``)
``ALHAMBRA_HEALTH_MAX_LAG``    seconds due work (a mail, a deadline…) may wait past its
                               time before ``/health`` answers 503 (``300``)
``ALHAMBRA_CLAIM_INTERVAL``    seconds between the workers' looks for due work (``0.2``;
                               on PostgreSQL a new row wakes them at once)
``ALHAMBRA_CLAIM_LEASE``       seconds a worker holds due work it claimed; past it (the
                               worker died) another claims it again (``300``)
``ALHAMBRA_QUEUE``             the RQ queue name (``alhambra``)
``ALHAMBRA_REDIS_PREFIX``      the start of every other Redis key the workers write
                               (``alhambra:``)
``ALHAMBRA_STREAM_SECONDS``    how long one ``/games/{id}/stream`` lasts before the client
                               reconnects (``25``; a one-request-at-a-time server ends
                               each stream at once)
``ALHAMBRA_STREAMS_PER_CLIENT`` open streams per client address (``8``; more: 429)
``ALHAMBRA_STREAMS_MAX``       open streams in all, every API process together (``5000``)
``ALHAMBRA_MAX_BODY``          the largest request body, bytes (``262144``; larger: 413)
``ALHAMBRA_LIMIT_CREATE``      game creations per client address (``20/hour``; limits
                               are flask-limiter's ``N/second|minute|hour|day``, several
                               separated by ``;``)
``ALHAMBRA_LIMIT_JOIN``        seats taken by joining per client address (``60/hour``)
``ALHAMBRA_LIMIT_BAD_TOKEN``   refused tokens and invite codes per client address and per
                               target; past it refused ones get 429, valid ones never
                               (``30/minute``, ratelimit.py)
``ALHAMBRA_LIMIT_IMPORT``      record imports per client address (``20/hour``)
``ALHAMBRA_LIMIT_SIGN_IN``     sign-in mails asked for per client address (``20/hour``)
``ALHAMBRA_LIMIT_SIGN_IN_ADDRESS`` sign-in mails per e-mail address (``5/hour``)
``ALHAMBRA_LIMIT_SESSION``     sign-in codes tried per client address (``30/hour``)
``ALHAMBRA_TRUSTED_PROXIES``   how many proxies in front of the API append to
                               ``X-Forwarded-For``: the client address is the one the
                               outermost of them saw (``0``: the socket's peer)
``ALHAMBRA_CORS_ORIGINS``      origins whose pages may call the API from a browser,
                               separated by ``,`` (``*``: any; empty: none)
=============================  =========================================================
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from engine.bots import LEVELS

DEFAULT_MIN_TIME_PER_MOVE = 60
#: The rate limits per client address when neither the environment nor the caller names
#: them (the tests make them generous for every test but the one of the limits).
DEFAULT_LIMITS = {"limit_create": "20/hour", "limit_join": "60/hour",
                  "limit_bad_token": "30/minute", "limit_import": "20/hour",
                  "limit_sign_in": "20/hour", "limit_sign_in_address": "5/hour",
                  "limit_session": "30/hour"}
LOCAL_URL = "http://127.0.0.1:8000"
#: What MAIL_IN_AUTH may say (workers/mail_auth.py).
MAIL_IN_AUTH = ("none", "dkim", "spf", "any")


class SettingsError(ValueError):
    """An environment variable that cannot be read: says which and why."""


@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("data")
    database: str = ""  # "": data_dir/alhambra.db; ":memory:" for a throwaway database
    database_url: str | None = None  # PostgreSQL instead of the SQLite file
    db_pool_size: int = 10
    db_pool_timeout: float = 30.0
    secret: str | None = None  # ALHAMBRA_SECRET_KEY; None: secret.key beside the database
    public_url: str | None = None
    min_time_per_move: int = DEFAULT_MIN_TIME_PER_MOVE
    state_cache_size: int = 512
    max_body: int = 256 << 10
    limit_create: str = field(default_factory=lambda: DEFAULT_LIMITS["limit_create"])
    limit_join: str = field(default_factory=lambda: DEFAULT_LIMITS["limit_join"])
    limit_bad_token: str = field(default_factory=lambda: DEFAULT_LIMITS["limit_bad_token"])
    limit_import: str = field(default_factory=lambda: DEFAULT_LIMITS["limit_import"])
    limit_sign_in: str = field(default_factory=lambda: DEFAULT_LIMITS["limit_sign_in"])
    limit_sign_in_address: str = field(
        default_factory=lambda: DEFAULT_LIMITS["limit_sign_in_address"])
    limit_session: str = field(default_factory=lambda: DEFAULT_LIMITS["limit_session"])
    trusted_proxies: int = 0
    cors_origins: tuple[str, ...] = ("*",)
    redis_url: str | None = None
    smtp_url: str | None = None
    mail_from: str = "alhambra-pbem <alhambra@localhost>"
    mail_reply_to: str | None = None
    mail_in_listen: str | None = None
    mail_in_max_size: int = 1 << 20
    mail_in_auth: str = "none"  # none, dkim, spf or any (workers/mail_auth.py)
    mail_in_authserv_id: str | None = None
    mail_in_answers_per_hour: int = 10
    reminders: tuple[float, ...] = (0.5, 0.9)
    takeover_bot: str = "greedy"
    bot_turns: int = 1000  # turns of a game its bots play at once (then at their deadlines)
    vacation_days: int = 21  # a player's vacation days in a calendar year (players.py)
    webhook_retries: tuple[int, ...] = (10, 60, 300, 1800, 7200)
    webhook_connect_timeout: float = 3.0
    webhook_read_timeout: float = 5.0
    webhook_max_failures: int = 15
    webhooks_per_game: int = 10
    webhooks_per_seat: int = 3
    webhook_allow_private: bool = False
    health_max_lag: float = 300.0
    retries: tuple[int, ...] = (5, 30, 120, 600, 1800, 3600, 3600, 3600)  # due work's
    claim_interval: float = 0.2
    claim_lease: float = 300.0
    queue: str = "alhambra"
    redis_prefix: str = "alhambra:"
    stream_seconds: float = 25.0  # a /stream ends after this long (under gunicorn's timeout)
    stream_keepalive: float = 10.0  # seconds between keep-alive comments on a quiet stream
    stream_poll: float = 0.5  # seconds between a stream's looks for new events
    stream_retry_ms: int = 1000  # the reconnect delay a stream suggests to its client
    streams_per_client: int = 8  # open streams per client address
    streams_max: int = 5000  # open streams in all (every API process sharing the Redis)

    def __post_init__(self) -> None:
        data = Path(self.data_dir).resolve()
        object.__setattr__(self, "data_dir", data)
        database = str(self.database or data / "alhambra.db")
        if database != ":memory:":
            database = str(Path(database).resolve())
        object.__setattr__(self, "database", database)
        if self.public_url:
            object.__setattr__(self, "public_url", self.public_url.rstrip("/"))
        if self.min_time_per_move < 1:
            raise SettingsError("ALHAMBRA_MIN_TIME_PER_MOVE must be at least 1 second")
        if self.database_url:
            if not self.database_url.startswith(("postgresql://", "postgres://")):
                raise SettingsError("DATABASE_URL must be a postgresql:// URL")
            if not self.secret:
                raise SettingsError("DATABASE_URL needs ALHAMBRA_SECRET_KEY: every API "
                                    "host and worker must derive seat tokens from one key")
        if self.db_pool_size < 1:
            raise SettingsError("DATABASE_POOL_SIZE must be at least 1")
        if self.mail_reply_to is not None:
            local, at, domain = self.mail_reply_to.strip().partition("@")
            if not (at and local and domain) or "+" in local or "@" in domain or \
                    any(c.isspace() or c in "<>," for c in self.mail_reply_to.strip()):
                raise SettingsError("MAIL_REPLY_TO must be a bare address without '+', like "
                                    f"moves@example.org, not {self.mail_reply_to!r}")
            object.__setattr__(self, "mail_reply_to", self.mail_reply_to.strip().lower())
        if self.mail_in_listen is not None:
            _host_port("MAIL_IN_LISTEN", self.mail_in_listen)
            if not self.mail_reply_to:
                raise SettingsError("MAIL_IN_LISTEN needs MAIL_REPLY_TO: the addresses "
                                    "the listener accepts are its reply addresses")
        object.__setattr__(self, "mail_in_auth", self.mail_in_auth.strip().lower())
        if self.mail_in_auth not in MAIL_IN_AUTH:
            raise SettingsError(f"MAIL_IN_AUTH must be one of {', '.join(MAIL_IN_AUTH)}, "
                                f"not {self.mail_in_auth!r}")
        if self.mail_in_authserv_id is not None:
            authserv_id = self.mail_in_authserv_id.strip()
            if not authserv_id or any(c.isspace() or c in ";()\"" for c in authserv_id):
                raise SettingsError("MAIL_IN_AUTHSERV_ID must be the name the MTA writes "
                                    "first in its Authentication-Results headers, like "
                                    f"mx.example.org, not {self.mail_in_authserv_id!r}")
            object.__setattr__(self, "mail_in_authserv_id", authserv_id)
        if self.mail_in_auth != "none" and not self.mail_in_authserv_id:
            raise SettingsError(f"MAIL_IN_AUTH={self.mail_in_auth} needs MAIL_IN_AUTHSERV_ID:"
                                " only the headers of your own MTA can be believed")
        if self.mail_in_answers_per_hour < 1:
            raise SettingsError("MAIL_IN_ANSWERS_PER_HOUR must be at least 1")
        if self.takeover_bot not in LEVELS:
            raise SettingsError(f"ALHAMBRA_TAKEOVER_BOT must be a bot level of the engine "
                                f"({', '.join(LEVELS)}), not {self.takeover_bot!r}")
        for var, value in (("ALHAMBRA_WEBHOOK_CONNECT_TIMEOUT", self.webhook_connect_timeout),
                           ("ALHAMBRA_WEBHOOK_READ_TIMEOUT", self.webhook_read_timeout),
                           ("ALHAMBRA_WEBHOOK_MAX_FAILURES", self.webhook_max_failures),
                           ("ALHAMBRA_WEBHOOKS_PER_GAME", self.webhooks_per_game),
                           ("ALHAMBRA_WEBHOOKS_PER_SEAT", self.webhooks_per_seat),
                           ("ALHAMBRA_CLAIM_LEASE", self.claim_lease),
                           ("ALHAMBRA_CLAIM_INTERVAL", self.claim_interval),
                           ("ALHAMBRA_BOT_TURNS", self.bot_turns),
                           ("ALHAMBRA_VACATION_DAYS", self.vacation_days)):
            if not value > 0:
                raise SettingsError(f"{var} must be more than 0")
        if self.mail_in_max_size < 1024:
            raise SettingsError("MAIL_IN_MAX_SIZE must be at least 1024 bytes")
        if self.max_body < 1024:
            raise SettingsError("ALHAMBRA_MAX_BODY must be at least 1024 bytes")
        if self.streams_per_client < 1 or self.streams_max < 1:
            raise SettingsError("ALHAMBRA_STREAMS_PER_CLIENT and ALHAMBRA_STREAMS_MAX must "
                                "be at least 1")
        if self.trusted_proxies < 0:
            raise SettingsError("ALHAMBRA_TRUSTED_PROXIES must be 0 or more")
        for var, text in (("ALHAMBRA_LIMIT_CREATE", self.limit_create),
                          ("ALHAMBRA_LIMIT_JOIN", self.limit_join),
                          ("ALHAMBRA_LIMIT_BAD_TOKEN", self.limit_bad_token),
                          ("ALHAMBRA_LIMIT_IMPORT", self.limit_import),
                          ("ALHAMBRA_LIMIT_SIGN_IN", self.limit_sign_in),
                          ("ALHAMBRA_LIMIT_SIGN_IN_ADDRESS",
                           self.limit_sign_in_address),
                          ("ALHAMBRA_LIMIT_SESSION", self.limit_session)):
            _rate_limit(var, text)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any
                 ) -> Settings:
        """The settings of ``environ`` (default: this process's environment); keyword
        arguments override them (the CLI's options)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {
            "data_dir": Path(env.get("ALHAMBRA_DATA") or "data"),
            "database": env.get("ALHAMBRA_DB") or "",
            "database_url": env.get("DATABASE_URL") or None,
            "secret": env.get("ALHAMBRA_SECRET_KEY") or None,
            "public_url": env.get("PUBLIC_URL") or None,
            "redis_url": env.get("REDIS_URL") or None,
            "smtp_url": env.get("SMTP_URL") or None,
            "mail_from": env.get("MAIL_FROM") or cls.mail_from,
            "mail_reply_to": env.get("MAIL_REPLY_TO") or None,
            "mail_in_listen": env.get("MAIL_IN_LISTEN") or None,
            "mail_in_auth": env.get("MAIL_IN_AUTH") or cls.mail_in_auth,
            "mail_in_authserv_id": env.get("MAIL_IN_AUTHSERV_ID") or None,
            "queue": env.get("ALHAMBRA_QUEUE") or cls.queue,
            "redis_prefix": env.get("ALHAMBRA_REDIS_PREFIX") or cls.redis_prefix,
            "takeover_bot": env.get("ALHAMBRA_TAKEOVER_BOT") or "greedy",
            "webhook_allow_private": _flag("ALHAMBRA_WEBHOOK_ALLOW_PRIVATE",
                                           env.get("ALHAMBRA_WEBHOOK_ALLOW_PRIVATE")),
        }
        for name in DEFAULT_LIMITS:
            if env.get(f"ALHAMBRA_{name.upper()}"):
                values[name] = env[f"ALHAMBRA_{name.upper()}"]
        if env.get("ALHAMBRA_CORS_ORIGINS") is not None:
            values["cors_origins"] = tuple(o.strip().rstrip("/") for o in
                                           env["ALHAMBRA_CORS_ORIGINS"].split(",")
                                           if o.strip())
        numbers = {"min_time_per_move": ("ALHAMBRA_MIN_TIME_PER_MOVE", int),
                   "state_cache_size": ("ALHAMBRA_STATE_CACHE", int),
                   "db_pool_size": ("DATABASE_POOL_SIZE", int),
                   "db_pool_timeout": ("DATABASE_POOL_TIMEOUT", float),
                   "claim_interval": ("ALHAMBRA_CLAIM_INTERVAL", float),
                   "claim_lease": ("ALHAMBRA_CLAIM_LEASE", float),
                   "mail_in_max_size": ("MAIL_IN_MAX_SIZE", int),
                   "mail_in_answers_per_hour": ("MAIL_IN_ANSWERS_PER_HOUR", int),
                   "stream_seconds": ("ALHAMBRA_STREAM_SECONDS", float),
                   "streams_per_client": ("ALHAMBRA_STREAMS_PER_CLIENT", int),
                   "streams_max": ("ALHAMBRA_STREAMS_MAX", int),
                   "webhook_connect_timeout": ("ALHAMBRA_WEBHOOK_CONNECT_TIMEOUT", float),
                   "webhook_read_timeout": ("ALHAMBRA_WEBHOOK_READ_TIMEOUT", float),
                   "webhook_max_failures": ("ALHAMBRA_WEBHOOK_MAX_FAILURES", int),
                   "webhooks_per_game": ("ALHAMBRA_WEBHOOKS_PER_GAME", int),
                   "webhooks_per_seat": ("ALHAMBRA_WEBHOOKS_PER_SEAT", int),
                   "health_max_lag": ("ALHAMBRA_HEALTH_MAX_LAG", float),
                   "max_body": ("ALHAMBRA_MAX_BODY", int),
                   "trusted_proxies": ("ALHAMBRA_TRUSTED_PROXIES", int),
                   "bot_turns": ("ALHAMBRA_BOT_TURNS", int),
                   "vacation_days": ("ALHAMBRA_VACATION_DAYS", int)}
        for name, (var, kind) in numbers.items():
            if env.get(var):
                values[name] = _number(var, env[var], kind)
        if env.get("ALHAMBRA_REMINDERS") is not None:
            values["reminders"] = tuple(f for f in _numbers("ALHAMBRA_REMINDERS",
                                                            env["ALHAMBRA_REMINDERS"])
                                        if 0 < f < 1)
        if env.get("ALHAMBRA_WEBHOOK_RETRIES"):
            values["webhook_retries"] = tuple(max(0, round(x)) for x in _numbers(
                "ALHAMBRA_WEBHOOK_RETRIES", env["ALHAMBRA_WEBHOOK_RETRIES"]))
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    def environ(self) -> dict[str, str]:
        """These settings as environment variables, for a child process (a worker)."""
        env = {"ALHAMBRA_DATA": str(self.data_dir), "ALHAMBRA_DB": self.database,
               "ALHAMBRA_MIN_TIME_PER_MOVE": str(self.min_time_per_move),
               "ALHAMBRA_STATE_CACHE": str(self.state_cache_size),
               "MAIL_FROM": self.mail_from, "MAIL_IN_MAX_SIZE": str(self.mail_in_max_size),
               "MAIL_IN_AUTH": self.mail_in_auth,
               "MAIL_IN_ANSWERS_PER_HOUR": str(self.mail_in_answers_per_hour),
               "ALHAMBRA_REMINDERS": ",".join(map(str, self.reminders)),
               "ALHAMBRA_WEBHOOK_RETRIES": ",".join(map(str, self.webhook_retries)),
               "ALHAMBRA_CLAIM_INTERVAL": str(self.claim_interval),
               "ALHAMBRA_CLAIM_LEASE": str(self.claim_lease), "ALHAMBRA_QUEUE": self.queue,
               "ALHAMBRA_REDIS_PREFIX": self.redis_prefix,
               "DATABASE_POOL_SIZE": str(self.db_pool_size),
               "DATABASE_POOL_TIMEOUT": str(self.db_pool_timeout),
               "ALHAMBRA_WEBHOOK_CONNECT_TIMEOUT": str(self.webhook_connect_timeout),
               "ALHAMBRA_WEBHOOK_READ_TIMEOUT": str(self.webhook_read_timeout),
               "ALHAMBRA_WEBHOOK_MAX_FAILURES": str(self.webhook_max_failures),
               "ALHAMBRA_WEBHOOKS_PER_GAME": str(self.webhooks_per_game),
               "ALHAMBRA_WEBHOOKS_PER_SEAT": str(self.webhooks_per_seat),
               "ALHAMBRA_WEBHOOK_ALLOW_PRIVATE": "1" if self.webhook_allow_private else "0",
               "ALHAMBRA_HEALTH_MAX_LAG": str(self.health_max_lag),
               "ALHAMBRA_BOT_TURNS": str(self.bot_turns),
               "ALHAMBRA_VACATION_DAYS": str(self.vacation_days)}
        for var, value in (("ALHAMBRA_SECRET_KEY", self.secret),
                           ("PUBLIC_URL", self.public_url), ("REDIS_URL", self.redis_url),
                           ("SMTP_URL", self.smtp_url), ("DATABASE_URL", self.database_url),
                           ("MAIL_REPLY_TO", self.mail_reply_to),
                           ("MAIL_IN_LISTEN", self.mail_in_listen),
                           ("MAIL_IN_AUTHSERV_ID", self.mail_in_authserv_id),
                           ("ALHAMBRA_TAKEOVER_BOT", self.takeover_bot)):
            if value:
                env[var] = value
        return env

    @property
    def mail_in_address(self) -> tuple[str, int] | None:
        """MAIL_IN_LISTEN as (host, port), or None."""
        return _host_port("MAIL_IN_LISTEN", self.mail_in_listen) if self.mail_in_listen \
            else None

    @property
    def takeover_level(self) -> str:
        """The level of the bot that takes a seat over unless a game says otherwise
        (ALHAMBRA_TAKEOVER_BOT)."""
        return self.takeover_bot

    @property
    def bot_queue(self) -> str:
        """The RQ queue of bots' moves (a strong bot thinks for seconds): served by the
        mail worker after the mail queue."""
        return f"{self.queue}-bots"

    @property
    def webhook_queue(self) -> str:
        """The RQ queue of webhook deliveries (its own worker: a slow receiver never
        delays a mail)."""
        return f"{self.queue}-webhooks"

    @property
    def outbox_dir(self) -> Path:
        return self.data_dir / "outbox"

    @property
    def link_url(self) -> str:
        """The base of links in mails: PUBLIC_URL, or the local default."""
        return self.public_url or LOCAL_URL

    @cached_property
    def secret_key(self) -> bytes:
        """The key seat tokens derive from: ALHAMBRA_SECRET_KEY hashed, else the random key
        in ``secret.key`` beside the database (created once, mode 0600), else (a
        ``:memory:`` database) a random key for these settings."""
        if self.secret:
            return hashlib.sha256(self.secret.encode()).digest()
        if self.database == ":memory:":
            return secrets.token_bytes(32)
        return _key_file(Path(self.database).parent / "secret.key")


def _number(var: str, text: str, kind: type) -> Any:
    try:
        return kind(text)
    except ValueError:
        raise SettingsError(f"{var} must be a number, not {text!r}") from None


def _flag(var: str, text: str | None) -> bool:
    if text is None or text.strip().lower() in ("", "0", "false", "no", "off"):
        return False
    if text.strip().lower() in ("1", "true", "yes", "on"):
        return True
    raise SettingsError(f"{var} must be 1 or 0, not {text!r}")


def _numbers(var: str, text: str) -> list[float]:
    return [_number(var, x, float) for x in text.replace(";", ",").split(",") if x.strip()]


def _rate_limit(var: str, text: str) -> None:
    """SettingsError unless ``text`` is a flask-limiter limit such as ``20/hour``."""
    from limits import parse_many

    try:
        if not parse_many(text):
            raise ValueError(text)
    except ValueError:
        raise SettingsError(f"{var} must be a limit like 20/hour (several separated by "
                            f"';'), not {text!r}") from None


def _host_port(var: str, text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as (host, port)."""
    host, _, port = text.strip().rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise SettingsError(f"{var} must be HOST:PORT, like 127.0.0.1:2525, not {text!r}")
    return host, int(port)


def _key_file(path: Path) -> bytes:
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
    raise SettingsError(f"{path} does not hold a 64-digit hex key")
