"""Keep child processes running: one that dies is started again after a pause that
doubles with each quick death (``MIN_WAIT`` up to ``MAX_WAIT``; back to ``MIN_WAIT`` once
it has run ``STABLE`` seconds). ``serve`` watches its Redis, worker and listener with it
(embedded.py); a worker its webhooks worker (main.py)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("alhambra.supervise")

MIN_WAIT = 2.0  # seconds before the first restart (a crash loop must not spin)
MAX_WAIT = 60.0
STABLE = 60.0  # seconds of life after which a death counts as the first again


@dataclass
class Watched:
    name: str
    start: Callable[[], object]  # (re)starts it
    alive: Callable[[], bool]
    wait: float = MIN_WAIT
    started: float = 0.0
    due: float | None = None  # when it is started again (it is dead)
    restarts: int = 0


class Supervisor:
    """``watch`` each child (it is started at once), then ``run`` (or ``start`` a thread)
    until ``stop``. Once ``halt`` is called (or ``stopping``, an event the caller may
    share, is set: its process is stopping), no child is started again."""

    def __init__(self, interval: float = 0.25, stopping: threading.Event | None = None
                 ) -> None:
        self.interval = interval
        self.children: list[Watched] = []
        self.stopping = stopping or threading.Event()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def watch(self, name: str, start: Callable[[], object], alive: Callable[[], bool]
              ) -> None:
        child = Watched(name, start, alive)
        child.start()
        child.started = time.monotonic()
        with self.lock:
            self.children.append(child)

    def check(self) -> None:
        """One round: note the dead, start again those whose pause is over."""
        now = time.monotonic()
        with self.lock:
            for child in self.children:
                if self.stopping.is_set():
                    return
                if child.due is None:
                    if child.alive():
                        continue
                    if now - child.started >= STABLE:
                        child.wait = MIN_WAIT
                    child.due = now + child.wait
                    log.warning("%s died; starting it again in %.0f s", child.name,
                                child.wait)
                    child.wait = min(child.wait * 2, MAX_WAIT)
                elif now >= child.due:
                    try:
                        child.start()
                    except Exception as exc:  # noqa: BLE001 - try again after a pause
                        child.due = now + child.wait
                        log.warning("%s did not start (%s); trying again in %.0f s",
                                    child.name, exc, child.wait)
                        child.wait = min(child.wait * 2, MAX_WAIT)
                        continue
                    child.due, child.started = None, time.monotonic()
                    child.restarts += 1
                    log.info("%s started again (restart %s)", child.name, child.restarts)

    def run(self) -> None:
        while not self.stopping.wait(self.interval):
            self.check()

    def start(self) -> None:
        self.thread = threading.Thread(target=self.run, name="supervisor", daemon=True)
        self.thread.start()

    def halt(self) -> None:
        """Start nothing again from now on (safe in a signal handler)."""
        self.stopping.set()

    def stop(self) -> None:
        """Stop watching, once a restart under way is done (the caller then stops the
        children, then ``join``s: a child started again by the supervisor's thread gets
        its parent-death signal when that thread ends)."""
        self.halt()
        with self.lock:  # a restart under way finishes first
            pass

    def join(self) -> None:
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(5)
