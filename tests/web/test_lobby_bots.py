"""The lobby's create form with bot seats and public games (issue 26), in Chromium: a
game of one person and two bots (greedy, strong) starts at once with the bots seated;
a public game's open seat is joined without a code, by name or with one click when
signed in on /me."""

from __future__ import annotations

from service.players import sign_in_code

from .conftest import watch_errors


def lobby(server, context):
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/")
    page.wait_for_selector("#seats .seat")
    return page, errors


def game_of(server, page) -> dict:
    link = page.locator("#created a.seat-link").first.get_attribute("href")
    return server.call(f"/games/{link.split('/play/')[1].split('#')[0]}")


def test_bot_seats_from_the_lobby(server, new_context):
    page, errors = lobby(server, new_context())
    page.select_option("#variant", "alhambra")
    page.fill("#players", "3")
    page.dispatch_event("#players", "change")
    page.fill("#seats [data-seat='0'] [name=name]", "Ann")
    page.select_option("#seats [data-seat='1'] [name=bot]", "greedy")
    assert page.locator("#seats [data-seat='1'] [name=email]").is_hidden()
    page.select_option("#seats [data-seat='2'] [name=bot]", "strong")
    page.fill("#seats [data-seat='2'] [name=name]", "Deep Blue")
    page.select_option("#time", "86400")
    page.click("#create button[type=submit]")
    page.wait_for_selector("#created a.seat-link")
    assert page.locator("#created a.seat-link").count() == 1  # only Ann has a link
    game = game_of(server, page)
    seats = game["seats"]
    assert [s["bot"] for s in seats] == [None, "greedy", "strong"]
    assert seats[2]["name"] == "Deep Blue" and seats[0]["name"] == "Ann"
    assert game["status"] == "active" and game["time_per_move"] == 86400
    page.click("#created a.seat-link")  # Ann's page opens, the game under way
    page.wait_for_selector("#status")
    assert errors == []


def test_a_public_game_joined_by_name_and_with_one_click(server, new_context):
    host, errors = lobby(server, new_context())
    host.fill("#players", "3")
    host.dispatch_event("#players", "change")
    host.fill("#seats [data-seat='0'] [name=name]", "Host")
    host.check("#seats [data-seat='1'] [name=open]")
    host.check("#seats [data-seat='2'] [name=open]")
    host.check("#public")
    host.click("#create button[type=submit]")
    host.wait_for_selector("#created a.seat-link")
    game_id = game_of(server, host)["game_id"]
    assert game_of(server, host)["public"] is True

    stranger, errors2 = lobby(server, new_context())
    form = f"form.join[data-game='{game_id}']"
    stranger.wait_for_selector(form)
    assert stranger.locator(f"{form} [name=invite_code]").count() == 0
    assert stranger.locator(f"{form} .join-signed-in").count() == 0  # not signed in
    stranger.fill(f"{form} [name=name]", "Stranger")
    stranger.click(f"{form} button[type=submit]")
    stranger.wait_for_selector("#joined a.seat-link")

    # a signed-in player (its token kept by /me on this browser) joins with one click
    ctx = new_context()
    players = server.app.extensions["alhambra_players"]
    request = players.request_sign_in("oneclick@example.org")
    code = sign_in_code(server.app.extensions["alhambra"].secret_key, request.id)
    me = ctx.new_page()
    me.goto(f"{server.url}/me#code={code}")
    me.wait_for_selector("#mine:not([hidden])")
    signed, errors3 = lobby(server, ctx)
    signed.wait_for_selector(f"{form} .join-signed-in")
    signed.click(f"{form} .join-signed-in")
    signed.wait_for_selector("#joined a.seat-link")
    doc = server.call(f"/games/{game_id}")
    assert doc["status"] == "active"
    assert [s["name"] for s in doc["seats"]] == ["Host", "Stranger", "oneclick"]
    stranger.reload()  # in play now: listed to watch
    stranger.wait_for_selector(f"#playing li[data-game='{game_id}'] a[href='/play/{game_id}']")
    assert errors == errors2 == errors3 == []
