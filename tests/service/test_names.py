"""service/names.py: names that read for what they are (issue 39)."""

from __future__ import annotations

import pytest

from service import names
from service.errors import HandleRefused
from service.players import handle


@pytest.mark.parametrize(("text", "code"), [
    ("\u3164", "precis"),          # Hangul filler: old Hangul jamo once NFKC
    ("\u2800", "blank"),           # braille blank: a symbol PRECIS allows
    ("Ann\u200b", "precis"),       # zero-width space
    ("Ann\u200f", "precis"),       # right-to-left mark
    ("a\u0301\u0301\u0301", "marks"),
    ("the host", "host"), ("The   Host", "host"), ("værten", "host"),
    ("хозяин игры", "host"),
])
def test_refused(text, code):
    with pytest.raises(names.NameRefused) as exc:
        names.name(text)
    assert exc.value.code == code


@pytest.mark.parametrize(("text", "kept"), [
    ("  Ann   Lee ", "Ann Lee"), ("Ｚｏë", "Zoë"), ("Nguyễn", "Nguyễn"), ("Host", "Host"),
    ("🦊 Fox", "🦊 Fox"),
])
def test_kept(text, kept):
    assert names.name(text) == kept


def test_alike_finds_confusables_case_and_spaces():
    assert names.alike(["Alice", "Bob", "\u0410lice"]) == (0, 2)  # Cyrillic А
    assert names.alike(["Ann Lee", None, "annlee"]) == (0, 2)
    assert names.alike(["Ann", "Anna", None, None]) is None


def test_a_handle_stacking_accents_is_refused_and_keys_read_alike():
    with pytest.raises(HandleRefused):
        handle("ann" + "\u0301" * 5)
    assert handle("Alice")[1] == handle("\u0410lice")[1]
