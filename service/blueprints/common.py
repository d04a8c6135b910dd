"""What the blueprints share: the application layer, the caller's token, links, docs."""

from __future__ import annotations

import hashlib
import http
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlencode

import flask_smorest
import marshmallow as ma
from flask import Request, Response, current_app, g, request
from redis import Redis
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request
from werkzeug.exceptions import UnsupportedMediaType

from ..auth import NEED_TOKEN, Caller
from ..errors import InvalidPlayerToken, InvalidToken, Unauthenticated
from ..games import Games
from ..i18n import message, msg
from ..links import play_path
from ..players import PLAYER_PREFIX, Players
from ..presence import Presence
from ..problems import ApiError
from ..safejson import BadJson, loads
from ..settings import Settings


class JsonBodyParser(FlaskParser):
    """webargs' parser, but a body that is not JSON is refused (415) instead of being
    read as no body at all, and JSON is read within the bounds of ``safejson`` (400
    ``malformed_json`` saying which)."""

    def load_json(self, req: Request, schema: ma.Schema) -> Any:
        if not req.is_json:
            raise UnsupportedMediaType()
        return super().load_json(req, schema)

    def _raw_load_json(self, req: Request) -> Any:
        if not is_json_request(req):
            return core.missing
        try:
            return loads(req.get_data(cache=True))
        except BadJson as exc:
            raise ApiError("malformed_json", message(exc)) from None


class Blueprint(flask_smorest.Blueprint):
    """The blueprints of this API: JSON bodies only; tokens checked before the
    arguments (``check_token_first``)."""

    ARGUMENTS_PARSER = JsonBodyParser()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.before_request(check_token_first)
        self.after_request(conditional_get)


#: A view function, as a decorator gives it back.
View = TypeVar("View", bound=Callable[..., Any])

# The security of an operation: the token is optional (BEARER) or needed.
BEARER: list[dict[str, list[str]]] = [{}, {"bearer": []}]
BEARER_REQUIRED: list[dict[str, list[str]]] = [{"bearer": []}]


def service() -> Games:
    games: Games = current_app.extensions["alhambra"]
    return games


def players() -> Players:
    """The application's players (sign-in, accounts, their games)."""
    p: Players = current_app.extensions["alhambra_players"]
    return p


def bearer_token() -> str | None:
    """The bearer token of the request, None if there is no Authorization header."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Unauthenticated(msg("use {header}", header=NEED_TOKEN))
    return token


def caller() -> Caller:
    """Who the request's token is (resolved once a request: ``check_token_first``)."""
    found: Caller | None = g.get("alhambra_caller")
    if found is None:
        found = g.alhambra_caller = service().caller(bearer_token())
    return found


def serves_page(func: View) -> View:
    """Mark a view that answers a browser without a token with a page (its documented
    security still needs a token for JSON): ``check_token_first`` lets it decide."""
    func.__dict__["_serves_page"] = True
    return func


def _security(endpoint: str | None) -> list[dict[str, list[str]]] | None:
    """The documented security of the operation at ``endpoint`` (``@blp.doc``; kept by
    flask-smorest in the view's ``_apidoc``), None if it documents none."""
    view = current_app.view_functions.get(endpoint or "")
    doc: dict[str, Any] = getattr(view, "_apidoc", {}).get("manual_doc", {})
    security: list[dict[str, list[str]]] | None = doc.get("security")
    return security


def check_token_first() -> None:
    """Before the view, and so before its body or query is validated: an operation
    whose security is ``BEARER_REQUIRED`` without a token, or any documented-bearer
    operation with a malformed or unknown token, is answered 401 (``unauthorized``,
    ``invalid_token``, ``invalid_player_token``) at once. What a known token may do is
    the view's to say (403). A browser asking a ``serves_page`` view for HTML, and CORS
    preflights, pass."""
    if request.method == "OPTIONS":
        return
    security = _security(request.endpoint)
    if security is None:
        return
    token = bearer_token()
    if token is None:
        view = current_app.view_functions[request.endpoint or ""]
        page = getattr(view, "_serves_page", False) and request.accept_mimetypes.best_match(
            ["application/json", "text/html"]) == "text/html"
        if security == BEARER_REQUIRED and not page:
            raise Unauthenticated(msg("use {header}", header=NEED_TOKEN))
        return
    try:
        g.alhambra_caller = service().caller(token)  # seats, hosts, sessions, personal
    except InvalidToken:
        if token.startswith(PLAYER_PREFIX):  # a session's, signed out (as /me says it)
            raise InvalidPlayerToken() from None
        raise


def errors(blp: Blueprint, *statuses: int) -> Callable[[View], View]:
    """Document the problem responses an operation may give."""
    def decorator(func: View) -> View:
        for status in statuses:
            func = blp.alt_response(status, response=http.HTTPStatus(status).name)(func)
        return func
    return decorator


def settings() -> Settings:
    s: Settings = current_app.extensions["alhambra_settings"]
    return s


def redis_client() -> Redis | None:
    """The API's Redis client (short timeouts: /health must answer), None without
    REDIS_URL."""
    if "alhambra_redis" not in current_app.extensions:
        url = settings().redis_url
        current_app.extensions["alhambra_redis"] = Redis.from_url(
            url, socket_timeout=0.5, socket_connect_timeout=0.5) if url else None
    client: Redis | None = current_app.extensions["alhambra_redis"]
    return client


def presence() -> Presence:
    """Who is watching now (service/presence.py), over the API's Redis client."""
    if "alhambra_presence" not in current_app.extensions:
        current_app.extensions["alhambra_presence"] = Presence(settings(), redis_client())
    found: Presence = current_app.extensions["alhambra_presence"]
    return found


def base_url() -> str:
    """PUBLIC_URL, or the request's host URL."""
    return settings().public_url or request.host_url.rstrip("/")


def join_url(game_id: str, token: str) -> str:
    """The seat's page in the web client, the token in the fragment (never sent)."""
    return base_url() + play_path(game_id, token)


def etag(version: int) -> str:
    return f'"{version}"'


#: The ETag of a conditional answer (``conditional``), as the API documents it.
ETAG_HEADER = {"ETag": {
    "description": "`\"<version>.<hash>\"`: the game's version (for `If-Match` on moves) and a "
                   "short hash of this very body (`/me/games`: the hash alone); "
                   "`If-None-Match` with it gets 304",
    "schema": {"type": "string"}}}


#: The mark of a conditional GET in its operation's document (spec.ConditionalGets).
CONDITIONAL = "x-conditional"


def conditional(blp: Blueprint) -> Callable[[View], View]:
    """A GET whose 200 answer gets an ETag covering its body (``conditional_get``) and
    answers a matching ``If-None-Match`` with 304; documented so."""
    def decorator(func: View) -> View:
        # marked, not given as ``parameters``: those would replace the query's (spec.py)
        func = blp.doc(**{CONDITIONAL: True})(func)
        func = blp.alt_response(304, description="Not modified: the `If-None-Match` ETag is "
                                "still this answer's (no body)", headers=ETAG_HEADER)(func)
        func.__dict__["_conditional"] = True
        return func
    return decorator


def conditional_get(resp: Response) -> Response:
    """A ``conditional`` view's 200 answer: its ETag is the version the view set (if any)
    and a hash of the body bytes (which depend on the token, the language and the clock,
    hence ``Vary: Authorization, Accept-Language``); werkzeug's ``make_conditional``
    answers a matching ``If-None-Match`` with 304 (no body; ETag and Cache-Control
    kept)."""
    view = current_app.view_functions.get(request.endpoint or "")
    if resp.status_code != 200 or resp.is_streamed or \
            not getattr(view, "_conditional", False):
        return resp
    version = resp.headers.get("ETag", "").strip('"')
    digest = hashlib.sha256(resp.get_data()).hexdigest()[:10]
    resp.set_etag(f"{version}.{digest}" if version else digest)
    resp.vary.update(("Authorization", "Accept-Language"))
    resp.make_conditional(request)
    return resp


#: The Link header of a paged list, as the API documents it.
LINK_HEADER = {"Link": {
    "description": '`<url>; rel="next"`: the next page, when there is one (this request\'s '
                   "URL with the next cursor or offset)",
    "schema": {"type": "string"}}}


def next_link(**query: int) -> dict[str, str]:
    """The ``Link`` header to the next page: this request's URL, ``query`` changed."""
    args = request.args.to_dict()
    args.update({name: str(value) for name, value in query.items()})
    return {"Link": f'<{base_url()}{request.path}?{urlencode(args)}>; rel="next"'}
