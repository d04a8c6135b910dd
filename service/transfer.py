"""``alhambra-pbem export`` / ``import``: every game, with all its rows, from one store to
another (SQLite to PostgreSQL when a host grows, or back), as JSON lines.

The first line names the format; each further line is one game: ``{table: [row, ...]}``
for each table of ``COLUMNS`` (the game row, seats with their token hashes, the whole
event log, due work, idempotent answers, webhooks), times as
``times.to_text`` and JSON documents as JSON. Events are written as they were stored, so
the imported logs replay to the same games.

Import adds each game in one transaction, and skips a game whose id the store already has
(so an interrupted import can run again). Due work claimed on the old host is pending
again on the new one (``rearm``): what was done stays done, the rest is done there.
An export from before due work (its tables ``outbox`` and ``notifications``) is read
too: each running game's clock is planned again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from . import times
from .errors import GameNotFound
from .store import COLUMNS, EventStore, GameRows
from .store.base import TIME_COLUMNS

FORMAT = "alhambra-pbem-export"
FORMAT_VERSION = 1
#: Tables of an export from before due work, read (``rearm``) but not kept.
LEGACY_TABLES = {"outbox", "notifications"}


class TransferError(ValueError):
    """An export file this code cannot read: says which line and why."""


def encode(rows: GameRows) -> str:
    """One game's rows as a line of JSON."""
    return json.dumps({table: [{c: times.to_text(v) if c in TIME_COLUMNS and v is not None
                                else v for c, v in row.items()} for row in records]
                       for table, records in rows.items()}, separators=(",", ":"))


def decode(line: str) -> GameRows:
    doc = json.loads(line)
    unknown = set(doc) - set(COLUMNS) - LEGACY_TABLES
    if unknown or "games" not in doc or len(doc["games"]) != 1:
        raise ValueError(f"not a game's rows (tables {sorted(doc)})")
    for seat in doc.get("seats", []):
        seat.setdefault("token_generation", 0)  # an export from before rotation
    for answer in doc.get("idempotency", []):  # an export from before compact answers
        response = answer.pop("response", None)
        if response is not None and "version" not in answer:
            answer["version"] = response.get("version", 0)
            answer["from_version"] = answer["version"] - len(response.get("events", [])) + 1
    return {table: [{c: times.from_text(v) if c in TIME_COLUMNS and v is not None else v
                     for c, v in row.items()} for row in records]
            for table, records in doc.items()}


@dataclass
class Imported:
    added: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # already in the store


def rearm(rows: GameRows) -> GameRows:
    """The rows as the new host keeps them: no claims (claimed work is pending again).
    An export from before due work (an outbox, no due rows): a running game's last batch
    gets a ``plan`` row for its clock and bot (its mails went out on the old host)."""
    due = [{**row, "state": "pending", "claimed_until": None}
           if row["state"] == "claimed" else row for row in rows.get("due", [])]
    outbox = rows.get("outbox", [])
    if "due" not in rows and outbox and rows["games"][0]["status"] == "active":
        last = outbox[-1]
        due = [{"game_id": last["game_id"], "kind": "plan", "version": last["to_version"],
                "from_version": last["from_version"], "args": {"mails": False},
                "due_at": times.now(), "state": "pending", "attempts": 0,
                "created_at": times.now()}]
    return {**{t: r for t, r in rows.items() if t not in LEGACY_TABLES}, "due": due}


def export_games(store: EventStore, out: IO[str]) -> int:
    """Write every game to ``out``; how many."""
    out.write(json.dumps({"format": FORMAT, "version": FORMAT_VERSION}) + "\n")
    n = 0
    for game_id in store.transfer.game_ids():
        out.write(encode(store.transfer.dump(game_id)) + "\n")
        n += 1
    return n

def import_games(store: EventStore, lines: Iterable[str]) -> Imported:
    """Add the games of an export (a game already here is skipped)."""
    result = Imported()
    it = iter(lines)
    header: dict[str, Any] = {}
    try:
        header = json.loads(next(it))
    except (StopIteration, ValueError):
        pass
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise TransferError(f"line 1: not an {FORMAT} file")
    if header.get("version") != FORMAT_VERSION:
        raise TransferError(f"line 1: format version {header.get('version')}, this "
                            f"alhambra-pbem reads {FORMAT_VERSION}")
    for number, line in enumerate(it, start=2):
        if not line.strip():
            continue
        try:
            rows = decode(line)
        except (ValueError, TypeError, AttributeError) as exc:
            raise TransferError(f"line {number}: {exc}") from None
        game_id = rows["games"][0]["id"]
        try:
            store.game(game_id)
        except GameNotFound:
            pass
        else:
            result.skipped.append(game_id)
            continue
        try:
            store.transfer.load(rearm(rows))
        except Exception as exc:  # the database's own error (a webhook id taken)
            raise TransferError(f"line {number}: game {game_id} was not added "
                                f"({len(result.added)} before it were): {exc}") from exc
        result.added.append(game_id)
    return result
