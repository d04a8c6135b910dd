"""The compact form of the event log: one stored row per appended batch, its events as
compact JSON (a list), compressed with zlib and a preset dictionary of typical events.

A batch is ``FORMAT_ZDICT1`` (one byte) then the zlib stream; the dictionary
(``events.zdict``, made once by ``make_dictionary``) may never change, since every stored
batch needs it: a better one would come with a new format byte, the old one kept to read
the old rows. A batch of 2 or 3 events (a move and what it set off) takes ~45 bytes
instead of ~170 in a row per event.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

Event = dict[str, Any]

FORMAT_ZLIB = 0  # zlib, no dictionary
FORMAT_ZDICT1 = 1  # zlib with events.zdict
DICTIONARY_FILE = Path(__file__).with_name("events.zdict")
_ZDICT = DICTIONARY_FILE.read_bytes()
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def encode(events: list[Event]) -> bytes:
    """A batch's events as stored."""
    raw = json.dumps(events, separators=(",", ":"), ensure_ascii=False).encode()
    packer = zlib.compressobj(9, zlib.DEFLATED, 15, 9, zlib.Z_DEFAULT_STRATEGY, _ZDICT)
    return bytes([FORMAT_ZDICT1]) + packer.compress(raw) + packer.flush()


def decode(data: bytes) -> list[Event]:
    """The events of a stored batch."""
    data = bytes(data)
    if data[0] == FORMAT_ZDICT1:
        unpacker = zlib.decompressobj(15, _ZDICT)
        raw = unpacker.decompress(data[1:]) + unpacker.flush()
    elif data[0] == FORMAT_ZLIB:
        raw = zlib.decompress(data[1:])
    else:
        raise ValueError(f"an event batch of unknown format {data[0]}")
    events: list[Event] = json.loads(raw)
    return events


def to_ms(t: datetime) -> int:
    """A batch's time as stored: milliseconds since the epoch."""
    return round(t.timestamp() * 1000)


def from_ms(ms: int) -> datetime:
    return EPOCH + timedelta(milliseconds=ms)


def flatten(batches: Iterable[tuple[int, bytes]], since: int, until: int | None
            ) -> Iterator[tuple[int, Event]]:
    """(version, event) of stored batches (each: its first version, its data) in order,
    after ``since`` up to ``until``."""
    for first, data in batches:
        for version, event in enumerate(decode(data), start=first):
            if version > since and (until is None or version <= until):
                yield version, event


def batches(rows: Iterable[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """Event rows (game_id, version, type, payload, created_at; in version order) grouped
    into batches: runs of one game's consecutive versions with one time (an append's)."""
    run: list[dict[str, Any]] = []
    for row in rows:
        if run and (row["game_id"] != run[-1]["game_id"] or
                    row["created_at"] != run[-1]["created_at"] or
                    row["version"] != run[-1]["version"] + 1):
            yield run
            run = []
        run.append(row)
    if run:
        yield run


def make_dictionary(size: int = 16384) -> bytes:
    """The preset dictionary: events of random 4-player games of every variant, the most
    common kinds last (zlib reaches the end of its window most cheaply). Run once; the
    result is ``events.zdict``."""
    import random
    from collections import Counter

    from engine import new_game, play, replay
    from engine.bots import random_move
    from engine.variants import VARIANTS

    samples: list[str] = []
    for variant in VARIANTS:
        events = new_game(variant, [f"P{i}" for i in range(4)], 1)
        state = replay(events)
        rng = random.Random(1)
        while state.phase != "over":
            events += play(state, state.current, random_move(state, state.current, rng))
        samples += [json.dumps(e, separators=(",", ":")) for e in events]
    kinds = Counter(json.loads(s)["type"] for s in samples)
    chosen: list[str] = []
    for kind, n in sorted(kinds.items(), key=lambda kv: (kv[1], kv[0])):
        examples = [s for s in samples if json.loads(s)["type"] == kind and len(s) < 400]
        chosen += examples[-max(1, min(len(examples), n // 20)):]
    return ",".join(chosen).encode()[-size:]
