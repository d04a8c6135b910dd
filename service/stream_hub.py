"""Open ``/games/{id}/stream`` connections held by one thread per server process, not by a
request thread each (issue 20.2).

The stream's view (blueprints/stream.py) checks the request and sends what is there
already; when the server can take a stream over (service/gunicorn_worker.py says so in the
WSGI environment, ``PARK``), the view leaves a ``Stream`` in the environment (``PARKED``)
and the server hands the connection to its ``StreamHub``, and the request's thread is
free again. The hub looks up the versions of every game its streams follow in one query
each ``Settings.stream_poll`` seconds; when a game moved on, the new events are read
once for each (seat, version) among its streams and written to each of them. It sends
keep-alive comments, ends each stream when its time is up or its finished game has said
everything (the client reconnects with ``Last-Event-ID``), closes a stream whose client
went away or does not read, and on ``stop`` ends every stream at once.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import i18n, present
from .auth import Caller
from .games import Games
from .talk import TableTalk

log = logging.getLogger("alhambra.streams")

PARK = "alhambra.stream_hub"  # environ: this server takes streams over
PARKED = "alhambra.parked_stream"  # environ: the Stream the view hands over

KEEPALIVE = ": keep-alive\n\n"
BATCH = 500  # game ids per query


@dataclass(eq=False)
class Stream:
    """One open stream: whose, of which game, from which version, until when."""

    games: Games
    game_id: str
    who: Caller
    seat: int | None  # whose view (None: a spectator's)
    since: int
    ends: float  # time.monotonic() when it ends
    keepalive: float  # seconds of quiet before a keep-alive comment
    poll: float  # seconds between looks at the game's version
    release: Callable[[], None]  # gives its place back (stream_caps.py)
    lang: str = i18n.DEFAULT  # the language of the events' words
    sock: socket.socket | None = None
    chunked: bool = False
    quiet_since: float = field(default_factory=time.monotonic)
    chat: tuple[int, int] = (0, 0)  # the talk's mark told so far (talk.py: ``changes``)
    #: A stream of its own (``/me/stream``): each look sends what this gives, instead of
    #: the game's events; ``keepalive_text`` keeps it open while quiet.
    look: Callable[[], str] | None = None
    keepalive_text: str = KEEPALIVE


class StreamHub:
    """``start()``, then ``park(sock, chunked, stream)`` from any thread; ``stop()`` (safe
    in a signal handler) ends every stream."""

    def __init__(self) -> None:
        self.selector = selectors.DefaultSelector()
        self.wake_r, self.wake_w = socket.socketpair()
        self.wake_r.setblocking(False)
        self.wake_w.setblocking(False)
        self.selector.register(self.wake_r, selectors.EVENT_READ, None)
        self.lock = threading.Lock()
        self.incoming: list[Stream] = []
        self.streams: set[Stream] = set()
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.next_poll = 0.0
        self.poll = 0.5

    def __len__(self) -> int:
        return len(self.streams)

    def start(self) -> None:
        self.thread = threading.Thread(target=self.run, name="stream-hub", daemon=True)
        self.thread.start()

    def park(self, sock: socket.socket, chunked: bool, stream: Stream) -> None:
        """Take ``stream`` over on ``sock`` (its answer's head and first part sent)."""
        stream.sock, stream.chunked = sock, chunked
        sock.setblocking(False)
        with self.lock:
            stopping = self.stopping.is_set()
            if not stopping:
                self.incoming.append(stream)
        if stopping:
            self._end(stream)
        else:
            self._wake()

    def stop(self) -> None:
        self.stopping.set()
        self._wake()

    def join(self, timeout: float) -> None:
        if self.thread is not None:
            self.thread.join(timeout)

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self.wake_w.send(b"x")

    # -- the hub's thread -----------------------------------------------------------------

    def run(self) -> None:
        try:
            while not self.stopping.is_set():
                self._round()
        except Exception:  # noqa: BLE001 - logged; the streams end, their clients return
            log.exception("the stream hub failed")
        finally:
            with self.lock:
                self.stopping.set()
                incoming, self.incoming = self.incoming, []
            for stream in [*incoming, *self.streams]:
                self._end(stream)

    def _round(self) -> None:
        timeout = max(0.0, self.next_poll - time.monotonic()) if self.streams else None
        for key, _ in self.selector.select(timeout):
            if key.data is None:
                with contextlib.suppress(OSError):
                    while self.wake_r.recv(4096):
                        pass
            elif key.data in self.streams:
                self._readable(key.data)
        with self.lock:
            incoming, self.incoming = self.incoming, []
        for stream in incoming:
            assert stream.sock is not None
            self.streams.add(stream)
            self.selector.register(stream.sock, selectors.EVENT_READ, stream)
            self.poll = stream.poll
        now = time.monotonic()
        if self.streams and now >= self.next_poll:
            self.next_poll = now + self.poll
            self._look()
        now = time.monotonic()
        for stream in list(self.streams):
            if now >= stream.ends:
                self._end(stream)
            elif now - stream.quiet_since >= stream.keepalive:
                self._send(stream, stream.keepalive_text)

    def _readable(self, stream: Stream) -> None:
        """The client sent something: its end (closed), or bytes nobody asked for."""
        assert stream.sock is not None
        try:
            data = stream.sock.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._close(stream)

    def _look(self) -> None:
        """New events of the streams' games, to each stream that lacks them; what each
        stream of its own has to say."""
        watched: dict[tuple[Games, str], list[Stream]] = defaultdict(list)
        for stream in list(self.streams):
            if stream.look is None:
                watched[(stream.games, stream.game_id)].append(stream)
                continue
            try:
                text = stream.look()
            except Exception as exc:  # noqa: BLE001 - this stream ends; its client returns
                log.warning("a stream could not look: %s", exc)
                self._end(stream)
                continue
            if text:
                self._send(stream, text)
        by_service: dict[Games, list[str]] = defaultdict(list)
        for games, game_id in watched:
            by_service[games].append(game_id)
        for games, ids in by_service.items():
            for start in range(0, len(ids), BATCH):
                chunk = ids[start:start + BATCH]
                try:
                    found, _ = games.store.list_games(ids=chunk, limit=len(chunk))
                except Exception as exc:  # noqa: BLE001 - the streams wait; tried again
                    log.warning("streams: the games' versions could not be read: %s", exc)
                    return
                rows = {game.id: game for game in found}
                try:
                    marks = TableTalk(games).marks(chunk)
                except Exception as exc:  # noqa: BLE001 - the streams wait; tried again
                    log.warning("streams: the talk could not be read: %s", exc)
                    return
                for game_id in chunk:
                    self._update(games, rows.get(game_id), watched[(games, game_id)],
                                 marks[game_id])

    def _update(self, games: Games, game: Any, streams: list[Stream],
                mark: tuple[int, int]) -> None:
        if game is None:
            self._end_all(streams)
            return
        self._chat(games, game, streams, mark)
        behind: dict[tuple[int | None, int, str], list[Stream]] = defaultdict(list)
        for stream in streams:
            if stream.since < game.version:
                behind[(stream.seat, stream.since, stream.lang)].append(stream)
            elif game.status == "over":
                self._end(stream)
        for (_, since, lang), group in behind.items():
            try:
                items = games.events(game, group[0].who, since).items
            except Exception as exc:  # noqa: BLE001 - these streams end; clients return
                log.warning("streams of %s: the events could not be read: %s", game.id, exc)
                self._end_all(group)
                continue
            text = "".join(present.sse(item, lang) for item in items)
            last = items[-1].version if items else since
            for stream in group:
                if text and not self._send(stream, text):
                    continue
                stream.since = last
                if game.status == "over" and last >= game.version:
                    self._end(stream)

    def _chat(self, games: Games, game: Any, streams: list[Stream], mark: tuple[int, int]
              ) -> None:
        """New table talk (the game's talk at ``mark``), to each stream whose reader may
        read it (``event: chat``)."""
        talk = TableTalk(games)
        try:
            for stream in streams:
                if stream.chat != mark and stream.sock is not None:
                    items, stream.chat = talk.changes(game, stream.who, stream.chat)
                    text = "".join(present.chat_sse(i) for i in items)
                    if text:
                        self._send(stream, text)
        except Exception as exc:  # noqa: BLE001 - tried again at the next look
            log.warning("streams of %s: the talk could not be read: %s", game.id, exc)

    def _send(self, stream: Stream, text: str) -> bool:
        """Write ``text`` whole at once, or close the stream (its client does not read)."""
        data = text.encode()
        if stream.chunked:
            data = b"%x\r\n%s\r\n" % (len(data), data)
        assert stream.sock is not None
        try:
            sent = stream.sock.send(data)
        except OSError:
            sent = -1
        if sent != len(data):
            self._close(stream)
            return False
        stream.quiet_since = time.monotonic()
        return True

    def _end_all(self, streams: Iterable[Stream]) -> None:
        for stream in list(streams):
            self._end(stream)

    def _end(self, stream: Stream) -> None:
        """End the answer properly, then close."""
        if stream.chunked and stream.sock is not None:
            with contextlib.suppress(OSError):
                stream.sock.send(b"0\r\n\r\n")
        self._close(stream)

    def _close(self, stream: Stream) -> None:
        self.streams.discard(stream)
        sock, stream.sock = stream.sock, None
        if sock is not None:
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(sock)
            sock.close()
        try:
            stream.release()
        except Exception:  # noqa: BLE001 - its place expires by itself
            log.exception("a stream's place could not be given back")
