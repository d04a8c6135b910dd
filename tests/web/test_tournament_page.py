"""A tournament's page and the lobby's tournaments (issue 36, "where players see it"), in
Chromium: a tournament made and played through the API by scripted players shows its
tables with working links to their games and its standings; the lobby lists the open
ones and those in play; a signed-in account enters and withdraws from the page, the
organiser starts it; axe finds no serious violation. Screenshots go to /work/shots when
that folder exists (the closing note's)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.service.test_tournaments import finish, run_tournament_rows
from tests.support import auth, signed_in

from .conftest import watch_errors
from .test_a11y import serious_violations

SHOTS = Path("/work/shots")
TOKEN = "alhambra-player-token"


@pytest.fixture(scope="module")
def ctx(server):
    from workers.context import Context

    c = Context(server.app.extensions["alhambra_settings"])
    yield c
    c.close()


def accounts(server, prefix: str, n: int) -> dict[str, str]:
    """``n`` accounts with handles ``prefix``1…: handle → session token."""
    out = {}
    for i in range(1, n + 1):
        handle = f"{prefix}{i}"
        token = signed_in(server.app, f"{handle}@example.org")
        r = server.app.test_client().patch("/me", json={"handle": handle},
                                           headers=auth(token))
        assert r.status_code == 200, r.get_json()
        out[handle] = token
    return out


def post(server, path: str, token: str, body: dict | None = None) -> dict:
    r = server.app.test_client().post(path, json=body or {}, headers=auth(token))
    assert r.status_code in (200, 201), r.get_json()
    return r.get_json()


def doc(server, tid: str) -> dict:
    return server.call(f"/tournaments/{tid}")


def swiss_after_one_round(server, ctx, prefix: str) -> tuple[dict, dict[str, str]]:
    """A Swiss of 7 at tables of 3 (no smaller: a bye), 2 rounds: its first round played
    out, the second paired and in play. The document, and the tokens (the organiser
    last)."""
    tokens = accounts(server, prefix, 8)
    organiser = tokens[f"{prefix}8"]
    t = post(server, "/tournaments", organiser, {
        "name": f"{prefix.upper()} Spring Cup", "variant": "alhambra", "format": "swiss",
        "table_size": 3, "least_size": 3, "rounds": 2, "seed": 11,
        "time_per_move": 86400})
    for token in tokens.values():
        if token != organiser:
            post(server, f"/tournaments/{t['id']}/entries", token)
    post(server, f"/tournaments/{t['id']}/start", organiser)
    games = server.app.extensions["alhambra"]
    rng = random.Random(3)
    for table in doc(server, t["id"])["rounds"][0]["tables"]:
        finish(games, table["game_id"], rng)
        assert run_tournament_rows(ctx, table["game_id"])
    got = doc(server, t["id"])
    assert got["status"] == "running" and got["round"] == 2
    return got, tokens


def signed_in_page(server, new_context, token: str | None, **options):
    """A page of a browser where ``token``'s account is signed in (as /me leaves it)."""
    ctx = new_context(**options)
    if token:
        ctx.add_init_script(f"localStorage.setItem('{TOKEN}', '{token}')")
    page = ctx.new_page()
    return page, watch_errors(page)


def shot(target, name: str, **options) -> None:
    if SHOTS.is_dir():
        target.screenshot(path=str(SHOTS / f"{name}.png"), **options)


def test_the_page_shows_the_tables_with_their_games_and_the_standings(server, ctx,
                                                                       new_context):
    t, _ = swiss_after_one_round(server, ctx, "sw")
    page, errors = signed_in_page(server, new_context, None, bypass_csp=True,
                                  viewport={"width": 1280, "height": 900})
    page.goto(f"{server.url}/tournament/{t['id']}?lang=en")
    page.wait_for_selector("#standings tbody tr")
    assert page.locator("h1").inner_text() == "SW Spring Cup"
    assert page.title() == "SW Spring Cup · tournament · alhambra-pbem"
    facts = page.locator("#facts").inner_text()
    for words in ("sw8", "Alhambra", "Swiss by tables", "in play", "2 of 2", "7 entrants",
                  "3 players", "1 day per move"):
        assert words in facts, (words, facts)
    # the schedule, the latest round first: each table, its players in seat order, a
    # link to its game; the first round's scores
    for rnd in t["rounds"]:
        section = page.locator(f"#rounds section[data-round='{rnd['round']}']")
        assert section.locator("h3").inner_text().startswith(f"Round {rnd['round']}")
        rows = section.locator("tbody tr")
        assert rows.count() == len(rnd["tables"])
        for row, table in zip(rows.all(), rnd["tables"], strict=True):
            assert row.get_attribute("data-game") == table["game_id"]
            link = row.locator("a.game-link")
            assert link.get_attribute("href") == f"/play/{table['game_id']}"
            seats = row.locator("ol.seats li")
            assert seats.evaluate_all("els => els.map(el => el.dataset.handle)") == \
                table["players"]
            if table["scores"] is not None:
                assert [int(x) for x in row.locator(".score").all_inner_texts()] == \
                    table["scores"]
            else:
                assert row.locator(".score").count() == 0
        assert len(rnd["byes"]) == 1
        assert section.locator(".byes").inner_text() == f"Byes: {rnd['byes'][0]} (0.5 points each)"
    assert page.locator("#rounds section.round").first.get_attribute("data-round") == "2"
    # the standings, row by row as the API has them
    rows = page.locator("#standings tbody tr")
    assert rows.count() == len(t["standings"]) == 7
    for row, s in zip(rows.all(), t["standings"], strict=True):
        cells = row.locator("th, td:not([hidden])").all_inner_texts()
        points = f"{s['points']:.2f}".rstrip("0").rstrip(".")
        opponents = f"{s['opponents']:.2f}".rstrip("0").rstrip(".")
        assert cells == [str(s["rank"]), s["handle"], points, str(s["score"]), opponents,
                         str(s["played"]), str(s["byes"])], (cells, s)
    assert page.locator("#standings caption").inner_text() == \
        "Standings while round 2 is played (its byes counted)"
    assert page.locator("#entrants li").count() == 7
    assert page.locator("#acts").inner_text() == ""  # not signed in, entries closed
    shot(page, "tournament-running", full_page=True)
    assert serious_violations(page) == []
    # on a phone: one column, nothing wider than the screen
    phone, phone_errors = signed_in_page(server, new_context, None, bypass_csp=True,
                                         viewport={"width": 375, "height": 740},
                                         is_mobile=True, has_touch=True)
    phone.goto(f"{server.url}/tournament/{t['id']}?lang=en")
    phone.wait_for_selector("#standings tbody tr")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 375
    shot(phone, "tournament-phone", full_page=True)
    assert serious_violations(phone) == []
    assert phone_errors == []
    # a table's link opens its game's page
    first = t["rounds"][0]["tables"][0]
    page.click(f"tr[data-game='{first['game_id']}'] a.game-link")
    page.wait_for_url(f"**/play/{first['game_id']}")
    page.wait_for_selector("#final:not([hidden])")  # that game is over
    assert errors == []


def test_the_lobby_lists_open_tournaments_and_those_in_play(server, ctx, new_context):
    running, _ = swiss_after_one_round(server, ctx, "lb")
    tokens = accounts(server, "op", 2)
    made = post(server, "/tournaments", tokens["op1"], {
        "name": "Open Autumn League", "variant": "granada", "format": "league",
        "table_size": 4, "rounds": 2, "cap": 12})
    post(server, f"/tournaments/{made['id']}/entries", tokens["op2"])
    page, errors = signed_in_page(server, new_context, None, bypass_csp=True,
                                  viewport={"width": 1280, "height": 900})
    page.goto(server.url + "/?lang=en")
    item = page.locator(f"#open-tournaments li[data-tournament='{made['id']}']")
    item.wait_for()
    assert item.locator("a").inner_text() == "Open Autumn League"
    assert item.locator("a").get_attribute("href") == f"/tournament/{made['id']}"
    assert [line for line in item.inner_text().split("\n") if line] == [
        "Open Autumn League · Granada",
        "League, tables of 4, 1 entrant, at most 12; organised by op1"]
    other = page.locator(f"#running-tournaments li[data-tournament='{running['id']}']")
    assert other.locator("p").inner_text() == \
        "Swiss by tables, tables of 3, 7 entrants; organised by lb8"
    assert page.locator(f"#open-tournaments li[data-tournament='{running['id']}']").count() == 0
    assert page.locator("#tournaments-title").inner_text() == "Open tournaments: enter one"
    shot(page.locator("section[aria-labelledby='tournaments-title']"), "lobby-tournaments")
    assert serious_violations(page) == []
    page.click(f"#open-tournaments li[data-tournament='{made['id']}'] a")
    page.wait_for_url(f"**/tournament/{made['id']}")
    page.wait_for_selector("#about:not([hidden])")
    assert page.locator("h1").inner_text() == "Open Autumn League"
    assert "1 entrant, at most 12" in page.locator("#facts").inner_text()
    assert page.locator("#standings-box").is_hidden()  # no rounds: no standings yet
    assert page.locator("#rounds").inner_text().startswith("No rounds yet")
    assert page.locator("#acts button").count() == 0  # not signed in: a way to sign in
    assert page.locator("#acts a").get_attribute("href") == "/me"
    # in another language: the page's words from the catalogs, the counts in its plurals
    page.goto(f"{server.url}/tournament/{made['id']}?lang=ru")
    page.wait_for_selector("#about:not([hidden])")
    facts = page.locator("#facts").inner_text()
    assert "Лига" in facts and "1 участник, не больше 12" in facts, facts
    assert page.locator("#about-title").inner_text() == "Турнир"
    assert errors == []


def test_a_signed_in_account_enters_and_withdraws_and_the_organiser_starts(server,
                                                                           new_context):
    tokens = accounts(server, "en", 3)
    t = post(server, "/tournaments", tokens["en1"], {
        "name": "Entry Cup", "variant": "alhambra", "format": "swiss", "table_size": 2,
        "rounds": 1})
    url = f"{server.url}/tournament/{t['id']}?lang=en"
    page, errors = signed_in_page(server, new_context, tokens["en2"])
    page.goto(url)
    page.click("#enter")
    page.wait_for_selector("#entrants li[data-handle='en2']")
    assert page.locator("#acts").inner_text().startswith("You are entered.")
    assert [e["handle"] for e in doc(server, t["id"])["entries"]] == ["en2"]
    assert page.locator("#start").count() == 0  # not the organiser
    page.click("#withdraw")
    page.wait_for_selector("#entrants li[data-handle='en2'].muted")
    assert doc(server, t["id"])["entries"][0]["withdrawn"] is True
    assert page.locator("#enter").inner_text() == "Enter again"
    page.click("#enter")
    page.wait_for_selector("#withdraw")
    # the organiser: Start, refused with too few entrants (the API's words), then started
    boss, boss_errors = signed_in_page(server, new_context, tokens["en1"])
    boss.goto(url)
    boss.click("#start")
    boss.wait_for_selector("#notice.error")
    assert boss.locator("#notice").inner_text() == "a tournament starts with 2 entrants at least"
    assert doc(server, t["id"])["status"] == "open"
    post(server, f"/tournaments/{t['id']}/entries", tokens["en3"])
    boss.click("#start")
    boss.wait_for_selector("#rounds section[data-round='1'] a.game-link")
    assert boss.locator("#notice").inner_text() == ""
    assert doc(server, t["id"])["status"] == "running"
    assert boss.locator("#acts button").count() == 0  # started; entries closed
    # the entrant's page, read again, shows the running round with their own table
    page.reload()
    page.wait_for_selector("#rounds tr.mine a.game-link")
    assert "(your table)" in page.locator("#rounds tr.mine th").inner_text()
    assert page.locator("#enter").count() == 0 and page.locator("#withdraw").count() == 1
    # the player's own table opens as their seat (its token from /me/games)
    link = page.locator("#rounds tr.mine a.game-link")
    game_id = link.get_attribute("href").split("/play/")[1].split("#")[0]
    assert "#token=" in link.get_attribute("href")
    link.click()
    page.wait_for_url(f"**/play/{game_id}#token=*")
    page.wait_for_selector("#me:not([hidden])")  # a seat's page: the player's own city
    assert errors == []
    assert [e for e in boss_errors if "409" not in e] == []  # the refused start's answer


def test_an_unknown_tournament_says_so(server, new_context):
    page, _ = signed_in_page(server, new_context, None)
    page.goto(f"{server.url}/tournament/tnm_0000000000000000?lang=en")
    page.wait_for_function("() => document.querySelector('h1').textContent"
                           ".includes('No such tournament')")
    assert page.locator("#about").is_hidden()
    assert "tnm_0000000000000000" in page.locator("#status").inner_text()


def test_a_signed_in_account_with_a_handle_organises_from_the_lobby(server, new_context):
    tokens = accounts(server, "og", 1)
    anon, anon_errors = signed_in_page(server, new_context, None)
    anon.goto(server.url + "/?lang=en")
    anon.wait_for_selector("#open-tournaments li")
    assert anon.locator("#organise").is_hidden()  # not signed in: nothing to organise
    assert anon_errors == []
    page, errors = signed_in_page(server, new_context, tokens["og1"])
    page.goto(server.url + "/?lang=en")
    page.click("#organise summary")
    form = page.locator("#new-tournament")
    form.locator("[name=name]").fill("Winter Round Robin")
    form.locator("[name=variant]").select_option("granada")
    form.locator("[name=format]").select_option("round_robin")
    form.locator("[name=table_size]").fill("3")
    form.locator("[name=cap]").fill("9")
    form.locator("button[type=submit]").click()
    page.wait_for_url("**/tournament/tnm_*")
    page.wait_for_selector("#about:not([hidden])")
    made = doc(server, page.url.rsplit("/", 1)[1])
    assert (made["name"], made["variant"], made["format"], made["table_size"],
            made["organiser"], made["settings"]["cap"], made["settings"]["time_per_move"]) \
        == ("Winter Round Robin", "granada", "round_robin", 3, "og1", 9, 3 * 86400)
    assert page.locator("h1").inner_text() == "Winter Round Robin"
    # a refusal (a table of 7) is said in the API's words and makes nothing
    page.goto(server.url + "/?lang=en")
    page.click("#organise summary")
    form.locator("[name=name]").fill("Too Big")
    form.locator("[name=table_size]").evaluate("el => { el.max = 9; el.value = '7'; }")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#notice.error")
    assert "a table seats 2 to 6 players" in page.locator("#notice").inner_text()
    assert "Too Big" not in [t["name"] for t in server.call("/tournaments")["tournaments"]]
    assert [e for e in errors if "422" not in e] == []


def test_the_page_follows_the_tournament_to_its_end(server, ctx, new_context):
    """Read again every little while (`?poll=1`): the last round's scores and the final
    standings appear without a reload."""
    t, _ = swiss_after_one_round(server, ctx, "lv")
    page, errors = signed_in_page(server, new_context, None,
                                  viewport={"width": 1280, "height": 900})
    page.goto(f"{server.url}/tournament/{t['id']}?lang=en&poll=1")
    page.wait_for_selector("#rounds section[data-round='2']")
    assert page.locator("#rounds section[data-round='2'] .score").count() == 0
    games = server.app.extensions["alhambra"]
    rng = random.Random(5)
    for table in t["rounds"][1]["tables"]:
        finish(games, table["game_id"], rng)
        assert run_tournament_rows(ctx, table["game_id"])
    final = doc(server, t["id"])
    assert final["status"] == "finished"
    page.wait_for_function("() => document.getElementById('facts').textContent"
                           ".includes('finished')")
    assert page.locator("#standings caption").inner_text() == "Standings after round 2"
    assert page.locator("#standings tbody th").all_inner_texts() == \
        [s["handle"] for s in final["standings"]]
    scores = page.locator("#rounds section[data-round='2'] .score").all_inner_texts()
    assert [int(x) for x in scores] == \
        [x for table in final["rounds"][1]["tables"] for x in table["scores"]]
    shot(page, "tournament-finished", full_page=True)
    assert errors == []


def test_an_invitation_only_tournament_offers_entry_to_the_invited_alone(server,
                                                                         new_context):
    tokens = accounts(server, "iv", 3)
    t = post(server, "/tournaments", tokens["iv1"], {
        "name": "Invited Cup", "variant": "alhambra", "format": "swiss", "table_size": 2,
        "rounds": 1, "invited": ["iv2"]})
    url = f"{server.url}/tournament/{t['id']}?lang=en"
    outsider, errors = signed_in_page(server, new_context, tokens["iv3"])
    outsider.goto(url)
    outsider.wait_for_selector("#facts dd")
    assert "by invitation: iv2" in outsider.locator("#facts").inner_text()
    outsider.wait_for_function("() => document.querySelector('#acts') !== null")
    assert outsider.locator("#enter").count() == 0
    guest, guest_errors = signed_in_page(server, new_context, tokens["iv2"])
    guest.goto(url)
    guest.click("#enter")
    guest.wait_for_selector("#entrants li[data-handle='iv2']")
    assert outsider.locator("#enter").count() == 0
    assert errors == [] and guest_errors == []
