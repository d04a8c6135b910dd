"""Logs a machine can read (issue 38): with ``ALHAMBRA_LOG_FORMAT=json`` every process
writes one JSON object a line; each API request and each due job writes one line of its
own (with the game, the seat, the request's id or the due row's kind and result).

No line holds a token or an address in clear: tokens are never logged, and every e-mail
address in a line (a reply address with its tag too) is written as ``<address:…>``, the
first hex digits of its SHA-256, the same for the same address (lines about one player
can still be told together). Text logs (the default) keep the addresses, for a host's
own operator.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from flask import Flask, Response, g, request

from . import times
from .settings import Settings

TEXT = "%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"
#: What a line may say beside its message (the ``extra`` of a logging call).
FIELDS = ("request_id", "method", "route", "status", "ms", "game_id", "seat", "kind",
          "result", "version", "row")
_ADDRESS = re.compile(r"[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+(?:\.[\w-]+)+", re.UNICODE)

requests = logging.getLogger("alhambra.requests")


def hidden(text: str) -> str:
    """``text`` with each e-mail address as ``<address:…>`` (12 hex digits of its
    SHA-256, of the address in lower case)."""
    return _ADDRESS.sub(lambda m: "<address:" + hashlib.sha256(
        m.group(0).lower().encode()).hexdigest()[:12] + ">", text)


class JsonLines(logging.Formatter):
    """One JSON object a record: time (UTC), level, logger, process, message and the
    ``FIELDS`` the record carries; addresses hidden; a traceback as ``error``."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": times.to_text(datetime.fromtimestamp(record.created, UTC)),
            "level": record.levelname, "logger": record.name, "process": record.process,
            "message": hidden(record.getMessage())}
        line.update({k: getattr(record, k) for k in FIELDS if hasattr(record, k)})
        if record.exc_info:
            line["error"] = hidden(self.formatException(record.exc_info))
        return json.dumps(line, ensure_ascii=False, default=str)


def configure(settings: Settings, **basic: Any) -> None:
    """This process's logging: ``logging.basicConfig`` (``basic``: its stream…) in the
    settings' format."""
    logging.basicConfig(level=logging.INFO, format=TEXT, **basic)
    if settings.log_format == "json":
        for handler in logging.getLogger().handlers:
            handler.setFormatter(JsonLines())


def init_app(app: Flask, settings: Settings) -> None:
    """With JSON logs, one line per API request (``alhambra.requests``) and its id in the
    ``X-Request-ID`` answer header (the request's own, if it sent a short one)."""
    if settings.log_format != "json":
        return
    app.before_request(_started)
    app.after_request(_logged)


def _started() -> None:
    given = request.headers.get("X-Request-ID", "")
    g.alhambra_request = (given if re.fullmatch(r"[\w.-]{1,64}", given)
                          else uuid.uuid4().hex, time.perf_counter())


def _logged(resp: Response) -> Response:
    started = g.get("alhambra_request")
    if started is None:
        return resp
    request_id, at = started
    caller = g.get("alhambra_caller")
    args = request.view_args or {}
    requests.info("%s %s %s", request.method, request.path, resp.status_code, extra={
        "request_id": request_id, "method": request.method,
        "route": request.url_rule.rule if request.url_rule else None,
        "status": resp.status_code, "ms": round((time.perf_counter() - at) * 1000, 2),
        "game_id": args.get("game_id"),
        "seat": args.get("seat", getattr(caller, "seat", None))})
    resp.headers["X-Request-ID"] = request_id
    return resp
