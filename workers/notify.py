"""The content of the mails (which mails a batch calls for: service/due.py).

Nothing here decides a rule: whose turn it is, the hand, the market and the legal moves
all come from the engine (``engine.view``, ``engine.legal_moves``); events are shown as
``engine.redact_event`` gives them to the recipient's seat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

import jinja2

import engine
from engine import overview
from engine.describe import WORDS, tile_words
from service import times
from service.clock import TimeControl
from service.games import event_items, neutral_name
from service.links import play_path, replay_path
from service.store import Game, Seat

from . import city
from .clock_words import control_words, day_off_words, deadline_words, time_left_words
from .mail import Mail

MAX_LEGAL_MOVES = 200
SUBJECT_KINDS = {
    "started": "Game started",
    "your_turn": "Your turn",
    "reminder": "Reminder: your turn",
    "timeout": "Your time ran out",
    "taken_over": "A bot takes over a seat",
    "game_over": "Game over",
}
#: The subjects of the answers to a reply (mail_in.py), by what became of it.
ANSWER_SUBJECTS = {
    "played": "Move played",
    "refused": "Move refused",
    "unreadable": "Move not understood",
    "empty": "No move found",
    "stale": "Nothing played: the game moved on",
    "over": "Game over",
    "status": "Status",
    "help": "Help",
    "resigned": "You resigned",
}
#: Kinds of mail that list the seat's legal moves.
MOVE_KINDS = ("your_turn", "reminder", "answer")


@lru_cache(maxsize=1)
def templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("workers", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html",),
                                            default_for_string=False),
        trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)


@dataclass
class Batch:
    """A batch of new events (versions ``from_version``..``to_version``) with what the
    mails need: the game row, its seats, the state after the batch and a reader of the
    game's earlier events (``read(since, until)``)."""

    game: Game
    seats: list[Seat]
    events: list[dict[str, Any]]  # versions from_version..to_version
    from_version: int
    to_version: int
    state: engine.State  # at to_version
    created_at: datetime  # when the batch was appended
    public_url: str
    read: Callable[[int, int], list[dict[str, Any]]]
    tokens: dict[int, str] = field(default_factory=dict)  # seat -> its token (secret links)
    replies: bool = False  # MAIL_REPLY_TO is set: seats may reply to play

    @property
    def names(self) -> list[str]:
        return list(self.state.seats)

    @property
    def over(self) -> bool:
        return self.state.phase == "over"

    def deadline(self) -> datetime | None:
        """The deadline set by (or running through) this batch."""
        if self.over:
            return None
        if self.game.version == self.to_version:
            return self.game.deadline
        return times.later(self.game.time_per_move, self.created_at)


def _lines(batch: Batch, events: list[dict[str, Any]], first_version: int, seat: int
           ) -> list[str]:
    """The words for ``events`` (from ``first_version``) as ``seat`` may see them."""
    items = event_items(events, first_version, seat, batch.over, batch.names,
                        neutral_name(batch.game.variant, batch.game.players), batch.state)
    return [item["text"] for item in items if item["text"] is not None]


def since(batch: Batch, version: int, seat: int) -> list[str]:
    """What happened after ``version`` up to the batch's version, in words."""
    return _lines(batch, batch.read(version, batch.to_version), version + 1, seat)


def _since_last_move(batch: Batch, seat: int) -> tuple[int, list[str]]:
    """The version of ``seat``'s last move (0: none yet) and the lines of what happened
    since, as that seat may see it. Reads back from the batch in growing chunks, so a
    mail reads about one round of events, not the whole log."""
    until, events, last = batch.to_version, [], 0
    chunk = 64
    while until > 0 and not last:
        since = max(0, until - chunk)
        older = batch.read(since, until)
        for i in range(len(older) - 1, -1, -1):
            e = older[i]
            if "move" in e and e.get("seat") == seat and not e.get("timeout"):
                last = since + i + 1
                older = older[i + 1:]
                break
        events = older + events
        until, chunk = since, chunk * 2
    return last, _lines(batch, events, last + 1, seat)


def _awards(batch: Batch) -> list[dict[str, Any]]:
    """Points per scoring and seat over the whole game (read once, at the game's end)."""
    neutral = neutral_name(batch.game.variant, batch.game.players) or "neutral"
    names = batch.names
    table: dict[tuple[int, Any], int] = {}
    for e in batch.read(0, batch.to_version):
        if e["type"] == "points_awarded":
            key = (e["scoring"], e["seat"])
            table[key] = table.get(key, 0) + e["points"]
    return [{"scoring": sc, "name": neutral if who == "neutral" else names[who],
             "points": pts} for (sc, who), pts in sorted(table.items(), key=lambda kv: (
                 kv[0][0], 99 if kv[0][1] == "neutral" else kv[0][1]))]


def majority_lines(batch: Batch) -> list[dict[str, str]]:
    """The majorities as the next scoring would count them now, one line a building type:
    its name, who has how many, who would score what."""
    neutral = neutral_name(batch.game.variant, batch.game.players)

    def who(p: Any) -> str:
        return (neutral or "the neutral") if p == "neutral" else batch.names[p]

    return [{"building": WORDS.get(m.building, (m.building, m.building))[1],
             "counts": ", ".join(f"{who(p)} {n}" for p, n in sorted(
                 m.counts.items(), key=lambda kv: (-kv[1], str(kv[0])))),
             "points": ", ".join(f"{who(p)} +{n}" for p, n in sorted(
                 m.points.items(), key=lambda kv: (-kv[1], str(kv[0])))) or "nobody"}
            for m in overview.majorities(batch.state)]


def context_for(batch: Batch, kind: str, seat: int, **extra: Any) -> dict[str, Any]:
    """The template variables of one mail."""
    state, game = batch.state, batch.game
    view = engine.view(state, seat)
    me = view["seats"][seat]
    game_url = batch.public_url + play_path(game.id)
    deadline = batch.deadline()
    exact = overview.exact_spaces(state, seat) if seat < len(state.hands) else []
    ctx: dict[str, Any] = {
        "kind": kind, "game_id": game.id, "variant": game.variant, "turn": view["turn"],
        "version": batch.to_version, "seat": seat, "name": me["name"],
        "players": [{"seat": s["seat"], "name": s["name"], "score": s["score"]}
                    for s in view["seats"]],
        "game_url": game_url, "api_url": batch.public_url,
        "deadline": times.to_text(deadline) if deadline else None,
        "deadline_words": deadline_words(deadline) if deadline else None,
        **clock_context(batch, seat, deadline),
        "replies": batch.replies and bool(batch.seats[seat].token_hash
                                          if seat < len(batch.seats) else False),
        "current_name": batch.names[state.current] if not batch.over else None,
        "hand": me.get("hand", []), "display": view["display"],
        "purses": [f"{p.currency} {'+'.join(map(str, p.values))} = {p.total}"
                   for p in overview.purses(state.hands[seat])],
        "market": [{"space": m["space"], "currency": m["currency"],
                    "tiles": [f"{t['id']}: {tile_words(t['id'], state=state)}"
                              for t in m["tiles"]],
                    "exact": m["space"] in exact}
                   for m in view["market"]],
        "majorities": majority_lines(batch),
        "next_scoring": overview.next_scoring(state),
        "pending": [t["id"] for t in view["pending"]] if state.current == seat else [],
        "city_size": len(me["city"]), "city": city.picture(me["city"]),
        "reserve": [t["id"] for t in me["reserve"]],
        "link": batch.public_url + play_path(game.id, batch.tokens[seat])
        if seat in batch.tokens else None,
        "record_url": f"{batch.public_url}/games/{game.id}/record",
        # a private game's replay opens from the seat's own link
        "replay_url": batch.public_url + replay_path(
            game.id, None if game.replay_public else batch.tokens.get(seat)),
    }
    if kind in MOVE_KINDS:
        moves = [str(m) for m in engine.legal_moves(state, seat)] if not batch.over else []
        ctx["legal_moves"] = moves[:MAX_LEGAL_MOVES]
        ctx["more_moves"] = max(0, len(moves) - MAX_LEGAL_MOVES)
    if kind in ("your_turn", "reminder"):
        last, ctx["changes"] = _since_last_move(batch, seat)
        ctx["since_version"] = last
    if kind == "timeout":
        ctx["played"] = [e["move"] for e in batch.events
                         if e.get("timeout") and e.get("seat") == seat and "move" in e]
    if kind == "taken_over":
        ctx["taken_over"] = [{"name": batch.names[e["seat"]], "you": e["seat"] == seat,
                              "reason": e["reason"], "bot": e["bot"]}
                             for e in batch.events if e["type"] == "seat_taken_over"]
    if kind == "game_over" or kind == "answer" and batch.over:
        over = next((e for e in batch.events if e["type"] == "game_over"), None) or {}
        scores = over.get("scores", list(state.scores))
        ctx["scores"] = sorted(({"name": n, "score": s, "left": state.left.get(i),
                                 "bot": state.bots.get(i)} for i, (n, s) in enumerate(zip(
                                     batch.names, scores, strict=False))),
                               key=lambda r: -r["score"])
        ctx["winners"] = [batch.names[w] for w in over.get("winners", state.winners)]
        ctx["neutral"] = view["neutral"]
        ctx["awards"] = _awards(batch)
    ctx.update(extra)
    return ctx


def clock_context(batch: Batch, seat: int, deadline: datetime | None) -> dict[str, Any]:
    """The clock in words (workers/clock_words.py): the game's time control; the time
    the seat has left when it is to act (until ``deadline``); the day off running now."""
    control = TimeControl.of(batch.game.time_per_move, batch.game.time_control)
    now = times.now()
    acting = deadline is not None and batch.state.current == seat
    off = control.day_off_until(now) if deadline is not None else None
    return {
        "time_control": control_words(control),
        "time_left": time_left_words(control.running(now, deadline).total_seconds(),
                                     control.bank is not None)
        if acting and deadline is not None else None,
        "day_off": day_off_words(control, off) if off else None,
    }


def subject(ctx: dict[str, Any]) -> str:
    """``[Alhambra <game>] Your turn, move 17``: the same prefix for every mail of a game,
    then what the mail is and the move number players count."""
    what = ANSWER_SUBJECTS[ctx["result"]] if ctx["kind"] == "answer" else \
        SUBJECT_KINDS[ctx["kind"]]
    return f"[Alhambra {ctx['game_id']}] {what}, move {ctx['turn']}"


def render(batch: Batch, kind: str, seat: int, version: int | None = None,
           mail_kind: str | None = None, **extra: Any) -> Mail | None:
    """The mail of ``kind`` to ``seat``, or None if that seat has no address. ``extra``:
    more template variables (an answer's ``result``...)."""
    info = batch.seats[seat] if seat < len(batch.seats) else None
    if info is None or not info.email:
        return None
    ctx = context_for(batch, kind, seat, **extra)
    if version is not None:
        ctx["version"] = version
    env = templates()
    return Mail(game_id=batch.game.id, version=ctx["version"], kind=mail_kind or kind,
                seat=seat, to_name=info.name or "", to_addr=info.email,
                subject=subject(ctx), text=env.get_template(f"{kind}.txt").render(ctx),
                html=env.get_template(f"{kind}.html").render(ctx),
                token_hash=info.token_hash)
