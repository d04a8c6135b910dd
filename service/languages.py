"""The language of a request, for the API's words and the server's pages (flask-babel).

A request's language is its ``?lang=`` (the pages' switcher), else the best of its
``Accept-Language`` among ``service.i18n.LANGUAGES``, else English. Problem details, the
events' words and the rules page are said in it; every answer names it
(``Content-Language``) and says it varies with ``Accept-Language``. The JSON catalogs the
pages' scripts read are served at ``/i18n/<lang>.json`` (``blueprints/web.py``).
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from babel import Locale
from flask import Flask, Response, current_app, g, has_request_context, request
from flask_babel import Babel, get_locale
from marshmallow import fields
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

from . import i18n


def _select() -> Locale:
    """The request's language, as a Locale made once per language (flask-babel takes it
    as it is: no parsing, no look for locale data on every request)."""
    lang = request.args.get("lang")
    if lang is None:  # most requests: the answer of their header, kept
        return _best_of_header(request.headers.get("Accept-Language", ""))
    return _locale(i18n.best(request.accept_languages, lang))


@lru_cache(maxsize=512)
def _best_of_header(header: str) -> Locale:
    return _locale(i18n.best(parse_accept_header(header, LanguageAccept) if header else None))


@cache
def _locale(tag: str) -> Locale:
    return Locale.parse(tag)


def request_language() -> str:
    """The current request's language (English outside a request)."""
    if not has_request_context():
        return i18n.DEFAULT
    locale = get_locale()
    return str(locale) if locale is not None else i18n.DEFAULT


def say(text: Any) -> str:
    """``text`` (a ``Msg``) in the current request's language, and in the words of the
    variant of the game its address names (a Granada city is no Alhambra)."""
    with i18n.speaking_of(_request_variant()):
        return i18n.say(text, request_language())


def _request_variant() -> str | None:
    """The variant of the game of the request's ``game_id``, once a request."""
    if not has_request_context() or not request.view_args or \
            "game_id" not in request.view_args:
        return None
    if "alhambra_variant" not in g:
        games = current_app.extensions["alhambra"]
        g.alhambra_variant = games.variant(str(request.view_args["game_id"]))
    variant: str | None = g.alhambra_variant
    return variant


class Said(fields.String):
    """A text member of an answer whose ``Msg`` values are said in the request's language
    (an event's words, why a tile fits no cell)."""

    def _serialize(self, value: Any, attr: Any, obj: Any, **kwargs: Any) -> str | None:
        return None if value is None else say(value)


def _headers(resp: Response) -> Response:
    if not request.path.startswith("/assets/"):
        headers = resp.headers
        headers.setdefault("Content-Language", request_language())
        if "Vary" in headers:
            resp.vary.add("Accept-Language")
        else:  # most answers: no need to parse a Vary header that is not there
            headers["Vary"] = "Accept-Language"
    return resp


def init_languages(app: Flask) -> None:
    Babel(app, locale_selector=_select, default_translation_directories=str(i18n.CATALOGS))
    app.after_request(_headers)
