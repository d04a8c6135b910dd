"""The API's gunicorn worker: gunicorn's threaded worker (gthread), plus

- **streams without threads**: an open ``/games/{id}/stream`` is handed, once its first
  part is sent, to the process's StreamHub (stream_hub.py), so idle streams hold no
  request thread (issue 20.2); a worker serving TLS itself keeps its streams in threads;
- **a quick stop**: on SIGTERM the hub ends every stream at once (their pages reconnect,
  to another server or to this one started again), then gunicorn finishes the requests
  under way as usual;
- **death with the master**: the worker gets SIGTERM when the gunicorn master dies, even
  by ``kill -9`` (Linux's parent-death signal), and stops as above instead of serving on;
- **closing without waiting**: a connection that is done with ("Connection: close") is
  half-closed and its client's last bytes drained as gunicorn does (RFC 9112 section
  9.6), but in the poller, not by gthread's blocking ``close_graceful`` on the main
  thread: there, each client that left its socket open after the answer (a guesser, a
  lazy client) stopped the whole process (accepting, keep-alive, finishing requests) for
  up to 2 s.

``serve`` runs it (service/cli.py); with gunicorn itself: ``worker_class =
"service.gunicorn_worker.ApiWorker"`` (deploy/gunicorn.conf.py). ``handle_request`` is
gthread's own (gunicorn 27) with the hand-over added.
"""

from __future__ import annotations

import contextlib
import os
import resource
import selectors
import signal
import socket
import ssl
import sys
import time
from concurrent.futures import Future
from datetime import timedelta
from types import FrameType
from typing import Any

from gunicorn import util
from gunicorn.http import wsgi
from gunicorn.workers.gthread import ThreadWorker

from .process import die_with_parent
from .stream_hub import PARK, PARKED, StreamHub

_HANDED_OVER = object()  # handle_request's answer: the hub has the connection now
LINGER = 2.0  # s a closed connection's client may take to close its end (gunicorn's own)


def _more_files() -> None:
    """Every open stream is a socket: allow this process as many as the system lets it."""
    with contextlib.suppress(ValueError, OSError):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = hard if hard != resource.RLIM_INFINITY else 1 << 16
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


class ApiWorker(ThreadWorker):
    alive: bool  # (gunicorn's Worker sets it)

    def init_process(self) -> None:
        die_with_parent(signal.SIGTERM)
        if os.getppid() != self.ppid:  # the master died before the line above
            sys.exit(0)
        _more_files()
        self.lingering: dict[socket.socket, float] = {}  # half-closed: their deadlines
        self.hub = StreamHub()
        self.hub.start()
        super().init_process()

    def run(self) -> None:
        try:
            super().run()
        finally:
            self.hub.stop()
            self.hub.join(5)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.hub.stop()
        super().handle_exit(sig, frame)

    def _keepalive_after(self, conn: Any, keepalive: Any) -> Any:
        if keepalive is _HANDED_OVER:
            return keepalive
        return super()._keepalive_after(conn, keepalive)

    def finish_request(self, conn: Any, fs: Future[Any]) -> None:
        if fs.cancelled() or fs.exception() is None:
            result = None if fs.cancelled() else fs.result()
            if result is _HANDED_OVER:
                self.nr_conns -= 1  # the hub holds it: it counts against the stream caps
                return
            if not result:  # done with: gthread's close(graceful=True) would wait here
                self.nr_conns -= 1
                self._linger(conn.sock)
                return
        super().finish_request(conn, fs)  # kept alive, deferred, or failed

    def _linger(self, sock: socket.socket) -> None:
        """Half-close ``sock`` and drain it in the poller until its client closes it or
        ``LINGER`` s pass (murder_keepalived), without blocking this thread."""
        if len(self.lingering) >= self.worker_connections:
            util.close(sock)  # too many already: no grace for this one
            return
        try:
            sock.shutdown(socket.SHUT_WR)
            sock.setblocking(False)
            self.poller.register(sock, selectors.EVENT_READ, self._drain)
        except (OSError, ValueError, KeyError):
            util.close(sock)
            return
        self.lingering[sock] = time.monotonic() + LINGER

    def _drain(self, sock: socket.socket) -> None:
        try:
            if sock.recv(65536):
                return  # the rest of a request nobody reads: drop it, wait for the end
        except (BlockingIOError, ssl.SSLWantReadError):
            return
        except OSError:
            pass
        self._close_lingering(sock)

    def _close_lingering(self, sock: socket.socket) -> None:
        del self.lingering[sock]
        with contextlib.suppress(OSError, KeyError, ValueError):
            self.poller.unregister(sock)
        util.close(sock)

    def murder_keepalived(self, force: bool = False) -> None:
        super().murder_keepalived(force)
        now = time.monotonic()
        for sock, deadline in list(self.lingering.items()):  # in deadline order
            if deadline > now and not force:
                break
            self._close_lingering(sock)

    def handle_request(self, req: Any, conn: Any) -> Any:
        environ: dict[str, Any] = {}
        resp = None
        stream = None
        try:
            self.cfg.pre_request(self, req)
            request_start = time.monotonic()
            resp, environ = wsgi.create(req, conn.sock, conn.client, conn.server, self.cfg)
            environ["wsgi.multithread"] = True
            if not self.cfg.is_ssl:
                environ[PARK] = True
            self.nr += 1
            if self.nr >= self.max_requests:
                if self.alive:
                    self.log.info("Autorestarting worker after current request.")
                    self.alive = False
                resp.force_close()

            if not self.alive or not self.cfg.keepalive:
                resp.force_close()
            elif len(self.keepalived_conns) >= self.max_keepalived:
                resp.force_close()

            respiter = self.wsgi(environ, resp.start_response)
            stream = environ.get(PARKED)
            if stream is not None:
                resp.force_close()  # a stream's end ends its connection
            try:
                if isinstance(respiter, environ["wsgi.file_wrapper"]):
                    resp.write_file(respiter)
                else:
                    for item in respiter:
                        resp.write(item)
                if stream is not None and resp.status_code == 200 and self.alive:
                    resp.send_headers()
                    self.hub.park(conn.sock, resp.chunked, stream)
                    stream = None
                    return _HANDED_OVER
                resp.close()
            finally:
                request_time = timedelta(seconds=time.monotonic() - request_start)
                self.log.access(resp, req, environ, request_time)
                if hasattr(respiter, "close"):
                    respiter.close()

            if resp.should_close():
                self.log.debug("Closing connection.")
                return False
        except OSError:
            util.reraise(*sys.exc_info())
        except (Exception, SystemExit):
            if resp and resp.headers_sent:
                self.log.exception("Error handling request")
                util.close_graceful(conn.sock)
                raise StopIteration() from None
            raise
        finally:
            if stream is not None:
                stream.release()  # not handed over: its place is free again
            try:
                self.cfg.post_request(self, req, environ, resp)
            except Exception:
                self.log.exception("Exception in post_request hook")

        return True
