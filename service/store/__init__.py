"""Where games are kept: the ``EventStore`` protocol (base.py) and its SQLite
implementation (sqlite.py), opened by ``open_store``."""

from __future__ import annotations

import os

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


def open_store(database: str | os.PathLike[str]) -> EventStore:
    """The store of ``database``: a SQLite file (or ``:memory:``)."""
    return SqliteStore(database)


__all__ = [
    "TABLES", "Answer", "Event", "EventStore", "Game", "GameNotFound", "GameUpdate",
    "Notification", "OutboxRow", "SchemaTooNew", "Seat", "SqliteStore", "VersionConflict",
    "Webhook", "open_store",
]
