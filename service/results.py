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
    over), ``news`` (the words of its events other than the seat's own moves, as the
    seat sees them), ``bot`` (the level of the bot that plays the seat from now on,
    after a resignation) and ``answer``, the API's document of it."""

    game_id: str
    seat: int
    version: int
    current: int | None
    news: tuple[str, ...]
    answer: dict[str, Any]
    replayed: bool = False
    bot: str | None = None

    @classmethod
    def of(cls, answer: dict[str, Any], seat: int, replayed: bool = False,
           bot: str | None = None) -> Played:
        """The result an answer document (new, or stored for its Idempotency-Key) says."""
        news = tuple(i["text"] for i in answer["events"] if i["text"] and not (
            "move" in i["event"] and i["event"].get("seat") == seat))
        view = answer["view"]
        current = None if view["phase"] == "over" else view["current"]
        return cls(answer["game_id"], seat, answer["version"], current, news, answer,
                   replayed, bot)


@dataclass(frozen=True)
class TimedOut:
    """What a deadline did: ``applied`` (the default moves, ``played``), ``stale`` (the
    game moved on, or the seat is not to act), ``early`` (the deadline is at
    ``deadline``, later: come back then) or ``no-move``."""

    outcome: str
    played: Played | None = None
    deadline: datetime | None = None
