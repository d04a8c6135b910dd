"""What ``alhambra-pbem serve`` runs beside the API: a private Redis server when
``REDIS_URL`` is unset (its files in ``<data>/redis/``), and one worker process with the
scheduler and the relay. ``stop`` ends both cleanly: the worker first (it finishes its
job), then Redis."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

from .redis_server import EmbeddedRedis, _die_with_parent

log = logging.getLogger("alhambra.embedded")


class Background:
    def __init__(self, data_dir: str | os.PathLike[str], env: dict[str, str] | None = None,
                 worker: bool = True) -> None:
        self.data_dir = Path(data_dir)
        self.env = dict(os.environ if env is None else env)
        self.want_worker = worker
        self.redis: EmbeddedRedis | None = None
        self.worker: subprocess.Popen | None = None

    def start(self) -> str:
        """Start what is needed; returns the Redis URL in use."""
        url = self.env.get("REDIS_URL")
        if not url:
            self.redis = EmbeddedRedis(self.data_dir / "redis")
            url = self.redis.start()
            self.env["REDIS_URL"] = url
            log.info("embedded Redis at %s", url)
        if self.want_worker:
            self.worker = subprocess.Popen([sys.executable, "-m", "workers"], env=self.env,
                                           stdin=subprocess.DEVNULL,
                                           preexec_fn=_die_with_parent)
            log.info("worker started (pid %s)", self.worker.pid)
        return url

    def stop(self, timeout: float = 15.0) -> None:
        worker, self.worker = self.worker, None
        if worker is not None and worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
            try:
                worker.wait(timeout)
            except subprocess.TimeoutExpired:
                log.warning("worker %s did not stop in %s s: killed", worker.pid, timeout)
                worker.kill()
                worker.wait(5)
        if self.redis is not None:
            self.redis.stop()
            self.redis = None

    def __enter__(self) -> Background:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
