"""What ``alhambra-pbem serve`` runs beside the API: a private Redis server when
``REDIS_URL`` is unset (its files in ``<data>/redis/``), one worker process with the
claiming loop of due work (it runs the webhooks' worker beside it), and with
``MAIL_IN_LISTEN`` the SMTP listener for replies (``alhambra-pbem mail-in --listen``).
Each is watched: one that dies is started again, with back-off (supervise.py); Redis
comes back at the same address with its data (append-only file). ``stop`` ends them
cleanly: the listener and the worker first (it finishes its job), then Redis. Each runs
in a session of its own, so that a signal to ``serve``'s process group (Ctrl-C, ``kill
-TERM -PGID``) reaches them only through ``stop``, in that order; each gets SIGTERM when
``serve`` dies (a parent-death signal), except Redis: the worker, orphaned, finishes its
job and then shuts Redis down (or the next ``serve`` does)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

from service.process import die_with_parent

from .redis_server import EmbeddedRedis
from .supervise import Supervisor

log = logging.getLogger("alhambra.embedded")


class Background:
    def __init__(self, data_dir: str | os.PathLike[str], env: dict[str, str] | None = None,
                 worker: bool = True, mail_in: str | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.env = dict(os.environ if env is None else env)
        self.want_worker = worker
        self.mail_in = mail_in  # HOST:PORT of the SMTP listener, or None
        self.redis: EmbeddedRedis | None = None
        self.worker: subprocess.Popen[bytes] | None = None
        self.listener: subprocess.Popen[bytes] | None = None
        self.supervisor: Supervisor | None = None

    def start(self) -> str:
        """Start what is needed, and watch it; returns the Redis URL in use."""
        self.supervisor = Supervisor()
        url = self.env.get("REDIS_URL")
        if not url:
            # no parent-death signal beside a worker: after a crash of serve, the worker
            # shuts it down once its job is done (workers/main.py, --embedded-redis)
            redis = self.redis = EmbeddedRedis(self.data_dir / "redis",
                                               die_with_parent=not self.want_worker)
            self.supervisor.watch("the embedded Redis", redis.start, lambda: _alive(
                redis.process))
            url = self.env["REDIS_URL"] = redis.url
            log.info("embedded Redis at %s", url)
        if self.want_worker:
            self.supervisor.watch("the worker", self._start_worker,
                                  lambda: _alive(self.worker))
        if self.mail_in:
            self.supervisor.watch("the mail-in listener", self._start_listener,
                                  lambda: _alive(self.listener))
        self.supervisor.start()
        return url

    def _start_worker(self) -> None:
        command = [sys.executable, "-m", "workers"]
        if self.redis is not None:
            command.append("--embedded-redis")
        self.worker = subprocess.Popen(command, env=self.env,
                                       stdin=subprocess.DEVNULL, start_new_session=True,
                                       preexec_fn=die_with_parent)
        log.info("worker started (pid %s)", self.worker.pid)

    def _start_listener(self) -> None:
        self.listener = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "mail-in", "--listen", str(self.mail_in)],
            env=self.env, stdin=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=die_with_parent)
        log.info("mail-in listener on %s started (pid %s)", self.mail_in, self.listener.pid)

    def halt(self) -> None:
        """A stop has begun (a signal): start nothing again (safe in a signal handler)."""
        if self.supervisor is not None:
            self.supervisor.halt()

    def stop(self, timeout: float = 15.0) -> None:
        if self.supervisor is not None:
            self.supervisor.stop()
        # the listener and the worker stop together (the worker after its job), then Redis
        stopping = [(name, p) for name in ("listener", "worker")
                    if (p := getattr(self, name)) is not None and p.poll() is None]
        self.listener = self.worker = None
        for _, process in stopping:
            process.send_signal(signal.SIGTERM)
        for name, process in stopping:
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                log.warning("%s %s did not stop in %s s: killed", name, process.pid, timeout)
                process.kill()
                process.wait(5)
        if self.redis is not None:
            self.redis.stop()
            self.redis = None
        if self.supervisor is not None:
            self.supervisor.join()

    def __enter__(self) -> Background:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _alive(process: subprocess.Popen[bytes] | None) -> bool:
    return process is not None and process.poll() is None
