"""The golden "your turn" mails (issue 24 §2): the same mail of one game in every
language, committed in tests/workers/golden/ and read line by line when it changes
(regenerate: python -m tests.workers.golden_mail)."""

from __future__ import annotations

import re

import pytest

from service import i18n

from .golden_mail import path, your_turn, your_turn_mail

#: Lines of the English mail that a translated mail must not show.
ENGLISH = ["Hello ", "It is your turn", "Since your last move", "Your hand", "Money display",
           "Building market", "Majorities", "Your city", "Reply with", "walls", "a wall",
           "no walls", "Points for", "Total", "1st scoring", "Players:"]


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_your_turn_mail_is_the_golden_one(lang):
    assert your_turn_mail(lang) == path(lang).read_text(encoding="utf-8"), \
        f"regenerate and review: python -m tests.workers.golden_mail ({lang})"


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != "en"])
def test_a_golden_mail_is_all_in_its_language(lang):
    """No English left outside the notation (the "Reply with" lines, the API call)."""
    text = path(lang).read_text(encoding="utf-8")
    words = text.split("\n\n")
    prose = "\n".join(block for block in words if not re.search(r"^  (take|buy|POST) ", block,
                                                                re.M))
    assert not [e for e in ENGLISH if e in prose], [e for e in ENGLISH if e in prose]
    assert f"Content-Language: {lang}" in text


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_api_call_is_in_the_footer_for_programs(lang):
    """Issue 34.4: "POST … against version 174" is for programs: below the signature
    line ("--", and after the game's link in the HTML part), not in the player's words."""
    mail = your_turn(lang)
    words, footer = mail.text.split("\n--\n")
    assert "POST " not in words and "/moves" not in words
    assert re.search(r"^  POST https://\S+/moves  \{\"version\": \d+", footer, re.M)
    assert mail.html.index("/play/") < mail.html.index("/moves</code>")
