"""The page follows its game through streams that end and through refusals (issue 20.2):
a stream refused with 429 (too many open from this address) is tried again after its
Retry-After, and a stream that ended is opened again, so the page still hears of moves."""

from __future__ import annotations

import time

import pytest

from .conftest import Server


@pytest.fixture
def capped(tmp_path):
    """A server that lets one client address hold one stream, each lasting 3 s."""
    srv = Server(tmp_path / "capped.db", streams_per_client=1)
    srv.app.extensions["alhambra_settings"] = srv.app.extensions["alhambra_settings"].replace(
        stream_seconds=3)
    yield srv
    srv.stop()


def test_a_refused_page_tries_again_and_a_page_whose_stream_ended_hears_of_moves(
        capped, new_context):
    created = capped.call("/games", {"seats": [{"name": "Ann"}, {"name": "Bob"}]})
    first = new_context().new_page()
    first.goto(created["seats"][0]["join_url"])
    first.wait_for_selector("#live.on")
    second_context = new_context()
    second = second_context.new_page()
    second.goto(created["seats"][1]["join_url"])
    second.wait_for_selector("#me [data-cell]")
    time.sleep(1.5)
    assert second.locator("#live.on").count() == 0  # refused: this address has its stream
    first.context.close()  # its stream ends; the refused page gets the place
    second.wait_for_selector("#live.on", timeout=15000)
    time.sleep(4)  # longer than a stream lasts: the page is on its next stream by now
    game = capped.call(f"/games/{created['game_id']}")
    seat = game["current_seat"]
    before = int(second.get_attribute("#version", "data-version"))
    moved = capped.call(f"/games/{created['game_id']}/moves",
                        {"version": game["version"], "move": "take 1"},
                        token=created["seats"][seat]["token"])
    second.wait_for_function(
        "v => Number(document.getElementById('version').dataset.version) >= v",
        arg=moved["version"], timeout=5000)
    assert moved["version"] > before
