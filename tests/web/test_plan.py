"""A turn planned on the play page (issue 28): each click shows its result through
POST /moves/preview and records nothing, Undo steps back, Send turn submits the plan as
one submission; a game that moves on while a turn is planned is said in words, and the
turn is planned again. In Chromium, positions set up through the API."""

from __future__ import annotations

import re

from . import positions as P
from .conftest import screenshot, watch_errors
from .driver import plan_move, planned, version, wait_version_after

WIDE = {"width": 1280, "height": 900}


def open_seat(new_context, pos: P.Position, seat: int, **options):
    page = new_context(**({"viewport": WIDE} | options)).new_page()
    errors = watch_errors(page)
    page.goto(pos.urls[seat])
    page.wait_for_function("v => Number(document.getElementById('version').dataset.version)"
                           " === v", arg=pos.game()["version"])
    return page, errors


def moves_since(pos: P.Position, version: int) -> list[str]:
    events = pos.server.call(f"/games/{pos.game_id}/events?since={version}")["events"]
    return [e["event"]["move"] for e in events if "move" in e["event"]]


def take_of(pos: P.Position, seat: int) -> str:
    """A move taking money for ``seat`` (it ends the turn, A-3.1), the last one offered."""
    return [m["notation"] for m in pos.legal(seat) if m["move"]["action"] == "take"][-1]


def test_a_planned_turn_with_an_undo_then_sent(server, new_context):
    """Buy, build on a cell, undo the building, put the tile into the reserve instead,
    send: the page showed each result at once, the server recorded nothing until Send,
    then exactly the sent moves in one submission (A-3.2, A-3.4)."""
    pos = P.new_game(server, "alhambra", ["Ann", "Bob"])

    def placeable(game, seat, moves) -> str | None:
        """A tile the seat may buy and then build on a cell of its city (not every tile
        fits one: A-4)."""
        for m in moves:
            if m["move"]["action"] == "buy":
                after = server.call(f"/games/{pos.game_id}/moves/preview",
                                    {"move": m["notation"]}, pos.tokens[seat])["moves"]
                if any(a["notation"].startswith(f"place {m['move']['tile']} at")
                       for a in after):
                    return m["move"]["tile"]
        return None

    seat, moves = pos.until(lambda g, s, ms: len(g["view"]["seats"][s]["city"]) > 1
                            and placeable(g, s, ms) is not None, P.builder)
    tile = placeable(pos.game(), seat, moves)
    start = pos.game()["version"]
    page, errors = open_seat(new_context, pos, seat)
    hand = len(pos.view(seat)["seats"][seat]["hand"])

    page.locator(f"#market [data-select='{tile}']").click()
    buy = plan_move(page.locator(f"#actions [data-move^='buy {tile} ']").first)
    assert planned(page) == 1 and page.locator("#notice.error").count() == 0
    paid = len(buy.split()[-1].split(","))  # buy A17 pay DI5,DI3
    assert page.locator("#me .hand .card").count() == hand - paid  # the plan's view
    assert page.locator(f"#market [data-select='{tile}']").count() == 0
    assert page.locator("[data-plan] li[data-planned]").count() >= 1
    if page.locator("[data-key=place-now]").count():  # an exact purchase: place it now
        page.click("[data-key=place-now]")
    cell = plan_move(page.locator(f"#me [data-cell][data-move^='place {tile} at']").first)
    assert planned(page) == 2
    assert page.locator(f"#me svg.city .tile[data-tile='{tile}']").count() == 1  # built
    assert "end your turn" in page.locator("[data-plan]").inner_text()
    screenshot(page, "plan-two-moves")

    page.click("#actions [data-key=undo]")  # the building taken back, the purchase kept
    assert planned(page) == 1
    assert page.locator(f"#me svg.city .tile[data-tile='{tile}']").count() == 0
    if page.locator("[data-key=place-now]").count():
        page.click("[data-key=place-now]")
    reserve = plan_move(page.locator(f"#actions [data-move='place {tile} reserve']"))
    assert page.locator(f"#me [data-tile='{tile}']").count() == 1  # in the reserve
    assert page.locator(f"#me svg.city [data-tile='{tile}']").count() == 0
    assert pos.game()["version"] == start == version(page)  # nothing recorded yet

    page.click("#actions [data-key=send-plan]")
    wait_version_after(page, start)
    assert moves_since(pos, start) == [buy, reserve] and cell not in moves_since(pos, start)
    reserved = [t["id"] for t in pos.view(seat)["seats"][seat]["reserve"]]
    assert tile in reserved
    assert page.locator("#notice.ok").inner_text().startswith("Done: ")
    assert planned(page) == 0
    assert errors == []


def test_a_conflict_while_planning_says_what_changed_and_the_turn_is_planned_again(
        server, new_context):
    """Another client of the seat plays first, then the other seat: Send gets 409
    version_conflict; the page says in words what happened meanwhile (as the history
    says it), drops the plan, and the turn is planned and sent again."""
    pos = P.new_game(server, "alhambra", ["Ann", "Bob"])
    seat = pos.game()["current_seat"]
    page = new_context(viewport=WIDE).new_page()
    errors = watch_errors(page)
    page.route(re.compile(r"/games/\w+/stream"), lambda route: route.abort())  # not heard
    page.goto(pos.urls[seat])
    page.wait_for_selector("[data-your-turn]")
    start = version(page)
    plan_move(page.locator("#market [data-move^='take']").first)
    assert planned(page) == 1

    pos.play(seat, take_of(pos, seat))  # the seat's other client, then Bob
    pos.play(1 - seat, take_of(pos, 1 - seat))
    page.click("#actions [data-key=send-plan]")
    page.wait_for_selector("#notice.warn")
    notice = page.locator("#notice").inner_text()
    said = [e["text"] for e in pos.server.call(
        f"/games/{pos.game_id}/events?since={start}")["events"]
        if e["text"] and "move" in e["event"]]
    assert notice.startswith("The game moved on while you planned: ")
    assert all(line in notice for line in said) and len(said) >= 2
    assert "plan your turn again" in notice
    assert planned(page) == 0 and version(page) == pos.game()["version"]
    assert len(moves_since(pos, start)) == 2  # the plan was not sent

    again = version(page)  # the seat's turn again: plan it and send it
    take = plan_move(page.locator("#market [data-move^='take']").first)
    page.click("#actions [data-key=send-plan]")
    wait_version_after(page, again)
    assert moves_since(pos, again) == [take]
    # the browser logs the refused stream and the 409 itself; the page had no error
    assert [e for e in errors if not re.search(r"net::ERR_FAILED|status of 409", e)] == []


def test_a_plan_overruled_by_a_move_heard_live(server, new_context):
    """With the live stream, a move of the seat's other client overrules the plan at once,
    said in words, before any Send."""
    pos = P.new_game(server, "alhambra", ["Ann", "Bob"])
    seat = pos.game()["current_seat"]
    page, errors = open_seat(new_context, pos, seat)
    plan_move(page.locator("#market [data-move^='take']").first)
    before = version(page)
    answer = pos.play(seat, take_of(pos, seat))
    page.wait_for_selector("#notice.warn")
    mine = next(e["text"] for e in answer["events"] if "move" in e["event"])
    assert mine in page.locator("#notice").inner_text()
    assert planned(page) == 0 and version(page) > before
    assert page.locator("#actions [data-key=send-plan]").count() == 0
    assert errors == []


def test_a_sent_plan_leaves_the_page_when_the_stream_showed_its_move_first(server,
                                                                           new_context):
    """The live stream brings the sent move before the submission's own answer (a busy
    server): once the answer comes, the plan and its Send button are gone, though the game
    read again is the one already drawn (the click-through games met this: a stale plan
    panel of a turn already sent)."""
    pos = P.new_game(server, "alhambra", ["Ann", "Bob"])
    seat = pos.game()["current_seat"]
    page, errors = open_seat(new_context, pos, seat)
    start = version(page)
    held = []

    def hold(route):  # the move goes to the server; its answer waits
        held.append((route, route.fetch()))

    page.route(re.compile(r"/games/\w+/moves$"), hold)
    take = plan_move(page.locator("#market [data-move^='take']").first)
    page.click("#actions [data-key=send-plan]")
    page.wait_for_function("v => Number(document.getElementById('version').dataset.version)"
                           " > v", arg=start)  # heard on the stream, the answer held
    assert moves_since(pos, start) == [take] and planned(page) == 1
    route, response = held[0]
    route.fulfill(response=response)
    wait_version_after(page, start)
    assert planned(page) == 0
    assert page.locator("#actions [data-key=send-plan]").count() == 0
    assert page.locator("#notice.ok").inner_text().startswith("Done: ")
    assert errors == []
