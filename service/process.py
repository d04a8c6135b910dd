"""Process plumbing shared by ``serve``, its gunicorn workers and the workers' children:
dying with the parent, IPv6-safe ``HOST:PORT`` forms, waiting for a port to be free."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import logging
import signal
import socket
import time

log = logging.getLogger("alhambra.process")

PR_SET_PDEATHSIG = 1


def die_with_parent(signum: int = signal.SIGTERM) -> None:
    """Linux: this process gets ``signum`` when the thread that started it ends (its
    parent crashed, even by ``kill -9``). Elsewhere nothing. Safe in a ``preexec_fn``."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signum)


def host_port(host: str, port: int) -> str:
    """``HOST:PORT``, an IPv6 address in brackets (``[::1]:8000``)."""
    host = host.strip("[]")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def wait_for_port(host: str, port: int, timeout: float = 30.0) -> bool:
    """Wait until nothing listens on ``host``:``port`` any more (the workers of a crashed
    server letting go of it); False if something still does after ``timeout`` s."""
    host = host.strip("[]") or "0.0.0.0"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    end = time.monotonic() + timeout
    said = False
    while True:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((host, port))
                return True
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    return True  # not ours to judge: gunicorn says what is wrong
        if time.monotonic() > end:
            return False
        if not said:
            log.info("%s is still in use (a server stopping?): waiting up to %.0f s",
                     host_port(host, port), timeout)
            said = True
        time.sleep(0.1)
