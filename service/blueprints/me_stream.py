"""/me/stream: one stream of everything that concerns a player's account (issue 33.6), as
server-sent events or, with ``Accept: application/x-ndjson``, one JSON object a line.

What it tells, from the games of the seats the account claimed and the seats offered to
its address (``Players.invitations``):

- ``game_started``, ``moved`` (the seat that moved and its moves in notation, for every
  batch that holds moves: the account's own too), ``your_turn`` (after the batch that made
  it the account's seat's turn, while it still is), ``game_over``;
- ``message``: a table-talk message the account's seat may read (as GET /messages);
- ``invitation``: a seat offered to the account's address (the game and the seat), or
  an invitation by handle to a game to come (service/invitations.py: its ``id``);
- ``tournament_round``: the account's table of a tournament's round, once its game is
  made (the tournament, round, table, game, players); ``tournament_finished``: a
  tournament it entered ended (its rank, points and division).

Every ``data`` carries ``game_id`` and ``version``, but an invitation's by handle (its
``id``: there is no game yet; ``game_started`` tells it once every invitee accepted) and
a tournament's (its ``tournament_id``).

**The id** of each event is its place in one order of all the account's games: the time
of the fact it tells (the batch's, the message's, the game's creation for an invitation
or a tournament's table, the tournament's end) in milliseconds since the epoch, then the
game (or tournament), then the kind and number of the fact, then which event of it:
``<ms>-<game>-<b|m|i|t><n>.<k>`` (``1733400000123-4f0c…-b17.2``).
These are stored facts, so the order is the same at every look and on every host: a
client that reconnects with ``Last-Event-ID`` gets exactly what comes after. A stream
opened without one starts now (its first line ``id: <ms>`` sets the id to resume from).
A fact is stamped before its transaction commits, so two games' batches may commit in
another order than their stamps (on either database). A stream that lasts therefore
tells each fact once it is ``Settings.stream_settle`` old (1 s): by then every fact
stamped before it has committed, and a stream resumed after it misses none; each look
also goes back ``LOOKBACK_MS`` and sends what it had not seen yet. A stream opened
without ``Last-Event-ID`` starts that long before now.

**How**: under ``serve`` the view sends the first look and hands the open stream to the
process's StreamHub (stream_hub.py: a ``Stream`` with its own ``look``), which looks for
it every ``Settings.stream_poll`` seconds (three small queries: the account's new
batches, its new messages, its invitations) with the games' streams: an idle stream holds
no request thread. Another threaded server keeps it in the request's thread, looking as
often; a server that handles one request at a time answers what there is and ends. Each
stream ends after ``Settings.stream_seconds`` (the client reconnects). It is not counted
against the per-address cap of the games' streams but ``Settings.streams_per_account``
per account (429 beyond; a second connection does not close the first).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import replace

from flask import Response, current_app, request

from .. import times
from ..account_feed import Feed, Key, ms
from ..auth import Caller
from ..i18n import msg
from ..presence import account_key
from ..problems import ApiError
from ..settings import Settings
from ..stream_caps import StreamCaps, TooManyStreams
from ..stream_hub import PARK, PARKED, Stream
from .common import (
    BEARER_REQUIRED,
    Blueprint,
    bearer_token,
    errors,
    players,
    presence,
    redis_client,
    settings,
)

blp = Blueprint("me_stream", __name__, url_prefix="",
                description="Live: everything that concerns my account, in one stream")

#: How far back each look goes for a batch committed after a later-stamped one (ms).
LOOKBACK_MS = 2000
NDJSON = "application/x-ndjson"


class Follower:
    """One open stream's cursor: ``look()`` gives the text of the items after what it
    told (and of those committed late within ``LOOKBACK_MS``), each once it is
    ``settle_ms`` old: a fact is stamped before its transaction commits, so one told
    only when older than any transaction's time to commit leaves no earlier fact behind
    it, and a stream resumed after it (``Last-Event-ID``) misses nothing."""

    def __init__(self, feed: Feed, cursor: Key, ndjson: bool, settle_ms: int = 0) -> None:
        self.feed, self.cursor, self.ndjson = feed, cursor, ndjson
        self.settle_ms = settle_ms
        self.floor = cursor  # what the client had: never sent again
        self.seen: set[Key] = set()  # sent (or had) within the look-back

    def look(self) -> str:
        ripe = ms(times.now()) - self.settle_ms
        found = [i for i in self.feed.since(max(self.floor.ms,
                                                self.cursor.ms - LOOKBACK_MS))
                 if i.key.ms <= ripe]
        new = [i for i in found if i.key > self.floor and i.key not in self.seen]
        self.seen |= {i.key for i in found}
        self.seen = {k for k in self.seen if k.ms >= self.cursor.ms - 2 * LOOKBACK_MS}
        out = []
        for item in new:
            data = json.dumps(item.data, separators=(",", ":"), ensure_ascii=False)
            out.append(f'{{"id":"{item.key}","event":"{item.event}","data":{data}}}\n'
                       if self.ndjson else
                       f"id: {item.key}\nevent: {item.event}\ndata: {data}\n\n")
            self.cursor = max(self.cursor, item.key)
        return "".join(out)

    def head(self, s: Settings) -> str:
        """The first text: the id to resume from (and, SSE, the reconnect delay), so a
        client that hears nothing before the stream ends resumes from where it began."""
        if self.ndjson:
            return f'{{"id":"{self.cursor}"}}\n'
        return f"retry: {s.stream_retry_ms}\nid: {self.cursor}\n\n"

    @property
    def keepalive(self) -> str:
        return "\n" if self.ndjson else ": keep-alive\n\n"


def follow(follower: Follower, s: Settings, seconds: float,
           release: Callable[[], None] = lambda: None) -> Iterator[str]:
    """The stream's text in the request's thread: the first look, then each new item for
    ``seconds``; then ``release`` its place."""
    end = time.monotonic() + seconds
    try:
        yield follower.head(s)
        quiet_since = time.monotonic()
        while True:
            text = follower.look()
            now = time.monotonic()
            if text:
                yield text
                quiet_since = now
            if now >= end:
                return
            if now - quiet_since >= s.stream_keepalive:
                yield follower.keepalive
                quiet_since = now
            time.sleep(min(s.stream_poll, max(0.0, end - now)))
    finally:
        release()


def account_caps() -> StreamCaps:
    if "alhambra_me_stream_caps" not in current_app.extensions:
        s = settings()
        current_app.extensions["alhambra_me_stream_caps"] = StreamCaps(
            replace(s, streams_per_client=s.streams_per_account), redis_client())
    caps: StreamCaps = current_app.extensions["alhambra_me_stream_caps"]
    return caps


#: One event of the stream, as the OpenAPI document describes it.
MESSAGE = {"type": "object", "description": "One server-sent event (or NDJSON line)",
           "properties": {
               "id": {"type": "string", "description": "Where to resume from "
                      "(`Last-Event-ID`): `<ms>-<game>-<b|m|i|t><n>.<k>`"},
               "event": {"type": "string", "enum": [
                   "game_started", "your_turn", "moved", "game_over", "message",
                   "invitation", "tournament_round", "tournament_finished"]},
               "data": {"type": "string", "description": "JSON with `game_id` and "
                        "`version` (moved: `seat`, `moves`; your_turn: `seat`, "
                        "`deadline`; message: as GET /messages; invitation: a seat "
                        "offered in a game made, `seat`; or an invitation by handle "
                        "(POST /invitations) to a game to come: its `id`, no `game_id`; "
                        "tournament_round: `tournament_id`, `name`, `round`, `table`, "
                        "`game_id`, `players` (handles in seat order); "
                        "tournament_finished: `tournament_id`, `name`, `round`, `rank`, "
                        "`points`, `division`)"}}}
EXAMPLE = ('retry: 1000\nid: 1733400000000\n\nid: 1733400001234-4f0c9a1b2c3d4e5f-b17.0\n'
           'event: moved\ndata: {"game_id":"4f0c9a1b2c3d4e5f","version":17,"seat":1,'
           '"moves":["take 2"]}\n\nid: 1733400001234-4f0c9a1b2c3d4e5f-b17.2\nevent: '
           'your_turn\ndata: {"game_id":"4f0c9a1b2c3d4e5f","version":17,"seat":0,'
           '"deadline":"2024-12-08T12:00:00Z"}\n\n: keep-alive\n\n')


@blp.route("/me/stream", methods=["GET"])
@blp.response(200, MESSAGE, content_type="text/event-stream", example=EXAMPLE, description=(
    "Server-sent events (text/event-stream), or with `Accept: application/x-ndjson` one "
    "JSON object `{id, event, data}` a line (empty lines keep it alive; the first line, "
    "`{id}` alone, is where the stream began: resume from it). Each event: "
    "`id:` where to resume, `event:` its kind, `data:` JSON with `game_id` and "
    "`version`. The stream ends after a bounded time; reconnect with `Last-Event-ID`."))
@blp.doc(security=BEARER_REQUIRED, parameters=[
    {"in": "header", "name": "Last-Event-ID", "required": False,
     "schema": {"type": "string"},
     "description": "The id of the last event received: the stream resumes after it "
                    "(none: from now)"}])
@errors(blp, 400, 401, 403, 429)
def me_stream() -> Response:
    """Follow all my games live

    One stream of what concerns the player: `game_started`, `moved`, `your_turn`,
    `game_over` and table-talk `message`s in the games of the seats the account claimed,
    `invitation`s (seats offered to its address, and invitations by handle: `id`), and
    of the tournaments it entered `tournament_round` (its table's game made) and
    `tournament_finished` (its rank).
    With the sign-in session's token or
    a personal token with the `read` scope. Resumable with `Last-Event-ID`. At most
    `ALHAMBRA_STREAMS_PER_ACCOUNT` open per account (429 `rate_limited` beyond); the
    games' own streams do not count against it."""
    accounts = players()
    player = accounts.player(bearer_token(), scope="read")
    s = settings()
    seconds = s.stream_seconds if request.environ.get("wsgi.multithread") and \
        request.method == "GET" else 0
    # a stream that lasts tells each fact once it settled; one that answers what there is
    # and ends (a server of one request at a time) tells it at once
    settle_ms = round(s.stream_settle * 1000) if seconds > 0 else 0
    header = request.headers.get("Last-Event-ID")
    cursor = Key.parse(header) if header is not None else \
        Key(ms(times.now()) - settle_ms)
    if cursor is None:
        raise ApiError("bad_request", msg("Last-Event-ID must be the id of the last event "
                                          "received"))
    ndjson = request.accept_mimetypes.best_match(["text/event-stream", NDJSON]) == NDJSON
    follower = Follower(Feed(accounts.games, player.email), cursor, ndjson, settle_ms)
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    mimetype = NDJSON if ndjson else "text/event-stream"
    if seconds <= 0:
        return Response(follow(follower, s, 0), mimetype=mimetype, headers=headers)
    try:
        place = account_caps().acquire(account_key(player.email), seconds)
    except TooManyStreams as full:
        detail = msg("too many open streams of your account (at most {limit}): close "
                     "one, or try again in {seconds} s", limit=s.streams_per_account,
                     seconds=full.retry_after) if full.whose == "address" else \
            msg("the server has too many open streams (at most {limit}): try again in "
                "{seconds} s", limit=s.streams_max, seconds=full.retry_after)
        raise ApiError("rate_limited", detail,
                       headers={"Retry-After": str(full.retry_after)}) from None
    unwatch = presence().watch(account_key(player.email), seconds)

    def release() -> None:
        place.release()
        unwatch()
    if not request.environ.get(PARK):
        return Response(follow(follower, s, seconds, release), mimetype=mimetype,
                        headers=headers)
    # The server takes the stream over once this first part is sent (stream_hub.py).
    try:
        text = follower.head(s) + follower.look()
    except BaseException:
        release()
        raise
    request.environ[PARKED] = Stream(
        accounts.games, "", Caller(), None, 0, time.monotonic() + seconds,
        s.stream_keepalive, s.stream_poll, release, look=follower.look,
        keepalive_text=follower.keepalive)
    # an iterator, not a text: no Content-Length, so the answer goes on (chunked) after it
    return Response(iter([text]), mimetype=mimetype, headers=headers)
