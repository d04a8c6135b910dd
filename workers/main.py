"""The worker process: an RQ worker plus the claiming loop of due work (dispatch.py).

    alhambra-pbem worker [--queues mail,webhooks] [--no-dispatch] [--burst]
    python -m workers ...

Two queues: ``mail`` (``ALHAMBRA_QUEUE``: mails, reminders, answers, deadlines; then
``ALHAMBRA_QUEUE``-bots: the moves of bot seats) and ``webhooks``
(``ALHAMBRA_QUEUE``-webhooks: deliveries to receivers that may be slow). A process
serves one; by default (both) the worker serves the mail queue and runs a second worker
process for the webhooks beside it, started again if it dies, so a webhook job never
holds the mail queue. (``--burst`` serves both in one process, mail first.) Each process
beats a heartbeat per queue in Redis for ``/health`` (service/health.py).

The worker runs jobs in its own process (RQ's SimpleWorker: no fork per job, the SQLite
connection and the templates stay warm), through RQ's public API only, without RQ's
scheduler (what is due later is a due row, not a scheduled job); the claiming loop runs
in a thread beside it. When Redis goes away the worker waits and starts again, and due
work stays in the database until Redis is back. SIGTERM or SIGINT stops it after the
current job.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

import redis
from redis import Redis
from rq import Queue, SimpleWorker
from rq.exceptions import StopRequested
from rq.worker import WorkerStatus

from service import logs
from service.health import HEARTBEAT_INTERVAL, beat
from service.process import die_with_parent
from service.settings import Settings

from . import dispatch
from .context import Context, set_context
from .supervise import Supervisor

QUEUES = ("mail", "webhooks")
#: Seconds the thread of RQ's command channel waits for a message before it looks whether
#: the worker is stopping (RQ's own: 60, see Worker.subscribe).
PUBSUB_WAIT = 1.0

log = logging.getLogger("alhambra.worker")


class Worker(SimpleWorker):
    """RQ's SimpleWorker that also stops ``stop_event`` (the claiming loop, the restart loop, the
    webhooks worker's supervisor) on SIGTERM or SIGINT, and stops even while Redis is
    away. A second SIGTERM changes nothing (a service manager signals every process of
    the group, then ``serve`` its children again): the job under way finishes; a second
    SIGINT (Ctrl-C twice) stops at once.

    Idle, it stops after its blocking pop (at most ``dequeue_timeout``, 1 s) instead of
    at once as RQ does: RQ's exception from the signal handler can come after the pop
    took a job from the queue and before the job is recorded as started, and that job
    would be in no queue and no registry, lost (``StoppableQueue`` begins no pop once
    ``stop_event`` is set)."""

    stop_event: threading.Event | None = None
    on_stop: Callable[[], None] | None = None  # called at once (the webhooks worker's stop)
    stopping = False

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        # Once only: a signal handler run again while the first is inside Event.set()
        # would wait for the lock the first holds, for ever.
        if self.stopping:
            return
        self.stopping = True
        signal.signal(signal.SIGINT, self.request_force_stop)
        signal.signal(signal.SIGTERM, self.request_force_stop)
        if self.stop_event is not None:
            self.stop_event.set()
        if self.on_stop is not None:
            self.on_stop()
        if self.get_state() != WorkerStatus.BUSY and self.stop_event is not None:
            self.handle_warm_shutdown_request()  # type: ignore[no-untyped-call]
            return  # the pop under way returns within dequeue_timeout; no other begins
        try:
            super().request_stop(signum, frame)  # type: ignore[no-untyped-call]
        except (redis.ConnectionError, redis.TimeoutError):
            raise StopRequested() from None

    def heartbeat(self, *args: Any, **kwargs: Any) -> None:
        """RQ's, but an idle worker asked to stop stops here: RQ's idle loop beats before
        its pop, and while Redis is away it retries the beat for ever, so a stop that came
        then (a service manager signalling every process of the group, Redis first) was
        never seen. Busy, it beats as RQ does: the job under way finishes."""
        if self.stop_event is not None and self.stop_event.is_set() and \
                self.get_state() != WorkerStatus.BUSY:
            raise StopRequested()
        super().heartbeat(*args, **kwargs)

    def subscribe(self) -> None:
        """RQ's, with the channel's thread waiting ``PUBSUB_WAIT`` s at a time, not 60:
        at the stop RQ unsubscribes, then waits for that thread (redis-py's stop() joins
        it), which ends only once its wait ends. The unsubscribe's answer usually ends it
        at once, but when it comes before the thread was told to stop, the thread waits
        again: a stopping worker hung up to 60 s (and serve's or a test's stop killed it
        after 15 s)."""
        self.log.info("Worker %s: subscribing to channel %s", self.name,
                      self.pubsub_channel_name)
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(  # type: ignore[assignment]
            sleep_time=PUBSUB_WAIT, daemon=True,
            exception_handler=self._pubsub_exception_handler)

    def request_force_stop(self, signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGTERM:
            log.info("already stopping after the job under way")
            return
        super().request_force_stop(signum, frame)


def stoppable_queue(stop: threading.Event) -> type[Queue]:
    """RQ's Queue whose workers begin no blocking pop once ``stop`` is set."""
    class StoppableQueue(Queue):
        @classmethod
        def dequeue_any(cls, *args: Any, **kwargs: Any) -> Any:
            if stop.is_set():
                raise StopRequested()
            return super().dequeue_any(*args, **kwargs)
    return StoppableQueue


def queue_names(settings: Settings, kinds: tuple[str, ...]) -> list[str]:
    """The RQ queues of ``kinds``, in the order served: the mail worker takes the bots'
    moves after the mail (docs/rules.md S-2; a bot may think for seconds)."""
    return [q for k in kinds for q in (
        [settings.queue, settings.bot_queue] if k == "mail" else [settings.webhook_queue])]


def heartbeat(settings: Settings, queues: list[str], worker: str,
              stop: threading.Event) -> None:
    """Beat for each of ``queues`` until ``stop`` (quietly while Redis is away)."""
    assert settings.redis_url
    client = Redis.from_url(settings.redis_url, socket_timeout=2, socket_connect_timeout=2)
    try:
        while not stop.is_set():
            try:
                for queue in queues:
                    beat(client, settings, queue, worker)
            except (redis.RedisError, OSError):
                pass
            stop.wait(HEARTBEAT_INTERVAL)
    finally:
        client.close()


def run(settings: Settings, *, claiming: bool = True, burst: bool = False,
        name: str | None = None, queues: tuple[str, ...] = ("mail",),
        stop: threading.Event | None = None,
        on_stop: Callable[[], None] | None = None) -> int:
    """Work ``queues`` (and claim due work) until SIGTERM or SIGINT (they set ``stop``
    and call ``on_stop``); when Redis goes away, start again with a growing pause. Jobs
    get this context (jobs.py)."""
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set: the worker needs a Redis server")
    ctx = Context(settings)
    set_context(ctx)
    stop = stop or threading.Event()
    names = queue_names(settings, queues)
    threading.Thread(target=heartbeat, args=(settings, names, name or
                                             f"{socket.gethostname()}.{os.getpid()}", stop),
                     name="heartbeat", daemon=True).start()
    claiming_thread: threading.Thread | None = None
    if claiming:  # it keeps trying on its own while Redis is away
        claiming_thread = threading.Thread(target=dispatch.run, args=(ctx, stop),
                                           name="claiming-loop", daemon=True)
        claiming_thread.start()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if not stop.is_set():  # (once: see Worker.request_stop)
            stop.set()

    wait = 1.0
    try:
        while not stop.is_set():
            signal.signal(signal.SIGTERM, on_signal)
            signal.signal(signal.SIGINT, on_signal)
            connection = Redis.from_url(settings.redis_url, socket_connect_timeout=5,
                                        health_check_interval=30)
            try:
                # A short TTL: the idle loop comes round every second (a blocking pop
                # of 1 s: a stop waits for no longer).
                queue_class = stoppable_queue(stop)
                worker = Worker([queue_class(q, connection=connection) for q in names],
                                connection=connection, name=name, worker_ttl=16,
                                maintenance_interval=30, queue_class=queue_class)
                worker.stop_event, worker.on_stop = stop, on_stop
                worker.work(burst=burst, with_scheduler=False, logging_level="INFO",
                            max_idle_time=None)
            except Exception as exc:  # noqa: BLE001 - Redis gone: wait and start again
                if burst or stop.is_set():
                    log.info("worker stopped: %s", exc)
                    break
                log.warning("worker stopped: %s; starting again in %.0f s", exc, wait)
            if burst or stop.is_set():
                break
            stop.wait(wait)
            wait = min(wait * 2, 10.0)
            connection.close()
    finally:
        stop.set()
        if claiming_thread is not None:
            claiming_thread.join(10)
        ctx.close()
        set_context(None)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="alhambra-pbem worker", description=__doc__.split(
        "\n")[0])
    add_arguments(parser)
    return run_from_args(parser.parse_args(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--queues", default="mail,webhooks",
                        help="the queues to serve: mail, webhooks or both (default; the "
                             "webhooks in a second process)")
    parser.add_argument("--no-dispatch", action="store_true",
                        help="do not claim due work (serve only what others enqueue)")
    parser.add_argument("--burst", action="store_true", help="quit when the queue is empty")
    parser.add_argument("--name", help="the worker's name in RQ")
    parser.add_argument("--embedded-redis", action="store_true",
                        help="REDIS_URL is the private Redis of the serve that started this "
                             "worker: if that serve dies, shut it down after the last job")


def parse_queues(text: str) -> tuple[str, ...]:
    kinds = tuple(dict.fromkeys(k.strip() for k in text.split(",") if k.strip()))
    if not kinds or any(k not in QUEUES for k in kinds):
        raise SystemExit(f"--queues takes mail, webhooks or both, not {text!r}")
    return tuple(k for k in QUEUES if k in kinds)


def run_from_args(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    logs.configure(settings)
    kinds = parse_queues(args.queues)
    claiming = "mail" in kinds and not args.no_dispatch
    if args.burst and claiming:
        ctx = Context(settings)
        try:
            while dispatch.dispatch_once(ctx):
                pass
        finally:
            ctx.close()
    parent = os.getppid()
    beside: WebhooksWorker | None = None
    stop = threading.Event()
    if len(kinds) == 2 and not args.burst:  # the webhooks in a process of their own
        beside = WebhooksWorker(args, stop)
        kinds = ("mail",)
    started = time.monotonic()
    try:
        code = run(settings, claiming=claiming and not args.burst, burst=args.burst,
                   name=args.name, queues=kinds, stop=stop,
                   on_stop=beside.terminate if beside is not None else None)
    finally:
        if beside is not None:
            beside.stop()
        if args.embedded_redis and os.getppid() != parent:
            _shut_down_redis(settings)
    log.info("worker done after %.1f s", time.monotonic() - started)
    return code


def _shut_down_redis(settings: Settings) -> None:
    """The serve that started this worker and its Redis died: the jobs are done, so the
    Redis it left goes too (its data saved; the next serve starts it again)."""
    assert settings.redis_url
    log.info("serve is gone: shutting its Redis down")
    client = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=2)
    try:
        client.shutdown()
    except redis.RedisError:
        pass  # it closes the connection as it goes, or is gone already
    finally:
        client.close()


class WebhooksWorker:
    """The webhooks' worker process beside this one, started again if it dies, until
    ``stopping`` (this process is stopping)."""

    def __init__(self, args: argparse.Namespace, stopping: threading.Event) -> None:
        self.command = [sys.executable, "-m", "workers", "--queues", "webhooks",
                        "--no-dispatch"]
        if args.name:
            self.command += ["--name", f"{args.name}-webhooks"]
        self.process: subprocess.Popen[bytes] | None = None
        self.supervisor = Supervisor(stopping=stopping)
        self.supervisor.watch("the webhooks worker", self.start, self.alive)
        self.supervisor.start()

    def start(self) -> None:
        self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL,
                                        preexec_fn=die_with_parent)
        log.info("webhooks worker started (pid %s)", self.process.pid)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def terminate(self) -> None:
        """Ask it to stop after its job (safe in a signal handler; its supervisor shares
        this process's stop event, so it is not started again)."""
        process = self.process
        if process is not None and process.poll() is None:
            process.terminate()

    def stop(self, timeout: float = 15.0) -> None:
        """Stop watching it, then stop it (it finishes its job)."""
        self.supervisor.stop()
        process = self.process
        if process is not None and process.poll() is None:
            process.terminate()  # (again: a second SIGTERM changes nothing)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        self.supervisor.join()
