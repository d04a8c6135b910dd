"""Limits per client address (flask-limiter): game creation, joins, record imports,
sign-in mails, reports to the operator, and refused tokens, invite codes or sign-in
codes, as ``Settings.limit_*`` say.

Creations, seats taken by joining and imports are counted per address, and a request over
its limit is refused before it runs. Refused secrets are counted otherwise, so that a
stranger guessing tokens cannot lock out the real players behind the same address (a
café, a campus, a mobile carrier): a request is counted only once its token or invite
code has been found wrong, per client address and per target (the token's first
characters; the game whose invite code was tried), and over the limit its refusal
becomes a 429 instead of the 401/403. A valid token or invite code is never refused for
this. It cannot be: a right guess must work, so the limit slows a guesser's answers but
the secrets' size is what makes guessing hopeless (a seat or host token has 192 random
bits, an invite code 72).

The counters live in Redis when the settings name one (``REDIS_URL``; ``serve`` hands its
private Redis to the API), so that every process and host counts together; in memory
otherwise. The client address is the socket's peer, or with ``ALHAMBRA_TRUSTED_PROXIES``
= N the address the outermost of N proxies saw (werkzeug's ``ProxyFix``). A request over
a limit gets 429 ``rate_limited`` with ``Retry-After`` (problems.py).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from email_validator import EmailNotValidError
from flask import Flask, Response, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse_many
from werkzeug.middleware.proxy_fix import ProxyFix

from .auth import hash_token
from .errors import DomainError, InvalidInvite, InvalidSignInCode, InvalidToken
from .i18n import msg
from .players import PLAYER_PREFIX, normal_code
from .problems import domain_problem, problem
from .schemas import normal_address
from .settings import Settings

log = logging.getLogger(__name__)

#: The endpoints each limit applies to.
LIMITED = {"limit_create": ["games.create_game"], "limit_join": ["games.join_game"],
           "limit_import": ["records.import_record"],
           "limit_sign_in": ["players.sign_in"], "limit_report": ["moderation.create_report"]}
PREFIX = 8  # characters of a refused token that name its target


def storage_uri(redis_url: str | None) -> str:
    """flask-limiter's storage for ``redis_url`` (``unix://`` sockets included)."""
    if not redis_url:
        return "memory://"
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url.removeprefix("unix://").partition("?")[0]
    return redis_url


def _seat_taken(response: Response) -> bool:
    return response.status_code == 201


class Refusals:
    """Counts refused tokens and invite codes, after the refusal: per client address and
    per target; over the limit the refusal is a 429."""

    def __init__(self, limiter: Limiter, limit: str, key_prefix: str,
                 counter: str = "refused") -> None:
        self.limiter = limiter
        self.items = parse_many(limit)
        self.key_prefix = key_prefix
        self.counter = counter  # the counters' name: tokens and sign-in codes apart

    @staticmethod
    def _target(exc: DomainError) -> tuple[str, str]:
        if isinstance(exc, InvalidInvite):
            return "invite", str((request.view_args or {}).get("game_id"))
        if isinstance(exc, InvalidSignInCode):
            return "code", hash_token(normal_code(_body_field("code")))[:16]
        token = request.headers.get("Authorization", "").strip().partition(" ")[2].strip()
        return "token", hash_token(token[:PREFIX])[:16]

    def answer(self, exc: DomainError) -> Response:
        """The refusal of ``exc`` (InvalidToken, InvalidInvite), or 429 over the limit."""
        keys = [("address", get_remote_address()), self._target(exc)]
        strategy = self.limiter.limiter
        try:
            over = [(item, key) for item in self.items for key in keys
                    if not strategy.hit(item, self.key_prefix, self.counter, *key)]
            if not over:
                return domain_problem(exc)
            reset = max(strategy.get_window_stats(item, self.key_prefix, self.counter, *key)
                        .reset_time for item, key in over)
        except Exception:  # the storage is away: refuse as usual, count nothing
            log.warning("refused secrets cannot be counted", exc_info=True)
            return domain_problem(exc)
        item, (kind, _) = over[0]
        retry = max(1, math.ceil(reset - time.time()))
        words = {"limit": str(item), "seconds": retry}
        if isinstance(exc, InvalidSignInCode):
            detail = msg("too many wrong sign-in codes (at most {limit}): try again in "
                         "{seconds} s", **words)
        elif kind == "address":
            detail = msg("too many refused tokens from your address (at most {limit}): try "
                         "again in {seconds} s", **words) if isinstance(exc, InvalidToken) \
                else msg("too many refused invite codes from your address (at most {limit}): "
                         "try again in {seconds} s", **words)
        elif kind == "invite":
            detail = msg("too many refused invite codes for this game (at most {limit}): try "
                         "again in {seconds} s", **words)
        else:
            detail = msg("too many refused tokens starting like this one (at most {limit}): "
                         "try again in {seconds} s", **words)
        return problem("rate_limited", detail, {"Retry-After": str(retry)})


def _body_field(name: str) -> str:
    try:
        body = request.get_json(silent=True)
    except Exception:  # noqa: BLE001 - too large, say: the view refuses it
        body = None
    return str(body.get(name) if isinstance(body, dict) else None)


def _sign_in_address() -> str:
    """The key of a sign-in request's address as the mail will go to it (its hash: no
    address kept in Redis): ``Victim@ｅxample.org`` counts as ``victim@example.org``."""
    text = _body_field("email")
    try:
        text = normal_address(text)
    except EmailNotValidError:
        pass  # the view refuses it
    return "sign-in:" + hash_token(text)[:32]


def _not_anonymous_public_join() -> bool:
    """A join with an invite code or a player token (not one of a public game's seats
    taken by someone who did not sign in)."""
    token = request.headers.get("Authorization", "").strip().partition(" ")[2].strip()
    return token.startswith(PLAYER_PREFIX) or _body_field("invite_code") != "None"


def _public_seat() -> str:
    game = str((request.view_args or {}).get("game_id"))
    return f"public-seat:{game}:{get_remote_address()}"


def _only_limited_routes(app: Flask, limiter: Limiter) -> None:
    """Keep flask-limiter off the other routes: every limit here is a decorator's, checked
    in its route's wrapper, so its before-request check (a lookup of limits that finds
    none, on every request: a third of a millisecond a move) goes, and its after-request
    hook (a join's deduction) runs on the limited routes only."""
    app.before_request_funcs[None].remove(limiter._check_request_limit)
    limited = {e for endpoints in LIMITED.values() for e in endpoints}
    hooks = app.after_request_funcs[None]
    for i, hook in enumerate(hooks):
        if isinstance(hook, partial) and hook.args == (limiter,):
            hooks[i] = _on_limited(hook, limited, limiter)


def _on_limited(hook: Callable[[Response], Response], limited: set[str],
                limiter: Limiter) -> Callable[[Response], Response]:
    def after(response: Response) -> Response:
        if request.endpoint not in limited:
            return response
        return rate_limit_headers(limiter, hook(response))
    return after


def rate_limit_headers(limiter: Limiter, response: Response) -> Response:
    """The answer of a limited operation says where its caller stands, in the three fields
    of draft-ietf-httpapi-ratelimit-headers-06 (as express-rate-limit's ``draft-6``):
    ``RateLimit-Limit`` (requests in the window), ``RateLimit-Remaining`` (after this one)
    and ``RateLimit-Reset`` (seconds until the window resets), for the limit of the
    operation that is nearest to its end (the least remaining, then the latest reset).
    Counted after a join's deduction; nothing if the storage cannot say."""
    try:
        limits = [(lim.remaining, -lim.reset_at, lim) for lim in limiter.current_limits]
    except Exception:  # noqa: BLE001 - the storage is away: the answer goes without
        log.warning("rate-limit headers cannot be counted", exc_info=True)
        return response
    if limits:
        remaining, _, lim = min(limits, key=lambda t: t[:2])
        response.headers["RateLimit-Limit"] = str(lim.limit.amount)
        response.headers["RateLimit-Remaining"] = str(max(0, remaining))
        response.headers["RateLimit-Reset"] = str(max(0, math.ceil(lim.reset_at - time.time())))
    return response


def init_limits(app: Flask, settings: Settings) -> Limiter:
    """Limit ``app``'s requests as ``settings`` say."""
    if settings.trusted_proxies:
        n = settings.trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n)  # type: ignore[method-assign]
    key_prefix = f"{settings.redis_prefix}limits:"
    limiter = Limiter(get_remote_address, app=app, storage_uri=storage_uri(settings.redis_url),
                      key_prefix=key_prefix, headers_enabled=False,
                      swallow_errors=True, in_memory_fallback_enabled=True)
    _only_limited_routes(app, limiter)
    for name, endpoints in LIMITED.items():
        deduct = _seat_taken if name == "limit_join" else None
        for endpoint in endpoints:
            view: Callable[..., Any] = app.view_functions[endpoint]  # sync or async
            app.view_functions[endpoint] = limiter.limit(getattr(settings, name),
                                                         deduct_when=deduct)(view)
    # a public game's seats: one per client address unless signed in (one per account:
    # service/games.py), so that no one client takes every open seat of the lobby's game
    join: Callable[..., Any] = app.view_functions["games.join_game"]
    app.view_functions["games.join_game"] = limiter.limit(
        "1/day", key_func=_public_seat, exempt_when=_not_anonymous_public_join,
        deduct_when=_seat_taken)(join)
    # sign-in mails per address too (whoever asks): no mailbox is flooded from many hosts
    sign_in: Callable[..., Any] = app.view_functions["players.sign_in"]
    app.view_functions["players.sign_in"] = limiter.limit(
        settings.limit_sign_in_address, key_func=_sign_in_address)(sign_in)
    refusals = Refusals(limiter, settings.limit_bad_token, key_prefix)
    for cls in (InvalidToken, InvalidInvite):  # in place of problems.py's own handler
        app.register_error_handler(cls, refusals.answer)
    # wrong sign-in codes likewise: counted once wrong, the right code never refused
    codes = Refusals(limiter, settings.limit_session, key_prefix, "refused-code")
    app.register_error_handler(InvalidSignInCode, codes.answer)
    return limiter
