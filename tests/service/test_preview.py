"""POST /games/{id}/moves/preview: a turn planned move by move through the API, then sent
whole; each plan shows what the real submission records up to its first draw, never a
card or tile that submission draws, and records nothing; a broken plan gets the problem
a submission gets."""

from __future__ import annotations

import json
import random

from tests.support import auth, check_problem, new_game, stored

DRAWS = {"card_drawn", "scoring_card_drawn", "deck_reshuffled", "market_refilled",
         "marker_switched", "neutral_received", "tile_returned"}


def preview(g, seat: int, moves: list[str], **body):
    return g.client.post(f"/games/{g.id}/moves/preview", json={"move": "; ".join(moves),
                                                                **body},
                         headers=auth(g.tokens[seat]))


def counts(games) -> list[int]:
    return [stored(games.store, t) for t in ("events", "due", "idempotency")]


def test_turns_planned_move_by_move_then_sent_show_nothing_drawn(client, games):
    g = new_game(client, 3)
    rng = random.Random(5)
    doc = g.get()
    turns = 0
    while doc["status"] != "over" and turns < 40:
        seat, version = doc["current_seat"], doc["version"]
        plan: list[str] = []
        options = g.notations(seat)
        while True:  # plan the turn one click at a time, as the play page does
            kinds = sorted({n.split()[0] for n in options})
            kind = rng.choice(kinds)
            plan.append(rng.choice([n for n in options if n.split()[0] == kind]))
            before = counts(games)
            r = preview(g, seat, plan, version=version)
            assert r.status_code == 200, r.get_json()
            planned = r.get_json()
            assert counts(games) == before and games.game(g.id).version == version
            if planned["turn_ends"]:
                break
            options = [m["notation"] for m in planned["moves"]]
            assert options, planned
            # a tile that fits no cell is said as the legal moves say it (C-3)
            to_city = {m["move"]["tile"] for m in planned["moves"]
                       if m["move"]["action"] == "place" and m["move"]["to"] == "city"}
            for n in planned["no_cell"]:
                assert n["tile"] not in to_city and n["rule"] and n["reason"]
                assert n["tile"] in {t["id"] for t in planned["view"]["pending"]}
        real = g.submit(seat, "; ".join(plan), version)
        assert real.status_code == 201, real.get_json()
        sent = real.get_json()
        events = [item["event"] for item in sent["events"]]
        first = next((i for i, e in enumerate(events) if e["type"] in DRAWS), len(events))
        assert planned["events"] == sent["events"][:first]
        drawn = {e["tile"] for e in events if e["type"] == "market_refilled"} | \
            {t for e in events if e["type"] == "neutral_received" for t in e["tiles"]}
        text = json.dumps(planned)
        assert not [t for t in drawn if f'"{t}"' in text]
        cards = [e["card"] for e in events if e["type"] == "card_drawn"]
        assert len(planned["view"]["display"]) + len(cards) == len(sent["view"]["display"]) \
            or any(e["type"] == "deck_reshuffled" for e in events)
        assert planned["view"]["deck_size"] == g.get(seat)["view"]["deck_size"] + \
            len(cards) + sum(e["type"] == "scoring_card_drawn" for e in events) \
            or any(e["type"] == "deck_reshuffled" for e in events)
        doc = g.get()
        turns += 1
    assert turns == 40


def test_a_plan_is_refused_as_its_submission_would_be(client, games):
    g = new_game(client, 3)
    doc = g.get()
    seat, version = doc["current_seat"], doc["version"]
    take = next(n for n in g.notations(seat) if n.startswith("take"))
    before = counts(games)
    for plan in ([take, take], ["buy A1 DE1"], ["frobnicate"], ["place A1 at 9,9"]):
        planned = preview(g, seat, plan)
        sent = g.submit(seat, "; ".join(plan), version)
        assert planned.status_code == sent.status_code == 422
        p, s = planned.get_json(), sent.get_json()
        assert {**p, "instance": None} == {**s, "instance": None}
    check_problem(preview(g, (seat + 1) % 3, [take]), 403, "not_your_turn")
    check_problem(preview(g, seat, [take], version=version - 1), 409, "version_conflict")
    r = client.post(f"/games/{g.id}/moves/preview", json={"move": take},
                    headers=auth(g.host_token))
    check_problem(r, 403, "forbidden")
    r = client.post(f"/games/{g.id}/moves/preview", json={"move": take})
    check_problem(r, 401, "unauthorized")
    check_problem(client.post(f"/games/{g.id}/moves/preview", json={"version": 1},
                              headers=auth(g.tokens[seat])), 422, "validation_error")
    assert counts(games) == before
    opened = client.post("/games", json={"players": 2, "seats": [{"name": "A"}]}).get_json()
    r = client.post(f"/games/{opened['game_id']}/moves/preview", json={"move": "take 1"},
                    headers=auth(opened["seats"][0]["token"]))
    check_problem(r, 409, "game_not_started")


def test_a_planned_tile_that_fits_no_cell_says_why_as_the_legal_moves_do(client, games):
    """Alhambra + Granada: a first Granada tile bought over its price beside the fountain
    alone fits no cell (C-3); the plan says so, as the legal moves say it once sent."""
    g = new_game(client, 3, variant="alhambra_granada")
    rng = random.Random(3)
    for _ in range(300):
        doc = g.get()
        seat, version = doc["current_seat"], doc["version"]
        legal = g.legal(seat)["moves"]
        prices = {t["id"]: t["value"] for s in doc["view"]["market"] for t in s["tiles"]}
        over = [m["notation"] for m in legal if m["move"]["action"] == "buy"
                and m["move"]["tile"].startswith("G")
                and sum(int(c[2:]) for c in m["move"]["cards"]) > prices[m["move"]["tile"]]
                and len(doc["view"]["seats"][seat]["city"]) == 1]
        if over:
            break
        moves = [m["notation"] for m in legal]
        places = [n for n in moves if n.startswith("place") and n.endswith("reserve")]
        takes = [n for n in moves if n.startswith("take")]
        assert g.submit(seat, (places or takes or [rng.choice(moves)])[0],
                        version).status_code == 201
    else:
        raise AssertionError("no Granada tile to over-pay for")
    planned = preview(g, seat, [over[0]], version=version).get_json()
    tile = over[0].split()[1]
    assert [n["tile"] for n in planned["no_cell"]] == [tile]
    assert planned["no_cell"][0]["rule"] == "C-3"
    assert g.submit(seat, over[0], version).status_code == 201
    assert g.legal(seat)["no_cell"] == planned["no_cell"]
