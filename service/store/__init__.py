"""The store: every game's log and rows, in SQLite (the embedded default) or PostgreSQL
(``DATABASE_URL``), through one implementation (sql.py) and a seam for what differs
(dialect.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import GameNotFound, VersionConflict
from .base import (
    COLUMNS,
    DUE_KINDS,
    MAIL_KINDS,
    MAIL_MESSAGES,
    Answer,
    AnswerExists,
    Census,
    Channel,
    Claim,
    Due,
    DueRow,
    Event,
    Finish,
    Game,
    GameRows,
    GameUpdate,
    MailFailure,
    Message,
    Player,
    PlayerToken,
    Rating,
    SchemaTooNew,
    SchemaTooOld,
    Seat,
    SignIn,
    Talk,
    Webhook,
)
from .dialect import Postgres, Sqlite
from .protocol import EventStore
from .sql import SqlStore

if TYPE_CHECKING:
    from ..settings import Settings


def open_store(settings: Settings, *, check_schema: bool = True) -> SqlStore:
    """The store the settings name: PostgreSQL at ``DATABASE_URL`` if it is set, else
    the SQLite file ``settings.database``.

    With ``check_schema`` a SQLite file is brought up to date as it opens (the embedded
    default: one host, one owner), and a PostgreSQL database is refused unless
    ``alhambra-pbem migrate`` brought it to this code's schema (SchemaTooOld); both refuse
    a newer schema (SchemaTooNew). ``check_schema=False`` leaves the schema to the
    caller's ``store.migrate()``."""
    if settings.database_url:
        return SqlStore(Postgres(settings.database_url, settings.db_pool_size,
                                 settings.db_pool_timeout), check_schema=check_schema)
    return SqlStore(Sqlite(settings.database), migrate=check_schema, check_schema=False)


def sqlite_store(path: str) -> SqlStore:
    """The SQLite store of the file at ``path``, its schema brought up to date."""
    return SqlStore(Sqlite(path), migrate=True)


def describe(settings: Settings) -> str:
    """The store in words, for messages (no password)."""
    if settings.database_url:
        return Postgres(settings.database_url).where
    return Sqlite(settings.database).where


__all__ = [
    "COLUMNS", "DUE_KINDS", "MAIL_KINDS", "Answer", "AnswerExists", "Census", "Channel",
    "Claim", "Due",
    "DueRow", "Event", "EventStore", "Finish", "Game", "GameNotFound", "GameRows",
    "GameUpdate", "MAIL_MESSAGES", "MailFailure", "Message", "Player", "PlayerToken", "Rating",
    "SchemaTooNew", "SchemaTooOld", "Seat", "SignIn", "SqlStore", "Talk",
    "VersionConflict", "Webhook", "describe", "open_store", "sqlite_store",
]
