"""Languages: the catalogs, a reader's language, and words said in it.

The service speaks English, Greek, Finnish, Danish and Russian (``LANGUAGES``), with
gettext catalogs made by Babel (``service/translations/<lang>/LC_MESSAGES/messages.po``,
compiled ``.mo`` beside them; how to add a language: docs/translations.md). The engine's and the
service's sentences are ``Msg`` objects (``engine/words.py``) until they reach a reader:
``say(text, lang)`` translates one, its parameters first (a tile, a list, an amount…).
Mails are in the seat's ``language``; the API in the request's (``Accept-Language``,
through flask-babel); the web pages get the same catalogs as JSON (``web_catalog``).

Dates come from Babel's locale data (the clock in words: workers/clock_words.py); plural
forms from each catalog's own rule.
"""

from __future__ import annotations

import gettext
import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, tzinfo
from functools import cache
from pathlib import Path
from typing import Any, Literal, cast

from babel import Locale
from babel.dates import format_date, format_datetime, format_skeleton
from babel.lists import format_list
from babel.messages.pofile import read_po
from babel.support import Translations

from engine import terms
from engine.words import Msg, msg, nmsg, pmsg

__all__ = ["LANGUAGES", "Msg", "best", "date", "language", "message", "msg", "nmsg", "pmsg",
           "say", "time", "translations", "web_catalog"]

log = logging.getLogger(__name__)
#: The list styles of Babel's format_list (a list said in words: engine/words.py).
ListStyle = Literal["standard", "standard-short", "or", "or-short", "unit", "unit-short",
                    "unit-narrow"]

#: The languages of the catalogs (BCP 47 primary tags), English first.
LANGUAGES = ("en", "el", "fi", "da", "ru")
DEFAULT = "en"
#: Each language's name in itself, for the pages' switchers.
NATIVE_NAMES = {"en": "English", "el": "Ελληνικά", "fi": "suomi", "da": "dansk",
                "ru": "русский"}
CATALOGS = Path(__file__).resolve().parent / "translations"
DOMAIN = "messages"
#: Where the web pages' messages come from (their JSON catalog holds these).
WEB_SOURCES = ("service/web/",)


def language(tag: str | None) -> str | None:
    """The supported language of a BCP 47 tag (``fi``, ``fi-FI``, ``da_DK``), or None."""
    if not tag:
        return None
    primary = tag.replace("_", "-").split("-")[0].strip().lower()
    return primary if primary in LANGUAGES else None


def best(accept: Iterable[tuple[str, float]] | None, *preferred: str | None) -> str:
    """The language to speak: the first supported of ``preferred`` (a seat's own, a
    page's ``?lang=``), else the best of an Accept-Language (werkzeug's pairs of tag and
    quality), else English."""
    for tag in preferred:
        lang = language(tag)
        if lang:
            return lang
    for tag, quality in sorted(accept or (), key=lambda tq: -tq[1]):
        lang = language(tag)
        if lang and quality > 0:
            return lang
    return DEFAULT


#: The words of each variant where they differ from the other variants' (engine/terms.py).
VARIANT_WORDS: dict[str, dict[str, tuple[str, str]]] = {"granada": terms.GRANADA_WORDS}
_VARIANT: ContextVar[str | None] = ContextVar("alhambra_variant", default=None)


@contextmanager
def speaking_of(variant: str | None) -> Iterator[None]:
    """Within it, the words said are those of a game of ``variant`` (``say``, and
    ``translations`` with no variant given): a Granada city is no Alhambra."""
    token = _VARIANT.set(variant)
    try:
        yield
    finally:
        _VARIANT.reset(token)


class VariantWords(gettext.NullTranslations):
    """A catalog that says a variant's own words (``VARIANT_WORDS``) for the messages
    that have them, and the catalog's for the rest."""

    def __init__(self, base: gettext.NullTranslations, words: dict[str, tuple[str, str]]
                 ) -> None:
        super().__init__()
        self.base, self.words = base, words

    def gettext(self, message: str) -> str:
        own = self.words.get(message)
        return self.base.pgettext(*own) if own else self.base.gettext(message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return self.base.ngettext(msgid1, msgid2, n)

    def pgettext(self, context: str, message: str) -> str:
        return self.base.pgettext(context, message)

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return self.base.npgettext(context, msgid1, msgid2, n)


def translations(lang: str, variant: str | None = None) -> gettext.NullTranslations:
    """The compiled catalog of ``lang`` (English: the message ids themselves), with the
    words of ``variant`` (default: the game ``speaking_of``)."""
    return _translations(lang, variant or _VARIANT.get())


@cache
def _translations(lang: str, variant: str | None) -> gettext.NullTranslations:
    if variant in VARIANT_WORDS:
        return VariantWords(_translations(lang, None), VARIANT_WORDS[variant])
    if lang == DEFAULT or lang not in LANGUAGES:
        return gettext.NullTranslations()
    return Translations.load(str(CATALOGS), [lang], DOMAIN)


def say(text: Any, lang: str) -> str:
    """``text`` in ``lang``: a ``Msg`` translated (its parameters first), else as it is;
    in the words of the game ``speaking_of``."""
    if not isinstance(text, Msg):
        return "" if text is None else str(text)
    if text.items is not None:
        items = [say(i, lang) for i in text.items]
        if text.style == "unit" or not items:
            return ", ".join(items)
        return format_list(items, style=cast(ListStyle, text.style), locale=lang)
    t = translations(lang)
    if text.plural is not None:
        n = text.n or 0
        pattern = t.npgettext(text.context, text.msgid, text.plural, n) if text.context \
            else t.ngettext(text.msgid, text.plural, n)
    else:
        pattern = t.pgettext(text.context, text.msgid) if text.context \
            else t.gettext(text.msgid)
    params = {k: say(v, lang) if isinstance(v, Msg) else v for k, v in text.params.items()}
    try:
        return pattern.format(**params)
    except (KeyError, IndexError, ValueError):
        log.error("the %s catalog's %r does not fit its parameters %s", lang, pattern,
                  sorted(params))
        return str(text)


def message(exc: BaseException) -> Any:
    """The sentence an exception was raised with (a ``Msg`` if it was given one)."""
    first = exc.args[0] if exc.args else None
    return first if isinstance(first, str) else str(exc)


# -- times ---------------------------------------------------------------------------------

def date(when: datetime, lang: str) -> str:
    """A day as the language writes it: "March 21, 2025", "21. maaliskuuta 2025"."""
    return format_date(when, "long", locale=lang)


def time(when: datetime, lang: str, zone: tzinfo = UTC, weekday: bool = False) -> str:
    """A time of day on the 24-hour clock, as the language writes it (CLDR's ``Hm``
    pattern): "23:19", Finnish and Danish "23.19"; with ``weekday`` its day before it:
    "Thursday 23:19", "torstaina 23.19"."""
    hm = format_skeleton("Hm", when, tzinfo=zone, locale=lang)
    return f"{format_datetime(when, 'EEEE', tzinfo=zone, locale=lang)} {hm}" if weekday \
        else hm


# -- the web pages' catalogs ---------------------------------------------------------------

def _samples(lang: str) -> dict[str, int]:
    """A whole number of each CLDR plural category of ``lang`` (what a browser's
    ``Intl.PluralRules`` says of a count): {"one": 1, "other": 0} in English."""
    rule = Locale.parse(lang).plural_form
    out: dict[str, int] = {}
    for n in range(200):
        out.setdefault(rule(n), n)
    return out


@cache
def web_catalog(lang: str, variant: str | None = None) -> dict[str, Any]:
    """The messages the web pages show, in ``lang`` and a game of ``variant``'s words:
    {"language", "messages"}, where
    ``messages`` maps a message id (``context\x04id`` with a context, as gettext keys
    them) to its text, or a plural's singular id to its forms by CLDR category."""
    with (CATALOGS / f"{DOMAIN}.pot").open("rb") as f:
        template = read_po(f)
    t = translations(lang, variant)
    samples = _samples(lang)
    messages: dict[str, Any] = {}
    for m in template:
        if not m.id or not any(path.startswith(WEB_SOURCES) for path, _ in m.locations):
            continue
        one = m.id[0] if isinstance(m.id, tuple | list) else m.id
        key = f"{m.context}\x04{one}" if m.context else one
        if isinstance(m.id, tuple | list):
            many = m.id[1]
            messages[key] = {category: t.npgettext(m.context, one, many, n) if m.context
                             else t.ngettext(one, many, n) for category, n in samples.items()}
        else:
            messages[key] = t.pgettext(m.context, one) if m.context else t.gettext(one)
    return {"language": lang, "messages": messages}
