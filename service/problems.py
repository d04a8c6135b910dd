"""Errors as ``application/problem+json`` (RFC 9457), each with a stable ``code``.

A broken rule's problem ``type`` is the rule's place in the players' rules page
(``<public URL>/rules#A-4.3``); the others' is ``urn:alhambra-pbem:problem:<code>``.

``CODES`` is the one table of problems: each stable code with its HTTP status, its meaning
and the application's domain errors (``errors.py``) or the engine's errors it answers.
``ApiError`` is for what only HTTP knows (a bad ``If-Match``, a missing version, a body
that is not JSON). HTTP errors from Flask/werkzeug (404, 405, …) and unexpected exceptions
(500) get the same shape. The ``detail`` is said in the request's language
(``Accept-Language``: service/languages.py); ``code``, ``rule`` and the other members are
the same in every language.
"""

from __future__ import annotations

import http
import logging
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, current_app, json, request
from werkzeug.exceptions import HTTPException

import engine

from . import errors
from .i18n import Msg, message, msg
from .languages import say

PROBLEM_TYPE = "application/problem+json"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Code:
    """A stable problem code: its HTTP status, what it means (the API docs list it), and
    the domain or engine errors answered with it."""

    status: int
    meaning: str
    raised_by: tuple[type[Exception], ...]

    def __init__(self, status: int, meaning: str, *raised_by: type[Exception]) -> None:
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "meaning", meaning)
        object.__setattr__(self, "raised_by", raised_by)


#: The one table of problems: every stable code, its status and meaning, and the errors
#: of the application (``errors.py``) and the engine that answer with it.
CODES: dict[str, Code] = {
    "malformed_json": Code(400, "the body is not JSON"),
    "bad_request": Code(400, "the request cannot be read"),
    "unauthorized": Code(401, "a bearer token is needed", errors.Unauthenticated),
    "invalid_token": Code(401, "the bearer token is unknown", errors.InvalidToken),
    "invalid_sign_in_code": Code(401, "the sign-in code is unknown, used already or expired",
                                 errors.InvalidSignInCode),
    "invalid_player_token": Code(401, "the player token belongs to no session (signed out?)",
                                 errors.InvalidPlayerToken),
    "not_your_invitation": Code(403, "the seat was offered to another address (or the "
                                "claim code is wrong)", errors.NotYourInvitation),
    "not_invited": Code(403, "the inviter answers no invitation of its own",
                        errors.NotInvited),
    "missing_scope": Code(403, "the personal token lacks the scope this needs (see scope)",
                          errors.MissingScope),
    "session_needed": Code(403, "only the sign-in session's token may do this (tokens, "
                           "preferences, claims)", errors.SessionNeeded),
    "account_suspended": Code(403, "the account is suspended by the server's operator: "
                              "its tokens stop and it cannot sign in",
                              errors.AccountSuspended),
    "address_banned": Code(403, "the address is banned by the server's operator: it "
                           "cannot sign in", errors.AddressBanned),
    "blocked": Code(403, "one of two accounts blocked the other: no private messages "
                    "between them, no seat at a public game where the other sits",
                    errors.Blocked),
    "forbidden": Code(403, "this token may not do this (another game's; the host's on "
                      "/moves)", errors.Forbidden),
    "not_your_turn": Code(403, "it is another seat's turn", errors.OutOfTurn),
    "not_organiser": Code(403, "only the tournament's organiser may do this",
                          errors.NotOrganiser),
    "rating_out_of_range": Code(403, "your rating is outside the tournament's range (see "
                                "rating)", errors.RatingOutOfRange),
    "not_invited_to_enter": Code(403, "the tournament is entered by invitation, and its "
                                 "organiser did not name you", errors.NotInvitedToEnter),
    "timeout_record": Code(403, "your time ran out more often in your last finished "
                           "games than the tournament takes (see timeouts, max_timeouts, "
                           "games)", errors.TimeoutRecord),
    "invalid_invite": Code(403, "the invite code is wrong", errors.InvalidInvite),
    "not_found": Code(404, "no such resource"),
    "game_not_found": Code(404, "no such game", errors.GameNotFound),
    "webhook_not_found": Code(404, "no such webhook of yours on this game",
                              errors.WebhookNotFound),
    "message_not_found": Code(404, "no such message (or it was deleted already)",
                              errors.MessageNotFound),
    "invitation_not_found": Code(404, "no such invitation sent by or to you",
                                 errors.InvitationNotFound),
    "tournament_not_found": Code(404, "no such tournament", errors.TournamentNotFound),
    "not_entered": Code(404, "you have no entry in this tournament", errors.NotEntered),
    "token_not_found": Code(404, "no such personal token of yours", errors.TokenNotFound),
    "player_not_found": Code(404, "no player has this handle", errors.PlayerNotFound),
    "channel_not_found": Code(404, "no such notification channel of yours",
                              errors.ChannelNotFound),
    "method_not_allowed": Code(405, "see the Allow header"),
    "version_conflict": Code(409, "the game moved on; current_version says where it is",
                             errors.VersionConflict),
    "game_full": Code(409, "every seat is taken", errors.GameFull),
    "seat_taken": Code(409, "that seat is not open (a person or a bot has it)",
                       errors.SeatTaken),
    "seat_not_claimable": Code(409, "the seat names no address, a bot plays it, or it is "
                               "claimed already", errors.SeatNotClaimable),
    "invitation_closed": Code(409, "the invitation was started, declined, cancelled or "
                              "expired (see state)", errors.InvitationClosed),
    "tournament_closed": Code(409, "the tournament started or finished (see state)",
                              errors.TournamentClosed),
    "tournament_full": Code(409, "the tournament has its cap of entrants (see cap)",
                            errors.TournamentFull),
    "too_few_entrants": Code(409, "too few entrants to start (see least)",
                             errors.TooFewEntrants),
    "already_answered": Code(409, "the invitee answered already (see answer)",
                             errors.AlreadyAnswered),
    "too_many_invitations": Code(422, "too many open invitations sent (see limit)",
                                 errors.TooManyInvitations),
    "bot_account_refused": Code(409, "an account that held a seat or a rating cannot "
                                "change kind", errors.BotAccountRefused),
    "already_seated": Code(409, "the account holds a seat of this game already",
                           errors.AlreadySeated),
    "seat_not_removable": Code(409, "only a joined seat of a game not started can be opened "
                               "again", errors.SeatNotRemovable),
    "seat_played_by_bot": Code(409, "the seat resigned or was abandoned: a bot plays it (S-2)",
                               errors.SeatPlayedByBot),
    "game_not_started": Code(409, "seats are still open", errors.GameNotStarted),
    "game_over": Code(409, "the game is over", errors.GameOver),
    "record_unavailable": Code(409, "the record is served once the game is over",
                               errors.RecordUnavailable),
    "payload_too_large": Code(413, "the body is too large"),
    "unsupported_media_type": Code(415, "send application/json"),
    "validation_error": Code(422, "the body or parameters do not match the schema"),
    "handle_needed": Code(422, "choose a handle first (PATCH /me)", errors.HandleNeeded),
    "unknown_handle": Code(422, "no player has that handle (see handle)",
                           errors.UnknownHandle),
    "invalid_option": Code(422, "unknown variant, bad option, player count or time per "
                           "move (see field)", errors.InvalidOption),
    "notation_error": Code(422, "move text that cannot be read (see position)",
                           engine.NotationError),
    "invalid_move": Code(422, "a structured move that is not a move", errors.InvalidMove),
    "rule_violation": Code(422, "a move the rules forbid (see rule)", engine.RuleViolation),
    "invalid_record": Code(422, "a record that does not replay (see move_number)",
                           errors.InvalidRecord),
    "webhook_url_refused": Code(422, "a webhook URL that may not be called: another "
                                "scheme, user info, an odd IP form, or a private address "
                                "(see reason)", errors.WebhookUrlRefused),
    "too_many_webhooks": Code(422, "the game or the caller has as many webhooks as "
                              "allowed (see limit)", errors.TooManyWebhooks),
    "too_many_tokens": Code(422, "the account holds as many personal tokens as allowed "
                            "(see limit)", errors.TooManyTokens),
    "too_many_channels": Code(422, "the account holds as many notification channels as "
                              "allowed (see limit)", errors.TooManyChannels),
    "channel_refused": Code(422, "a push subscription or notification URL that cannot be "
                            "used: a private or loopback target, a scheme not served, bad "
                            "keys (see field, reason)", errors.ChannelRefused),
    "vacation_refused": Code(422, "a vacation beyond the yearly allowance (see allowance, "
                             "days_left, year) or that ends before it begins or in the past",
                             errors.VacationRefused),
    "names_alike": Code(422, "two seats of the table whose names read alike (see seats)",
                        errors.NamesAlike),
    "handle_refused": Code(422, "a handle that breaks the rules of names or reads like "
                           "another player's (see reason)", errors.HandleRefused),
    "block_refused": Code(422, "a player cannot block itself", errors.BlockRefused),
    "idempotency_key_reused": Code(422, "the Idempotency-Key was used for another request",
                                   errors.IdempotencyKeyReused),
    "message_empty": Code(422, "a message with no text", errors.MessageEmpty),
    "message_too_long": Code(422, "a message (1,000) or notes (10,000) longer than allowed "
                             "(see limit)", errors.MessageTooLong),
    "message_control_characters": Code(422, "a text with control characters (line breaks "
                                       "and tabs only)", errors.MessageControlCharacters),
    "unknown_seat": Code(422, "the game has no such seat (see seat)", errors.UnknownSeat),
    "addressee_is_bot": Code(422, "a message to a seat a bot plays (see seat)",
                             errors.BotAddressee),
    "precondition_required": Code(428, "say which version the move was made against"),
    "rate_limited": Code(429, "too many requests of this kind from your address; see "
                         "Retry-After"),
    "too_many_messages": Code(429, "the seat (or host) wrote as many messages this hour as "
                              "allowed (see limit, and Retry-After or retry_after)",
                              errors.TooManyMessages),
    "too_many_reports": Code(429, "the account filed as many reports today as allowed "
                             "(see limit)", errors.TooManyReports),
    "internal_error": Code(500, "a bug; nothing was written"),
}

#: Each domain or engine error → its code (from ``CODES``).
RAISED: dict[type[Exception], str] = {
    cls: code for code, entry in CODES.items() for cls in entry.raised_by}


class ApiError(Exception):
    """An error only HTTP knows: a stable ``code`` of ``CODES``, a sentence, extra
    members."""

    def __init__(self, code: str, detail: Msg | str, *,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.status = CODES[code].status
        self.code = code
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra


_TITLES = {422: "Unprocessable Content", 413: "Content Too Large"}


def problem(code: str, detail: Msg | str, headers: dict[str, str] | None = None,
            type_: str | None = None, status: int | None = None, **extra: Any) -> Response:
    """A problem+json answer of ``code`` (its status from ``CODES``, unless ``status``
    says it for an HTTP error outside the table); its ``type`` is ``type_`` or the code's
    URN, its ``detail`` in the request's language."""
    status = status or CODES[code].status
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


def _known(exc: Exception) -> str:
    """The code of a domain or engine error (its nearest class in ``CODES``)."""
    for cls in type(exc).__mro__:
        if cls in RAISED:
            return RAISED[cls]
    return "internal_error"


def domain_problem(exc: Exception) -> Response:
    """The problem answer of a domain or engine error of ``CODES``."""
    code = _known(exc)
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
    if CODES[code].status == 429:  # every 429 says when to try again
        headers["Retry-After"] = str(extra.get("retry_after", 60))
    rule = extra.get("rule") if code in ("rule_violation", "not_your_turn",
                                         "seat_played_by_bot") else None
    return problem(code, detail, headers, type_=rule_link(rule) if rule else None, **extra)


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
        return problem("method_not_allowed",
                       msg("{method} is not allowed here", method=request.method), headers,
                       allowed=allow[0].split(", ") if allow else [])
    if status == 404:
        return problem("not_found", msg("nothing at {path}", path=request.path))
    if status == 400 and "messages" in data:
        messages = data["messages"]
        if any("Invalid JSON body" in str(m) for m in _flatten(messages)):
            return problem("malformed_json", msg("the request body is not valid JSON"))
        return problem("bad_request", msg("the request cannot be read"),
                       errors=messages)
    if status == 422 and "messages" in data:
        return problem("validation_error", msg("the request does not match the schema"),
                       errors=data["messages"])
    if status == 413:
        return problem("payload_too_large", msg("the request body is too large"))
    if status == 415:
        return problem("unsupported_media_type", msg(
            "the body must be JSON: send 'Content-Type: application/json'"))
    if status == 400:
        return problem("bad_request", exc.description or msg("bad request"))
    if status == 429:
        return _rate_limited(exc)
    if status >= 500:
        return problem("internal_error", msg("the server failed; nothing was written"))
    return problem(exc.name.lower().replace(" ", "_"), exc.description or exc.name,
                   status=status)


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
    return problem("rate_limited", detail, {"Retry-After": str(retry)})


def _flatten(messages: Any) -> Iterator[Any]:
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
        return problem(exc.code, exc.detail, exc.headers, **exc.extra)

    for cls in RAISED:
        app.register_error_handler(cls, domain_problem)
    app.register_error_handler(HTTPException, _http_exception)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            return _http_exception(exc)
        log.exception("unhandled error on %s %s", request.method, request.path)
        return problem("internal_error", msg("the server failed; nothing was written"))
