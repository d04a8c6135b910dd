"""The web page's colours for the mails' HTML part, read from their one source, the page's
``service/web/js/names.js`` (``FILLS``: a colour per building type; ``CURRENCIES``: a
symbol and a colour per currency), so that a mail draws the board as the page does."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import service

NAMES_JS = Path(service.__file__).resolve().parent / "web" / "js" / "names.js"
_PAIR = re.compile(r'(\w+): "(#[0-9a-fA-F]{6})"')
_CURRENCY = re.compile(r'(\w\w): \{ symbol: "([^"]+)", colour: "(#[0-9a-fA-F]{6})" \}')


def _block(text: str, start: str) -> str:
    return text.split(start, 1)[1].split("};", 1)[0]


@cache
def fills() -> dict[str, str]:
    """Building type → its colour (``start`` too)."""
    return dict(_PAIR.findall(_block(NAMES_JS.read_text(encoding="utf-8"),
                                     "export const FILLS = {")))


@cache
def currencies() -> dict[str, tuple[str, str]]:
    """Card code (``DE``…) → (symbol, colour)."""
    block = _block(NAMES_JS.read_text(encoding="utf-8"), "export const CURRENCIES = {")
    return {code: (symbol, colour) for code, symbol, colour in _CURRENCY.findall(block)}


def ink_on(fill: str) -> str:
    """Black or white ink, whichever contrasts more with ``fill`` (names.js ``inkOn``)."""
    n = int(fill[1:], 16)

    def lin(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    lum = 0.2126 * lin((n >> 16) & 255) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255)
    return "#111111" if (lum + 0.05) / 0.05 > 1.05 / (lum + 0.05) else "#ffffff"
