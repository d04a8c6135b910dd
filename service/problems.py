"""Errors as ``application/problem+json`` (RFC 9457), each with a stable ``code``.

A broken rule's problem ``type`` is the rule's place in the players' rules page
(``<public URL>/rules#A-4.3``); the others' is ``urn:alhambra-pbem:problem:<code>``.

``PROBLEMS`` is the one table from the application's domain errors (``errors.py``) and
the engine's errors to an HTTP status and code. ``ApiError`` is for what only HTTP knows
(a bad ``If-Match``, a missing version, a body that is not JSON). HTTP errors from
Flask/werkzeug (404, 405, …) and unexpected exceptions (500) get the same shape. The
``detail`` is said in the request's language (``Accept-Language``: service/languages.py);
``code``, ``rule`` and the other members are the same in every language.
"""

from __future__ import annotations

import http
import logging
import math
import time
from typing import Any

from flask import Flask, Response, current_app, json, request
from werkzeug.exceptions import HTTPException

import engine

from . import errors
from .i18n import Msg, message, msg
from .languages import say

PROBLEM_TYPE = "application/problem+json"
log = logging.getLogger(__name__)

#: Domain and engine errors → (HTTP status, stable code). Subclasses come first.
PROBLEMS: dict[type[Exception], tuple[int, str]] = {
    errors.Unauthenticated: (401, "unauthorized"),
    errors.InvalidToken: (401, "invalid_token"),
    errors.Forbidden: (403, "forbidden"),
    errors.NotYourTurn: (403, "not_your_turn"),
    errors.InvalidInvite: (403, "invalid_invite"),
    errors.InvalidSignInCode: (401, "invalid_sign_in_code"),
    errors.InvalidPlayerToken: (401, "invalid_player_token"),
    errors.GameNotFound: (404, "game_not_found"),
    errors.WebhookNotFound: (404, "webhook_not_found"),
    errors.VersionConflict: (409, "version_conflict"),
    errors.GameFull: (409, "game_full"),
    errors.SeatTaken: (409, "seat_taken"),
    errors.SeatNotRemovable: (409, "seat_not_removable"),
    errors.VacationRefused: (422, "vacation_refused"),
    errors.SeatPlayedByBot: (409, "seat_played_by_bot"),
    errors.GameNotStarted: (409, "game_not_started"),
    errors.GameOver: (409, "game_over"),
    errors.RecordUnavailable: (409, "record_unavailable"),
    errors.InvalidOption: (422, "invalid_option"),
    errors.WebhookUrlRefused: (422, "webhook_url_refused"),
    errors.TooManyWebhooks: (422, "too_many_webhooks"),
    engine.NotationError: (422, "notation_error"),
    errors.InvalidMove: (422, "invalid_move"),
    engine.RuleViolation: (422, "rule_violation"),
    errors.InvalidRecord: (422, "invalid_record"),
    errors.IdempotencyKeyReused: (422, "idempotency_key_reused"),
}

#: Every stable code with its status and meaning, for the documentation.
CODES: dict[str, str] = {
    "malformed_json": "400: the body is not JSON",
    "bad_request": "400: the request cannot be read",
    "unauthorized": "401: a bearer token is needed",
    "invalid_token": "401: the bearer token is unknown",
    "invalid_sign_in_code": "401: the sign-in code is unknown, used already or expired",
    "invalid_player_token": "401: the player token belongs to no session (signed out?)",
    "forbidden": "403: this token may not do this (another game's; the host's on /moves)",
    "not_your_turn": "403: it is another seat's turn",
    "invalid_invite": "403: the invite code is wrong",
    "not_found": "404: no such resource",
    "game_not_found": "404: no such game",
    "webhook_not_found": "404: no such webhook of yours on this game",
    "method_not_allowed": "405: see the Allow header",
    "version_conflict": "409: the game moved on; current_version says where it is",
    "game_full": "409: every seat is taken",
    "seat_taken": "409: that seat is not open (a person or a bot has it)",
    "seat_not_removable": "409: only a joined seat of a game not started can be opened again",
    "seat_played_by_bot": "409: the seat resigned or was abandoned: a bot plays it (S-2)",
    "game_not_started": "409: seats are still open",
    "game_over": "409: the game is over",
    "record_unavailable": "409: the record is served once the game is over",
    "payload_too_large": "413: the body is too large",
    "unsupported_media_type": "415: send application/json",
    "validation_error": "422: the body or parameters do not match the schema",
    "invalid_option": "422: unknown variant, bad option, player count or time per move "
                      "(see field)",
    "notation_error": "422: move text that cannot be read (see position)",
    "invalid_move": "422: a structured move that is not a move",
    "rule_violation": "422: a move the rules forbid (see rule)",
    "invalid_record": "422: a record that does not replay (see move_number)",
    "webhook_url_refused": "422: a webhook URL that may not be called: another scheme, "
                           "user info, an odd IP form, or a private address (see reason)",
    "too_many_webhooks": "422: the game or the caller has as many webhooks as allowed "
                         "(see limit)",
    "vacation_refused": "422: a vacation beyond the yearly allowance (see allowance, "
                        "days_left, year) or that ends before it begins or in the past",
    "idempotency_key_reused": "422: the Idempotency-Key was used for another request",
    "precondition_required": "428: say which version the move was made against",
    "rate_limited": "429: too many requests of this kind from your address; see Retry-After",
    "internal_error": "500: a bug; nothing was written",
}


class ApiError(Exception):
    """An error only HTTP knows: ``status``, stable ``code``, a sentence, extra members."""

    def __init__(self, status: int, code: str, detail: Msg | str, *,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra


_TITLES = {422: "Unprocessable Content", 413: "Content Too Large"}


def problem(status: int, code: str, detail: Msg | str,
            headers: dict[str, str] | None = None, type_: str | None = None, **extra: Any
            ) -> Response:
    """A problem+json answer; its ``type`` is ``type_`` or the code's URN, its ``detail``
    in the request's language."""
    body = {"type": type_ or f"urn:alhambra-pbem:problem:{code}",
            "title": _TITLES.get(status) or http.HTTPStatus(status).phrase,
            "status": status, "code": code,
            "detail": say(detail)}
    body.update({k: say(v) if isinstance(v, Msg) else v for k, v in extra.items()})
    if request:
        body["instance"] = request.path
    resp = Response(json.dumps(body), status=status, mimetype=PROBLEM_TYPE)
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def _known(exc: Exception) -> tuple[int, str] | None:
    for cls in type(exc).__mro__:
        if cls in PROBLEMS:
            return PROBLEMS[cls]
    return None


def domain_problem(exc: Exception) -> Response:
    """The problem answer of a domain or engine error of ``PROBLEMS``."""
    status, code = _known(exc) or (500, "internal_error")
    headers: dict[str, str] = {}
    if isinstance(exc, errors.DomainError):
        detail, extra = exc.detail, dict(exc.extra)
    elif isinstance(exc, engine.RuleViolation):
        detail, extra = exc.message, {"rule": exc.rule}
    elif isinstance(exc, engine.NotationError):
        detail, extra = exc.message, {"position": exc.position, "expected": say(exc.expected)}
    else:
        detail, extra = message(exc), {}
    if isinstance(exc, errors.Unauthenticated):
        headers["WWW-Authenticate"] = 'Bearer realm="alhambra-pbem"'
    elif isinstance(exc, errors.InvalidToken):
        headers["WWW-Authenticate"] = 'Bearer error="invalid_token"'
    elif isinstance(exc, errors.VersionConflict):
        headers["ETag"] = f'"{exc.current}"'
    rule = extra.get("rule") if code in ("rule_violation", "not_your_turn",
                                         "seat_played_by_bot") else None
    return problem(status, code, detail, headers, type_=rule_link(rule) if rule else None,
                   **extra)


def rule_link(rule: str) -> str:
    """Where the players' rules page explains ``rule``: ``<public URL>/rules#<rule id>``."""
    settings = current_app.extensions["alhambra_settings"]
    return f"{settings.public_url or request.host_url.rstrip('/')}/rules#{rule}"


def _http_exception(exc: HTTPException) -> Response:
    status = exc.code or 500
    headers: dict[str, str] = {}
    data = getattr(exc, "data", None) or {}
    if status == 405:
        allow = [h for k, h in exc.get_headers() if k.lower() == "allow"]
        if allow:
            headers["Allow"] = allow[0]
        return problem(405, "method_not_allowed",
                       msg("{method} is not allowed here", method=request.method), headers,
                       allowed=allow[0].split(", ") if allow else [])
    if status == 404:
        return problem(404, "not_found", msg("nothing at {path}", path=request.path))
    if status == 400 and "messages" in data:
        messages = data["messages"]
        if any("Invalid JSON body" in str(m) for m in _flatten(messages)):
            return problem(400, "malformed_json", msg("the request body is not valid JSON"))
        return problem(400, "bad_request", msg("the request cannot be read"),
                       errors=messages)
    if status == 422 and "messages" in data:
        return problem(422, "validation_error", msg("the request does not match the schema"),
                       errors=data["messages"])
    if status == 413:
        return problem(413, "payload_too_large", msg("the request body is too large"))
    if status == 415:
        return problem(415, "unsupported_media_type", msg(
            "the body must be JSON: send 'Content-Type: application/json'"))
    if status == 400:
        return problem(400, "bad_request", exc.description or msg("bad request"))
    if status == 429:
        return _rate_limited(exc)
    if status >= 500:
        return problem(500, "internal_error", msg("the server failed; nothing was written"))
    return problem(status, exc.name.lower().replace(" ", "_"), exc.description or exc.name)


def _rate_limited(exc: HTTPException) -> Response:
    """flask-limiter's refusal: which limit, and when to try again."""
    limit = getattr(exc, "limit", None)
    resets = [lim.reset_at for limiter in current_app.extensions.get("limiter", ())
              for lim in limiter.current_limits if lim.breached]
    retry = max(1, math.ceil(max(resets) - time.time())) if resets else 60
    detail = msg("too many requests of this kind from your address (at most {limit}): try "
                 "again in {seconds} s", limit=str(limit.limit), seconds=retry) \
        if limit is not None else \
        msg("too many requests of this kind from your address: try again in {seconds} s",
            seconds=retry)
    return problem(429, "rate_limited", detail, {"Retry-After": str(retry)})


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

    for cls in PROBLEMS:
        app.register_error_handler(cls, domain_problem)
    app.register_error_handler(HTTPException, _http_exception)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            return _http_exception(exc)
        log.exception("unhandled error on %s %s", request.method, request.path)
        return problem(500, "internal_error", msg("the server failed; nothing was written"))
