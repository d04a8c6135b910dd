"""No seat ever sees another seat's hand or the deck/bag order, through any endpoint."""

from __future__ import annotations

import json
import random

from tests.support import auth, new_game, play_random, replayed

HIDDEN_KEYS = {"money_shuffled": "deck", "bag_filled": "tiles", "deck_stacked": "deck",
               "deck_reshuffled": "deck"}


def assert_no_secrets(doc, seat: int | None, over: bool = False) -> None:
    """Walk a response: no hand but ``seat``'s, no deck or bag order, no seed before the end."""
    if isinstance(doc, dict):
        kind = doc.get("type")
        if kind in HIDDEN_KEYS:
            assert HIDDEN_KEYS[kind] not in doc, doc
        if kind == "game_created" and not over:
            assert "seed" not in doc
        if "hand" in doc:
            assert doc.get("seat") == seat, doc
        assert "deck" not in doc
        if not over:
            assert "seed" not in doc
        for value in doc.values():
            assert_no_secrets(value, seat, over)
    elif isinstance(doc, list):
        for value in doc:
            assert_no_secrets(value, seat, over)


def _all_responses(client, handle, seat):
    headers = auth(handle.tokens[seat]) if seat is not None else {}
    gid = handle.id
    out = [client.get(f"/games/{gid}", headers=headers),
           client.get(f"/games/{gid}/events", headers=headers),
           client.get(f"/games/{gid}/events?since=5", headers=headers),
           client.get("/games", headers=headers),
           client.get(f"/games/{gid}/record", headers=headers)]
    if seat is not None:
        out.append(client.get(f"/games/{gid}/legal-moves", headers=headers))
        # errors: a payment with cards the seat does not hold, a stale version, bad text
        for move in ("buy A01 pay DI9,DI9,DI9", "take 1,2,3,4", "place A01 at 0,1", "x"):
            out.append(client.post(f"/games/{gid}/moves", headers=headers,
                                   json={"move": move, "version": 1}))
            out.append(client.post(f"/games/{gid}/moves", headers=headers,
                                   json={"move": move, "version": handle.get()["version"]}))
    return out


def test_no_secret_leaks_during_a_game(client, games):
    handle = new_game(client, 3)
    rng = random.Random(5)
    own_hands = {}

    def check(h, seat, answer):
        assert_no_secrets(answer, seat)

    for _ in range(6):
        play_random(handle, rng, max_moves=7, check=check)
        state = replayed(games, handle.id)
        for seat in (None, 0, 1, 2):
            for r in _all_responses(client, handle, seat):
                body = r.get_json()
                assert_no_secrets(body, seat)
                text = json.dumps(body)
                assert str(state.seed) not in text
                if r.request.path.endswith("/record"):
                    assert r.status_code == 409
                    assert r.get_json()["code"] == "record_unavailable"
            if seat is not None:
                view = handle.get(seat)["view"]
                own_hands[seat] = view["seats"][seat]["hand"]
                assert sorted(state.hands[seat].elements()) == own_hands[seat]
                for m in handle.legal(seat)["moves"]:
                    # a seat's legal payments use only its own cards
                    for card in m["move"].get("cards", []):
                        assert card in state.hands[seat]


def test_the_record_and_seed_are_served_once_the_game_is_over(client, games):
    handle = new_game(client, 2)
    play_random(handle, random.Random(3))
    seed = replayed(games, handle.id).seed
    r = client.get(f"/games/{handle.id}/record")
    assert r.status_code == 200 and r.get_json()["seed"] == seed
    events = client.get(f"/games/{handle.id}/events").get_json()["events"]
    assert events[0]["event"]["seed"] == seed
    for e in events:  # the deck and bag order stay hidden even then
        assert_no_secrets(e["event"], None, over=True)
