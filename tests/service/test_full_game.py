"""A complete 4-player game played through HTTP by four bots that only use the API."""

from __future__ import annotations

import random

import pytest

import engine
from engine.record import import_record
from tests.support import auth, new_game, play_random, random_api_move


def test_four_bots_play_a_whole_game_and_the_record_replays(client, games):
    handle = new_game(client, 4)
    rng = random.Random(2024)
    # Each bot knows only its own token and reads the game only through the API.
    bots = list(enumerate(handle.tokens))
    moves = 0
    while True:
        doc = client.get(f"/games/{handle.id}").get_json()
        if doc["status"] == "over":
            break
        acting = []
        for seat, token in bots:
            legal = client.get(f"/games/{handle.id}/legal-moves", headers=auth(token))
            assert legal.status_code == 200
            legal = legal.get_json()
            if not legal["your_turn"]:
                assert legal["moves"] == []
                continue
            acting.append(seat)
            move = random_api_move(legal, rng)
            r = client.post(f"/games/{handle.id}/moves", headers=auth(token),
                            json={"move": move, "version": legal["version"]})
            assert r.status_code == 201, (move, r.get_json())
            assert r.headers["ETag"] == f'"{r.get_json()["version"]}"'
            moves += 1
            break
        assert acting == [doc["current_seat"]]
        assert moves < 5000
    final = client.get(f"/games/{handle.id}").get_json()
    assert final["view"]["phase"] == "over"
    scores = [s["score"] for s in final["view"]["seats"]]

    record = client.get(f"/games/{handle.id}/record")
    assert record.status_code == 200
    doc = record.get_json()
    assert len(doc["moves"]) == moves
    assert doc["result"]["scores"] == scores
    assert doc["schema"] == engine.SCHEMA and doc["engine_version"] == engine.__version__
    replayed = engine.replay(import_record(doc))
    assert replayed.scores == scores
    assert replayed.winners == final["view"]["winners"]
    # the stored log is the record's log, event for event
    assert games.store.read(handle.id) == import_record(doc)

    # and the record imports as a finished game for review
    r = client.post("/records", json=doc)
    assert r.status_code == 201, r.get_json()
    imported = r.get_json()
    assert imported["status"] == "over" and imported["imported"]
    assert [s["score"] for s in imported["view"]["seats"]] == scores
    again = client.get(f"/games/{imported['game_id']}/record").get_json()
    assert again["moves"] == doc["moves"] and again["result"] == doc["result"]


@pytest.mark.parametrize("variant", sorted(engine.VARIANTS))
def test_every_engine_variant_plays_through_the_api(client, variant):
    """Variants come from the engine: a new one needs no service change."""
    from .test_secrets import assert_no_secrets

    listed = {v["name"] for v in client.get("/variants").get_json()["variants"]}
    assert variant in listed
    v = engine.VARIANTS[variant]
    handle = new_game(client, max(3, v.min_players), variant=variant)
    play_random(handle, random.Random(7), max_moves=40,
                check=lambda h, seat, answer: assert_no_secrets(answer, seat))
    assert handle.get()["variant"] == variant
    too_few = client.post("/games", json={"variant": variant, "players": v.min_players - 1})
    assert too_few.status_code == 422 and too_few.get_json()["field"] == "players"
