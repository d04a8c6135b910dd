"""Bad input on every endpoint: the right 4xx, problem+json, and nothing written."""

from __future__ import annotations

import random

import pytest

from tests.support import auth, check_problem, new_game, play_random, stored


@pytest.fixture
def counted(games):
    store = games.store

    def snapshot():
        return {t: stored(store, t) for t in ("games", "seats", "events", "due",
                                             "idempotency")}
    return snapshot


def test_bad_submissions(client, game, counted):
    v = game.get()["version"]
    seat = game.get()["current_seat"]
    other = (seat + 1) % 3
    tok = auth(game.tokens[seat])
    url = f"/games/{game.id}/moves"
    before = counted()
    cases = [
        (client.post(url, data="{not json", headers=tok, content_type="application/json"),
         400, "malformed_json"),
        (client.post(url, json=[1, 2], headers=tok), 422, "validation_error"),
        (client.post(url, json={"move": 5, "version": v}, headers=tok), 422,
         "validation_error"),
        (client.post(url, json={"move": "take 1", "version": "7"}, headers=tok), 422,
         "validation_error"),
        (client.post(url, json={"move": "take 1", "version": v, "x": 1}, headers=tok), 422,
         "validation_error"),
        (client.post(url, json={"move": "take 1", "moves": [], "version": v}, headers=tok),
         422, "validation_error"),
        (client.post(url, json={"move": "dance", "version": v}, headers=tok), 422,
         "notation_error"),
        (client.post(url, json={"move": "buy X99 pay DI1", "version": v}, headers=tok), 422,
         "notation_error"),
        (client.post(url, json={"move": "buy A99 pay DI1", "version": v}, headers=tok), 422,
         "notation_error"),
        (client.post(url, json={"moves": [{"action": "buy", "tile": "Z1", "cards": ["DI1"]}],
                                "version": v}, headers=tok), 422, "invalid_move"),
        (client.post(url, json={"moves": [{"action": "place", "tile": "A01", "to": "city"}],
                                "version": v}, headers=tok), 422, "invalid_move"),
        (client.post(url, json={"moves": [{"action": "take"}], "version": v}, headers=tok),
         422, "invalid_move"),
        (client.post(url, json={"move": "take 9", "version": v}, headers=tok), 422,
         "rule_violation"),
        (client.post(url, json={"move": "end", "version": v}, headers=tok), 422,
         "rule_violation"),
        (client.post(url, json={"move": "take 1", "version": v + 1}, headers=tok), 409,
         "version_conflict"),
        (client.post(url, json={"move": "take 1", "version": v - 1}, headers=tok), 409,
         "version_conflict"),
        (client.post(url, json={"move": "take 1"}, headers=tok), 428,
         "precondition_required"),
        (client.post(url, json={"move": "take 1"}, headers={**tok, "If-Match": "nope"}), 400,
         "bad_request"),
        (client.post(url, json={"move": "take 1", "version": v},
                     headers={**tok, "If-Match": f'"{v + 1}"'}), 400, "bad_request"),
        (client.post(url, json={"move": "take 1", "version": v}), 401, "unauthorized"),
        (client.post(url, json={"move": "take 1", "version": v},
                     headers=auth("not-a-token")), 401, "invalid_token"),
        (client.post(url, json={"move": "take 1", "version": v},
                     headers={"Authorization": "Basic abc"}), 401, "unauthorized"),
        (client.post(url, json={"move": "take 1", "version": v},
                     headers=auth(game.host_token)), 403, "forbidden"),
        (client.post(url, json={"move": "take 1", "version": v},
                     headers=auth(game.tokens[other])), 403, "not_your_turn"),
        (client.post("/games/0000000000000000/moves", json={"move": "take 1", "version": v},
                     headers=tok), 404, "game_not_found"),
        (client.put(url, json={}), 405, "method_not_allowed"),
    ]
    for r, status, code in cases:
        check_problem(r, status, code)
    assert counted() == before
    r = client.delete(f"/games/{game.id}")
    check_problem(r, 405, "method_not_allowed")
    assert set(r.headers["Allow"].split(", ")) >= {"GET"}
    # with If-Match instead of the body's version it works
    ok = client.post(url, json={"move": "take 1"}, headers={**tok, "If-Match": f'"{v}"'})
    assert ok.status_code == 201


def test_another_games_token_is_refused(client, game, counted):
    other = new_game(client, 2)
    before = counted()
    seat = game.get()["current_seat"]
    v = game.get()["version"]
    r = client.post(f"/games/{game.id}/moves", json={"move": "take 1", "version": v},
                    headers=auth(other.tokens[0]))
    check_problem(r, 403, "forbidden")
    check_problem(client.get(f"/games/{game.id}", headers=auth(other.tokens[0])), 403)
    check_problem(client.get(f"/games/{game.id}/legal-moves",
                             headers=auth(other.tokens[0])), 403)
    check_problem(client.get(f"/games/{game.id}/legal-moves"), 401, "unauthorized")
    check_problem(client.get(f"/games/{game.id}/events?since=-1"), 422, "validation_error")
    check_problem(client.get(f"/games/{game.id}/events?since=abc"), 422, "validation_error")
    check_problem(client.get("/games?status=nope"), 422, "validation_error")
    check_problem(client.get("/games/nope"), 404, "game_not_found")
    check_problem(client.get("/nothing/here"), 404, "not_found")
    assert counted() == before
    assert seat is not None


def test_bad_game_creation_and_join(client, counted):
    before = counted()
    cases = [
        ({"variant": "chess", "players": 3}, "invalid_option", "variant"),
        ({"players": 7}, "invalid_option", "players"),
        ({"players": 1}, "invalid_option", "players"),
        ({"players": 3, "options": {"nope": True}}, "invalid_option", "options.nope"),
        ({"players": 2, "options": {"dirk_third_draw_cap": "yes"}}, "invalid_option",
         "options.dirk_third_draw_cap"),
        ({"players": 2, "seats": [{"name": "a"}] * 3}, "invalid_option", "seats"),
        ({"players": "3"}, "validation_error", None),
        ({"seats": [{"name": ""}]}, "validation_error", None),
        ({"seats": [{"name": "a", "email": "not-an-email"}, None]}, "validation_error", None),
        ({}, "validation_error", None),
        ({"players": 3, "time_per_move": 59}, "invalid_option", "time_per_move"),
        ({"players": 3, "timeout_policy": "forfeit"}, "validation_error", None),
    ]
    for body, code, field in cases:
        body = check_problem(client.post("/games", json=body), 422, code)
        if field:
            assert body["field"] == field
    check_problem(client.post("/games", data="[", content_type="application/json"), 400,
                  "malformed_json")
    assert counted() == before

    r = client.post("/games", json={"players": 2, "seats": [{"name": "A"}]})
    created = r.get_json()
    before = counted()
    url = f"/games/{created['game_id']}/join"
    check_problem(client.post(url, json={"invite_code": "wrong", "name": "B"}), 403,
                  "invalid_invite")
    check_problem(client.post(url, json={"invite_code": created["invite_code"]}), 422)
    check_problem(client.post(url, json={"invite_code": created["invite_code"], "name": 3}),
                  422)
    check_problem(client.post("/games/0123456789abcdef/join",
                              json={"invite_code": "x", "name": "B"}), 404)
    check_problem(client.post(f"/games/{created['game_id']}/moves",
                              json={"move": "take 1", "version": 0},
                              headers=auth(created["seats"][0]["token"])),
                  409, "game_not_started")
    assert counted() == before


def test_finished_game_and_bad_records(client, counted):
    handle = new_game(client, 2)
    final = play_random(handle, random.Random(11))
    before = counted()
    v = final["version"]
    for seat in (0, 1):
        check_problem(handle.submit(seat, "take 1", v), 409, "game_over")
    assert handle.legal(0)["moves"] == []
    record = client.get(f"/games/{handle.id}/record").get_json()
    bad = [
        ({**record, "format": "pgn"}, 422, "invalid_record"),
        ({**record, "seats": ["only one"]}, 422, "invalid_record"),
        ({**record, "moves": record["moves"][:-1]}, 422, "invalid_record"),
        ({**record, "moves": record["moves"][:10]}, 422, "invalid_record"),  # unfinished
        ({**record, "moves": [{"seat": 0, "move": "buy A99 pay X"}]}, 422, "invalid_record"),
        ({**record, "result": {"scores": [1, 2], "winners": [1]}}, 422, "invalid_record"),
        ({**record, "seed": "7"}, 422, "validation_error"),
        ({**record, "moves": "take 1"}, 422, "validation_error"),
    ]
    for doc, status, code in bad:
        check_problem(client.post("/records", json=doc), status, code)
    broken = [dict(m) for m in record["moves"]]
    broken[4]["move"] = "take 1,2,3,4"
    body = check_problem(client.post("/records", json={**record, "moves": broken}), 422,
                         "invalid_record")
    assert body["move_number"] == 5
    assert counted() == before


def test_a_bug_is_a_500_problem_and_writes_nothing(app, client, game, counted, monkeypatch):
    import engine
    import service.games

    def broken(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr(service.games.engine, "decision", broken)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    before = counted()
    doc = game.get()
    r = game.submit(doc["current_seat"], "take 1", doc["version"])
    body = check_problem(r, 500, "internal_error")
    assert "bug" not in body["detail"]
    assert counted() == before
    assert engine.decision is broken


# -- every class of hostile input at every endpoint: never a 5xx -------------------------

DEEP = "[" * 1000 + "]" * 1000
DEEP_OBJECT = '{"a":' * 1000 + "1" + "}" * 1000
HUGE_INT = "9" * 4301
#: JSON texts of bad values, by class; each is put in every field of every body.
BAD_VALUES = {
    "deep": [DEEP, DEEP_OBJECT],
    "surrogate": ['"a\\ud800"', '"\\udfff"', '["x\\udc80"]', '{"a\\ud800": 1}'],
    "bigint": [HUGE_INT, "-" + HUGE_INT, "1e99999", "NaN", "Infinity"],
    "controls": ['"Eve\\r\\nBcc: spy@example.org"', '"a\\u0000b"', '"\\u202eevil"',
                 '"' + "x" * 5000 + '"'],
    "types": ["null", "true", "[]", "{}", "1.5", '"x"', "-1", "0"],
}
#: Raw bodies, by class, sent as the whole body.
BAD_BODIES = {
    "deep": [DEEP.encode(), DEEP_OBJECT.encode()],
    "not_json": [b"", b"{", b"\xff\xfe", b"\x00", b"[1,]", b"{'a': 1}", b"\xed\xa0\x80"],
    "surrogate": [b'"\\ud800"', b'{"\\ud800": "\\udc00x"}'],
    "bigint": [HUGE_INT.encode()],
}
#: Bad path segments and query strings, by class.
BAD_SEGMENTS = {"surrogate": ["%ED%A0%80", "a%F0%28%8C%BC"], "bigint": [HUGE_INT],
                "controls": ["%00", "%0D%0A", "..%2F..%2Fetc"]}
BAD_QUERIES = {"surrogate": ["status=%ED%A0%80", "since=%ED%A0%80"],
               "bigint": [f"since={HUGE_INT}", f"limit={HUGE_INT}", f"offset=-{HUGE_INT}"],
               "controls": ["status=open%00", "limit=1%0A"]}


def _body(template: dict, field: str, value: str) -> bytes:
    """``template`` as JSON with ``field`` set to the JSON text ``value``."""
    import json
    doc = {k: v for k, v in template.items() if k != field}
    text = json.dumps(doc)
    return (text[:-1] + (", " if doc else "") + f'"{field}": {value}' + "}").encode()


def test_hostile_input_at_every_endpoint_gives_no_5xx(tmp_path, capsys):
    """Each class of bad input (nesting 1,000 deep, lone surrogates, 4,301-digit numbers,
    control characters, wrong types, non-JSON, oversize bodies) is thrown at every route
    and method, with no token, a seat's, the host's and a broken one: no answer is a
    5xx, every API error is problem+json, and nothing hostile is ever accepted."""
    from service import create_app
    from service.settings import Settings

    app = create_app(Settings(database=str(tmp_path / "f.db"), stream_seconds=0.05,
                              stream_poll=0.01, max_body=64 * 1024))
    client = app.test_client()
    game = new_game(client, 2)
    hook = client.post(f"/games/{game.id}/webhooks", json={"url": "http://example.org/h"},
                       headers=auth(game.tokens[0])).get_json()["id"]
    waiting = client.post("/games", json={"players": 6, "seats": [{"name": "A"}]}).get_json()
    spare = new_game(client, 2)
    routes = []
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            joining = rule.rule.endswith("/join")
            # another game's: keep the tokens (and the seat: a resignation is for good)
            rotating = rule.rule.endswith(("/token", "/resign"))
            path = rule.rule.replace("<string:game_id>", waiting["game_id"] if joining else
                                     spare.id if rotating else game.id)
            path = path.replace("<int:hook_id>", str(hook))
            path = path.replace("<int:message_id>", "1")
            path = path.replace("<string:invitation_id>", "inv_0123456789abcdef")
            path = path.replace("<string:tournament_id>", "t_0123456789abcdef")
            path = path.replace("<int:seat>", "1")  # a taken seat: no bot is ever seated
            path = path.replace("<path:filename>", "app.js")
            routes.append((rule.rule, method, path))
    tokens = [{}, auth(game.tokens[0]), auth(game.host_token),
              {"Authorization": "Bearer \xff\xfe"}, {"Authorization": "Bearer " + "a" * 5000}]
    templates = {  # a valid body of each POST, whose fields are made bad one by one
        "/games": {"variant": "alhambra", "players": 2, "seats": [{"name": "A"}],
                   "options": {}, "time_per_move": 3600, "timeout_policy": "default_move",
                   "replay_public": True},
        "/games/<string:game_id>/join": {"invite_code": waiting["invite_code"], "name": "B",
                                         "email": "b@example.org"},
        "/games/<string:game_id>/moves": {"version": 1, "move": "take 1"},
        "/games/<string:game_id>/moves/preview": {"version": 1, "move": "take 1"},
        "/games/<string:game_id>/webhooks": {"url": "http://example.org/", "secret": "s" * 16},
        "/games/<string:game_id>/token": {},
        "/games/<string:game_id>/resign": {},
        "/games/<string:game_id>/messages": {"text": "hello", "to": None},
        "/games/<string:game_id>/seats/<int:seat>/bot": {"level": "random"},
        "/players/sign-in": {"email": "x@example.org", "language": "fi"},
        "/players/session": {"code": "AAAA-BBBB-CCCC"},
        "/me/tokens": {"description": "my app", "scopes": ["read"]},
        "/invitations": {"invitees": ["bob"], "variant": "alhambra", "bots": ["random"],
                         "expires_in": 3600},
        "/me/push": {"endpoint": "https://push.example.org/abc", "keys": {
            "p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1Xbj"
                      "hazAkj7I99e8QcYP7DkM",
            "auth": "tBHItJI5svbpez7KI4CCXg"}, "events": ["your_turn"]},
        "/me/notify-urls": {"url": "json://example.org/hook", "events": ["your_turn"]},
        "/tournaments": {"name": "Autumn", "format": "swiss", "table_size": 3, "rounds": 2,
                         "variant": "alhambra"},
        "/tournaments/<string:tournament_id>/entries": {},
        "/tournaments/<string:tournament_id>/start": {},
        "/invitations/<string:invitation_id>/accept": {},
        "/invitations/<string:invitation_id>/decline": {},
        "/reports": {"game_id": game.id, "message_id": 1, "handle": "bob", "reason": "rude"},
        "/games/<string:game_id>/seats/<int:seat>/claim": {"code": "not-the-code"},
        "/games/<string:game_id>/seats/<int:seat>/mail-address": {"email": "b@example.org"},
        "/records": {"format": "alhambra-pbem-record", "format_version": 1, "variant":
                     "alhambra", "options": {}, "seed": 1, "seats": ["A", "B"], "moves": [],
                     "result": {}},
    }
    tried: dict[str, int] = {}
    failures: list[tuple] = []

    def send(kind: str, method: str, path: str, body: bytes | None = None,
             headers: dict | None = None, accepted_ok: bool = False):
        tried[kind] = tried.get(kind, 0) + 1
        r = client.open(path, method=method, data=body, headers=headers or {},
                        content_type="application/json" if body is not None else None)
        if r.status_code >= 500:
            failures.append((kind, method, path, body and body[:80], r.status_code))
        elif method == "POST" and r.status_code < 300 and not accepted_ok:
            failures.append((kind, method, path, body and body[:80], "accepted"))
        elif r.status_code >= 400 and not path.startswith(("/assets", "/static", "/play")):
            assert r.mimetype == "application/problem+json", (path, r.status_code)
        r.close()

    for rule, method, path in routes:
        for headers in tokens:
            for kind, bodies in BAD_BODIES.items():
                for body in bodies:
                    send(kind, method, path, body, headers)
            send("oversize", method, path, b'{"name": "' + b"x" * 70_000 + b'"}', headers)
            send("oversize", method, path, b"[" + b"1," * 40_000 + b"1]", headers)
        if method != "POST":
            continue
        template = templates[rule]
        for headers in tokens[:2]:  # bodies are read (and refused) before tokens are
            for kind, values in BAD_VALUES.items():
                for value in values:
                    for field in [*template, "unknown"]:
                        # a webhook's secret is an HMAC key: any characters will do; a
                        # message may have several lines (its other controls: refused)
                        ok = kind == "types" or (kind, field) in (("controls", "secret"),
                                                                  ("controls", "text"))
                        send(kind, method, path, _body(template, field, value), headers,
                             accepted_ok=ok)
                    if "seats" in template and isinstance(template["seats"][0], dict):
                        for seat in (f'[{{"name": {value}}}]',
                                     f'[{{"name": "A", "email": {value}}}]'):
                            send(kind, method, path, _body(template, "seats", seat),
                                 headers, accepted_ok=kind == "types")
        for kind, segments in BAD_SEGMENTS.items():
            for segment in segments:
                send(kind, method, path.replace(game.id, segment), b"{}")
                send(kind, method, path.replace(str(hook), segment), b"{}")
        for kind, queries in BAD_QUERIES.items():
            for query in queries:
                send(kind, method, f"{path}?{query}", None, auth(game.tokens[0]))
    with capsys.disabled():
        print(f"\nhostile input: {sum(tried.values())} requests "
              f"({', '.join(f'{k} {n}' for k, n in sorted(tried.items()))}); "
              f"5xx: {sum(f[-1] != 'accepted' for f in failures)}, "
              f"accepted: {sum(f[-1] == 'accepted' for f in failures)}")
    assert not failures, failures[:10]
