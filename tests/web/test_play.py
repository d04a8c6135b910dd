"""Games played in the browser by clicking only (issue 14's testing contract)."""

from __future__ import annotations

import random

from .conftest import screenshot, watch_errors
from .driver import over, plan_move, play_turns, send_plan, version, wait_version_after


def open_seats(server, new_context, variant: str, names: list[str], **page_options):
    created = server.call("/games", {"variant": variant,
                                     "seats": [{"name": n} for n in names]})
    pages, errors = [], []
    for seat in created["seats"]:
        page = new_context(**page_options).new_page()
        errors.append(watch_errors(page))
        assert "/play/" in seat["join_url"] and "#token=" in seat["join_url"]
        page.goto(seat["join_url"])
        page.wait_for_selector("#me [data-cell]")
        pages.append(page)
    return created, pages, errors


def test_two_players_play_a_whole_alhambra_game_by_clicking(server, new_context):
    """Two browser contexts, one per seat, play to the end; the final scores on the page
    are the record's (A-5, A-6)."""
    created, pages, errors = open_seats(server, new_context, "alhambra", ["Ann", "Bob"],
                                        viewport={"width": 1200, "height": 900})
    rng = random.Random(14)
    shot = {}

    def until():
        if "mid" not in shot and version(pages[0]) > 250:
            shot["mid"] = screenshot(pages[0], "alhambra-mid-game")
        return over(pages[0]) and over(pages[1])

    moves = play_turns(pages, rng, until)
    screenshot(pages[1], "alhambra-final")
    record = server.call(f"/games/{created['game_id']}/record")
    assert len(record["moves"]) == moves
    for page in pages:
        shown = {int(row.get_attribute("data-seat")):
                 int(row.locator("[data-final-score]").get_attribute("data-final-score"))
                 for row in page.locator("#final tr[data-seat]").all()}
        assert shown == dict(enumerate(record["result"]["scores"]))
        assert page.locator("#final a[href$='/record']").count() == 1
    assert errors == [[], []]


def scorings_done(page) -> int:
    return int(page.get_attribute("[data-scorings-done]", "data-scorings-done"))


def test_three_players_play_the_combined_game_past_the_first_scoring(server, new_context):
    """Alhambra + Granada, three seats, by clicking (redesigns too) until scoring card 1 has
    been scored (C-1, C-2, A-5); the page's scores are the game's."""
    created, pages, errors = open_seats(server, new_context, "alhambra_granada",
                                        ["Ann", "Bob", "Cy"],
                                        viewport={"width": 1280, "height": 900})
    rng = random.Random(7)
    play_turns(pages, rng, lambda: scorings_done(pages[0]) >= 1, redesign=0.1, buy=0.15)
    shot = screenshot(pages[0], "alhambra_granada-first-scoring")
    assert shot.stat().st_size > 10_000
    truth = server.call(f"/games/{created['game_id']}")["view"]
    assert any(s["score"] for s in truth["seats"])
    for page in pages:
        page.wait_for_function("v => Number(document.getElementById('version').dataset.version)"
                               " >= v", arg=truth["version"])
        shown = {int(r.get_attribute("data-seat")): int(r.locator("[data-score]").get_attribute(
            "data-score")) for r in page.locator("#overview tr[data-seat]").all()}
        assert shown == {s["seat"]: s["score"] for s in truth["seats"]}
        # the two kinds of tile are told apart by shape, not colour alone (C-1)
        assert page.locator("svg .tile.granada rect.granada-ring").count() > 0
    assert errors == [[], [], []]


def test_granada_flips_and_a_spectator_who_never_sees_a_hand(server, new_context):
    """Two seats play Granada by clicking, flipping tiles for a payment (G-3); a spectator's
    page follows live and shows no hand (A-7)."""
    created, pages, errors = open_seats(server, new_context, "granada", ["Ann", "Bob"],
                                        viewport={"width": 1280, "height": 900})
    spectator = new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors.append(watch_errors(spectator))
    spectator.goto(f"{server.url}/play/{created['game_id']}")
    spectator.wait_for_selector("#others [data-seat] svg.city")
    played: list[str] = []

    def flipped() -> bool:  # a tile built on its other face, paid for (G-3)
        return any(":" in move and " pay " in move for move in played)

    play_turns(pages, random.Random(3), lambda: version(pages[0]) > 160 and flipped(),
               played=played, flip=0.6)
    screenshot(pages[0], "granada-mid-game")
    target = version(pages[0])
    spectator.wait_for_function("v => Number(document.getElementById('version').dataset.version)"
                                " >= v", arg=target)
    screenshot(spectator, "granada-spectator")
    assert spectator.locator("#me").is_hidden() and spectator.locator("#actions").is_hidden()
    assert spectator.locator(".hand").count() == 0
    assert spectator.locator("[data-move]").count() == 0
    assert "Your money" not in spectator.content()
    assert spectator.locator("#others details[data-seat]").count() == 2
    events = server.call(f"/games/{created['game_id']}/events")["events"]
    assert any(e["event"]["type"] == "tile_placed" and e["event"].get("cards")
               for e in events)  # a tile was flipped, for a payment
    assert errors == [[], [], []]


def _api_turns_until(server, game_id, tokens, want, rng, limit=600) -> bool:
    """Set up (through the API, not the page): play until seat 0 may make the moves that
    ``want(moves)`` looks for (False if the game ends first); tiles are built and reserved
    alike to fill both places."""
    for _ in range(limit):
        game = server.call(f"/games/{game_id}")
        seat = game["current_seat"]
        if game["status"] == "over":
            return False
        moves = server.call(f"/games/{game_id}/legal-moves", token=tokens[seat])["moves"]
        if seat == 0 and want(moves):
            return True
        kinds = {}
        for m in moves:
            kinds.setdefault(m["move"]["action"], []).append(m)
        pick = rng.choice(kinds.get("place") or kinds.get("buy") or kinds.get("take")
                          or moves)
        server.call(f"/games/{game_id}/moves", {"version": game["version"],
                                                "move": pick["notation"]}, tokens[seat])
    raise AssertionError("the set-up never reached the wanted moves")


def test_redesign_and_dirk_by_clicking(server, new_context):
    """A-3.3 a, b, c: each redesign is made on the page with clicks only; and a bought
    tile is given to Dirk (A-8)."""
    page = new_context(viewport={"width": 1200, "height": 900}).new_page()
    errors = watch_errors(page)
    rng = random.Random(11)
    game: dict = {}

    def ready_for(want) -> None:
        """A game where seat 0 may now make such a move, shown on the page."""
        while not game or not _api_turns_until(server, game["id"], game["tokens"], want, rng):
            created = server.call("/games", {"variant": "alhambra",
                                             "seats": [{"name": "Ann"}, {"name": "Bob"}]})
            game.update(id=created["game_id"], tokens=[s["token"] for s in created["seats"]])
            page.goto(created["seats"][0]["join_url"])
        now = server.call(f"/games/{game['id']}")["version"]
        page.wait_for_function("v => Number(document.getElementById('version')"
                               ".dataset.version) === v", arg=now)  # heard through the stream

    def pick_until(tiles: str, targets: str):
        """Click the tiles in turn until one offers the targets; the first target. The
        page may hear of the new version before its legal moves arrive: a few rounds."""
        for _ in range(10):
            for i in range(page.locator(tiles).count()):
                page.locator(tiles).nth(i).click()
                if page.locator(targets).count():
                    return page.locator(targets).first
            page.wait_for_timeout(300)
        legal = server.call(f"/games/{game['id']}/legal-moves", token=game["tokens"][0])
        raise AssertionError(f"no tile of {tiles} offers {targets}; the legal moves: {legal}")

    def play(target) -> list[dict]:
        """Click the move; the events it made."""
        before = version(page)
        plan_move(target)
        send_plan(page)
        wait_version_after(page, before)
        return [e["event"] for e in server.call(
            f"/games/{game['id']}/events?since={before}")["events"]]

    def redesign(kind: str):
        return lambda moves: any(m["move"]["action"] == "redesign" and m["move"]["to"] == kind
                                 for m in moves)

    def redesigned(events: list[dict]) -> list[dict]:
        return [e for e in events if e["type"] == "redesigned"]

    ready_for(lambda moves: any(m["move"].get("to") == "neutral" for m in moves))
    give = "#actions [data-move$=' dirk']"
    if not page.locator(give).count():  # after an exact purchase: pick the tile first
        pick_until("#me .pending button[data-select]", give)
    events = play(page.locator(give))
    assert [e["to"] for e in events if e["type"] == "tile_placed"] == ["neutral"]

    ready_for(redesign("city"))  # a reserve tile, then a free cell of the city
    events = play(pick_until("#me button[data-select]", "#me svg [data-cell][data-move*=' at ']"))
    assert [e["to"] for e in redesigned(events)] == ["city"]

    ready_for(redesign("reserve"))  # a city tile, then "to the reserve"
    events = play(pick_until("#me svg [data-select]", "#actions [data-move$=' reserve']"))
    assert [e["to"] for e in redesigned(events)] == ["reserve"]

    ready_for(redesign("swap"))  # a city tile, then the reserve tile to take its place
    events = play(pick_until("#me svg [data-select]", "#me button[data-move^='redesign swap']"))
    [swap] = redesigned(events)
    assert swap["to"] == "swap" and swap["other"] and swap["tile"] != swap["other"]
    assert errors == []
