"""What the application layer's moves return (``Games.submit``, ``play_bot``, ``resign``,
``time_out``): typed results the workers read, beside the document the API serves."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Played:
    """A batch recorded for ``seat`` (or the first answer again: ``replayed``): the
    game's new ``version``, the seat to act now (``current``; None once the game is
    over), ``own`` (the words of the seat's own moves, as the history says them),
    ``news`` (the words of its other events, as the seat sees them), ``bot`` (the level
    of the bot that plays the seat from now on, after a resignation) and ``answer``, the
    API's document of it."""

    game_id: str
    seat: int
    version: int
    current: int | None
    own: tuple[str, ...]
    news: tuple[str, ...]
    answer: dict[str, Any]
    replayed: bool = False
    bot: str | None = None

    @classmethod
    def of(cls, answer: dict[str, Any], seat: int, replayed: bool = False,
           bot: str | None = None) -> Played:
        """The result an answer document (new, or stored for its Idempotency-Key) says."""
        said = [i for i in answer["events"] if i["text"]]
        mine = ["move" in i["event"] and i["event"].get("seat") == seat for i in said]
        own = tuple(i["text"] for i, m in zip(said, mine, strict=True) if m)
        news = tuple(i["text"] for i, m in zip(said, mine, strict=True) if not m)
        view = answer["view"]
        current = None if view["phase"] == "over" else view["current"]
        return cls(answer["game_id"], seat, answer["version"], current, own, news, answer,
                   replayed, bot)


@dataclass(frozen=True)
class TimedOut:
    """What a deadline did: ``applied`` (the default moves, ``played``), ``stale`` (the
    game moved on, or the seat is not to act), ``early`` (the deadline is at
    ``deadline``, later: come back then) or ``no-move``."""

    outcome: str
    played: Played | None = None
    deadline: datetime | None = None
