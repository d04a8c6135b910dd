"""The Flask application factory."""

from __future__ import annotations

import copy
import http
from typing import Any

import flask_smorest
from flask import Flask, Response
from flask_cors import CORS
from flask_smorest.utils import prepare_response

from . import logs, metrics
from .blueprints import BLUEPRINTS, web
from .games import Games, WebhookPolicy
from .json_provider import JsonProvider
from .languages import init_languages
from .moderation import Moderation
from .notify_channels import NotifyChannels
from .players import Players, rq_sender
from .problems import CODES, PROBLEM_TYPE, register_error_handlers
from .ratelimit import init_limits
from .schemas import ProblemSchema
from .settings import Settings
from .spec import API_VERSION, ConditionalGets, ContractMarshmallowPlugin, OperationIds
from .store import open_store

DESCRIPTION = """\
Play Alhambra by e-mail or through any HTTP client.

A game is an append-only log of events; its **version** is the number of events. Every
move is submitted against the version it was made for (body `version` or `If-Match` with the
game's `ETag`); a stale version gets 409 with `current_version`. Seats authenticate with
the secret bearer token they receive when the game is created or when they join.

Request bodies are JSON (`Content-Type: application/json`; anything else: 415), at most
the server's `ALHAMBRA_MAX_BODY` bytes (default 256 KiB; larger: 413), nested at most 32
deep, with integers of at most 30 digits and strings of Unicode text (no lone surrogates):
else 400 `malformed_json`, saying which.

Game creation, joins and record imports are limited per client address (429
`rate_limited` with `Retry-After`). Refused tokens and invite codes are counted per
address and per target; past the limit a further wrong one gets 429 instead of 401/403,
while a valid token or invite code is never refused for it.

Errors are `application/problem+json` (RFC 9457) with a stable `code`:

""" + "\n".join(f"- `{code}`: {c.status}: {c.meaning}" for code, c in CODES.items()) + """

A broken rule's `type` links to the rule in the players' rules page
(`<server>/rules#<rule id>`).

Requests the HTTP server itself cannot read never reach the API and are answered by
gunicorn in `text/html`: 400 (a malformed request line or header), 414 (a request line
over 4094 bytes), 431 (a header line over 8190 bytes, or more than 100 headers).
"""


class Api(flask_smorest.Api):
    """flask-smorest's Api with every error documented as problem+json."""

    ERROR_SCHEMA = ProblemSchema

    def _register_responses(self) -> None:
        for status in http.HTTPStatus:
            if status < 400:
                continue
            response = {"description": status.phrase, "schema": self.ERROR_SCHEMA}
            prepare_response(response, self.spec, PROBLEM_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "An error (problem details with a stable code)",
                    "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_TYPE)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)

    def _register_error_handlers(self) -> None:
        register_error_handlers(self._app)

    def _init_spec(self, **kwargs: Any) -> None:
        """The document as service/spec.py writes it (clean generated clients)."""
        kwargs.setdefault("marshmallow_plugin", ContractMarshmallowPlugin())
        kwargs.setdefault("extra_plugins", [OperationIds(), ConditionalGets()])
        super()._init_spec(**kwargs)


API_CONFIG: dict[str, Any] = {
    "API_TITLE": "alhambra-pbem",
    "API_VERSION": API_VERSION,  # the contract's, not the package's (service/spec.py)
    "OPENAPI_VERSION": "3.0.3",
    "OPENAPI_URL_PREFIX": "/",
    "OPENAPI_JSON_PATH": "openapi.json",
    # /docs is Swagger UI served from the swagger-ui-bundle package (blueprints/web.py)
    "API_SPEC_OPTIONS": {
        "info": {"description": DESCRIPTION,
                 "license": {"name": "MIT"}},
        "components": {"securitySchemes": {"bearer": {
            "type": "http", "scheme": "bearer",
            "description": "A seat token (or a host token) from create or join"}}},
    },
}


#: Browser pages of other origins (ALHAMBRA_CORS_ORIGINS) may call the API: tokens go in
#: the Authorization header, never in cookies, so no credentials are allowed.
API_PATHS = (r"^/(games|records|variants|health|players|me|ratings|invitations|reports|"
             r"tournaments|push|openapi\.json)(/.*)?$")
CORS_OPTIONS: dict[str, Any] = {
    "methods": ["GET", "POST", "PUT", "PATCH", "DELETE"], "supports_credentials": False,
    "max_age": 600,
    "allow_headers": ["Authorization", "Content-Type", "If-Match", "Idempotency-Key",
                      "Last-Event-ID", "Accept-Language"],
    "expose_headers": ["ETag", "Location", "Retry-After", "Content-Language",
                       "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
                       "Link"]}


def _no_store(resp: Response) -> Response:
    """No cache keeps an answer of the API (its JSON carries seat and player tokens,
    addresses, or a game as one seat sees it): ``Cache-Control: no-store``, unless the
    route said otherwise."""
    if (resp.mimetype or "").endswith("json"):
        resp.headers.setdefault("Cache-Control", "no-store")
    return resp


def create_app(settings: Settings | None = None) -> Flask:
    """A new application with ``settings`` (default: from the environment)."""
    settings = settings or Settings.from_env()
    app = Flask(__name__)
    # A copy: apispec merges the document into its options, which must not be shared.
    app.config.update(copy.deepcopy(API_CONFIG),
                      MAX_CONTENT_LENGTH=settings.max_body)
    app.json = JsonProvider(app)
    app.extensions["alhambra_settings"] = settings
    app.extensions["alhambra"] = Games(open_store(settings),
                                       settings.state_cache_size, settings.secret_key,
                                       settings.min_time_per_move, WebhookPolicy(
                                           settings.webhook_allow_private,
                                           settings.webhooks_per_game,
                                           settings.webhooks_per_seat),
                                       settings.takeover_level, settings.bot_turns,
                                       settings.reminders, settings.messages_per_hour,
                                       settings.idempotency_retention,
                                       rate_bot_accounts=settings.rate_bot_accounts)
    app.extensions["alhambra_players"] = Players(
        app.extensions["alhambra"], rq_sender(settings.redis_url, settings.queue),
        settings.vacation_days, settings.vacation_stretch)
    app.extensions["alhambra_moderation"] = Moderation(app.extensions["alhambra"])
    app.extensions["alhambra_channels"] = NotifyChannels(
        app.extensions["alhambra"].store, settings.vapid_key_file, settings.secret_key,
        settings.webhook_allow_private)
    api = Api(app)
    for blp in BLUEPRINTS:
        api.register_blueprint(blp)
    app.register_blueprint(web.blp)  # the web client's pages: not part of the API document
    init_limits(app, settings)
    init_languages(app)
    metrics.init_app(app, settings)
    logs.init_app(app, settings)
    app.after_request(_no_store)
    if settings.cors_origins:
        CORS(app, resources={API_PATHS: {"origins": list(settings.cors_origins)}},
             send_wildcard="*" in settings.cors_origins, **CORS_OPTIONS)
    _document_settings(api, settings)
    app.extensions["alhambra_api"] = api
    return app


def _document_settings(api: Api, settings: Settings) -> None:
    """The document states this server's minimum time per move (the one it enforces)."""
    prop = api.spec.components.schemas["CreateGame"]["properties"]["time_per_move"]
    prop["minimum"] = settings.min_time_per_move


def openapi_document(app: Flask) -> dict[str, Any]:
    """The OpenAPI document of ``app``, as committed in openapi/openapi.json."""
    with app.app_context():
        document: dict[str, Any] = app.extensions["alhambra_api"].spec.to_dict()
        return document
