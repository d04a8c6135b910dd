"""Prometheus metrics (issue 38), with prometheus-client.

Off unless ``ALHAMBRA_METRICS_TOKEN`` is set; then ``GET /metrics`` answers a scraper that
sends it as a bearer token (401 to anyone else) in Prometheus's text format:

- counted where they happen: each API request by route, method and status, with its
  time (``alhambra_http_requests_total``, ``alhambra_http_request_seconds``); each move
  submitted, played or refused by its problem code (``alhambra_moves_total``); sign-in
  requests, sessions opened and codes refused (``alhambra_sign_ins_total``); each due
  row's run by kind and result: mails sent or failed, webhook deliveries, bots' moves,
  deadlines (``alhambra_due_runs_total``); bounces recorded (``alhambra_mail_bounces_total``);
  the live streams open (``alhambra_open_streams``);
- read from the database at each scrape: games by status (``alhambra_games``), the due
  work waiting (due now, not claimed) and how late its earliest is, by kind
  (``alhambra_due_waiting``, ``alhambra_due_lag_seconds``).

The API's gunicorn workers and the worker processes each count in files of a folder they
share (prometheus-client's multiprocess mode): ``PROMETHEUS_MULTIPROC_DIR``, by default
``$ALHAMBRA_DATA/metrics``, which ``serve`` empties as it starts; a scrape adds them up.
``setup`` points prometheus-client at it before its first import, so nothing else may
import prometheus-client first. Processes on other hosts (workers of a scaled-out
deployment) count in their own folder, which no ``/metrics`` here reads.
"""

from __future__ import annotations

import hmac
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, g, request

from . import times
from .settings import Settings

#: The request seconds' buckets: a move takes about a millisecond, a stream's first answer
#: a few.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)
#: The endpoints whose answers count as moves and as sign-ins.
MOVES = "play.submit_moves"
SIGN_INS = {"players.sign_in": "requested", "players.open_session": "opened"}


@dataclass(frozen=True)
class Metrics:
    """The metrics counted by this process."""

    requests: Any
    seconds: Any
    moves: Any
    sign_ins: Any
    due_runs: Any
    bounces: Any
    streams: Any


_metrics: Metrics | None = None


def setup(settings: Settings) -> Metrics | None:
    """This process's metrics (None: off, no ``ALHAMBRA_METRICS_TOKEN``), counting into
    the shared folder."""
    global _metrics
    if not settings.metrics_token:
        return None
    if _metrics is None:
        os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(folder(settings)))
        Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).mkdir(parents=True, exist_ok=True)
        from prometheus_client import Counter, Gauge, Histogram

        _metrics = Metrics(
            requests=Counter("alhambra_http_requests", "API requests answered",
                             ["route", "method", "status"]),
            seconds=Histogram("alhambra_http_request_seconds", "API requests' time to "
                              "answer", ["route"], buckets=BUCKETS),
            moves=Counter("alhambra_moves", "Moves submitted: played, or the problem code "
                          "they were refused with", ["outcome"]),
            sign_ins=Counter("alhambra_sign_ins", "Sign-in mails asked for, sessions opened "
                             "and codes refused", ["step"]),
            due_runs=Counter("alhambra_due_runs", "Due work run (mails, webhook calls, "
                             "bots' moves, deadlines...) by kind and result",
                             ["kind", "result"]),
            bounces=Counter("alhambra_mail_bounces", "Bounces of the game's mails "
                            "recorded", ["permanent"]),
            streams=Gauge("alhambra_open_streams", "Live streams open (a game's, an "
                          "account's)", multiprocess_mode="livesum"))
    return _metrics


def folder(settings: Settings) -> Path:
    """Where this host's processes count: PROMETHEUS_MULTIPROC_DIR, or in the data
    folder."""
    return Path(os.environ.get("PROMETHEUS_MULTIPROC_DIR") or settings.data_dir / "metrics")


def reset(settings: Settings) -> None:
    """Empty the folder of counts (``serve``, as it starts: no process counts yet)."""
    if settings.metrics_token:
        path = folder(settings)
        path.mkdir(parents=True, exist_ok=True)
        for f in path.glob("*.db"):
            f.unlink()


def process_gone(pid: int) -> None:
    """A process that counted has stopped (gunicorn's ``child_exit``)."""
    if _metrics is not None:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]


def due_run(kind: str, result: str) -> None:
    if _metrics is not None:
        _metrics.due_runs.labels(kind, result).inc()


def stream(opened: bool) -> None:
    """A live stream opened, or ended (service/stream_caps.py's slots)."""
    if _metrics is not None:
        (_metrics.streams.inc if opened else _metrics.streams.dec)()


def bounce(permanent: bool) -> None:
    if _metrics is not None:
        _metrics.bounces.labels("yes" if permanent else "no").inc()


# -- the API's side -----------------------------------------------------------------------

def init_app(app: Flask, settings: Settings) -> None:
    """Count the app's requests and serve ``/metrics`` (nothing without the setting)."""
    if setup(settings) is None:
        return
    app.before_request(_started)
    app.after_request(_counted)
    app.add_url_rule("/metrics", "metrics", _scrape)


def _started() -> None:
    g.alhambra_started = time.perf_counter()


def _counted(resp: Response) -> Response:
    m = _metrics
    started = g.get("alhambra_started")
    if m is None or started is None or request.endpoint == "metrics":
        return resp
    route = request.url_rule.rule if request.url_rule else "(none)"
    m.requests.labels(route, request.method, str(resp.status_code)).inc()
    m.seconds.labels(route).observe(time.perf_counter() - started)
    if request.endpoint == MOVES:
        m.moves.labels("played" if resp.status_code < 300 else _code(resp)).inc()
    elif request.endpoint in SIGN_INS:
        m.sign_ins.labels(SIGN_INS[request.endpoint] if resp.status_code < 300
                          else f"refused_{resp.status_code}").inc()
    return resp


def _code(resp: Response) -> str:
    body = resp.get_json(silent=True) if (resp.mimetype or "").endswith("json") else None
    code = body.get("code") if isinstance(body, dict) else None
    return str(code) if code else str(resp.status_code)


def _scrape() -> Response:
    settings: Settings = current_app.extensions["alhambra_settings"]
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not settings.metrics_token or \
            not hmac.compare_digest(token.strip().encode(), settings.metrics_token.encode()):
        return Response("a bearer token is needed: ALHAMBRA_METRICS_TOKEN\n", 401,
                        {"WWW-Authenticate": 'Bearer realm="metrics"'}, mimetype="text/plain")
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
    from prometheus_client.multiprocess import MultiProcessCollector

    registry = CollectorRegistry()
    MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    registry.register(_Census(current_app.extensions["alhambra"].store))
    resp = Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)
    resp.headers["Cache-Control"] = "no-store"
    return resp


class _Census:
    """What the database holds now, read at each scrape."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        census = self.store.census()
        games = GaugeMetricFamily("alhambra_games", "Games by status", labels=["status"])
        for status, n in sorted(census.games.items()):
            games.add_metric([status], n)
        waiting = GaugeMetricFamily("alhambra_due_waiting", "Due work due now, not yet "
                                    "claimed, by kind", labels=["kind"])
        lag = GaugeMetricFamily("alhambra_due_lag_seconds", "How long the earliest due "
                                "work waiting has been due, by kind", labels=["kind"])
        for kind, (n, first) in sorted(census.due.items()):
            waiting.add_metric([kind], n)
            lag.add_metric([kind], max(0.0, times.seconds_since(first)) if first else 0.0)
        yield from (games, waiting, lag)
