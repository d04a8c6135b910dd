"""The presenter: the application layer's typed results (results.py) as they leave it.

One place says how a result reads outside: the API's JSON documents (the blueprints
return ``present.<thing>(result)``; service/schemas.py states their contract), the
server-sent events of the live stream (an event item, a table-talk message), the webhook
body, the words the mails and mail answers show (an event item's text in the reader's
language) and the messages a game's record carries.

The API's documents keep their members in the order the schemas list them (the answer
to a submission goes out without a second pass through its schema, and the answer to a
retry with the same Idempotency-Key is rebuilt here from the log: byte for byte the
first). An event item's ``text`` stays the engine's ``Msg`` in the API's documents (the
schemas' ``Said`` fields say it in the request's language); elsewhere it is said in
the reader's language here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict
from typing import Any

from engine import Move
from engine.overview import NoCell

from . import i18n, times
from .results import (
    BotSeated,
    Created,
    EventItem,
    EventPage,
    GameDocument,
    GameList,
    GameSummary,
    Joined,
    LegalMoves,
    MessageItem,
    MyGame,
    Played,
    Previewed,
    Recorded,
    Rotated,
)
from .schemas import GameSummarySchema

#: The seat's page in the web client for a token (blueprints/common.py ``join_url``).
JoinUrl = Callable[[str, str], str]


# -- event items ---------------------------------------------------------------------------

def event_item(item: EventItem, lang: str | None = None) -> dict[str, Any]:
    """An event item's JSON: its words as the engine's ``Msg`` (None: ``lang`` None) or
    said in ``lang``."""
    text: str | None = item.text
    if lang is not None and item.text is not None:
        text = i18n.say(item.text, lang)
    return {"version": item.version, "event": item.event, "text": text}


def events_json(items: Iterable[EventItem], lang: str | None = None) -> list[dict[str, Any]]:
    return [event_item(i, lang) for i in items]


def sse(item: EventItem, lang: str = i18n.DEFAULT) -> str:
    """One event item as a server-sent event: ``id:`` its version, ``data:`` its JSON,
    its words in ``lang``."""
    data = json.dumps(event_item(item, lang), separators=(",", ":"))
    return f"id: {item.version}\ndata: {data}\n\n"


def lines(items: Iterable[EventItem], lang: str) -> list[str]:
    """The words of the items worth telling, in ``lang`` (a mail's lines)."""
    return [i18n.say(i.text, lang) for i in items if i.text is not None]


def webhook(game_id: str, hook_id: int, seat: int | None, first: int, last: int,
            items: Iterable[EventItem], lang: str) -> dict[str, Any]:
    """The body a webhook is POSTed: the batch's events (versions ``first``..``last``)
    redacted for the hook's seat, their words in ``lang``."""
    return {"game_id": game_id, "webhook_id": hook_id, "seat": seat,
            "from_version": first, "to_version": last, "events": events_json(items, lang)}


# -- games ---------------------------------------------------------------------------------

#: A summary's members read from the game's row as they are: GameSummarySchema declares
#: them (and their order), the row's fields have their names (``game_id`` is its ``id``).
ROW_MEMBERS = tuple(name for name in GameSummarySchema._declared_fields
                    if name not in ("game_id", "seats", "your_seat"))


def summary(s: GameSummary) -> dict[str, Any]:
    """GameSummarySchema: an address only to its own seat, a failing mark only to its own
    seat and the host."""
    game = s.game
    seats = []
    for seat in s.seats:
        entry: dict[str, Any] = {"seat": seat.seat, "name": seat.name,
                                 "joined": seat.joined, "bot": seat.bot,
                                 "language": seat.language}
        if s.shows_email(seat.seat):
            entry["email"] = seat.email
        if s.shows_failing(seat.seat):
            entry["mail_failing"] = seat.mail_failing
        seats.append(entry)
    doc: dict[str, Any] = {"game_id": game.id}
    doc.update((name, getattr(game, name)) for name in ROW_MEMBERS)
    doc["seats"], doc["your_seat"] = seats, s.your_seat
    return doc


def document(d: GameDocument) -> dict[str, Any]:
    """GameSchema: the summary, each seat's clock, the view, the day off."""
    doc = summary(d.summary)
    doc["view"] = d.view
    for entry, clock in zip(doc["seats"], d.clocks, strict=True):
        entry["time_left"] = clock.time_left
        entry["vacation_until"] = clock.vacation_until
    doc["day_off_until"] = d.day_off_until
    return doc


def game_list(g: GameList) -> dict[str, Any]:
    """GameListSchema."""
    return {"total": g.total, "games": [summary(s) for s in g.games]}


def events(page: EventPage) -> dict[str, Any]:
    """EventsSchema."""
    return {"game_id": page.game_id, "version": page.version,
            "events": events_json(page.items)}


# -- moves ---------------------------------------------------------------------------------

def moves(ms: Iterable[Move]) -> list[dict[str, Any]]:
    """LegalMoveSchema: each move in notation and as JSON."""
    return [{"notation": str(m), "move": m.to_json()} for m in ms]


def no_cell(tiles: Iterable[NoCell]) -> list[dict[str, Any]]:
    """NoCellSchema."""
    return [asdict(n) for n in tiles]


def legal_moves(m: LegalMoves) -> dict[str, Any]:
    """LegalMovesSchema."""
    return {"game_id": m.game_id, "version": m.version, "seat": m.seat,
            "your_turn": m.your_turn, "phase": m.phase, "moves": moves(m.moves),
            "no_cell": no_cell(m.no_cell)}


def previewed(p: Previewed) -> dict[str, Any]:
    """PreviewedSchema."""
    return {"game_id": p.game_id, "version": p.version, "events": events_json(p.items),
            "view": p.view, "turn_ends": p.turn_ends, "moves": moves(p.moves),
            "no_cell": no_cell(p.no_cell)}


def played(p: Played) -> dict[str, Any]:
    """SubmittedSchema: the batch's events as the seat sees them and its view after
    them (the same document for the first answer and a retry's)."""
    return {"game_id": p.game_id, "version": p.version, "events": events_json(p.items),
            "view": p.view}


# -- seats ---------------------------------------------------------------------------------

def created(c: Created, game: GameDocument, join_url: JoinUrl) -> dict[str, Any]:
    """CreatedGameSchema: the tokens with their pages, and the new game's document."""
    seats = [{**s, "join_url": join_url(c["game_id"], s["token"])} for s in c["seats"]]
    return {**c, "seats": seats, "game": document(game)}


def joined(j: Joined, join_url: JoinUrl) -> dict[str, Any]:
    """JoinedSchema."""
    return {**j, "join_url": join_url(j["game_id"], j["token"])}


def rotated(r: Rotated, join_url: JoinUrl) -> dict[str, Any]:
    """RotatedTokenSchema."""
    return {**r, "join_url": join_url(r["game_id"], r["token"])}


def bot_seated(b: BotSeated) -> dict[str, Any]:
    """BotSeatedSchema."""
    return dict(b)


# -- players (service/players.py) ---------------------------------------------------------

def my_game(m: MyGame) -> dict[str, Any]:
    """MyGameSchema: a game of the player's list, with the seat's token to open it."""
    g, active = m.game, m.game.status == "active"
    return {
        "game_id": g.id, "variant": g.variant, "status": g.status, "phase": g.phase,
        "version": g.version, "seat": m.seat, "name": m.name,
        "time_per_move": g.time_per_move,
        "players": [{"seat": s, "name": n, "bot": b} for s, n, b in m.players],
        "current_seat": g.current_seat if active else None,
        "current_name": m.current_name, "your_turn": m.your_turn, "deadline": m.deadline,
        "game_deadline": g.deadline if active else None, "updated_at": g.updated_at,
        "token": m.token,
    }


def my_games(ms: Iterable[MyGame]) -> dict[str, Any]:
    """MyGamesSchema: the player's list."""
    return {"games": [my_game(m) for m in ms]}


# -- table talk (service/talk.py) ----------------------------------------------------------

def message(m: MessageItem) -> dict[str, Any]:
    """MessageSchema: a message as its reader may see it."""
    return {"id": m.id, "from": m.sender, "from_name": m.from_name, "to": m.to,
            "to_name": m.to_name, "text": m.text, "created_at": m.created_at,
            "version": m.version, "deleted": m.deleted}


def messages(game_id: str, ms: Iterable[MessageItem]) -> dict[str, Any]:
    """MessageListSchema."""
    return {"game_id": game_id, "messages": [message(m) for m in ms]}


def chat_sse(m: MessageItem) -> str:
    """A message as a server-sent event of the game's stream: ``event: chat`` (no
    ``id``: the stream's ids are the game's versions)."""
    data = {**message(m), "created_at": times.to_text(m.created_at)}
    return f"event: chat\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def record(r: Recorded) -> dict[str, Any]:
    """RecordSchema: the engine's record with the messages its reader may read (without
    the seats' names: the record names its seats once)."""
    return {**r.record, "messages": [
        {k: times.to_text(v) if k == "created_at" else v
         for k, v in message(m).items() if k not in ("from_name", "to_name")}
        for m in r.messages]}
