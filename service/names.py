"""The names people read: a seat's name and a player's handle (issue 39).

A name must pass the PRECIS Nickname profile (RFC 8266, the ``precis-i18n`` package: no
control, format or unassigned characters, no old Hangul fillers, spaces mapped and
trimmed), and our own check for what that profile lets through but no one can read: the
blank characters that show nothing (the braille blank, the Hangul fillers), and more
than ``MAX_MARKS`` combining marks on one letter. It is kept as typed (NFKC, spaces
collapsed), its case too.

Two names *read alike* when their skeletons match: case-folded, NFKC, with Unicode's
confusables mapped to their prototypes (the ``confusables`` package: a Cyrillic ``А``
reads as a Latin ``A``) and spaces dropped. No two seats of a table read alike, no
handle reads like another's, and no seat is named like the host (in any language the
service speaks: messages from the host are signed so).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import confusables
import precis_i18n

from . import i18n
from .i18n import Msg, msg

NICKNAME = precis_i18n.get_profile("Nickname")
MAX_MARKS = 2
#: Characters the Nickname profile allows that show nothing.
BLANKS = frozenset("\u2800\u3164\u115f\u1160\uffa0\u180e")


class NameRefused(ValueError):
    """A name no one could read for what it is; ``reason`` in words (a ``Msg``)."""

    def __init__(self, reason: Msg, code: str) -> None:
        super().__init__(str(reason))
        self.reason, self.code = reason, code


def name(text: str) -> str:
    """``text`` as a name is kept (NFKC, spaces collapsed and trimmed); NameRefused."""
    kept = " ".join(unicodedata.normalize("NFKC", text).split())
    try:
        NICKNAME.enforce(kept)
    except UnicodeEncodeError as exc:
        raise NameRefused(msg("a name may not hold the character U+{code:04X} ({why})",
                              code=ord(exc.object[exc.start]), why=exc.reason),
                          "precis") from None
    readable(kept)
    if skeleton(kept) in _HOSTS:
        raise NameRefused(msg("a seat may not be named like the host"), "host")
    return kept


def readable(kept: str) -> None:
    """NameRefused if ``kept`` (already through a PRECIS profile) shows nothing or stacks
    accents beyond reading."""
    if any(c in BLANKS for c in kept):
        raise NameRefused(msg("a name may not hold blank characters that show nothing"),
                          "blank")
    marks = 0
    for c in unicodedata.normalize("NFD", kept):
        marks = marks + 1 if unicodedata.combining(c) else 0
        if marks > MAX_MARKS:
            raise NameRefused(msg("a name may have at most {n} accents on one letter",
                                  n=MAX_MARKS), "marks")


def skeleton(text: str) -> str:
    """What ``text`` reads as: two names with one skeleton read alike. Character by
    character (``confusables.normalize`` of a whole text lists every combination of
    readings: exponential in its length)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(_reads_as(c) for c in folded if not c.isspace())


@lru_cache(maxsize=4096)
def _reads_as(char: str) -> str:
    return min(confusables.normalize(char, prioritize_alpha=True), default=char)


def alike(names: list[str | None]) -> tuple[int, int] | None:
    """The first two positions of ``names`` that read alike (None: none do)."""
    seen: dict[str, int] = {}
    for i, n in enumerate(names):
        if n is None:
            continue
        key = skeleton(n)
        if key in seen:
            return seen[key], i
        seen[key] = i
    return None


#: What the host's messages are signed with, in each language the service speaks.
_HOSTS = frozenset(skeleton(i18n.translations(lang).gettext("the host"))
                   for lang in i18n.LANGUAGES)
