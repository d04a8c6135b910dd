"""The players' rules page (``/rules``: docs/rules.md rendered) with its headings in the
reader's language. The rules' text stays English; rule ids (``A-4.3``) and the anchors
that problem details link to are the same in every language."""

from __future__ import annotations

import re
from functools import cache

import markdown
from markupsafe import Markup

from .i18n import Msg, msg, say

#: Every heading of docs/rules.md, rule id left out (a test checks that none is missing).
HEADINGS: dict[str, Msg] = {
    "The rules as this server plays them": msg("The rules as this server plays them"),
    "Part A: Alhambra (2–6 players)": msg("Part A: Alhambra (2–6 players)"),
    "Part G: Granada (2–6 players)": msg("Part G: Granada (2–6 players)"),
    "Part C: Alhambra + Granada (3–6 players)": msg("Part C: Alhambra + Granada (3–6 "
                                                     "players)"),
    "Part S: what the service adds": msg("Part S: what the service adds"),
    "Components": msg("Components"),
    "Components and setup": msg("Components and setup"),
    "Setup": msg("Setup"),
    "A turn": msg("A turn"),
    "Building rules": msg("Building rules"),
    "Scoring": msg("Scoring"),
    "The end": msg("The end"),
    "Secrets": msg("Secrets"),
    "Two players: Dirk": msg("Two players: Dirk"),
    "Two players: Juan": msg("Two players: Juan"),
}
_HEADING = re.compile(r"<(h[1-6])([^>]*)>(.*?)</\1>", re.S)
_RULE_ID = re.compile(r"^([A-Z]-\d+(?:\.\d+)?[a-z]?) (.*)$", re.S)


def heading_text(text: str) -> tuple[str, str]:
    """A heading's rule id (or "") and its words."""
    m = _RULE_ID.match(text)
    return (m.group(1), m.group(2)) if m else ("", text)


@cache
def rules_html(text: str, lang: str) -> Markup:
    """``text`` (Markdown) as HTML, its headings in ``lang`` (ids and anchors kept)."""
    html = markdown.markdown(text, extensions=["tables", "toc", "fenced_code"])

    def said(m: re.Match[str]) -> str:
        rule, words = heading_text(m.group(3))
        words = say(HEADINGS[words], lang) if words in HEADINGS else words
        return f"<{m.group(1)}{m.group(2)}>{f'{rule} ' if rule else ''}{words}</{m.group(1)}>"

    return Markup(_HEADING.sub(said, html))
