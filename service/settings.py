"""One configuration for the API, the workers and the CLI, read from the environment.

``Settings.from_env()`` reads the variables once; ``create_app(settings)`` and the
workers' ``Context(settings)`` take the same object, so both derive seat tokens from the
same key, open the same database and link to the same public URL.

Each setting is declared once, below: its field, type and default, and (with
``setting()``) its environment variable, what it means and its default in words. From that
one declaration ``from_env`` reads it, ``environ`` hands it to a child process, and
``table()`` writes docs/configuration.md's tables of settings, by topic (a test keeps
the page equal to it).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from engine.bots import LEVELS

DEFAULT_MIN_TIME_PER_MOVE = 60
#: The rate limits per client address when neither the environment nor the caller names
#: them (the tests make them generous for every test but the one of the limits).
DEFAULT_LIMITS: Mapping[str, str] = MappingProxyType({
    "limit_create": "20/hour", "limit_join": "60/hour", "limit_bad_token": "30/minute",
    "limit_import": "20/hour", "limit_sign_in": "20/hour", "limit_sign_in_address": "5/hour",
    "limit_session": "30/hour", "limit_report": "30/hour"})
LOCAL_URL = "http://127.0.0.1:8000"
#: What MAIL_IN_AUTH may say (workers/mail_auth.py).
MAIL_IN_AUTH = ("none", "dkim", "spf", "any")


class SettingsError(ValueError):
    """An environment variable that cannot be read: says which and why."""


class Topic(NamedTuple):
    """A group of settings in docs/configuration.md: its heading and one sentence."""
    name: str
    intro: str


START, STORAGE, MAIL, GAMES, WEBHOOKS, WORKERS, WEB, PUBLIC = (
    "Start here", "Storage", "Mail", "Games and players", "Webhooks", "Workers and due work",
    "The web server and live streams", "On the public internet")
#: The settings' topics, in the order docs/configuration.md shows them; each setting
#: names one (``setting(topic=…)``).
TOPICS: tuple[Topic, ...] = (
    Topic(START, "The handful everyone sets first: where the data is, the address players"
                 " reach, and how mail goes out and comes back."),
    Topic(STORAGE, "The database besides its place, the key seat tokens derive from, and"
                   " how long the answers and the done work are kept."),
    Topic(MAIL, "Replies by mail (mail-in), who sent them, and mails that bounce."),
    Topic(GAMES, "What a game may ask of its players, and what the service does for them:"
                 " reminders, vacations, bots, table talk."),
    Topic(WEBHOOKS, "Calls to the URLs that clients register on a game, and the players'"
                    " notification channels (Web Push, Apprise)."),
    Topic(WORKERS, "The workers that claim due work (mails, deadlines, bots' moves), their"
                   " queues and their health."),
    Topic(WEB, "Where gunicorn listens, its threads, the live streams and the largest"
               " request."),
    Topic(PUBLIC, "Rate limits per client address, the proxies in front, and the browser"
                  " pages of other origins."),
)


def _text(var: str, text: str) -> str:
    return text


def _path(var: str, text: str) -> Path:
    return Path(text)


def _int(var: str, text: str) -> int:
    return int(_number(var, text, int))


def _float(var: str, text: str) -> float:
    return float(_number(var, text, float))


def _bool(var: str, text: str) -> bool:
    return _flag(var, text)


def _limit(name: str) -> Callable[[], str]:
    """The default of a rate limit, read when settings are made (the tests put generous
    ones in place of ``DEFAULT_LIMITS`` for their session: tests/conftest.py)."""
    return lambda: DEFAULT_LIMITS[name]


def _fractions(var: str, text: str) -> tuple[float, ...]:
    """Reminder times: the fractions strictly between 0 and 1 (empty: none)."""
    return tuple(f for f in _numbers(var, text) if 0 < f < 1)


def _seconds_list(var: str, text: str) -> tuple[int, ...]:
    return tuple(max(0, round(x)) for x in _numbers(var, text))


def _origins(var: str, text: str) -> tuple[str, ...]:
    return tuple(o.strip().rstrip("/") for o in text.split(",") if o.strip())


def setting(var: str, default: Any = None, doc: str = "", shown: str = "", *, topic: str,
            read: Callable[[str, str], Any] = _text, blank: bool = False,
            factory: Callable[[], Any] | None = None) -> Any:
    """A field of ``Settings`` read from the environment variable ``var``: ``doc`` says
    what it means and ``shown`` its default, in docs/configuration.md's words, under
    ``topic`` (one of ``TOPICS``: another is refused here); ``read`` parses the text
    (naming ``var`` when it cannot); ``blank``: an empty value is a value (else it means
    the default)."""
    if topic not in {t.name for t in TOPICS}:
        raise SettingsError(f"{var}: {topic!r} is not one of the settings' TOPICS")
    meta = {"env": var, "doc": doc, "shown": shown, "read": read, "blank": blank,
            "topic": topic}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Settings:
    data_dir: Path = setting(
        "ALHAMBRA_DATA", Path("data"),
        "data folder: database, secret key, outbox mails, embedded Redis",
        "`./data`", read=_path, topic=START)
    database: str = setting(
        "ALHAMBRA_DB", "",
        "the SQLite file (`serve --db` sets it)",
        "`$ALHAMBRA_DATA/alhambra.db`", topic=STORAGE)
    database_url: str | None = setting(
        "DATABASE_URL", None,
        "`postgresql://user:password@host:port/dbname`: games in PostgreSQL instead of SQLite"
        " (see [Growing past one machine](running.md#growing-past-one-machine)); needs"
        " `ALHAMBRA_SECRET_KEY`",
        "unset: SQLite", topic=START)
    db_pool_size: int = setting(
        "DATABASE_POOL_SIZE", 10,
        "PostgreSQL connections each process may hold",
        "`10`", read=_int, topic=STORAGE)
    db_pool_timeout: float = setting(
        "DATABASE_POOL_TIMEOUT", 30.0,
        "seconds a request waits for a free PostgreSQL connection",
        "`30`", read=_float, topic=STORAGE)
    secret: str | None = setting(
        "ALHAMBRA_SECRET_KEY", None,
        "key the seat tokens derive from (only their hashes are stored)",
        "a random key in `secret.key` beside the SQLite database", topic=STORAGE)
    public_url: str | None = setting(
        "PUBLIC_URL", None,
        "base of join links and of the links in mails (`serve --public-url`)",
        "the request's host; `serve`: `http://HOST:PORT` (`http://[::1]:PORT` for an IPv6 host)",
        topic=START)
    min_time_per_move: int = setting(
        "ALHAMBRA_MIN_TIME_PER_MOVE", DEFAULT_MIN_TIME_PER_MOVE,
        "least time per move a game may have, in seconds",
        "`60`", read=_int, topic=GAMES)
    state_cache_size: int = setting(
        "ALHAMBRA_STATE_CACHE", 512,
        "games whose latest state each process keeps in memory (`0`: none)",
        "`512`", read=_int, topic=STORAGE)
    redis_url: str | None = setting(
        "REDIS_URL", None,
        "an existing Redis; then `alhambra-pbem worker` runs more workers anywhere",
        "a private one", topic=START)
    smtp_url: str | None = setting(
        "SMTP_URL", None,
        "`smtp://[user:password@]host:port[?starttls=1]` (or `smtps://`)",
        "`.eml` files in `$ALHAMBRA_DATA/outbox/`", topic=START)
    mail_from: str = setting(
        "MAIL_FROM", "alhambra-pbem <alhambra@localhost>",
        "sender address of the mails",
        "`alhambra-pbem <alhambra@localhost>`", topic=START)
    mail_reply_to: str | None = setting(
        "MAIL_REPLY_TO", None,
        "where replies with moves go, e.g. `moves@example.org`: mails then say `Reply-To: "
        "moves+<tag>@example.org` (see [Play by e-mail](mail.md#play-by-e-mail))",
        "none: no play by e-mail", topic=START)
    mail_in_listen: str | None = setting(
        "MAIL_IN_LISTEN", None,
        "`HOST:PORT` (IPv6: `[::1]:2525`) where `serve` also runs the SMTP listener for "
        "replies (needs `MAIL_REPLY_TO`)",
        "none", topic=MAIL)
    mail_in_log: Path | None = setting(
        "ALHAMBRA_MAIL_IN_LOG", None,
        "file `alhambra-pbem mail-in` appends its log lines and errors to (Postfix's pipe "
        "keeps a command's output only in a bounce): writable by the pipe's user",
        "unset: standard error", read=_path, topic=MAIL)
    mail_in_max_size: int = setting(
        "MAIL_IN_MAX_SIZE", 1 << 20,
        "the largest reply the listener accepts, in bytes",
        "`1048576`", read=_int, topic=MAIL)
    mail_in_auth: str = setting(
        "MAIL_IN_AUTH", "none",
        "what proves a reply's sender (see [Play by e-mail](mail.md#play-by-e-mail)): "
        "`dkim`, `spf` or `any` (either) "
        "pass, aligned with the From domain, in an `Authentication-Results` header of your "
        "MTA",
        "`none`: the From header alone", topic=MAIL)
    mail_in_authserv_id: str | None = setting(
        "MAIL_IN_AUTHSERV_ID", None,
        "the authserv-id of your MTA's `Authentication-Results` headers (needed unless "
        "`MAIL_IN_AUTH=none`)",
        "none", topic=MAIL)
    mail_in_answers_per_hour: int = setting(
        "MAIL_IN_ANSWERS_PER_HOUR", 10,
        "answers to replies one address gets in an hour at most (beyond: the reply is still "
        "played, not answered)",
        "`10`", read=_int, topic=MAIL)
    mail_bounces_to: str | None = setting(
        "MAIL_BOUNCES_TO", None,
        "the envelope sender's base, e.g. `bounces@example.org`: each mail goes out from "
        "`bounces+<tag>@example.org` (the tag names the game, the seat and the mail, with a "
        "MAC), routed to `mail-in` like the replies, which reads the bounces (DSNs)",
        "none: the `MAIL_FROM` address, bounces unseen", topic=MAIL)
    mail_hard_failures: int = setting(
        "MAIL_HARD_FAILURES", 3,
        "hard failures (a 5xx at sending, a bounce) after which a seat's address is marked "
        "failing and gets no more mails, until the seat sets a new address or confirms it",
        "`3`", read=_int, topic=MAIL)
    bot_turns: int = setting(
        "ALHAMBRA_BOT_TURNS", 1000,
        "turns of a game in which its bots move at once; past them a bot's seat moves only "
        "when its time runs out (see [Bots and resigning](clients.md#bots-and-resigning))",
        "`1000`", read=_int, topic=GAMES)
    vacation_days: int = setting(
        "ALHAMBRA_VACATION_DAYS", 21,
        "days of vacation a signed-in player may take in a calendar year (UTC); during one "
        "its seats' clocks stop (`PATCH /me`)",
        "`21`", read=_int, topic=GAMES)
    vacation_stretch: int = setting(
        "ALHAMBRA_VACATION_STRETCH", 14,
        "days of one vacation at most (days in a row), within the yearly allowance",
        "`14`", read=_int, topic=GAMES)
    rate_bot_accounts: bool = setting(
        "ALHAMBRA_RATE_BOT_ACCOUNTS", False,
        "`1`: a game between people and bot accounts is rated (a bot account's program "
        "plays; games of bot accounts only are rated anyway)",
        "`0`: not rated", read=_bool, topic=GAMES)
    takeover_bot: str = setting(
        "ALHAMBRA_TAKEOVER_BOT", "greedy",
        "level of the bot that takes over a seat that resigns or is abandoned, unless the "
        "game names one (`takeover_bot`); a level of `engine.bots.LEVELS`",
        "`greedy`", topic=GAMES)
    reminders: tuple[float, ...] = setting(
        "ALHAMBRA_REMINDERS", (0.5, 0.9),
        "reminder times as fractions of the time the seat had as its turn began (empty: none)",
        "`0.5,0.9`", read=_fractions, blank=True, topic=GAMES)
    webhook_retries: tuple[int, ...] = setting(
        "ALHAMBRA_WEBHOOK_RETRIES", (10, 60, 300, 1800, 7200),
        "seconds between webhook delivery attempts",
        "`10,60,300,1800,7200`", read=_seconds_list, topic=WEBHOOKS)
    webhook_connect_timeout: float = setting(
        "ALHAMBRA_WEBHOOK_CONNECT_TIMEOUT", 3.0,
        "seconds a webhook delivery waits to connect",
        "`3`", read=_float, topic=WEBHOOKS)
    webhook_read_timeout: float = setting(
        "ALHAMBRA_WEBHOOK_READ_TIMEOUT", 5.0,
        "seconds a webhook delivery waits for each read of the answer",
        "`5`", read=_float, topic=WEBHOOKS)
    webhook_max_failures: int = setting(
        "ALHAMBRA_WEBHOOK_MAX_FAILURES", 15,
        "failed attempts in a row that disable a webhook",
        "`15`", read=_int, topic=WEBHOOKS)
    webhooks_per_game: int = setting(
        "ALHAMBRA_WEBHOOKS_PER_GAME", 10,
        "webhooks a game may have",
        "`10`", read=_int, topic=WEBHOOKS)
    webhooks_per_seat: int = setting(
        "ALHAMBRA_WEBHOOKS_PER_SEAT", 3,
        "webhooks a seat (or the host) may have on a game",
        "`3`", read=_int, topic=WEBHOOKS)
    messages_per_hour: int = setting(
        "ALHAMBRA_MESSAGES_PER_HOUR", 30,
        "table-talk messages a seat (or the host) may write in an hour (429 "
        "`too_many_messages`)",
        "`30`", read=_int, topic=GAMES)
    webhook_allow_private: bool = setting(
        "ALHAMBRA_WEBHOOK_ALLOW_PRIVATE", False,
        "`1`: webhooks may call loopback, private and link-local addresses (a closed network,"
        " tests)",
        "`0`: public addresses only", read=_bool, topic=WEBHOOKS)
    vapid_key: Path | None = setting(
        "ALHAMBRA_VAPID_KEY", None,
        "PEM file of the Web Push (VAPID) private key the push services know the server by "
        "(every host must share it)",
        "`vapid.pem` beside the SQLite database, made at first start (PostgreSQL: derived "
        "from `ALHAMBRA_SECRET_KEY`)", read=_path,
        topic=WEBHOOKS)
    vapid_subject: str | None = setting(
        "ALHAMBRA_VAPID_SUBJECT", None,
        "the contact (`mailto:…` or `https://…`) the VAPID claims give the push services",
        "`mailto:` and the `MAIL_FROM` address", topic=WEBHOOKS)
    health_max_lag: float = setting(
        "ALHAMBRA_HEALTH_MAX_LAG", 300.0,
        "seconds due work (a mail, a deadline…) may wait past its time before `/health` "
        "answers 503",
        "`300`", read=_float, topic=WORKERS)
    metrics_token: str | None = setting(
        "ALHAMBRA_METRICS_TOKEN", None,
        "the bearer token a Prometheus scraper sends to `GET /metrics` (see [Running "
        "it](running.md#metrics)); the API's and the workers' processes count in "
        "`PROMETHEUS_MULTIPROC_DIR` (default `$ALHAMBRA_DATA/metrics`)",
        "none: no `/metrics`, nothing counted", topic=WORKERS)
    log_format: str = setting(
        "ALHAMBRA_LOG_FORMAT", "text",
        "`json`: every process logs one JSON object a line, one per API request and per due "
        "job, with the game, seat and request id, addresses hidden (see [Running "
        "it](running.md#logs))", "`text`", topic=WORKERS)
    claim_interval: float = setting(
        "ALHAMBRA_CLAIM_INTERVAL", 0.2,
        "seconds between the workers' looks for due work (on PostgreSQL a new row wakes them "
        "at once)",
        "`0.2`", read=_float, topic=WORKERS)
    claim_lease: float = setting(
        "ALHAMBRA_CLAIM_LEASE", 300.0,
        "seconds a worker holds due work it claimed; past it (the worker died) another claims"
        " it again",
        "`300`", read=_float, topic=WORKERS)
    idempotency_retention: float = setting(
        "ALHAMBRA_IDEMPOTENCY_RETENTION", 86400.0,
        "seconds a submission's answer is kept for a retry with its `Idempotency-Key`; after,"
        " the key is forgotten and the retry (against a version the game has left) gets 409 "
        "`version_conflict` or `game_over`",
        "`86400`", read=_float, topic=STORAGE)
    due_retention: float = setting(
        "ALHAMBRA_DUE_RETENTION", 7 * 86400.0,
        "seconds done due work (mails sent, moves played) is kept before the workers' hourly "
        "prune removes it",
        "`604800`", read=_float, topic=STORAGE)
    queue: str = setting(
        "ALHAMBRA_QUEUE", "alhambra",
        "the RQ queue of mails, reminders and deadlines; webhooks use `<this>-webhooks`",
        "`alhambra`", topic=WORKERS)
    redis_prefix: str = setting(
        "ALHAMBRA_REDIS_PREFIX", "alhambra:",
        "start of the other Redis keys the workers write (heartbeats, stream counts, who is "
        "watching)",
        "`alhambra:`", topic=WORKERS)
    stream_seconds: float = setting(
        "ALHAMBRA_STREAM_SECONDS", 25.0,
        "how long one `/games/{id}/stream` lasts before the client reconnects (`0`: pages "
        "poll)",
        "`25`", read=_float, topic=WEB)
    streams_per_client: int = setting(
        "ALHAMBRA_STREAMS_PER_CLIENT", 8,
        "open streams per client address (one more: 429 `rate_limited` with `Retry-After`)",
        "`8`", read=_int, topic=WEB)
    bind: str = setting(
        "ALHAMBRA_BIND", "127.0.0.1:8000",
        "where gunicorn (deploy/gunicorn.conf.py) listens: `HOST:PORT`, `[::]:PORT` for IPv6,"
        " `unix:PATH`", "`127.0.0.1:8000`", topic=WEB)
    threads: int = setting(
        "ALHAMBRA_THREADS", 8,
        "threads of each gunicorn worker (deploy/gunicorn.conf.py); open streams hold none",
        "`8`", read=_int, topic=WEB)
    streams_per_account: int = setting(
        "ALHAMBRA_STREAMS_PER_ACCOUNT", 8,
        "open `/me/stream` connections per account (one more: 429 `rate_limited`; `/me` "
        "opens one in each tab); they do not count against `ALHAMBRA_STREAMS_PER_CLIENT`",
        "`8`", read=_int, topic=WEB)
    streams_max: int = setting(
        "ALHAMBRA_STREAMS_MAX", 5000,
        "open streams in all, every API process sharing the Redis together (one more: 429)",
        "`5000`", read=_int, topic=WEB)
    max_body: int = setting(
        "ALHAMBRA_MAX_BODY", 256 << 10,
        "the largest request body, in bytes (larger: 413; a finished 6-player record is about"
        " 30 KB)",
        "`262144`", read=_int, topic=WEB)
    limit_create: str = setting(
        "ALHAMBRA_LIMIT_CREATE", None,
        "game creations per client address (flask-limiter's `N/second`, `/minute`, `/hour`, "
        "`/day`; several separated by `;`)",
        "`20/hour`", factory=_limit("limit_create"), topic=PUBLIC)
    limit_join: str = setting(
        "ALHAMBRA_LIMIT_JOIN", None,
        "seats taken by joining, per client address (a refused invite code takes none)",
        "`60/hour`", factory=_limit("limit_join"), topic=PUBLIC)
    limit_bad_token: str = setting(
        "ALHAMBRA_LIMIT_BAD_TOKEN", None,
        "refused tokens and invite codes per client address, and per target from all "
        "addresses (a token's first 8 characters, a game's invite code); past it further "
        "*refused* ones get 429, a valid token or code never does (see [Running on the "
        "public internet](running.md#running-on-the-public-internet))",
        "`30/minute`", factory=_limit("limit_bad_token"), topic=PUBLIC)
    limit_import: str = setting(
        "ALHAMBRA_LIMIT_IMPORT", None,
        "record imports per client address",
        "`20/hour`", factory=_limit("limit_import"), topic=PUBLIC)
    limit_sign_in: str = setting(
        "ALHAMBRA_LIMIT_SIGN_IN", None,
        "sign-in mails asked for (`POST /players/sign-in`) per client address",
        "`20/hour`", factory=_limit("limit_sign_in"), topic=PUBLIC)
    limit_sign_in_address: str = setting(
        "ALHAMBRA_LIMIT_SIGN_IN_ADDRESS", None,
        "sign-in mails per e-mail address, whoever asks",
        "`5/hour`", factory=_limit("limit_sign_in_address"), topic=PUBLIC)
    limit_session: str = setting(
        "ALHAMBRA_LIMIT_SESSION", None,
        "wrong sign-in codes (`POST /players/session`) per client address, and per code "
        "from all addresses; past it further *wrong* ones get 429, a right code never does",
        "`30/hour`", factory=_limit("limit_session"), topic=PUBLIC)
    limit_report: str = setting(
        "ALHAMBRA_LIMIT_REPORT", None,
        "reports to the operator (`POST /reports`) per client address (and 20 a day per "
        "account, whatever its address)",
        "`30/hour`", factory=_limit("limit_report"), topic=PUBLIC)
    trusted_proxies: int = setting(
        "ALHAMBRA_TRUSTED_PROXIES", 0,
        "how many proxies in front of the API add to `X-Forwarded-For` (the client address is"
        " the one the outermost saw)",
        "`0`: the socket's peer", read=_int, topic=PUBLIC)
    cors_origins: tuple[str, ...] = setting(
        "ALHAMBRA_CORS_ORIGINS", ("*",),
        "origins (`https://host[:port]`, separated by `,`) whose browser pages may call the "
        "API; `*` any; empty: none",
        "`*`", read=_origins, blank=True, topic=PUBLIC)
    # Not read from the environment: tuning the tests (and code) set.
    retries: tuple[int, ...] = (5, 30, 120, 600, 1800, 3600, 3600, 3600)  # due work's
    stream_keepalive: float = 10.0  # seconds between keep-alive comments on a quiet stream
    stream_poll: float = 0.5  # seconds between a stream's looks for new events
    #: seconds an account stream's fact waits before it is told: a batch stamped earlier
    #: has committed by then, so a stream resumed after it misses none (me_stream.py)
    stream_settle: float = 1.0
    stream_retry_ms: int = 1000  # the reconnect delay a stream suggests to its client

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
        if self.mail_bounces_to is not None:
            local, at, domain = self.mail_bounces_to.strip().partition("@")
            if not (at and local and domain) or "+" in local or "@" in domain or \
                    any(c.isspace() or c in "<>," for c in self.mail_bounces_to.strip()):
                raise SettingsError("MAIL_BOUNCES_TO must be a bare address without '+', "
                                    f"like bounces@example.org, not {self.mail_bounces_to!r}")
            object.__setattr__(self, "mail_bounces_to", self.mail_bounces_to.strip().lower())
        if self.mail_hard_failures < 1:
            raise SettingsError("MAIL_HARD_FAILURES must be at least 1")
        if self.mail_in_listen is not None:
            _host_port("MAIL_IN_LISTEN", self.mail_in_listen)
            if not self.mail_reply_to:
                raise SettingsError("MAIL_IN_LISTEN needs MAIL_REPLY_TO: the addresses "
                                    "the listener accepts are its reply addresses")
        if self.log_format not in ("text", "json"):
            raise SettingsError(f"ALHAMBRA_LOG_FORMAT must be text or json, not "
                                f"{self.log_format!r}")
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
                           ("ALHAMBRA_MESSAGES_PER_HOUR", self.messages_per_hour),
                           ("ALHAMBRA_CLAIM_LEASE", self.claim_lease),
                           ("ALHAMBRA_IDEMPOTENCY_RETENTION", self.idempotency_retention),
                           ("ALHAMBRA_DUE_RETENTION", self.due_retention),
                           ("ALHAMBRA_CLAIM_INTERVAL", self.claim_interval),
                           ("ALHAMBRA_BOT_TURNS", self.bot_turns),
                           ("ALHAMBRA_VACATION_DAYS", self.vacation_days),
                           ("ALHAMBRA_VACATION_STRETCH", self.vacation_stretch)):
            if not value > 0:
                raise SettingsError(f"{var} must be more than 0")
        if self.mail_in_max_size < 1024:
            raise SettingsError("MAIL_IN_MAX_SIZE must be at least 1024 bytes")
        if self.max_body < 1024:
            raise SettingsError("ALHAMBRA_MAX_BODY must be at least 1024 bytes")
        if self.threads < 1:
            raise SettingsError("ALHAMBRA_THREADS must be at least 1")
        if self.streams_per_client < 1 or self.streams_max < 1 or \
                self.streams_per_account < 1:
            raise SettingsError("ALHAMBRA_STREAMS_PER_CLIENT, ALHAMBRA_STREAMS_PER_ACCOUNT "
                                "and ALHAMBRA_STREAMS_MAX must be at least 1")
        if self.trusted_proxies < 0:
            raise SettingsError("ALHAMBRA_TRUSTED_PROXIES must be 0 or more")
        for var, text in (("ALHAMBRA_LIMIT_CREATE", self.limit_create),
                          ("ALHAMBRA_LIMIT_JOIN", self.limit_join),
                          ("ALHAMBRA_LIMIT_BAD_TOKEN", self.limit_bad_token),
                          ("ALHAMBRA_LIMIT_IMPORT", self.limit_import),
                          ("ALHAMBRA_LIMIT_SIGN_IN", self.limit_sign_in),
                          ("ALHAMBRA_LIMIT_SIGN_IN_ADDRESS",
                           self.limit_sign_in_address),
                          ("ALHAMBRA_LIMIT_SESSION", self.limit_session),
                          ("ALHAMBRA_LIMIT_REPORT", self.limit_report)):
            _rate_limit(var, text)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any
                 ) -> Settings:
        """The settings of ``environ`` (default: this process's environment); keyword
        arguments override them (the CLI's options)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            var = f.metadata.get("env")
            text = env.get(var) if var else None
            if text is not None and (text or f.metadata["blank"]):
                values[f.name] = f.metadata["read"](var, text)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    def environ(self) -> dict[str, str]:
        """These settings as environment variables, for a child process (a worker)."""
        env = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if "env" in f.metadata and value is not None:
                env[f.metadata["env"]] = _environ_text(value)
        return env

    @classmethod
    def table(cls) -> str:
        """docs/configuration.md's tables of settings, one per topic in the order of
        ``TOPICS`` (a heading, its sentence, then variable, meaning, default)."""
        declared = [f for f in dataclasses.fields(cls) if "env" in f.metadata]
        parts = []
        for topic in TOPICS:
            rows = [f"### {topic.name}", "", topic.intro, "",
                    "| variable | meaning | default |", "|---|---|---|"]
            rows += [f"| `{f.metadata['env']}` | {f.metadata['doc']} | {f.metadata['shown']} |"
                     for f in declared if f.metadata["topic"] == topic.name]
            parts.append("\n".join(rows) + "\n")
        return "\n".join(parts)

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

    @property
    def vapid_key_file(self) -> Path | None:
        """Where the VAPID private key is (service/notify_channels.py makes it there once
        if it is missing): ALHAMBRA_VAPID_KEY, else ``vapid.pem`` beside the SQLite
        database (and its ``secret.key``); None (PostgreSQL, ``:memory:``): the key is
        derived from ``secret_key``, which every host shares."""
        if self.vapid_key is not None:
            return self.vapid_key
        if self.database_url or self.database in ("", ":memory:"):
            return None
        return Path(self.database).parent / "vapid.pem"

    @property
    def vapid_claims_subject(self) -> str:
        """The VAPID ``sub`` claim: ALHAMBRA_VAPID_SUBJECT, else ``mailto:`` MAIL_FROM's
        address."""
        if self.vapid_subject:
            return self.vapid_subject
        address = self.mail_from.rpartition("<")[2].rstrip(">").strip()
        return f"mailto:{address or 'alhambra@localhost'}"

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


def _environ_text(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return str(value)


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
