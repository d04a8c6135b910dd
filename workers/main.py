"""The worker process: an RQ worker (with the scheduler) plus the outbox relay.

    alhambra-pbem worker [--no-scheduler] [--no-relay] [--burst]
    python -m workers ...

The worker runs jobs in its own process (RQ's SimpleWorker: no fork per job, the SQLite
connection and the templates stay warm), through RQ's public API only; the relay runs in
a thread beside it. When Redis goes away the worker waits and starts again, and the relay
keeps the outbox rows until Redis is back. SIGTERM or SIGINT stops it after the current
job.
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
import time

import redis
from redis import Redis
from rq import Queue, SimpleWorker
from rq.exceptions import StopRequested

from service.settings import Settings

from . import relay
from .context import Context, bot_queue_name, set_context

log = logging.getLogger("alhambra.worker")


class Worker(SimpleWorker):
    """RQ's SimpleWorker that also stops ``stop_event`` (the relay, the restart loop) on
    SIGTERM or SIGINT, and stops even while Redis is away."""

    stop_event: threading.Event | None = None

    def request_stop(self, signum, frame):
        if self.stop_event is not None:
            self.stop_event.set()
        try:
            super().request_stop(signum, frame)
        except (redis.ConnectionError, redis.TimeoutError):
            raise StopRequested() from None


def run(settings: Settings, *, scheduler: bool = True, relay_loop: bool = True,
        burst: bool = False, name: str | None = None) -> int:
    """Work the queue (and relay the outbox) until SIGTERM or SIGINT; when Redis goes
    away, start again with a growing pause. Jobs get this context (jobs.py)."""
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set: the worker needs a Redis server")
    ctx = Context(settings)
    set_context(ctx)
    stop = threading.Event()
    relay_thread: threading.Thread | None = None
    if relay_loop:
        # The relay keeps trying on its own while Redis is away. (RQ forks its scheduler
        # process while this thread runs; the child runs only the scheduler.)
        relay_thread = threading.Thread(target=relay.run, args=(ctx, stop),
                                        name="outbox-relay", daemon=True)
        relay_thread.start()

    def on_signal(signum, frame):
        stop.set()

    wait = 1.0
    try:
        while not stop.is_set():
            signal.signal(signal.SIGTERM, on_signal)
            signal.signal(signal.SIGINT, on_signal)
            connection = Redis.from_url(settings.redis_url, socket_connect_timeout=5,
                                        health_check_interval=30)
            try:
                # A short TTL: the idle loop comes round every 30 s, when the worker's
                # maintenance restarts a scheduler that died while Redis was away.
                # Mail and clocks first; a bot's move (maybe seconds of thought) after.
                worker = Worker([Queue(settings.queue, connection=connection),
                                 Queue(bot_queue_name(settings), connection=connection)],
                                connection=connection, name=name, worker_ttl=45,
                                maintenance_interval=30)
                worker.stop_event = stop
                worker.work(burst=burst, with_scheduler=scheduler, logging_level="INFO",
                            max_idle_time=None)
            except Exception as exc:  # noqa: BLE001 - Redis gone: wait and start again
                log.warning("worker stopped: %s; starting again in %.0f s", exc, wait)
            if burst or stop.is_set():
                break
            stop.wait(wait)
            wait = min(wait * 2, 10.0)
            connection.close()
    finally:
        stop.set()
        if relay_thread is not None:
            relay_thread.join(10)
        ctx.close()
        set_context(None)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="alhambra-pbem worker", description=__doc__.split(
        "\n")[0])
    add_arguments(parser)
    return run_from_args(parser.parse_args(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-scheduler", action="store_true",
                        help="do not run RQ's scheduler (reminders, deadlines, retries)")
    parser.add_argument("--no-relay", action="store_true", help="do not relay the outbox")
    parser.add_argument("--burst", action="store_true", help="quit when the queue is empty")
    parser.add_argument("--name", help="the worker's name in RQ")


def run_from_args(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    settings = Settings.from_env()
    if args.burst and not args.no_relay:
        ctx = Context(settings)
        try:
            while relay.relay_once(ctx):
                pass
        finally:
            ctx.close()
    started = time.monotonic()
    code = run(settings, scheduler=not args.no_scheduler,
               relay_loop=not args.no_relay and not args.burst, burst=args.burst,
               name=args.name)
    log.info("worker done after %.1f s", time.monotonic() - started)
    return code
