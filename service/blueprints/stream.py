"""/games/{id}/stream: the game's new events, live, as server-sent events.

Each message is one event item, exactly as ``GET /games/{id}/events`` serves it (the same
application-layer call, redacted for the bearer token), with ``id:`` = its version. A
stream ends after ``Settings.stream_seconds`` (and as soon as a finished game has nothing
more to send); the client reconnects with ``Last-Event-ID`` (or ``since``) and misses
nothing. While nothing happens, a comment line keeps the connection alive every
``Settings.stream_keepalive`` seconds.

Under ``serve`` (service/gunicorn_worker.py) the view sends what is there already and
hands the open stream to the process's StreamHub (stream_hub.py): an idle stream holds no
request thread. Another threaded server keeps each stream in its request thread, looking
for new events every ``Settings.stream_poll`` seconds. A server process that handles one
request at a time (gunicorn's sync workers: the WSGI environment says
``wsgi.multithread`` false) must not wait at all: there the stream sends what it has and
ends at once, and clients poll by reconnecting after ``retry``.

Open streams are capped per client address and in all (stream_caps.py): one more is
refused with 429 ``rate_limited`` and ``Retry-After``.

The token goes in the ``Authorization`` header like everywhere else: browsers read the
stream with ``fetch()`` (``EventSource`` cannot send headers), so a token never appears in
a URL or a log line. A spectator may use ``EventSource`` without a token.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, current_app, request

from .. import present
from ..auth import Caller
from ..games import Games
from ..i18n import msg
from ..languages import request_language
from ..presence import seat_key
from ..problems import ApiError
from ..results import MessageItem
from ..schemas import EventsQuerySchema
from ..settings import Settings
from ..stream_caps import Slot, StreamCaps, TooManyStreams
from ..stream_hub import PARK, PARKED, Stream
from ..talk import TableTalk
from .common import (
    BEARER,
    Blueprint,
    caller,
    errors,
    presence,
    redis_client,
    service,
    settings,
)

blp = Blueprint("stream", __name__, url_prefix="/games",
                description="Live: new events as server-sent events")

_LAST_EVENT_ID = re.compile(r"^\s*(\d{1,10})\s*$")

#: The stream as the OpenAPI document describes it: the body is text (what a generated
#: client returns); each message in it, as an SSE reader parses it, is the object (what
#: schemathesis checks each event against). Two types of message are sent.
MESSAGE = {"description": "Server-sent events: after `retry:`, a game event (no `event:` "
           "line, the default type `message`; `id:` its version) or a table-talk message "
           "(`event: chat`, no `id:`); comment lines (`: keep-alive`) while nothing happens",
           "anyOf": [
    {"type": "string", "description": "The stream as text"},
    {"type": "object", "description": "One message, as an SSE reader parses it",
     "properties": {
        "id": {"type": "string", "description": "Game events only: the game's version after "
                                                "the event (send it back as Last-Event-ID)"},
        "event": {"type": "string", "enum": ["message", "chat"], "description": "message "
                  "(the default type: no `event:` line): a game event; chat: a message of "
                  "the table's talk the caller may read, sent when it is written and when "
                  "it is deleted"},
        "data": {"type": "string", "description": "JSON. message: one event item, as in "
                 "GET /games/{id}/events. chat: one message, as in GET "
                 "/games/{id}/messages (a deleted one: `deleted: true`, an empty text)"},
        "retry": {"type": "integer", "description": "First of each stream: reconnect "
                                                   "after this many milliseconds"}}}]}
EXAMPLE = ('retry: 1000\n\nid: 14\ndata: {"version": 14, "event": {"type": "money_taken", '
           '"seat": 1, "cards": ["DI3"], "move": "take 2"}, "text": "Ann takes DI3."}\n\n'
           'event: chat\ndata: {"id": 3, "from": 1, "from_name": "Ann", "to": null, '
           '"to_name": null, "text": "Good luck", "created_at": "2026-05-01T10:00:00.000Z", '
           '"version": 14, "deleted": false}\n\n: keep-alive\n\n')


def _since(query_since: int) -> int:
    header = request.headers.get("Last-Event-ID")
    if header is None:
        return query_since
    m = _LAST_EVENT_ID.match(header)
    if not m:
        raise ApiError("bad_request", msg("Last-Event-ID must be a version number, the "
                                               "id of the last message received"))
    return int(m.group(1))


def sse(games: Games, s: Settings, game_id: str, who: Caller, since: int, seconds: float,
        release: Callable[[], None] = lambda: None, lang: str = "en") -> Iterator[str]:
    """The stream's text: items after ``since`` as they are written, for ``seconds``, in
    the request's thread; then ``release`` its place."""
    end = time.monotonic() + seconds
    keepalive, poll = s.stream_keepalive, s.stream_poll
    talk = TableTalk(games)
    try:
        yield f"retry: {s.stream_retry_ms}\n\n"
        quiet_since = time.monotonic()
        chat = talk.mark(game_id)
        while True:
            game = games.game(game_id)
            items: list[MessageItem] = []
            if talk.mark(game_id) != chat:  # one small query a look; the messages if new
                items, chat = talk.changes(game, who, chat)
            if items:
                yield "".join(present.chat_sse(i) for i in items)
                quiet_since = time.monotonic()
            if game.version > since:
                for item in games.events(game, who, since).items:
                    yield present.sse(item, lang)
                    since = item.version
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
    finally:
        release()


def stream_caps() -> StreamCaps:
    if "alhambra_stream_caps" not in current_app.extensions:
        current_app.extensions["alhambra_stream_caps"] = StreamCaps(settings(), redis_client())
    caps: StreamCaps = current_app.extensions["alhambra_stream_caps"]
    return caps


def _place(seconds: float) -> Slot:
    """This client's place for one more stream (429 when it has too many open)."""
    try:
        return stream_caps().acquire(request.remote_addr or "", seconds)
    except TooManyStreams as full:
        s = settings()
        detail = msg("too many open streams from your address (at most {limit}): close "
                     "one, or try again in {seconds} s", limit=s.streams_per_client,
                     seconds=full.retry_after) if full.whose == "address" else \
            msg("the server has too many open streams (at most {limit}): try again in "
                "{seconds} s", limit=s.streams_max, seconds=full.retry_after)
        raise ApiError("rate_limited", detail,
                       headers={"Retry-After": str(full.retry_after)}) from None


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
@errors(blp, 400, 401, 403, 404, 422, 429)
def stream_events(query: dict[str, Any], game_id: str) -> Response:
    """Follow a game live

    The events after `since` (or `Last-Event-ID`), then each new one as it is written, as
    server-sent events; redacted for the caller exactly as GET /events. Send the seat token
    in the `Authorization` header (read the stream with `fetch()`; browsers' `EventSource`
    cannot send headers and is for spectators). Each stream ends after a bounded time: the
    client reconnects from the last `id`. A client address may hold a few streams open at
    once (429 `rate_limited` with `Retry-After` beyond)."""
    games = service()
    game = games.game(game_id)
    who = caller()
    seat = who.viewer(game)  # 403 for another game's token, before the stream starts
    since = _since(query["since"])
    s = settings()
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    # a one-request-at-a-time worker never waits: its clients poll instead; nor does a
    # HEAD request (no body would ever be sent)
    seconds = s.stream_seconds if request.environ.get("wsgi.multithread") and \
        request.method == "GET" else 0
    lang = request_language()
    if seconds <= 0:
        return Response(sse(games, s, game.id, who, since, 0, lang=lang),
                        mimetype="text/event-stream", headers=headers)
    place = _place(seconds)
    unwatch = presence().watch(seat_key(game.id, seat), seconds) if seat is not None \
        else (lambda: None)

    def release() -> None:
        place.release()
        unwatch()
    if not request.environ.get(PARK):
        return Response(sse(games, s, game.id, who, since, seconds, release, lang),
                        mimetype="text/event-stream", headers=headers)
    # The server takes the stream over once this first part is sent (stream_hub.py).
    try:
        items = games.events(game, who, since).items
    except BaseException:
        release()
        raise
    last = items[-1].version if items else since
    text = f"retry: {s.stream_retry_ms}\n\n" + "".join(present.sse(item, lang)
                                                       for item in items)
    if game.status == "over" and last >= game.version:
        release()  # nothing more will come
    else:
        request.environ[PARKED] = Stream(games, game.id, who, seat, last,
                                         time.monotonic() + seconds, s.stream_keepalive,
                                         s.stream_poll, release, lang=lang,
                                         chat=TableTalk(games).mark(game.id))
    # an iterator, not a text: no Content-Length, so the answer goes on (chunked) after it
    return Response(iter([text]), mimetype="text/event-stream", headers=headers)
