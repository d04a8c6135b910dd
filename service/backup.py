"""Backups that restore (issue 38): ``alhambra-pbem backup PATH`` and ``restore PATH``.

A backup is a folder: ``alhambra.db``, a copy of the SQLite database made with SQLite's
online backup (the pages are copied while the server goes on writing; the copy is the
database as one moment saw it, whole); ``secret.key``, the key the seats' tokens and
links derive from (unless ``ALHAMBRA_SECRET_KEY`` gives it: then keep that setting
with the backup); and ``backup.json``, what it holds. ``restore`` puts them into a data
folder that holds no games, checking the copy first (``PRAGMA integrity_check``), and
brings its schema up to date. PostgreSQL is backed up with its own tools (``pg_dump``:
docs/running.md).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from . import times
from .settings import Settings

DATABASE = "alhambra.db"
KEY = "secret.key"
MANIFEST = "backup.json"
#: Pages copied a step: the server writes between steps.
STEP = 256


class BackupError(Exception):
    """A backup or restore that cannot be made; the message says why and what to do."""


def backup(settings: Settings, target: Path) -> dict[str, Any]:
    """Back the data up into ``target`` (a new or empty folder): what it holds."""
    source = _sqlite(settings, "backup")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise BackupError(f"{target} is not an empty folder: back up into a new one")
    target.mkdir(mode=0o700, parents=True, exist_ok=True)
    with closing(sqlite3.connect(source, timeout=30)) as src, \
            closing(sqlite3.connect(target / DATABASE)) as dst:
        src.backup(dst, pages=STEP)
    manifest = {"made_at": times.to_text(times.now()), **_contents(target / DATABASE)}
    if settings.secret:
        manifest["key"] = "ALHAMBRA_SECRET_KEY (not in the backup: keep it with it)"
    else:
        settings.secret_key  # noqa: B018 - made now if the data folder has none yet
        shutil.copy2(Path(source).parent / KEY, target / KEY)
        os.chmod(target / KEY, 0o600)
        manifest["key"] = KEY
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def restore(settings: Settings, source: Path) -> dict[str, Any]:
    """Restore the backup in ``source`` into the settings' data folder, which must hold
    no game: what it holds."""
    database = Path(_sqlite(settings, "restore"))
    if not (source / DATABASE).is_file():
        raise BackupError(f"{source} holds no {DATABASE}: not a backup")
    contents = _contents(source / DATABASE)
    if database.exists() and _games(database):
        raise BackupError(f"{database} holds {_games(database)} games: restore into a data "
                          "folder without any (a new ALHAMBRA_DATA)")
    key = database.parent / KEY
    if (source / KEY).is_file():
        if key.exists() and key.read_bytes() != (source / KEY).read_bytes():
            raise BackupError(f"{key} is another key than the backup's: the seats' links "
                              "would stop working; restore into a new data folder")
        database.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / KEY, key)
        os.chmod(key, 0o600)
    elif not settings.secret:
        raise BackupError("the backup holds no secret.key: set the ALHAMBRA_SECRET_KEY it "
                          "was made with")
    for stale in (database.with_name(database.name + s) for s in ("-wal", "-shm")):
        stale.unlink(missing_ok=True)
    with closing(sqlite3.connect(source / DATABASE)) as src, \
            closing(sqlite3.connect(database)) as dst:
        src.backup(dst, pages=STEP)
    return contents


def _sqlite(settings: Settings, what: str) -> str:
    if settings.database_url:
        raise BackupError(f"{what}: PostgreSQL is backed up with pg_dump and restored with "
                          "pg_restore (docs/running.md, What to back up)")
    if settings.database == ":memory:":
        raise BackupError(f"{what}: a database in memory has nothing to back up")
    return settings.database


def _contents(path: Path) -> dict[str, Any]:
    """What a database file holds, after checking it is whole (BackupError if not)."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        check = db.execute("pragma integrity_check").fetchone()[0]
        if check != "ok":
            raise BackupError(f"{path} is damaged: {check}")
        schema = db.execute("pragma user_version").fetchone()[0]
    return {"games": _games(path), "schema": schema}


def _games(path: Path) -> int:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        try:
            games: int = db.execute("select count(*) from games").fetchone()[0]
        except sqlite3.OperationalError:  # no games table: a new database
            return 0
    return games
