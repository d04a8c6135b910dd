"""The contract says what the server does (issue 9 §3): content types, the minimum time
per move, variant names, typed views, events and legal moves, the host token on /moves,
full games, rule links."""

from __future__ import annotations

import random

import pytest

import engine
from engine.cli import main as engine_cli
from service import create_app, openapi_document
from service.engine_schemas import (
    CityTileSchema,
    EventBodySchema,
    MarketSpaceSchema,
    SeatViewSchema,
    TileSchema,
    ViewSchema,
)
from service.settings import Settings
from tests.support import auth, check_problem, new_game, play_random, replayed, stored


@pytest.mark.parametrize("content_type, data", [
    ("text/plain", '{"players": 2}'), (None, '{"players": 2}'),
    ("application/x-www-form-urlencoded", "players=2"), ("multipart/form-data", "")])
def test_a_body_that_is_not_json_is_415(client, game, content_type, data, games):
    before = stored(games.store, "games"), stored(games.store, "events")
    doc = game.get()
    for url, headers in (("/games", {}), (f"/games/{game.id}/moves",
                                          auth(game.tokens[doc["current_seat"]])),
                         ("/records", {}), (f"/games/{game.id}/webhooks",
                                            auth(game.tokens[0]))):
        r = client.post(url, data=data, content_type=content_type, headers=headers)
        body = check_problem(r, 415, "unsupported_media_type")
        assert "application/json" in body["detail"]
    assert (stored(games.store, "games"), stored(games.store, "events")) == before
    # JSON with a charset, or a +json type, is JSON
    r = client.post("/games", data='{"players": 2}',
                    content_type="application/json; charset=utf-8")
    assert r.status_code == 201


def test_a_body_over_the_max_body_is_413_and_records_fit(client, tmp_path):
    r = client.post("/games", json={"players": 2, "seats": [{"name": "x" * (256 << 10)}]})
    check_problem(r, 413, "payload_too_large")
    # the largest records (6 players, the combined game) fit the default with room to spare
    records = tmp_path / "records"
    engine_cli(["simulate", "--variant", "alhambra_granada", "--players", "6", "--games",
                "1", "--seed", "4", "--records", str(records)])
    (record,) = records.glob("*.json")
    assert len(record.read_bytes()) * 4 < 256 << 10
    assert client.post("/records", data=record.read_bytes(),
                       content_type="application/json").status_code == 201
    small = create_app(Settings.from_env({"ALHAMBRA_MAX_BODY": "2048"},
                                         database=str(tmp_path / "small.db")))
    check_problem(small.test_client().post("/games", json={"players": 2, "seats": [
        {"name": "x" * 40}] * 60}), 413, "payload_too_large")


def test_the_minimum_time_per_move_is_the_servers_in_the_document_too(tmp_path):
    for least in (60, 1, 3600):
        app = create_app(Settings(database=":memory:", min_time_per_move=least))
        spec = openapi_document(app)
        prop = spec["components"]["schemas"]["CreateGame"]["properties"]["time_per_move"]
        assert prop["minimum"] == least
        client = app.test_client()
        r = client.post("/games", json={"players": 2, "time_per_move": least - 1})
        body = check_problem(r, 422, "invalid_option")
        assert body["field"] == "time_per_move" and str(least) in body["detail"]
        if least < 3600:
            assert client.post("/games", json={"players": 2, "time_per_move": least}
                               ).status_code == 201


def test_variant_names_are_an_enum_and_the_seat_rules_are_described(app):
    schema = openapi_document(app)["components"]["schemas"]["CreateGame"]["properties"]
    assert schema["variant"]["enum"] == sorted(engine.VARIANTS)
    assert "min_players" in schema["players"]["description"]
    assert "invite code" in schema["seats"]["description"]


def _documented(schema_cls) -> set[str]:
    return set(schema_cls().fields)


def _check_tile(tile: dict, schema_cls=TileSchema) -> None:
    assert set(tile) <= _documented(schema_cls), set(tile) - _documented(schema_cls)


def test_every_member_of_views_and_events_is_documented(client):
    """What the engine shows is what the document types (views of every variant, for a
    seat and a spectator, and every event type met in play)."""
    types_seen = set()
    for variant, players in (("alhambra", 2), ("granada", 3), ("alhambra_granada", 4)):
        h = new_game(client, players, variant=variant)
        play_random(h, random.Random(3), max_moves=60)
        for seat in (None, 0):
            view = h.get(seat)["view"]
            assert set(view) <= _documented(ViewSchema), set(view) - _documented(ViewSchema)
            for s in view["seats"]:
                assert set(s) <= _documented(SeatViewSchema)
                for t in s["city"]:
                    _check_tile(t, CityTileSchema)
                for t in s["reserve"]:
                    _check_tile(t)
            for space in view["market"]:
                assert set(space) <= _documented(MarketSpaceSchema)
                for t in space["tiles"]:
                    _check_tile(t)
            for t in view["pending"] + ((view["neutral"] or {}).get("tiles") or []):
                _check_tile(t)
        events = client.get(f"/games/{h.id}/events").get_json()["events"]
        types_seen |= {e["event"]["type"] for e in events}
    documented = set(EventBodySchema().fields["type"].validate.choices)
    assert types_seen <= documented, types_seen - documented


def test_each_event_carries_the_engines_words(client, games):
    h = new_game(client, 2)
    doc = h.get()
    seat = doc["current_seat"]
    r = h.submit(seat, "take 1", doc["version"])
    answer = r.get_json()
    state = replayed(games, h.id)
    neutral = engine.VARIANTS["alhambra"].neutral_name
    for item in answer["events"]:
        assert item["text"] == engine.describe(item["event"], list(state.seats), neutral,
                                               state)
    card = answer["events"][0]["event"]["cards"][0]
    value = int(card[2:])
    assert answer["events"][0]["text"] == engine.describe(answer["events"][0]["event"],
                                                          list(state.seats))
    assert answer["events"][0]["text"].startswith(f"P{seat} took {value} ")  # in words
    listed = client.get(f"/games/{h.id}/events?since={doc['version']}",
                        headers=auth(h.tokens[seat])).get_json()["events"]
    assert listed == answer["events"]


def test_the_host_token_cannot_play(client, game, games):
    doc = game.get()
    events = stored(games.store, "events")
    for r in (client.post(f"/games/{game.id}/moves", headers=auth(game.host_token),
                          json={"move": "take 1", "version": doc["version"]}),
              client.get(f"/games/{game.id}/legal-moves", headers=auth(game.host_token))):
        body = check_problem(r, 403, "forbidden")
        assert body["detail"] == "the host token cannot play; use a seat token"
    assert stored(games.store, "events") == events


def test_joining_a_game_whose_seats_are_all_named_is_game_full(client, game, games):
    before = stored(games.store, "seats")
    for invite in ("anything", "x" * 12):
        r = client.post(f"/games/{game.id}/join", json={"invite_code": invite, "name": "Z"})
        check_problem(r, 409, "game_full")
    assert stored(games.store, "seats") == before


def test_a_broken_rule_links_to_the_rule(tmp_path):
    for public, base in ((None, "http://localhost"), ("https://alhambra.example.org",
                                                      "https://alhambra.example.org")):
        app = create_app(Settings(database=str(tmp_path / f"{bool(public)}.db"),
                                  public_url=public))
        client = app.test_client()
        h = new_game(client, 3)
        doc = h.get()
        seat = doc["current_seat"]
        body = check_problem(h.submit(seat, "take 9", doc["version"]), 422, "rule_violation")
        assert body["type"] == f"{base}/rules#{body['rule']}"
        body = check_problem(h.submit((seat + 1) % 3, "take 1", doc["version"]), 403,
                             "not_your_turn")
        assert body["type"] == f"{base}/rules#A-3" and body["current_seat"] == seat
        body = check_problem(h.submit(seat, "take 1", 0), 409, "version_conflict")
        assert body["type"] == "urn:alhambra-pbem:problem:version_conflict"
        app.extensions["alhambra"].store.close()


def test_legal_moves_say_why_a_tile_to_place_fits_no_cell(client):
    """Alhambra + Granada: a Granada tile bought while the city is the fountain alone fits
    no cell (C-3); the legal moves say so with the rule and the engine's sentence."""
    h = new_game(client, 3, variant="alhambra_granada")
    for _ in range(60):
        doc = h.get()
        seat = doc["current_seat"]
        legal = h.legal(seat)
        assert legal["no_cell"] == []
        buys = [m for m in legal["moves"] if m["move"]["action"] == "buy"
                and m["move"]["tile"].startswith("G")]
        if buys:
            break
        take = max((m for m in legal["moves"] if m["move"]["action"] == "take"),
                   key=lambda m: len(m["move"]["positions"]))
        assert h.submit(seat, take["notation"], doc["version"]).status_code == 201
    tile = buys[0]["move"]["tile"]
    h.submit(seat, buys[0]["notation"], doc["version"])
    legal = h.legal(seat)
    [no_cell] = legal["no_cell"]
    assert no_cell["tile"] == tile and no_cell["rule"] == "C-3"
    assert "wall and a moat" in no_cell["reason"]
    assert not any(m["move"].get("to") == "city" for m in legal["moves"]
                   if m["move"].get("tile") == tile)
    other = (seat + 1) % 3
    assert h.legal(other)["no_cell"] == []


def test_every_domain_error_has_one_code_with_its_status():
    """One table of problems (service/problems.py CODES): each domain error of
    service/errors.py answers with a code of that table (a new error without one would be
    a 500; a base of several is answered by theirs), and each code the API documents is
    listed with its status (issue 21)."""
    from service import errors as domain
    from service.problems import CODES, RAISED

    classes = {c for c in vars(domain).values() if isinstance(c, type)
               and issubclass(c, domain.DomainError) and not c.__subclasses__()}
    assert classes <= set(RAISED), classes - set(RAISED)
    assert len(set(RAISED.values())) == len(RAISED)  # one error, one code
    described = openapi_document(create_app(Settings(database=":memory:")))["info"][
        "description"]
    for code, entry in CODES.items():
        assert f"- `{code}`: {entry.status}: " in described
