"""Where games are kept: the ``EventStore`` protocol (base.py) and its SQLite
implementation (sqlite.py), opened by ``open_store``."""

from __future__ import annotations

import os
from pathlib import Path

from .base import (
    TABLES,
    Answer,
    Event,
    EventStore,
    Game,
    GameNotFound,
    GameUpdate,
    Notification,
    OutboxRow,
    SchemaTooNew,
    Seat,
    VersionConflict,
    Webhook,
)
from .sqlite import SqliteStore


def default_db_path() -> Path:
    return Path(os.environ.get("ALHAMBRA_DATA") or "./data") / "alhambra.db"


def open_store(database: str | os.PathLike[str]) -> EventStore:
    """The store of ``database``: a SQLite file (or ``:memory:``)."""
    return SqliteStore(database)


__all__ = [
    "TABLES", "Answer", "Event", "EventStore", "Game", "GameNotFound", "GameUpdate",
    "Notification", "OutboxRow", "SchemaTooNew", "Seat", "SqliteStore", "VersionConflict",
    "Webhook", "default_db_path", "open_store",
]
