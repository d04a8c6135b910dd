"""The web client's pages: static files that play through the public HTTP API.

``/`` (the lobby), ``/play/<game_id>`` (a seat's page with ``#token=…`` in the fragment,
else the spectator's), ``/replay/<game_id>`` (a game stepped move by move),
``/tournament/<tournament_id>`` (a tournament's schedule, tables and standings) and ``/docs``
(Swagger UI from the ``swagger-ui-bundle`` package) are static HTML + ES modules from
``service/web/``; the pages hold no game logic and call only the documented API.
``/manifest.webmanifest``, ``/sw.js`` (the service worker that shows pushed notices) and
``/offline`` make the player's page an installable app (issue 37). ``/rules`` is
``docs/rules.md`` rendered with Python-Markdown, its headings in the
reader's language (``service/rules_page.py``); ``/i18n/<lang>.json`` is the pages' words
in a language (``service/i18n.py``: from the gettext catalogs). Every answer carries a
Content-Security-Policy without inline scripts, ``nosniff`` and ``Referrer-Policy:
no-referrer``.
"""

from __future__ import annotations

from pathlib import Path

from flask import (
    Blueprint,
    Response,
    abort,
    jsonify,
    render_template,
    request,
    send_from_directory,
)
from swagger_ui_bundle import swagger_ui_path

from .. import i18n
from ..games import variants
from ..i18n import msg
from ..languages import request_language
from ..rules_page import rules_html

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


def me_page() -> Response:
    """A player's page (service/web/me.html), served at ``/me`` to a browser that asks
    for HTML (the API's ``GET /me`` answers JSON: blueprints/players.py)."""
    resp = _page("me.html")
    for name, value in SECURITY_HEADERS.items():
        resp.headers.setdefault(name, value)
    resp.vary.add("Accept")
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


@blp.route("/tournament/<string:tournament_id>")
def tournament(tournament_id: str) -> Response:
    return _page("tournament.html")


@blp.route("/docs")
def docs() -> Response:
    return _page("docs.html")


@blp.route("/assets/swagger-ui/<path:filename>")
def swagger_ui(filename: str) -> Response:
    return send_from_directory(Path(str(swagger_ui_path)), filename)


@blp.route("/rules")
def rules() -> Response:
    """The rules, their headings in the request's language (``?lang=``, Accept-Language)."""
    lang = request_language()
    body = rules_html(RULES.read_text(encoding="utf-8"), lang)
    resp = Response(render_template("rules.html", body=body, lang=lang,
                                    languages=i18n.NATIVE_NAMES), mimetype="text/html")
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@blp.route("/manifest.webmanifest")
def manifest() -> Response:
    """The web app manifest: the player's page installs as an app (issue 37)."""
    lang = request_language()
    resp = jsonify({
        "name": "alhambra-pbem", "short_name": "Alhambra", "lang": lang,
        "description": i18n.say(msg("Alhambra by mail: your games and their turns"), lang),
        "start_url": "/me", "scope": "/", "display": "standalone",
        "background_color": "#f3e2b3", "theme_color": "#3b2712",
        "icons": [{"src": "/assets/icon-192.png", "sizes": "192x192", "type": "image/png"},
                  {"src": "/assets/icon-512.png", "sizes": "512x512", "type": "image/png",
                   "purpose": "any maskable"},
                  {"src": "/assets/favicon.svg", "sizes": "any", "type": "image/svg+xml"}]})
    resp.mimetype = "application/manifest+json"
    resp.headers["Cache-Control"] = "no-cache"
    resp.vary.add("Accept-Language")
    return resp


@blp.route("/sw.js")
def service_worker() -> Response:
    """The service worker (service/web/sw.js), at the root so that its scope is every
    page: it shows the pushed notices and the offline page."""
    resp = send_from_directory(WEB, "sw.js", mimetype="text/javascript")
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@blp.route("/offline")
def offline() -> Response:
    """What a page opened without a connection shows (the service worker keeps it)."""
    lang = request_language()
    page = render_template("offline.html", lang=lang,
                           title=i18n.say(msg("No connection"), lang),
                           text=i18n.say(msg("This device is offline. The page will work "
                                             "again once it is connected."), lang))
    resp = Response(page, mimetype="text/html")
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@blp.route("/i18n/<string:lang>.json")
def catalog(lang: str) -> Response:
    """The web pages' messages in ``lang`` (from the gettext catalogs), with
    ``?variant=`` in a game of that variant's words (a Granada city is no Alhambra): a
    public resource, the same for everyone."""
    variant = request.args.get("variant")
    if lang not in i18n.LANGUAGES or variant is not None and \
            variant not in {v["name"] for v in variants()}:
        abort(404)
    resp = jsonify(i18n.web_catalog(lang, variant))
    resp.headers["Cache-Control"] = "public, max-age=300"
    resp.headers["Content-Language"] = lang
    return resp
