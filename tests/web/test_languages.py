"""The pages in the reader's language (issue 24 §2), in Chromium: the browser's
languages (Accept-Language), the switcher (kept on this browser), a seat's own language on
its page (the switcher changes it for the mails too), and the API's errors and the
history's words in the page's language; the clock and a planned turn in the seat's."""

from __future__ import annotations

import re

from service import i18n

from .conftest import screenshot, watch_errors
from .driver import plan_move, planned


def heading(page) -> str:
    return page.locator("header h1").inner_text()


def test_the_lobby_follows_the_browsers_language_and_the_switcher(server, new_context):
    ctx = new_context(locale="fi-FI")  # navigator.languages and Accept-Language
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#seats .seat")
    assert page.evaluate("document.documentElement.lang") == "fi"
    assert heading(page) == "Pelaa Alhambraa ja Granadaa, siirto päivässä"
    assert page.input_value("header select.language") == "fi"
    # a seat's language defaults to the page's
    assert page.input_value("#seats [data-seat='0'] [name=language]") == "fi"
    page.select_option("header select.language", "ru")
    page.wait_for_selector("html[lang='ru'] #seats .seat")
    page.wait_for_selector("#seats .seat")
    assert heading(page) == "Играйте в Альгамбру и Гранаду, по ходу в день"
    # the choice is kept on this browser, over its languages
    again = ctx.new_page()
    again.goto(server.url + "/")
    again.wait_for_selector("#seats .seat")
    assert heading(again) == "Играйте в Альгамбру и Гранаду, по ходу в день"
    screenshot(page, "lobby-ru")
    assert errors == []


def test_an_api_error_is_shown_in_the_pages_language(server, new_context):
    created = server.call("/games", {"seats": [{"name": "Ann"}], "players": 2})
    page = new_context(locale="el-GR").new_page()
    page.goto(server.url + "/")
    form = page.locator(f"form.join[data-game='{created['game_id']}']")
    form.locator("[name=invite_code]").fill("not-the-code")
    form.locator("[name=name]").fill("Bob")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#notice:not(:empty)")
    expected = i18n.say(i18n.msg("this invite code does not open a seat of this game"), "el")
    assert page.locator("#notice").inner_text().startswith(expected)


def test_a_seats_page_speaks_its_language_and_the_switcher_changes_it(server, new_context):
    created = server.call("/games", {"seats": [{"name": "Ann", "language": "el"},
                                               {"name": "Bob", "language": "ru"}]})
    gid = created["game_id"]
    ann = created["seats"][0]
    page = new_context(locale="en-US").new_page()  # the seat's language wins
    errors = watch_errors(page)
    page.goto(ann["join_url"])
    page.wait_for_selector("ul.history li")
    assert page.evaluate("document.documentElement.lang") == "el"
    history = page.locator("ul.history").inner_text()
    assert "μοιράστηκαν" in history  # the events' words come from the API, in Greek
    assert page.locator("#history h2").inner_text() == "Ιστορικό"
    screenshot(page, "play-el")
    page.select_option("header select.language", "da")
    page.wait_for_selector("html[lang='da'] #history h2")
    page.wait_for_selector("ul.history li")
    assert page.locator("#history h2").inner_text() == "Forløb"
    assert "fik uddelt" in page.locator("ul.history").inner_text()
    seats = server.call(f"/games/{gid}")["seats"]
    assert [s["language"] for s in seats] == ["da", "ru"]  # the seat's mails follow
    assert errors == []


def test_the_rules_page_offers_every_language(server, new_context):
    page = new_context(locale="ru-RU").new_page()
    page.goto(server.url + "/rules")
    assert page.locator("h3#a-4-building-rules, h3:has-text('A-4')").first.inner_text() == \
        "A-4 Правила постройки"
    page.click("nav.languages a[hreflang='fi']")
    page.wait_for_url("**/rules?lang=fi")
    assert page.locator("h3:has-text('A-4')").first.inner_text() == "A-4 Rakentamissäännöt"


def test_the_clock_and_a_planned_turn_in_the_seats_language(server, new_context):
    """Russian (three plural forms): the seat's time left in its bank, the other seat's
    bank, and a planned turn's words and buttons."""
    created = server.call("/games", {"seats": [{"name": "Ann", "language": "ru"},
                                               {"name": "Bob", "language": "ru"}],
                                     "time_control": {"bank": 3000, "increment": 60,
                                                      "cap": 3000}})
    gid = created["game_id"]
    acting = server.call(f"/games/{gid}")["current_seat"]
    page = new_context(locale="en-US").new_page()
    errors = watch_errors(page)
    page.goto(created["seats"][acting]["join_url"])
    page.wait_for_selector("#overview [data-clock-seat]")
    assert re.fullmatch(r"Ещё 49 минут \d+ секунд[аы]? в вашем банке времени\.",
                        page.locator("#clock").inner_text())
    assert page.locator(f"#overview [data-clock-seat='{1 - acting}']").inner_text() == \
        "50 минут в банке времени"
    plan_move(page.locator("#market [data-move^='take']").first)
    assert planned(page) == 1
    assert page.locator("[data-plan] h3").inner_text() == "Спланировано, ещё не отправлено"
    assert page.locator("#actions [data-key=undo]").inner_text() == "Отменить"
    assert page.locator("#actions [data-key=send-plan]").inner_text() in (
        "Отправить ход", "Отправить эти ходы")
    assert "Ход спланирован: 1 ход, ещё не отправлен." in page.locator("#status").inner_text()
    assert errors == []


def test_a_seat_whose_mails_fail_is_told_on_its_page_and_confirms_its_address(
        server, new_context):
    """Issue 22: mails to the seat's address fail (marked by bounces): its page says so
    in its language, with the reason; the button confirms the address (mails go again)."""
    from service import times
    from service.store import MailFailure

    created = server.call("/games", {"seats": [
        {"name": "Ann", "email": "ann@example.org", "language": "fi"},
        {"name": "Bob", "email": "bob@example.org"}]})
    gid = created["game_id"]
    store = server.app.extensions["alhambra"].store
    store.mail.record_failure(MailFailure(gid, 0, "ann@example.org", "550 5.1.1 User unknown",
                                          True, times.now()), 1)
    page = new_context(locale="en-US").new_page()
    errors = watch_errors(page)
    page.goto(created["seats"][0]["join_url"])
    page.wait_for_selector("#mail-failing button")
    assert page.locator("#mail-failing").inner_text().startswith(
        "Sähköpostit tähän osoitteeseen epäonnistuvat: 550 5.1.1 User unknown")
    other = new_context(locale="en-US").new_page()  # another seat's page says nothing
    other.goto(created["seats"][1]["join_url"])
    other.wait_for_selector("ul.history li")
    assert other.locator("#mail-failing").inner_text() == ""
    page.click("#mail-failing button")
    page.wait_for_selector("#mail-failing:empty", state="attached")
    assert store.game(gid).seats[0].mail_failing is None
    assert errors == []


def test_a_granada_seats_page_says_granadas_words(server, new_context):
    """Issue 34.2: in a Granada game the Russian page calls the player's city Гранада (the
    Alhambra game's pages say Альгамбра, the rulebook's word), and no fountain."""
    for variant, own, other in (("granada", "Гранад", "Альгамбр"),
                                ("alhambra", "Альгамбр", "Гранад")):
        created = server.call("/games", {"variant": variant,
                                         "seats": [{"name": "Ann", "language": "ru"},
                                                   {"name": "Bob", "language": "ru"}]})
        page = new_context(locale="en-US").new_page()
        errors = watch_errors(page)
        page.goto(created["seats"][0]["join_url"])
        page.wait_for_selector("ul.history li")
        page.wait_for_selector("html[lang='ru']")
        text = page.locator("body").inner_text() + page.content()
        assert own in text and other not in text, (variant, text)
        assert "фонтан" not in text or variant == "alhambra"
        assert errors == []
