"""The message catalogs (issue 24 §2): every language translates every message the code
says, with the same placeholders, compiled; the words that must stay apart do; plural
forms, dates and lists follow each language."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from engine import NotationError, terms
from engine.moves import parse_move
from engine.words import listing, nmsg
from service import catalogs, i18n
from service.blueprints.web import RULES
from service.rules_page import HEADINGS, heading_text
from workers import city, replies
from workers.board import Speaker
from workers.clock_words import deadline_words, human_duration

OTHERS = [lang for lang in i18n.LANGUAGES if lang != "en"]


def test_every_catalog_translates_every_message_the_code_says():
    """The template is extracted from the code again: a message added to the code and
    missing from the template, a language lacking a translation (or a placeholder), or a
    .mo not compiled from its .po is listed here."""
    assert catalogs.problems() == []


def test_a_missing_translation_or_a_wrong_placeholder_is_found(tmp_path, monkeypatch):
    """The check itself: a copy of the catalogs with one translation taken away and one
    placeholder misspelt."""
    import shutil

    copy = tmp_path / "translations"
    shutil.copytree(catalogs.CATALOGS, copy)
    po = copy / "fi" / "LC_MESSAGES" / "messages.po"
    text = po.read_text(encoding="utf-8")
    text = text.replace('msgstr "Peli alkoi"', 'msgstr ""', 1)
    text = text.replace('msgstr "{seat} otti rahaa: {money}"',
                        'msgstr "{seat} otti rahaa: {raha}"', 1)
    po.write_text(text, encoding="utf-8")
    monkeypatch.setattr(catalogs, "po_path",
                        lambda lang: copy / lang / "LC_MESSAGES" / "messages.po")
    template = {catalogs._key(m): m for m in catalogs.read(catalogs.TEMPLATE) if m.id}
    found = catalogs._language_problems("fi", template)
    assert "fi: no translation of 'Game started'" in found
    assert any("{raha}" in line and "placeholders" in line for line in found)
    assert any("not messages.po compiled" in line for line in found)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_text_pictures_name_every_building_apart(lang):
    """A city's text picture names a building in three letters: in every
    language the fifteen types of the combined game stay apart (Finnish chambers and
    residential area both began 'asui' once)."""
    say = Speaker(lang)
    shorts = [say.short(t) for t in terms.PLURALS]
    assert len(set(shorts)) == len(shorts), shorts


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_cell_of_a_text_picture_keeps_the_building_and_its_value_apart(lang):
    """Issue 34.4: a building's three letters are the translator's, not a cut word (Greek
    "στοέ" is none), and a space parts them from a two-digit value ("torn11" read as one
    word)."""
    say = Speaker(lang)
    for type_ in terms.PLURALS:
        tile = {"id": "A01", "type": type_, "value": 11, "x": 0, "y": 0}
        label = city.picture([tile], lambda t: say.short(t["type"]))[3]
        assert re.search(r"\w{1,3} 11", label), label
    assert "στοέ" not in say.short("arcades")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_commands_are_words_of_their_own(lang):
    """A reply's command words, in every language: four different words, none of them a
    move (the notation is one notation everywhere)."""
    words = [i18n.say(said, lang) for said in replies.COMMANDS.values()]
    assert len(set(words)) == 4 and all(" " not in w for w in words)
    for word in words:
        with pytest.raises(ValueError):
            parse_move(word)
        assert replies.read([word]).kind in replies.COMMANDS


@pytest.mark.parametrize(("lang", "one", "few", "many"), [
    ("en", "1 card", "3 cards", "5 cards"),
    ("ru", "1 карта", "3 карты", "5 карт"),
    ("fi", "1 kortti", "3 korttia", "5 korttia"),
    ("el", "1 κάρτα", "3 κάρτες", "5 κάρτες"),
    ("da", "1 kort", "3 kort", "5 kort"),
])
def test_plural_forms_are_each_languages(lang, one, few, many):
    said = [i18n.say(nmsg("{n} card", "{n} cards", n), lang) for n in (1, 3, 5)]
    assert said == [one, few, many]
    assert i18n.say(nmsg("{n} card", "{n} cards", 21), "ru") == "21 карта"
    assert i18n.say(nmsg("{n} card", "{n} cards", 11), "ru") == "11 карт"


def test_dates_durations_and_lists_in_each_language():
    deadline, now = datetime(2026, 3, 5, 18, 0, tzinfo=UTC), datetime(2026, 3, 2, 18, 0,
                                                                       tzinfo=UTC)
    said = {lang: deadline_words(deadline, now, lang) for lang in i18n.LANGUAGES}
    assert said == {"en": "in 3 days, Thursday 18:00 UTC",
                    "el": "σε 3 ημέρες, Πέμπτη 18:00 UTC",
                    "fi": "3 päivän päästä, torstaina 18.00 UTC",
                    "da": "om 3 dage, torsdag 18.00 UTC",
                    "ru": "через 3 дня, четверг 18:00 UTC"}
    assert human_duration(2 * 86400, "ru") == "2 дня" and human_duration(3600, "el") == "1 ώρα"
    sides = listing([terms.SIDES["n"], terms.SIDES["e"], terms.SIDES["s"]])
    assert [i18n.say(sides, lang) for lang in ("en", "fi", "ru")] == [
        "north, east, and south", "pohjoinen, itä ja etelä", "север, восток и юг"]


def test_every_heading_of_the_rules_page_is_translated():
    headings = [heading_text(m.group(1).strip())[1]
                for m in re.finditer(r"^#+ (.+)$", RULES.read_text(encoding="utf-8"), re.M)]
    assert headings and all(h in HEADINGS for h in headings), \
        [h for h in headings if h not in HEADINGS]


@pytest.mark.parametrize("lang", OTHERS)
def test_the_web_catalog_holds_the_pages_words_with_their_plural_categories(lang):
    catalog = i18n.web_catalog(lang)
    messages = catalog["messages"]
    assert catalog["language"] == lang and len(messages) > 250
    assert messages["building\x04garden"] == i18n.say(terms.NAMES["garden"], lang)
    forms = messages["{n} card"]
    assert set(forms) >= {"one", "other"} or set(forms) >= {"one", "few", "many"}
    assert all(isinstance(v, str) and v for v in forms.values())
    assert "Rule %(rule)s does not allow it: %(detail)s" not in messages  # mails only


def test_what_a_notation_error_expected_reads_in_russian():
    """Issue 34.4: "ожидалось номер тайла" agreed with nothing; "ожидалось:" takes any
    noun (a tile id, a coordinate, a word)."""
    with pytest.raises(NotationError) as err:
        parse_move("buy X1 pay DE5")
    said = i18n.say(err.value.message, "ru")
    assert said.startswith("столбец 5: ожидалось: номер тайла") and "ожидалось номер" not in said


def test_greek_and_finnish_words_players_tripped_on():
    """Issue 34.4: Greek names a seat without the mechanical "του/της" (every msgstr of
    the catalog), and Finnish says table talk since the last mail in its own words, not
    the calque "Pöytäpuhe edellisen viestisi jälkeen"."""
    greek = (i18n.CATALOGS / "el" / "LC_MESSAGES" / "messages.po").read_text()
    assert not re.search(r"(του|της)/(του|της)", greek)
    fi = i18n.translations("fi").gettext("Table talk since your last mail:")
    assert fi == "Uudet viestit edellisen sähköpostisi jälkeen:"
    assert "Pöytäpuhe" not in fi
