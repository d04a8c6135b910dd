"""/games/{id}/stream: the game's new events, live, as server-sent events.

Each message is one event item, exactly as ``GET /games/{id}/events`` serves it (the same
application-layer call, redacted for the bearer token), with ``id:`` = its version. A
stream ends after ``Settings.stream_seconds`` (and as soon as a finished game has nothing more to
send), so that it never holds a server worker for long; the client reconnects with
``Last-Event-ID`` (or ``since``) and misses nothing. While nothing happens, a comment line
keeps the connection alive every ``Settings.stream_keepalive`` seconds.

A server process that handles one request at a time (gunicorn's sync workers: the WSGI
environment says ``wsgi.multithread`` false) must not wait at all: there the stream sends
what it has and ends at once, and clients poll by reconnecting after ``retry``.

The token goes in the ``Authorization`` header like everywhere else: browsers read the
stream with ``fetch()`` (``EventSource`` cannot send headers), so a token never appears in
a URL or a log line. A spectator may use ``EventSource`` without a token.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator

from flask import Response, request, stream_with_context

from ..auth import Caller
from ..problems import ApiError
from ..schemas import EventsQuerySchema
from .common import BEARER, Blueprint, caller, errors, service, settings

blp = Blueprint("stream", __name__, url_prefix="/games",
                description="Live: new events as server-sent events")

_LAST_EVENT_ID = re.compile(r"^\s*(\d{1,10})\s*$")

#: One message of the stream, as the OpenAPI document describes it.
MESSAGE = {"type": "object", "description": "One server-sent event", "properties": {
    "id": {"type": "string", "description": "The game's version after this event"},
    "event": {"type": "string", "description": "Always the default type, message"},
    "data": {"type": "string", "description": "JSON: one event item, as in GET /events"},
    "retry": {"type": "integer", "description": "Reconnect after this many milliseconds"}}}
EXAMPLE = ('retry: 1000\n\nid: 14\ndata: {"version": 14, "event": {"type": "money_taken", '
           '"seat": 1, "cards": ["DI3"], "move": "take 2"}}\n\n: keep-alive\n\n')


def _since(query_since: int) -> int:
    header = request.headers.get("Last-Event-ID")
    if header is None:
        return query_since
    m = _LAST_EVENT_ID.match(header)
    if not m:
        raise ApiError(400, "bad_request", "Last-Event-ID must be a version number, the id "
                       "of the last message received")
    return int(m.group(1))


def _message(item: dict) -> str:
    return f"id: {item['version']}\ndata: {json.dumps(item, separators=(',', ':'))}\n\n"


def sse(game_id: str, who: Caller, since: int, seconds: float, keepalive: float,
        poll: float) -> Iterator[str]:
    """The stream's text: items after ``since`` as they are written, for ``seconds``."""
    games = service()
    end = time.monotonic() + seconds
    yield f"retry: {settings().stream_retry_ms}\n\n"
    quiet_since = time.monotonic()
    while True:
        game = games.game(game_id)
        if game.version > since:
            for item in games.events(game, who, since)["events"]:
                yield _message(item)
                since = item["version"]
            quiet_since = time.monotonic()
        if game.status == "over" and game.version <= since:
            return
        now = time.monotonic()
        if now >= end:
            return
        if now - quiet_since >= keepalive:
            yield ": keep-alive\n\n"
            quiet_since = now
        time.sleep(min(poll, max(0.0, end - now)))


@blp.route("/<string:game_id>/stream", methods=["GET"])
@blp.arguments(EventsQuerySchema(), location="query")
@blp.response(200, MESSAGE, content_type="text/event-stream", example=EXAMPLE, description=(
    "Server-sent events (text/event-stream). Each message: `id:` the version, `data:` one "
    "event item as in GET /events (JSON). Comment lines (`: keep-alive`) while nothing "
    "happens. The stream ends after a bounded time (25 s by default; at once on a server "
    "that handles one request at a time per process) or when a finished game has sent its "
    "last event; reconnect with `Last-Event-ID`."))
@blp.doc(security=BEARER, parameters=[
    {"in": "header", "name": "Last-Event-ID", "required": False,
     "schema": {"type": "string", "pattern": r"^\s*\d{1,10}\s*$"},
     "description": "The version of the last message received: the stream resumes after "
                    "it (wins over `since`)"}])
@errors(blp, 400, 401, 403, 404, 422)
def stream_events(query, game_id):
    """Follow a game live

    The events after `since` (or `Last-Event-ID`), then each new one as it is written, as
    server-sent events; redacted for the caller exactly as GET /events. Send the seat token
    in the `Authorization` header (read the stream with `fetch()`; browsers' `EventSource`
    cannot send headers and is for spectators). Each stream ends after a bounded time: the
    client reconnects from the last `id`."""
    games = service()
    game = games.game(game_id)
    who = caller()
    who.viewer(game)  # 403 for another game's token, before the stream starts
    since = _since(query["since"])
    s = settings()
    # a one-request-at-a-time worker never waits: its clients poll instead
    seconds = s.stream_seconds if request.environ.get("wsgi.multithread") else 0
    body = sse(game.id, who, since, seconds, s.stream_keepalive, s.stream_poll)
    return Response(stream_with_context(body), mimetype="text/event-stream", headers={
        "Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
