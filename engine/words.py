"""Words the engine says, in English, each carrying what another language needs.

A ``Msg`` is a ``str`` (the English sentence, so every caller and test that reads English
keeps working) that also carries its gettext message id, its parameters (numbers, names,
or more ``Msg`` objects), and for a plural its count, for an ambiguous word its context. The
service says it in a reader's language (``service/i18n.py``: the catalogs under
``service/translations/``); the engine itself stays pure: no catalogs, no locale.

``msg``, ``nmsg``, ``pmsg`` and ``pmsg_id`` are the keywords ``pybabel extract`` looks for,
like gettext's ``_``, ``ngettext`` and ``pgettext``; their message ids use ``{name}``
placeholders. ``listing`` is a list said as the language says lists ("a, b and c").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class Msg(str):
    """An English sentence with its message id, context, plural and parameters."""

    msgid: str
    plural: str | None
    n: int | None
    context: str | None
    params: dict[str, Any]
    items: tuple[Any, ...] | None  # a listing's items
    style: str  # a listing's CLDR style: standard ("a, b, and c"), or, unit ("a, b, c")

    def __new__(cls, msgid: str, params: dict[str, Any], *, plural: str | None = None,
                n: int | None = None, context: str | None = None,
                items: tuple[Any, ...] | None = None, style: str = "standard") -> Msg:
        if items is not None:
            english = _english_list([str(i) for i in items], style)
        else:
            english = (plural if plural is not None and n != 1 else msgid).format(**params)
        self = super().__new__(cls, english)
        self.msgid, self.plural, self.n, self.context = msgid, plural, n, context
        self.params, self.items, self.style = params, items, style
        return self

    def __reduce__(self) -> Any:  # pickled (RQ jobs) with what it carries
        return (_rebuild, (self.msgid, self.params, self.plural, self.n, self.context,
                           self.items, self.style))


def _rebuild(msgid: str, params: dict[str, Any], plural: str | None, n: int | None,
             context: str | None, items: tuple[Any, ...] | None, style: str) -> Msg:
    return Msg(msgid, params, plural=plural, n=n, context=context, items=items, style=style)


def _english_list(parts: list[str], style: str) -> str:
    """CLDR's English lists: "a, b, and c" (standard), "a, b, or c" (or), "a, b, c"
    (unit)."""
    if style == "unit":
        return ", ".join(parts)
    word = " or " if style == "or" else " and "
    if len(parts) < 3:
        return word.join(parts)
    return ", ".join(parts[:-1]) + "," + word + parts[-1]


def msg(msgid: str, **params: Any) -> Msg:
    """A sentence: ``msg("{seat} took {money}", seat=..., money=...)``."""
    return Msg(msgid, params)


def nmsg(singular: str, plural: str, n: int, **params: Any) -> Msg:
    """A sentence that depends on a count ``n`` (also a parameter ``{n}``)."""
    return Msg(singular, {"n": n, **params}, plural=plural, n=n)


def pmsg(context: str, msgid: str, **params: Any) -> Msg:
    """A word or sentence whose English is ambiguous without its ``context`` (the
    building "market" and the building market)."""
    return Msg(msgid, params, context=context)


def pmsg_id(context: str, msgid: str) -> tuple[str, str]:
    """A message id in its ``context``, not said yet: another message's words in that
    context (``terms.GRANADA_WORDS``), said with that message's parameters."""
    return context, msgid


def listing(items: Iterable[Any], style: str = "standard") -> Msg:
    """Items said as a list: "north and east", "a, b, and c"; in the ``or`` style "a, b,
    or c", in the ``unit`` style "a, b, c" (other languages: Babel's list patterns)."""
    return Msg("", {}, items=tuple(items), style=style)
