"""Accessibility (issue 25, point 9): axe-core (vendored under tests/web/vendor) finds no
serious or critical violation on the lobby, a seat's page and the spectator's page; the
board's SVG says each tile and each legal cell in words."""

from __future__ import annotations

from pathlib import Path

from . import positions as P
from .conftest import watch_errors
from .driver import plan_move

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"


def serious_violations(page) -> list[dict]:
    """axe-core's serious and critical findings on the page as it is now."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("async () => (await axe.run(document, "
                          "{resultTypes: ['violations']})).violations")
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [(n["target"], n["html"][:300]) for n in v["nodes"]][:5]}
            for v in found if v["impact"] in ("serious", "critical")]


def open_page(new_context, url: str, pos: P.Position | None = None, **options):
    page = new_context(bypass_csp=True, **options).new_page()  # to inject axe's script
    errors = watch_errors(page)
    page.goto(url)
    if pos is not None:
        page.wait_for_function("v => Number(document.getElementById('version')"
                               ".dataset.version) === v", arg=pos.game()["version"])
    return page, errors


def test_the_lobby_has_no_serious_violations(server, new_context):
    server.call("/games", {"variant": "granada", "seats": [{"name": "Ann"}, None]})
    page, errors = open_page(new_context, server.url + "/")
    page.wait_for_selector("#open-games form.join")
    assert serious_violations(page) == []
    assert errors == []


def test_a_seats_page_with_cells_to_choose_has_no_serious_violations(server, new_context):
    """Mid-game, a tile picked to place (highlighted cells), after a scoring, then a turn
    planned; at 1280 and 390 px. Each legal cell is named in words, each tile says its
    kind, value, walls."""
    pos = P.after_first_scoring(server)
    seat, moves = pos.until(lambda g, s, ms: any(m["move"]["action"] == "place"
                                                 and m["move"]["to"] == "city" for m in ms),
                            lambda rng, ms: P.builder(rng, [m for m in ms if m["move"]
                                                            ["action"] != "place"] or ms))
    page, errors = open_page(new_context, pos.urls[seat], pos,
                             viewport={"width": 1280, "height": 900})
    if page.locator("[data-key=place-now]").count():
        page.click("[data-key=place-now]")
    cells = page.locator("#me svg [data-cell][data-move]")
    assert cells.count() >= 1
    for label in cells.evaluate_all("els => els.map(el => el.getAttribute('aria-label'))"):
        assert label.startswith("build ") and " here, " in label and "fountain" in label
    tiles = page.locator("#me svg .cell:not(.empty)").evaluate_all(
        "els => els.map(el => el.getAttribute('aria-label'))")
    view = pos.view(seat)
    for t in view["seats"][seat]["city"]:
        if t["type"] != "start":
            words = f"{t['type'].replace('_', ' ')} {t['value']}; "
            assert any(words in label and "wall" in label for label in tiles), t
    assert serious_violations(page) == []
    plan_move(cells.first)  # a turn planned, not sent: its panel, Send and Undo
    assert page.locator("#actions [data-key=send-plan]").get_attribute("type") == "button"
    assert serious_violations(page) == []
    phone, phone_errors = open_page(new_context, pos.urls[seat], pos,
                                    viewport={"width": 390, "height": 844})
    assert serious_violations(phone) == []
    assert errors == [] and phone_errors == []


def test_the_spectators_page_has_no_serious_violations(server, new_context):
    pos = P.after_first_scoring(server, "alhambra_granada", ("Ann", "Bob", "Cy"))
    page, errors = open_page(new_context, f"{server.url}/play/{pos.game_id}", pos,
                             viewport={"width": 1280, "height": 900})
    assert page.locator("#others svg.city").count() == 3
    assert serious_violations(page) == []
    assert errors == []
