"""The replay page in Chromium: a finished game stepped to its 2nd scoring and to its end,
each shown table checked against the engine's state at that version; a private game and
a running one seen by whom they may be."""

from __future__ import annotations

import random

import engine
from engine.bots import random_move
from engine.record import export_record
from tests.engine.helpers import play_random

from .conftest import watch_errors


def shown(page) -> dict:
    """What the page draws: the step, scores, every city's tiles, the market, the money."""
    return page.evaluate("""() => ({
      step: Number(document.getElementById('step').dataset.step),
      version: Number(document.getElementById('step').dataset.version),
      scoring: document.getElementById('moment').dataset.scoring,
      scores: [...document.querySelectorAll('#table .scores tbody .score')]
        .map((td) => Number(td.textContent)),
      cities: [...document.querySelectorAll('#cities figure')].map((f) =>
        [...f.querySelectorAll('[data-cell]')].map((c) =>
          [c.querySelector('[data-tile]').dataset.tile, c.dataset.cell]).sort()),
      market: [...document.querySelectorAll('#table [data-space]')].map((s) =>
        [...s.querySelectorAll('[data-tile]')].map((t) => t.dataset.tile)),
      display: document.querySelector('#table [data-display]').dataset.display,
    })""")


def expected(state: engine.State) -> dict:
    view = engine.view(state)
    return {
        "scores": [s["score"] for s in view["seats"]],
        "cities": [sorted([t["id"], f"{t['x']},{t['y']}"] for t in s["city"])
                   for s in view["seats"]],
        "market": [[t["id"] for t in space["tiles"]] for space in view["market"]],
        "display": ",".join(view["display"]),
    }


def test_stepping_a_finished_game_to_its_2nd_scoring_and_to_its_end(server, new_context):
    state, events = play_random(23, 4)
    game_id = server.call("/records", export_record(events, state))["game_id"]
    page = new_context().new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/replay/{game_id}")  # no token: a finished game is anyone's
    page.wait_for_selector("body[data-ready]")
    assert shown(page)["step"] == 0
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    at = shown(page)
    assert at["step"] == 3
    assert {k: at[k] for k in expected(state)} == \
        expected(engine.replay(events[:at["version"]]))
    page.keyboard.press("ArrowLeft")
    assert shown(page)["step"] == 2

    page.keyboard.press("PageDown")  # the 1st scoring
    assert shown(page)["scoring"] == "1"
    page.click("#scorings [data-scoring='2']")
    at = shown(page)
    assert at["scoring"] == "2"
    assert page.locator("#scorings [data-scoring='2'][aria-current=step]").count() == 1
    at_scoring = engine.replay(events[:at["version"]])
    assert at_scoring.scorings_done == 2
    assert {k: at[k] for k in expected(state)} == expected(at_scoring)
    assert "2nd scoring" in page.inner_text("#moment")
    # the move before the scoring: its points are not there yet
    page.keyboard.press("ArrowLeft")
    before = shown(page)
    assert before["scores"] == expected(engine.replay(events[:before["version"]]))["scores"]
    assert before["scores"] != at["scores"]

    page.keyboard.press("End")
    at = shown(page)
    assert at["version"] == len(events) and at["step"] == sum("move" in e for e in events)
    assert {k: at[k] for k in expected(state)} == expected(state)
    assert "Final scores" in page.inner_text("#table h2")
    assert errors == []


def test_a_private_game_and_a_running_one(server, new_context):
    games = server.app.extensions["alhambra"]
    private = server.call("/games", {"seats": [{"name": "Ann"}, {"name": "Bob"}],
                                     "replay_public": False})
    rng = random.Random(3)
    while games.game(private["game_id"]).status != "over":
        game = games.game(private["game_id"])
        st = games.state(game.id)
        games.submit(game, st.current, [random_move(st, st.current, rng)], st.version,
                     None)
    page = new_context().new_page()
    page.goto(f"{server.url}/replay/{private['game_id']}")
    page.wait_for_selector("#status:has-text('cannot be replayed')")
    assert "private" in page.inner_text("#status")
    ann = private["seats"][0]["token"]
    page.goto(f"{server.url}/replay/{private['game_id']}#token={ann}")
    page.reload()
    page.wait_for_selector("body[data-ready]")

    running = server.call("/games", {"seats": [{"name": "Cy"}, {"name": "Di"}]})
    page = new_context().new_page()
    page.goto(f"{server.url}/replay/{running['game_id']}")
    page.wait_for_selector("#status:has-text('from a seat')")
    assert page.locator("#controls").is_hidden()
    di = running["seats"][1]["token"]
    page.goto(f"{server.url}/replay/{running['game_id']}#token={di}")
    page.reload()
    page.wait_for_selector("body[data-ready]")
    hand = engine.view(games.state(running["game_id"]), 1)["seats"][1]["hand"]
    row = page.locator("#table .scores tbody tr[data-seat='1']").inner_text()
    assert hand and all(card[2:] in row for card in hand)
    assert "cards" in page.locator("#table .scores tbody tr[data-seat='0']").inner_text()
