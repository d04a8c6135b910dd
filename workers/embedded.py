"""What ``alhambra-pbem serve`` runs beside the API: a private Redis server when
``REDIS_URL`` is unset (its files in ``<data>/redis/``), one worker process with the
scheduler and the relay, and with ``MAIL_IN_LISTEN`` the SMTP listener for replies
(``alhambra-pbem mail-in --listen``). ``stop`` ends them cleanly: the listener and the
worker first (it finishes its job), then Redis."""

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
                 worker: bool = True, mail_in: str | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.env = dict(os.environ if env is None else env)
        self.want_worker = worker
        self.mail_in = mail_in  # HOST:PORT of the SMTP listener, or None
        self.redis: EmbeddedRedis | None = None
        self.worker: subprocess.Popen | None = None
        self.listener: subprocess.Popen | None = None

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
        if self.mail_in:
            self.listener = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "mail-in", "--listen", self.mail_in],
                env=self.env, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
            log.info("mail-in listener on %s started (pid %s)", self.mail_in,
                     self.listener.pid)
        return url

    def stop(self, timeout: float = 15.0) -> None:
        for name in ("listener", "worker"):
            process = getattr(self, name)
            setattr(self, name, None)
            if process is None or process.poll() is not None:
                continue
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                log.warning("%s %s did not stop in %s s: killed", name, process.pid, timeout)
                process.kill()
                process.wait(5)
        if self.redis is not None:
            self.redis.stop()
            self.redis = None

    def __enter__(self) -> Background:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
