"""Where games are kept: the ``EventStore`` protocol (base.py) and its two
implementations, SQLite (sqlite.py, the embedded default) and PostgreSQL (postgres.py),
one of which ``open_store`` opens as the settings say."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import GameNotFound, VersionConflict
from .base import (
    COLUMNS,
    DUE_KINDS,
    MAIL_KINDS,
    MAIL_MESSAGES,
    TABLES,
    Answer,
    AnswerExists,
    Claim,
    Due,
    DueRow,
    Event,
    EventStore,
    Finish,
    Game,
    GameRows,
    GameUpdate,
    MailFailure,
    Message,
    Player,
    Rating,
    SchemaTooNew,
    SchemaTooOld,
    Seat,
    SignIn,
    Talk,
    Webhook,
)
from .sqlite import SqliteStore

if TYPE_CHECKING:
    from ..settings import Settings


def open_store(settings: Settings, *, check_schema: bool = True) -> EventStore:
    """The store the settings name: PostgreSQL at ``DATABASE_URL`` if it is set, else
    the SQLite file ``settings.database``.

    With ``check_schema`` a SQLite file is brought up to date as it opens (the embedded
    default: one host, one owner), and a PostgreSQL database is refused unless
    ``alhambra-pbem migrate`` brought it to this code's schema (SchemaTooOld); both refuse
    a newer schema (SchemaTooNew). ``check_schema=False`` leaves the schema to the
    caller's ``store.migrate()``."""
    if settings.database_url:
        from .postgres import PostgresStore  # psycopg only where PostgreSQL is used

        return PostgresStore(settings.database_url, pool_size=settings.db_pool_size,
                             pool_timeout=settings.db_pool_timeout,
                             check_schema=check_schema)
    return SqliteStore(settings.database, check_schema=check_schema)


def describe(settings: Settings) -> str:
    """The store in words, for messages (no password)."""
    if settings.database_url:
        from .postgres import safe_url

        return f"PostgreSQL database {safe_url(settings.database_url)}"
    return f"SQLite database {settings.database}"


__all__ = [
    "COLUMNS", "DUE_KINDS", "MAIL_KINDS", "TABLES", "Answer", "AnswerExists", "Claim", "Due",
    "DueRow", "Event", "EventStore", "Finish", "Game", "GameNotFound", "GameRows",
    "GameUpdate", "MAIL_MESSAGES", "MailFailure", "Message", "Player", "Rating",
    "SchemaTooNew", "SchemaTooOld", "Seat", "SignIn", "SqliteStore", "Talk",
    "VersionConflict", "Webhook", "describe", "open_store",
]
