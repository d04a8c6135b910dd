"""Who sees which games and which e-mail addresses (point 8 of issue 10): anyone lists the
open games only; a seat token its seat's game; an address is shown to its own seat only,
in every answer that shows seats."""

from __future__ import annotations

import json
import random
import re

import pytest

from service import create_app
from service.settings import Settings
from tests.support import GameHandle, auth, play_random

ADDRESS = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")


@pytest.fixture
def app(db_path):
    app = create_app(Settings(database=str(db_path), stream_seconds=0.2, stream_poll=0.01))
    yield app
    app.extensions["alhambra"].store.close()


def test_listing_and_addresses_are_private(client):
    def create(seats, players=None):
        r = client.post("/games", json={"seats": seats, "players": players or len(seats)})
        assert r.status_code == 201, r.get_json()
        return r.get_json()

    eve = {"name": "Eve", "email": "eve@example.org"}
    ann = {"name": "Ann", "email": "ann@example.org"}
    watched = create([ann, eve])  # active: Ann and Eve play
    other = create([{"name": "Bob", "email": "bob@example.org"}, ann])  # Ann plays here too
    waiting = create([ann], players=3)  # open: joinable
    tokens = {"anyone": None, "ann": watched["seats"][0]["token"],
              "eve": watched["seats"][1]["token"], "host": watched["host_token"]}
    gid = watched["game_id"]
    own = {"ann": "ann@example.org", "eve": "eve@example.org"}

    listed = {who: [g["game_id"] for g in client.get("/games?limit=200",
                                                     headers=auth(t)).get_json()["games"]]
              for who, t in tokens.items()}
    assert listed == {"anyone": [waiting["game_id"]], "ann": [gid], "eve": [gid],
                      "host": [gid]}
    assert other["game_id"] not in sum(listed.values(), [])

    hook = client.post(f"/games/{gid}/webhooks", json={"url": "http://example.org/h"},
                       headers=auth(tokens["eve"]))
    assert hook.status_code == 201
    handle = GameHandle(client, gid, [s["token"] for s in watched["seats"]],
                        watched["host_token"])
    play_random(handle, random.Random(2))  # over: the record is served too
    for who, token in tokens.items():
        headers = auth(token)
        answers = [client.get(path, headers=headers) for path in (
            "/games?limit=200", f"/games/{gid}", f"/games/{gid}/events",
            f"/games/{gid}/stream", f"/games/{gid}/record", f"/games/{gid}/webhooks")]
        texts = [r.get_data(as_text=True) for r in answers if r.status_code < 400]
        assert len(texts) >= 4, [r.status_code for r in answers]
        seen = set(ADDRESS.findall(" ".join(texts)))
        assert seen <= {own.get(who)}, (who, seen)
        if who in own:  # a seat sees its own address in the game's document
            doc = client.get(f"/games/{gid}", headers=headers).get_json()
            assert own[who] in json.dumps(doc["seats"])
