"""The lobby and the page of a game that is not there (issue 25, point 8), in Chromium."""

from __future__ import annotations

from . import positions as P
from .conftest import watch_errors


def lobby(server, new_context):
    page = new_context().new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#seats .seat")
    return page, errors


def test_typing_the_players_then_a_seat_name_keeps_what_was_typed(server, new_context):
    """The seat rows are not drawn anew under the cursor: a name typed right after the
    number of players is kept, and so are names when the number changes."""
    page, errors = lobby(server, new_context)
    page.select_option("#variant", "alhambra")
    page.click("#players")
    page.keyboard.press("Control+A")
    page.keyboard.type("4")
    page.click("#seats [data-seat='3'] [name=name]")  # leaving the field: a change event
    page.keyboard.type("Zoe")
    page.click("#seats [data-seat='0'] [name=name]")
    page.keyboard.type("Ann")
    assert page.locator("#seats .seat").count() == 4
    assert page.input_value("#seats [data-seat='3'] [name=name]") == "Zoe"
    page.fill("#players", "5")
    page.dispatch_event("#players", "change")
    assert page.locator("#seats .seat").count() == 5
    assert page.input_value("#seats [data-seat='0'] [name=name]") == "Ann"
    assert page.input_value("#seats [data-seat='3'] [name=name]") == "Zoe"
    assert errors == []


def test_dirks_draw_is_offered_only_for_two_players(server, new_context):
    """A-8a: Dirk plays only in a two-player game, so his draw's option is offered then."""
    page, errors = lobby(server, new_context)
    page.select_option("#variant", "alhambra")
    cap = "#options [name=dirk_third_draw_cap]"
    page.fill("#players", "3")
    page.dispatch_event("#players", "change")
    assert page.locator(cap).count() == 0
    page.fill("#players", "2")
    page.dispatch_event("#players", "change")
    assert page.locator(cap).count() == 1
    page.check(cap)
    page.fill("#seats [data-seat='0'] [name=name]", "Ann")
    page.click("#create button[type=submit]")
    link = page.locator("#created a.seat-link").first.get_attribute("href")
    game = server.call(f"/games/{link.split('/play/')[1].split('#')[0]}")
    assert game["options"]["dirk_third_draw_cap"] is True
    assert errors == []


def test_an_unknown_game_says_so_under_its_own_heading(server, new_context):
    page = new_context().new_page()
    page.goto(server.url + "/play/0123456789abcdef")
    # a function, not an expression: Playwright polls an expression through eval, which
    # the page's Content-Security-Policy refuses when the first look finds nothing yet
    page.wait_for_function("() => document.getElementById('status').textContent"
                           ".includes('no game')")
    assert page.locator("#title").inner_text() == "No such game"
    body = page.locator("body").inner_text()
    assert "Loading" not in body and "loading" not in body
    assert page.title().startswith("No such game")


def test_counts_are_said_with_their_plural(server, new_context):
    """"1 tile", not "1 tiles" (the pages' words come from strings.js)."""
    pos, seat, _ = P.after_a_city_placement(server)  # the game's first tile in a city
    assert len(pos.game()["view"]["seats"][seat]["city"]) == 2
    page = new_context().new_page()
    errors = watch_errors(page)
    page.goto(pos.urls[1 - seat])
    summary = page.locator(f"#others details[data-seat='{seat}'] summary").inner_text()
    assert ", 1 tile in the city," in summary, summary
    said = page.evaluate("""async () => {
      const { S, cards } = await import('/assets/js/strings.js');
      return [cards(1), cards(2), S.yourMoney(1),
              S.yourCity('Ann', 1), S.stock(1, 0, 'alhambra 3', 1)];
    }""")
    assert said == ["1 card", "2 cards", "Your money (1 card)", "Your city · Ann · 1 point",
                    "Deck 1 card, discard 0; bag alhambra 3; scorings done: 1 of 3."]
    assert errors == []


def create_game(server, page, name: str) -> dict:
    """Create the game the form holds, its first seat named ``name``: the new game's
    document, read through the API."""
    page.fill("#seats [data-seat='0'] [name=name]", name)
    page.click("#create button[type=submit]")
    page.wait_for_selector("#created a.seat-link")
    link = page.locator("#created a.seat-link").first.get_attribute("href")
    return server.call(f"/games/{link.split('/play/')[1].split('#')[0]}")


def test_the_lobby_offers_the_time_control_presets(server, new_context):
    """Issue 28: the lobby's clocks are GET /time-controls' presets (and the fast times per
    move), each with or without weekends off in the browser's time zone; the create
    request sends what the chosen preset gives. The default is still 3 days per move."""
    page = new_context(timezone_id="Europe/Helsinki").new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#seats .seat")
    offered = page.locator("#time option").evaluate_all(
        "els => els.map(el => [el.value, el.textContent])")
    presets = server.call("/time-controls")["presets"]
    per_move = sorted({p["time_per_move"] for p in presets if p["time_per_move"]})
    assert [v for v, _ in offered] == ["3600", "43200", *map(str, per_move), "bank10d"]
    words = dict(offered)
    assert words["3600"] == "1 hour per move" and words["259200"] == "3 days per move"
    assert words["bank10d"] == "a bank of 10 days, +1 day a move, at most 10 days"
    assert page.input_value("#time") == "259200"
    assert "Europe/Helsinki" in page.locator("#weekends-choice").inner_text()
    page.select_option("#time", "3600")  # a fast game is played in a sitting
    assert page.locator("#weekends").is_disabled()

    # the bank with weekends off
    page.select_option("#time", "bank10d")
    page.check("#weekends")
    game = create_game(server, page, "Ann")
    assert game["time_control"] == {"bank": 10 * 86400, "increment": 86400,
                                    "cap": 10 * 86400, "days_off": ["sat", "sun"],
                                    "timezone": "Europe/Helsinki"}

    # the default: 3 days per move, no bank, no days off
    page.goto(server.url + "/")
    page.wait_for_selector("#seats .seat")
    game = create_game(server, page, "Bob")
    assert game["time_per_move"] == 3 * 86400 and game["time_control"] is None
    assert errors == []


def test_the_lobbys_clocks_in_the_pages_language(server, new_context):
    page = new_context(locale="ru-RU", timezone_id="Asia/Tokyo").new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#seats .seat")
    words = dict(page.locator("#time option").evaluate_all(
        "els => els.map(el => [el.value, el.textContent])"))
    assert words["259200"] == "3 дня на ход" and words["432000"] == "5 дней на ход"
    assert words["bank10d"] == "банк времени 10 дней, +1 день за ход, не больше 10 дней"
    assert page.locator("#weekends-choice").inner_text().strip() == \
        "выходные свободны: по субботам и воскресеньям часы стоят (Asia/Tokyo)"
    page.select_option("#time", "604800")
    page.check("#weekends")
    game = create_game(server, page, "Ann")
    assert game["time_per_move"] == 7 * 86400
    assert game["time_control"] == {"days_off": ["sat", "sun"], "timezone": "Asia/Tokyo"}
    assert errors == []
