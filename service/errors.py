"""Errors as ``application/problem+json`` (RFC 9457), each with a stable ``code``.

Raise ``ApiError(status, code, detail, **extra)`` anywhere in a request; HTTP errors from
Flask/werkzeug (404, 405, …) and unexpected exceptions (500) get the same shape.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, json, request
from werkzeug.exceptions import HTTPException

PROBLEM_TYPE = "application/problem+json"
log = logging.getLogger(__name__)

#: The stable codes, by HTTP status, for the documentation.
CODES: dict[str, str] = {
    "malformed_json": "400: the body is not JSON",
    "bad_request": "400: the request cannot be read",
    "unauthorized": "401: a bearer token is needed",
    "invalid_token": "401: the bearer token is unknown",
    "forbidden": "403: this token may not do this",
    "not_your_turn": "403: it is another seat's turn",
    "invalid_invite": "403: the invite code is wrong",
    "not_found": "404: no such resource",
    "game_not_found": "404: no such game",
    "webhook_not_found": "404: no such webhook of yours on this game",
    "method_not_allowed": "405: see the Allow header",
    "version_conflict": "409: the game moved on; current_version says where it is",
    "game_full": "409: every seat is taken",
    "game_not_started": "409: seats are still open",
    "game_over": "409: the game is over",
    "record_unavailable": "409: the record is served once the game is over",
    "unsupported_media_type": "415: send application/json",
    "validation_error": "422: the body or parameters do not match the schema",
    "invalid_option": "422: unknown variant, bad option or player count (see field)",
    "notation_error": "422: move text that cannot be read (see position)",
    "invalid_move": "422: a structured move that is not a move",
    "rule_violation": "422: a move the rules forbid (see rule)",
    "invalid_record": "422: a record that does not replay (see move_number)",
    "idempotency_key_reused": "422: the Idempotency-Key was used for another request",
    "precondition_required": "428: say which version the move was made against",
    "internal_error": "500: a bug; nothing was written",
}


class ApiError(Exception):
    """An error answer: HTTP ``status``, stable ``code``, a sentence, extra members."""

    def __init__(self, status: int, code: str, detail: str, *,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra


_TITLES = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
           405: "Method Not Allowed", 409: "Conflict", 415: "Unsupported Media Type",
           422: "Unprocessable Content", 428: "Precondition Required",
           500: "Internal Server Error"}


def problem(status: int, code: str, detail: str, headers: dict[str, str] | None = None,
            **extra: Any) -> Response:
    body = {"type": f"urn:alhambra-pbem:problem:{code}", "title": _TITLES.get(status, code),
            "status": status, "code": code, "detail": detail}
    body.update(extra)
    if request:
        body["instance"] = request.path
    resp = Response(json.dumps(body), status=status, mimetype=PROBLEM_TYPE)
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def _http_exception(exc: HTTPException) -> Response:
    status = exc.code or 500
    headers: dict[str, str] = {}
    data = getattr(exc, "data", None) or {}
    if status == 405:
        allow = [h for k, h in exc.get_headers() if k.lower() == "allow"]
        if allow:
            headers["Allow"] = allow[0]
        return problem(405, "method_not_allowed",
                       f"{request.method} is not allowed here", headers,
                       allowed=allow[0].split(", ") if allow else [])
    if status == 404:
        return problem(404, "not_found", f"nothing at {request.path}")
    if status == 400 and "messages" in data:
        messages = data["messages"]
        if any("Invalid JSON body" in str(m) for m in _flatten(messages)):
            return problem(400, "malformed_json", "the request body is not valid JSON")
        return problem(400, "bad_request", "the request cannot be read", errors=messages)
    if status == 422 and "messages" in data:
        return problem(422, "validation_error", "the request does not match the schema",
                       errors=data["messages"])
    if status == 415:
        return problem(415, "unsupported_media_type", "send application/json")
    if status == 400:
        return problem(400, "bad_request", exc.description or "bad request")
    if status >= 500:
        return problem(500, "internal_error", "the server failed; nothing was written")
    return problem(status, exc.name.lower().replace(" ", "_"), exc.description or exc.name)


def _flatten(messages: Any):
    if isinstance(messages, dict):
        for v in messages.values():
            yield from _flatten(v)
    elif isinstance(messages, list | tuple):
        for v in messages:
            yield from _flatten(v)
    else:
        yield messages


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> Response:
        return problem(exc.status, exc.code, exc.detail, exc.headers, **exc.extra)

    app.register_error_handler(HTTPException, _http_exception)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            return _http_exception(exc)
        log.exception("unhandled error on %s %s", request.method, request.path)
        return problem(500, "internal_error", "the server failed; nothing was written")
