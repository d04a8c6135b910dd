"""The web client's pages: static files that play through the public HTTP API.

``/`` (the lobby), ``/play/<game_id>`` (a seat's page with ``#token=…`` in the fragment,
else the spectator's), ``/replay/<game_id>`` (a game stepped move by move) and ``/docs``
(Swagger UI from the ``swagger-ui-bundle`` package) are static HTML + ES modules from
``service/web/``; the pages hold no game logic and call only the documented API.
``/rules`` is ``docs/rules.md`` rendered with Python-Markdown. Every answer carries a
Content-Security-Policy without inline scripts, ``nosniff`` and ``Referrer-Policy:
no-referrer``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import markdown
from flask import Blueprint, Response, render_template, send_from_directory
from markupsafe import Markup
from swagger_ui_bundle import swagger_ui_path

WEB = Path(__file__).resolve().parent.parent / "web"
RULES = WEB / "rules.md"  # a link to docs/rules.md, packaged with the static files

blp = Blueprint("web", __name__, static_folder=WEB, static_url_path="/assets",
                template_folder=WEB)

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
                    "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"}


@blp.after_request
def _security_headers(resp: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        resp.headers.setdefault(name, value)
    return resp


def _page(name: str) -> Response:
    resp = send_from_directory(WEB, name, mimetype="text/html")
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@blp.route("/")
def lobby() -> Response:
    return _page("lobby.html")


@blp.route("/play/<string:game_id>")
def play(game_id: str) -> Response:
    return _page("play.html")


@blp.route("/replay/<string:game_id>")
def replay(game_id: str) -> Response:
    return _page("replay.html")


@blp.route("/docs")
def docs() -> Response:
    return _page("docs.html")


@blp.route("/assets/swagger-ui/<path:filename>")
def swagger_ui(filename: str) -> Response:
    return send_from_directory(Path(str(swagger_ui_path)), filename)


@cache
def rules_html() -> Markup:
    """docs/rules.md as HTML; its ``<a id="A-4.3">`` anchors are kept for links."""
    text = RULES.read_text(encoding="utf-8")
    return Markup(markdown.markdown(text, extensions=["tables", "toc", "fenced_code"]))


@blp.route("/rules")
def rules() -> Response:
    resp = Response(render_template("rules.html", body=rules_html()), mimetype="text/html")
    resp.headers["Cache-Control"] = "no-cache"
    return resp
