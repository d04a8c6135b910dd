"""The play page as a board-game player meets it (issue 25): each test sets up a position
through the API (tests/web/positions.py) and checks one thing on the page, in Chromium."""

from __future__ import annotations

import math
import re

from . import positions as P
from .conftest import watch_errors
from .driver import plan_move, send_plan, version, wait_version_after

WIDE = {"width": 1280, "height": 900}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def open_page(new_context, pos: P.Position, seat: int | None, **options):
    """The seat's page (None: the spectator's), once it shows the position's version."""
    page = new_context(**({"viewport": WIDE} | options)).new_page()
    errors = watch_errors(page)
    page.goto(pos.urls[seat] if seat is not None else
              f"{pos.server.url}/play/{pos.game_id}")
    page.wait_for_function("v => Number(document.getElementById('version').dataset.version)"
                           " === v", arg=pos.game()["version"])
    return page, errors


def test_a3c_after_an_exact_purchase_act_again_or_place_now(server, new_context):
    """Point 1: the bought tile is not picked for the player; the page offers acting again
    and placing now, and says that placing ends the actions (Decision A-3c)."""
    pos, seat, tile = P.after_exact_purchase(server)
    page, errors = open_page(new_context, pos, seat)
    choice = page.locator("#actions [data-exact-choice]")
    assert "A-3c" in choice.inner_text() and "ends your actions" in choice.inner_text()
    assert choice.locator("a[href='/rules#A-3c']").count() == 1
    assert page.locator("#me [data-cell][data-move]").count() == 0  # no cell offered yet
    assert page.locator("#market [data-move^='take']").count() > 0  # acting again is open
    page.focus("#actions [data-key=place-now]")
    page.keyboard.press("Enter")
    cells = page.locator(f"#me [data-cell][data-move^='place {tile} at']")
    cells.first.wait_for()
    before = version(page)
    plan_move(cells.first)
    send_plan(page)
    wait_version_after(page, before)
    events = pos.server.call(f"/games/{pos.game_id}/events?since={before}")["events"]
    assert {"tile_placed", "actions_ended"} <= {e["event"]["type"] for e in events}
    assert errors == []


def test_c3_a_tile_without_a_cell_says_why_and_offers_the_reserve(server, new_context):
    """Point 2: a first Granada tile beside the fountain alone fits nowhere (C-3): the page
    says so with the rule and the engine's sentence, and offers the reserve."""
    pos, seat, tile = P.granada_tile_without_cell(server)
    page, errors = open_page(new_context, pos, seat)
    why = page.locator(f"#actions [data-no-cell='{tile}']")
    text = why.inner_text()
    assert "fits no free cell" in text and "wall and a moat" in text and "C-3" in text
    assert why.locator("a").get_attribute("href") == "/rules#C-3"
    assert "highlighted cell" not in page.locator("#actions").inner_text()
    assert page.locator("#me [data-cell][data-move]").count() == 0
    before = version(page)
    plan_move(page.locator(f"#actions [data-move='place {tile} reserve']"))
    send_plan(page)
    wait_version_after(page, before)
    assert tile in [t["id"] for t in pos.game()["view"]["seats"][seat]["reserve"]]
    assert errors == []


def test_a_tile_one_cannot_afford_says_why_and_redesigns_are_marked_without_hover(
        server, new_context):
    """Point 3: clicking a market tile beyond one's money says its price and the money held
    in its currency; city tiles that can be redesigned are marked without a hover."""
    pos, seat = P.with_city_and_reserve(server)
    page, errors = open_page(new_context, pos, seat, has_touch=True)
    view = pos.view(seat)
    button = page.locator("#market [data-unaffordable]").first
    tile_id = button.get_attribute("data-unaffordable")
    space = next(s for s in view["market"] if any(t["id"] == tile_id for t in s["tiles"]))
    tile = next(t for t in space["tiles"] if t["id"] == tile_id)
    code = {"denar": "DE", "dirham": "DI", "ducat": "DU", "florin": "FL"}[space["currency"]]
    held = sum(int(c[2:]) for c in view["seats"][seat]["hand"] if c.startswith(code))
    button.click()
    notice = page.locator("#notice.warn").inner_text()
    assert f"it costs {tile['value']} {space['currency']}s" in notice
    assert f"you hold {held} in {space['currency']}s" in notice
    assert page.locator("#notice a, #actions [data-move^='buy ']").count() == 0  # nothing bought
    marked = page.locator("#me svg .cell.pick")
    assert marked.count() >= 1
    page.mouse.move(0, 0)
    stroke = marked.first.locator(".mark").evaluate("el => getComputedStyle(el).stroke")
    assert stroke not in ("none", "")
    assert marked.first.locator(".pick-badge").count() == 1
    assert errors == []


NOTATION = re.compile(r"\b(DE|DI|DU|FL)[1-9]\b|\b[AG]\d\d\b|\bversion\b")


def test_words_not_notation_rounds_and_no_versions(server, new_context):
    """Point 4: the history and the answer to a move are said in words (engine/describe.py),
    the header shows the round players count, and no version number is in sight."""
    pos, seat, _ = P.after_a_city_placement(server)
    game = pos.game()
    page, errors = open_page(new_context, pos, game["current_seat"])
    history = page.locator("#history").inner_text()
    assert "placed" in history and "of the fountain" in history and "was dealt" in history
    assert not NOTATION.search(history), history
    assert page.locator("#version").is_hidden()
    rounds = math.ceil(game["view"]["turn"] / 2)
    assert page.locator("#turn").inner_text() == f"Round {rounds}"
    assert not NOTATION.search(page.locator("header").inner_text())
    before = version(page)
    plan_move(page.locator("#market [data-move^='take']").first)
    send_plan(page)
    wait_version_after(page, before)
    said = page.locator("#notice.ok").inner_text()
    assert said.startswith("Done: ") and " took " in said and not NOTATION.search(said), said
    assert errors == []


def test_the_last_turn_is_marked_on_the_city_and_told(server, new_context):
    """Point 5: the cell built in the last turn is marked in that city (and named so), the
    tile bought and the lines of the turn are shown above the city."""
    pos, builder_seat, at = P.after_a_city_placement(server)
    page, errors = open_page(new_context, pos, None)
    cell = page.locator(f"#others [data-seat='{builder_seat}'] [data-cell='{at[0]},{at[1]}']")
    assert cell.get_attribute("data-last") == "true"
    assert "placed last turn" in cell.get_attribute("aria-label")
    assert page.locator("svg [data-last]").count() == 1
    last = page.locator("#last")
    name = ["Ann", "Bob"][builder_seat]
    assert last.locator("h2").inner_text() == f"Last turn: {name}"
    assert f"{name} placed" in last.inner_text()
    assert errors == []


def test_a_scoring_is_summed_up_per_building_type_and_player(server, new_context):
    """Point 5: after a scoring, its points per building type and longest wall, per player,
    with totals; they are the points_awarded events the API serves (A-5)."""
    pos = P.after_first_scoring(server)
    page, errors = open_page(new_context, pos, 0)
    table = page.locator("#scoring details[data-scoring='1'][open] table.scoring")
    events = [e["event"] for e in pos.server.call(f"/games/{pos.game_id}/events")["events"]
              if e["event"]["type"] == "points_awarded" and e["event"]["scoring"] == 1]
    assert events
    for seat in (0, 1, "neutral"):
        want = sum(e["points"] for e in events if e["seat"] == seat)
        got = table.locator(f"tfoot td[data-seat='{seat}']").get_attribute("data-points")
        assert int(got) == want, (seat, got, want)
    rows = table.locator("tbody th").all_inner_texts()
    kinds = {e["building"] for e in events if e["building"]}
    plurals = {"pavilion": "pavilions", "seraglio": "seraglios", "arcades": "arcades",
               "chambers": "chambers", "garden": "gardens", "tower": "towers"}
    assert {plurals[k] for k in kinds} <= {r.strip() for r in rows}
    if any(e["kind"] == "wall" for e in events):
        assert "the longest wall" in {r.strip() for r in rows}  # as the mails say it
    assert errors == []


def test_g3_the_flip_preview_shows_the_chosen_face(server, new_context):
    """Point 6: choosing "Flip" shows the tile on its other face, and the cells say so."""
    pos, seat, tile = P.flippable(server)
    page, errors = open_page(new_context, pos, seat)
    if page.locator("[data-key=place-now]").count():
        page.click("[data-key=place-now]")
    info = next(t for t in pos.view(seat)["pending"] if t["id"] == tile)
    pending = page.locator(f"#me .pending [data-select='{tile}'] .tile")
    assert pending.get_attribute("data-type") == info["type"]
    page.click("#actions [data-key=face-flip]")
    pending = page.locator(f"#me .pending [data-select='{tile}'] .tile")
    assert pending.get_attribute("data-type") == info["other_side"]["type"]
    assert pending.locator(".tile-price").text_content() == str(info["other_side"]["value"])
    pays = page.locator("#actions [data-key^='pay-']")
    if pays.count() and pays.first.get_attribute("aria-pressed") == "false":
        pays.first.click()  # the flip's payment (G-3)
    assert page.locator(f"#me .pending [data-select='{tile}'] .tile").get_attribute(
        "data-type") == info["other_side"]["type"]
    other = info["other_side"]["type"].replace("_", " ")
    labels = page.eval_on_selector_all("#me [data-cell][data-move]",
                                       "els => els.map(el => el.getAttribute('aria-label'))")
    assert labels and all(other in label for label in labels)
    assert errors == []


def test_the_page_looks_like_the_game_and_is_tappable_on_a_phone(server, new_context):
    """Point 10 (and 7: symbol and name on every tile): tiles drawn with their kind's
    symbol, price and name, walls as dark edges; the market as four currency spaces,
    money as cards of their currency; the city large in the middle; at 390 px nothing
    scrolls sideways and every control is at least 40 px."""
    pos = P.after_first_scoring(server, "alhambra_granada", ("Ann", "Bob", "Cy"))
    view = pos.view(0)
    page, errors = open_page(new_context, pos, 0)
    city = view["seats"][0]["city"]
    shown = page.locator("#me svg.city .tile")
    assert shown.count() == len(city)
    for t in city:
        g = page.locator(f"#me svg.city .tile[data-tile='{t['id']}']")
        if t["type"] == "start":
            continue
        assert g.locator(f".symbol[data-symbol='{t['type']}']").count() == 1
        assert g.locator(".tile-price").text_content() == str(t["value"])
        name = "".join(g.locator(".tile-name").all_text_contents()).strip()
        assert name.lower() == t["type"].replace("_", " ")
    walls = sum(len(t.get("walls", [])) for t in city)
    moats = sum(len(t.get("moats", [])) for t in city)
    assert page.locator("#me svg.city line.wall").count() == walls
    assert page.locator("#me svg.city line.moat").count() == moats
    assert page.locator("#market .space").count() == 4
    for code in ("DE", "DI", "DU", "FL"):
        assert page.locator(f"#market .space-{code}").count() == 1
    hand = view["seats"][0]["hand"]
    assert page.locator("#me .hand .card").count() == len(hand)
    for c in set(hand):
        assert page.locator(f"#me .hand .card-{c[:2]}").count() == sum(
            1 for x in hand if x[:2] == c[:2])
    boxes = page.evaluate("""() => Object.fromEntries(['market', 'me', 'overview'].map(id =>
        [id, document.getElementById(id).getBoundingClientRect().toJSON()]))""")
    assert boxes["market"]["right"] <= boxes["me"]["left"]
    assert boxes["me"]["right"] <= boxes["overview"]["left"]  # the others beside it
    # the player's city is drawn large (a 64 px cell drawn 1.3 x), or as wide as its
    # column when it sprawls, never with cells under 44 px (it scrolls then); the others'
    # cities small (0.75 x)
    cities = page.evaluate("""() => [...document.querySelectorAll('#me svg.city,'
                                                           + ' #others svg.city')]
        .map(svg => {
          const box = svg.parentElement, style = getComputedStyle(box);
          const width = svg.getBoundingClientRect().width;
          return {mine: Boolean(svg.closest('#me')), width,
                  cell: width * 64 / svg.viewBox.baseVal.width,
                  column: box.clientWidth - parseFloat(style.paddingLeft)
                          - parseFloat(style.paddingRight)};
        })""")
    mine = next(c for c in cities if c["mine"])
    theirs = [c for c in cities if not c["mine"]]
    assert theirs and all(c["cell"] <= 0.75 * 64 + 0.5 for c in theirs), theirs
    assert mine["cell"] >= 44, mine
    assert mine["cell"] >= 1.3 * 64 - 0.5 or mine["width"] >= mine["column"] - 1, mine

    phone, phone_errors = open_page(new_context, pos, 0, **PHONE)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    small = phone.evaluate("""() => [...document.querySelectorAll(
        '#me button, #me [role=button], #market button, #actions button')]
        .map(el => el.getBoundingClientRect())
        .filter(r => r.width < 40 || r.height < 40).length""")
    assert small == 0
    assert errors == [] and phone_errors == []
