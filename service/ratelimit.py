"""Limits per client address (flask-limiter): game creation, joins, record imports and
refused tokens or invite codes, as ``Settings.limit_*`` say.

The counters live in Redis when the settings name one (``REDIS_URL``; ``serve`` hands its
private Redis to the API), so that every process and host counts together; in memory
otherwise. The client address is the socket's peer, or with ``ALHAMBRA_TRUSTED_PROXIES``
= N the address the outermost of N proxies saw (werkzeug's ``ProxyFix``). A request over
a limit gets 429 ``rate_limited`` with ``Retry-After`` (problems.py).
"""

from __future__ import annotations

from flask import Flask, Response, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from werkzeug.middleware.proxy_fix import ProxyFix

from .problems import PROBLEM_TYPE
from .settings import Settings

#: The endpoints each limit applies to.
LIMITED = {"limit_create": ["games.create_game"], "limit_join": ["games.join_game"],
           "limit_import": ["records.import_record"]}
REFUSALS = {"invalid_token", "invalid_invite"}


def storage_uri(redis_url: str | None) -> str:
    """flask-limiter's storage for ``redis_url`` (``unix://`` sockets included)."""
    if not redis_url:
        return "memory://"
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url.removeprefix("unix://").partition("?")[0]
    return redis_url


def _refused(response: Response) -> bool:
    """The answer refuses a token or an invite code."""
    if response.status_code not in (401, 403) or response.mimetype != PROBLEM_TYPE:
        return False
    body = response.get_json(silent=True) or {}
    return body.get("code") in REFUSALS


def _presents_secret() -> bool:
    return "Authorization" in request.headers or request.path.endswith("/join")


def init_limits(app: Flask, settings: Settings) -> Limiter:
    """Limit ``app``'s requests as ``settings`` say."""
    if settings.trusted_proxies:
        n = settings.trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n)  # type: ignore[method-assign]
    limiter = Limiter(get_remote_address, app=app, storage_uri=storage_uri(settings.redis_url),
                      key_prefix=f"{settings.redis_prefix}limits:", headers_enabled=False,
                      swallow_errors=True, in_memory_fallback_enabled=True,
                      application_limits=[settings.limit_bad_token],
                      application_limits_exempt_when=lambda: not _presents_secret(),
                      application_limits_deduct_when=_refused)
    for name, endpoints in LIMITED.items():
        for endpoint in endpoints:
            view = app.view_functions[endpoint]
            app.view_functions[endpoint] = limiter.limit(getattr(settings, name))(view)
    return limiter
