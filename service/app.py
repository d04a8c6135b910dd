"""The Flask application factory."""

from __future__ import annotations

import http
import os
from pathlib import Path
from typing import Any

import flask_smorest
from flask import Flask
from flask_smorest.utils import prepare_response

from . import __version__
from .auth import load_secret_key
from .errors import CODES, PROBLEM_TYPE, register_error_handlers
from .games import Games
from .schemas import ProblemSchema
from .store import EventStore, default_db_path

DESCRIPTION = """\
Play Alhambra by e-mail or through any HTTP client.

A game is an append-only log of events; its **version** is the number of events. Every
move is submitted against the version it was made for (body `version` or `If-Match` with the
game's `ETag`); a stale version gets 409 with `current_version`. Seats authenticate with
the secret bearer token they receive when the game is created or when they join.

Errors are `application/problem+json` (RFC 9457) with a stable `code`:

""" + "\n".join(f"- `{code}`: {text}" for code, text in CODES.items())


class Api(flask_smorest.Api):
    """flask-smorest's Api with every error documented as problem+json."""

    ERROR_SCHEMA = ProblemSchema

    def _register_responses(self):
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

    def _register_error_handlers(self):
        register_error_handlers(self._app)


DEFAULTS: dict[str, Any] = {
    "API_TITLE": "alhambra-pbem",
    "API_VERSION": __version__,
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
    "MAX_CONTENT_LENGTH": 1 << 20,
    "STATE_CACHE_SIZE": 512,
    "PUBLIC_URL": None,  # base of join links; default: the request's host URL
    "DATABASE": None,  # default: <ALHAMBRA_DATA or ./data>/alhambra.db
    "SECRET_KEY": None,  # bytes; default: auth.load_secret_key beside the database
    "MIN_TIME_PER_MOVE": None,  # seconds; default: $ALHAMBRA_MIN_TIME_PER_MOVE or 60
    "STREAM_SECONDS": 25,  # a /stream ends after this long (under gunicorn's timeout)
    "STREAM_KEEPALIVE": 10,  # seconds between keep-alive comments on a quiet stream
    "STREAM_POLL": 0.5,  # seconds between looks for new events
    "STREAM_RETRY_MS": 1000,  # the reconnect delay a stream suggests to its client
}


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """A new application. ``config`` keys: DATABASE (path), STATE_CACHE_SIZE (0: no
    cache), PUBLIC_URL, SECRET_KEY (derives seat tokens), MIN_TIME_PER_MOVE, and
    Flask/flask-smorest settings."""
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    app.json.sort_keys = False
    db = app.config["DATABASE"] or os.environ.get("ALHAMBRA_DB") or default_db_path()
    store = EventStore(Path(db) if str(db) != ":memory:" else db)
    if app.config["MIN_TIME_PER_MOVE"] is None:
        app.config["MIN_TIME_PER_MOVE"] = int(os.environ.get("ALHAMBRA_MIN_TIME_PER_MOVE")
                                              or 60)
    key = app.config["SECRET_KEY"]
    if not isinstance(key, bytes):
        key = key.encode() if key else load_secret_key(db)
    app.extensions["alhambra"] = Games(store, app.config["STATE_CACHE_SIZE"], key,
                                       app.config["MIN_TIME_PER_MOVE"])

    api = Api(app)
    from .blueprints import games, meta, play, records, stream, web, webhooks

    for blp in (games.blp, play.blp, webhooks.blp, records.blp, meta.blp):
        api.register_blueprint(blp)
    api.register_blueprint(stream.blp)
    app.register_blueprint(web.blp)
    app.extensions["alhambra_api"] = api
    return app


def openapi_document(app: Flask) -> dict[str, Any]:
    """The OpenAPI document of ``app``, as committed in openapi/openapi.json."""
    with app.app_context():
        return app.extensions["alhambra_api"].spec.to_dict()
