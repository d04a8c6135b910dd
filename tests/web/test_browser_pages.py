"""The lobby, refusals, the phone layout, the keyboard and the offline docs, in Chromium."""

from __future__ import annotations

import json
import random
import re
import threading
import time

from .conftest import screenshot, watch_errors
from .driver import choose, plan_move, send_plan, version, wait_version_after


def test_create_a_game_in_the_lobby_join_the_open_seat_and_play(server, new_context):
    host = new_context().new_page()
    errors = watch_errors(host)
    urls: list[str] = []
    host.on("request", lambda r: urls.append(r.url))
    host.goto(server.url + "/")
    host.select_option("#variant", "granada")
    host.fill("#players", "2")
    host.dispatch_event("#players", "change")
    host.fill("#seats [data-seat='0'] [name=name]", "Ann")
    host.check("#seats [data-seat='1'] [name=open]")
    host.check("#options [name=simple_scoring]")
    host.select_option("#time", "86400")
    host.click("#create button[type=submit]")
    link = host.locator("#created a.seat-link")
    ann_url = link.get_attribute("href")
    invite = host.locator("#created code.invite").inner_text()
    game_id = ann_url.split("/play/")[1].split("#")[0]
    summary = server.call(f"/games/{game_id}")
    assert summary["variant"] == "granada" and summary["options"]["simple_scoring"] is True
    assert summary["time_per_move"] == 86400 and summary["status"] == "open"

    host.goto(ann_url)  # Ann waits on her page; it starts by itself when Bob joins
    host.wait_for_selector("text=Waiting for 1 more player")

    guest = new_context().new_page()
    errors_guest = watch_errors(guest)
    guest.goto(server.url + "/")
    form = guest.locator(f"form.join[data-game='{game_id}']")
    form.locator("[name=invite_code]").fill(invite)
    form.locator("[name=name]").fill("Bob")
    form.locator("button[type=submit]").click()
    bob_url = guest.locator("#joined a.seat-link").get_attribute("href")
    assert f"/play/{game_id}#token=" in bob_url

    host.wait_for_selector("#me [data-cell]")  # told by the stream: the game started
    guest.goto(bob_url)
    guest.wait_for_selector("#me [data-cell]")
    pages = [host, guest]
    acting = next(p for p in pages if p.locator("[data-your-turn]").count())
    before = version(acting)
    choose(acting, random.Random(1))
    wait_version_after(acting, before)
    token = ann_url.split("#token=")[1]
    assert not [u for u in urls if token in u]  # the token never travels in a URL
    assert errors == [] and errors_guest == []


def two_seat_game(server):
    created = server.call("/games", {"variant": "alhambra",
                                     "seats": [{"name": "Ann"}, {"name": "Bob"}]})
    seat = created["game"]["current_seat"]
    return created, created["seats"][seat]["join_url"]


def test_a_stale_page_says_the_game_moved_on_and_shows_it_again(server, new_context):
    """Two tabs of the seat to move; one plays; the other (its live stream held up) sends a
    move against the version it shows: 409, it says why and shows the game again."""
    created, url = two_seat_game(server)
    first, second = new_context().new_page(), new_context().new_page()
    second.route(re.compile(r"/games/\w+/stream"), lambda route: route.abort())
    for page in (first, second):
        page.goto(url)
        page.wait_for_selector("[data-your-turn]")
    stale = version(second)
    plan_move(first.locator("#market [data-move^='take']").first)
    send_plan(first)
    wait_version_after(first, stale)
    second.click("#market [data-move^='take']")
    second.wait_for_selector("#notice.warn")
    assert "moved on" in second.locator("#notice").inner_text()
    assert version(second) == version(first) > stale


def test_a_refused_move_shows_the_rule_sentence(server, new_context):
    """The server's problem+json for a move the rules forbid (here: the click's move is
    changed on its way into one the rules refuse, A-3.1) is shown with its rule."""
    created, url = two_seat_game(server)
    page = new_context().new_page()

    def tamper(route):
        body = json.loads(route.request.post_data)
        body["move"] = "take 1,2,3,4"
        route.continue_(post_data=json.dumps(body))

    page.route(re.compile(r"/games/\w+/moves$"), tamper)
    page.goto(url)
    page.wait_for_selector("[data-your-turn]")
    before = version(page)
    plan_move(page.locator("#market [data-move^='take']").first)
    send_plan(page)
    page.wait_for_selector("#notice.error")
    notice = page.locator("#notice")
    assert "5" in notice.inner_text()
    assert notice.locator("a").get_attribute("href") == "/rules#A-3.1"
    assert version(page) == before
    assert server.call(f"/games/{created['game_id']}")["version"] == before


def test_phone_width_shows_own_city_and_hand_first_and_does_not_scroll_sideways(
        server, new_context):
    created, url = two_seat_game(server)
    page = new_context(viewport={"width": 375, "height": 740}, is_mobile=True,
                       has_touch=True).new_page()
    errors = watch_errors(page)
    page.goto(url)
    page.wait_for_selector("#me [data-cell]")
    order = page.evaluate("""() => ['me', 'actions', 'market', 'overview', 'others']
        .map(id => document.getElementById(id).getBoundingClientRect().top)""")
    assert order == sorted(order)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    assert page.locator("#others details[open]").count() == 0  # opponents collapsed
    assert page.locator("#me .hand li").count() >= 1
    screenshot(page, "alhambra-phone")
    assert errors == []


def tab_to(page, condition: str) -> None:
    """Press Tab until the focused element meets ``condition`` (JS, on ``el``)."""
    for _ in range(120):
        page.keyboard.press("Tab")
        if page.evaluate(f"(() => {{ const el = document.activeElement; return {condition}; }})()"):
            return
    raise AssertionError(f"Tab never reached: {condition}")


def test_the_keyboard_buys_and_places_a_tile(server, new_context):
    """Every control is reachable with Tab: a market tile (Enter), a payment (Enter), then a
    highlighted cell of the city, an SVG element (Space)."""
    created, _ = two_seat_game(server)
    game_id, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    for _ in range(60):  # set up (through the API): a turn where the seat can buy a tile
        game = server.call(f"/games/{game_id}")
        seat = game["current_seat"]
        moves = server.call(f"/games/{game_id}/legal-moves", token=tokens[seat])["moves"]
        if any(m["move"]["action"] == "buy" for m in moves):
            break
        take = next(m for m in moves if m["move"]["action"] == "take")
        server.call(f"/games/{game_id}/moves", {"version": game["version"],
                                                "move": take["notation"]}, tokens[seat])
    page = new_context().new_page()
    errors = watch_errors(page)
    page.goto(created["seats"][seat]["join_url"])
    page.wait_for_selector("[data-your-turn]")
    offered = page.eval_on_selector_all("#all-moves [data-move]",
                                        "els => els.map(el => el.dataset.move)")
    assert sorted(offered) == sorted(m["notation"] for m in moves)  # every legal move
    tab_to(page, "el.closest('#market') && el.dataset.select !== undefined")
    page.keyboard.press("Enter")
    tab_to(page, "(el.dataset.move || '').startsWith('buy ')")
    before = version(page)
    plan = [page.evaluate("document.activeElement.dataset.move")]

    def press(key: str) -> None:  # a move planned by the keyboard (nothing sent yet)
        page.keyboard.press(key)
        page.wait_for_selector(f"[data-plan='{len(plan)}']")

    press("Enter")
    if page.locator("#actions [data-move='end']").count():  # an exact payment: end actions
        tab_to(page, "el.dataset.move === 'end'")
        plan.append("end")
        press("Enter")
    tab_to(page, "el.closest('#me svg') && (el.dataset.move || '').includes(' at ')")
    plan.append(page.evaluate("document.activeElement.dataset.move"))
    press(" ")
    assert version(page) == before
    tab_to(page, "el.dataset.key === 'send-plan'")
    page.keyboard.press("Enter")
    wait_version_after(page, before)
    events = server.call(f"/games/{game_id}/events?since={before}")["events"]
    assert [e["event"]["move"] for e in events if "move" in e["event"]] == plan
    assert errors == []


def test_docs_and_rules_work_offline(server, new_context):
    ctx = new_context()
    outside: list[str] = []

    def only_local(route):
        if route.request.url.startswith(server.url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    ctx.route("**/*", only_local)
    page = ctx.new_page()
    errors = watch_errors(page)
    page.goto(server.url + "/docs")
    page.wait_for_selector(".opblock")
    assert page.locator(".opblock").count() >= 10
    assert page.get_by_text("/games/{game_id}/stream").count() >= 1
    page.goto(server.url + "/rules#A-4.3")
    assert page.locator("[id='A-4.3']").count() == 1
    assert outside == [] and errors == []


def test_a_page_opened_while_moves_pour_in_catches_up(server, new_context):
    """Bots may play fast: while the page reads the game and then its legal moves (here
    slowed down on the way), versions change under it; it must still show the game and
    follow it to the latest version."""
    created, _ = two_seat_game(server)
    game_id, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    page = new_context().new_page()
    errors = watch_errors(page)

    def slow(route):
        time.sleep(0.05)
        route.continue_()

    def bots():  # through the API, while the page loads
        rng = random.Random(4)
        for _ in range(150):
            game = server.call(f"/games/{game_id}")
            seat = game["current_seat"]
            moves = server.call(f"/games/{game_id}/legal-moves", token=tokens[seat])["moves"]
            move = rng.choice([m for m in moves if m["move"]["action"] == "take"] or moves)
            server.call(f"/games/{game_id}/moves", {"version": game["version"],
                                                    "move": move["notation"]}, tokens[seat])
            time.sleep(0.01)

    page.route(re.compile(r"/games/\w+/legal-moves"), slow)
    playing = threading.Thread(target=bots)
    playing.start()
    page.goto(created["seats"][0]["join_url"])
    while playing.is_alive():
        page.wait_for_timeout(50)
    final = server.call(f"/games/{game_id}")["version"]
    page.wait_for_function("v => Number(document.getElementById('version').dataset.version)"
                           " === v", arg=final)
    assert page.locator("#me [data-cell]").count() >= 1
    assert errors == []
