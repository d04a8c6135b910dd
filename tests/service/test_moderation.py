"""Moderation (issue 38) through the Flask test client, on SQLite and PostgreSQL: blocks
(/me/blocks) and what they refuse (private messages, a shared public game) or hide (the
blocked account's messages); reports (POST /reports); and the operator's actions
(service/moderation.py): a hidden message, a suspended account, a banned address."""

from __future__ import annotations

import pytest

from service.moderation import REPORTS_PER_DAY
from service.players import sign_in_code
from tests.support import auth, check_problem, claimed, new_game, signed_in

ANN, BOB, CID = "ann@example.org", "bob@example.org", "cid@example.org"


@pytest.fixture
def app(app_on_each_store):
    return app_on_each_store


@pytest.fixture
def client(app):
    return app.test_client()


def handles(client, tokens: dict[str, str]) -> None:
    for name, token in tokens.items():
        r = client.patch("/me", json={"handle": name}, headers=auth(token))
        assert r.status_code == 200, r.get_json()


@pytest.fixture
def three(app, client):
    """A running game whose seats ann, bob and cid claimed (handles ann, bob, cid)."""
    game = new_game(client, 3, emails=[ANN, BOB, CID])
    tokens = claimed(app, game, {0: ANN, 1: BOB, 2: CID})
    handles(client, {"ann": tokens[0], "bob": tokens[1], "cid": tokens[2]})
    return game, tokens


def test_blocks_are_put_listed_paged_and_deleted(app, client, three):
    _, tokens = three
    ann = tokens[0]
    r = client.put("/me/blocks/Bob", headers=auth(ann))  # a handle as typed
    assert r.status_code == 201 and not r.data
    assert client.put("/me/blocks/bob", headers=auth(ann)).status_code == 204
    assert client.put("/me/blocks/cid", headers=auth(ann)).status_code == 201
    listed = client.get("/me/blocks", headers=auth(ann))
    assert listed.status_code == 200
    assert [b["handle"] for b in listed.get_json()["blocks"]] == ["cid", "bob"]
    page = client.get("/me/blocks?limit=1", headers=auth(ann))
    assert [b["handle"] for b in page.get_json()["blocks"]] == ["cid"]
    assert "offset=1" in page.headers["Link"] and 'rel="next"' in page.headers["Link"]
    last = client.get("/me/blocks?limit=1&offset=1", headers=auth(ann))
    assert [b["handle"] for b in last.get_json()["blocks"]] == ["bob"]
    assert "Link" not in last.headers
    # refusals, each changing nothing
    check_problem(client.put("/me/blocks/nobody", headers=auth(ann)), 404,
                  "player_not_found")
    check_problem(client.put("/me/blocks/ann", headers=auth(ann)), 422, "block_refused")
    check_problem(client.put("/me/blocks/bob"), 401, "unauthorized")
    pat = client.post("/me/tokens", json={"description": "bot", "scopes": ["read", "talk"]},
                      headers=auth(ann)).get_json()["token"]
    check_problem(client.put("/me/blocks/bob", headers=auth(pat)), 403, "session_needed")
    check_problem(client.get("/me/blocks?limit=0", headers=auth(ann)), 422,
                  "validation_error")
    assert len(client.get("/me/blocks", headers=auth(ann)).get_json()["blocks"]) == 2
    # lifted (and lifting again is no error)
    assert client.delete("/me/blocks/cid", headers=auth(ann)).status_code == 204
    assert client.delete("/me/blocks/cid", headers=auth(ann)).status_code == 204
    check_problem(client.delete("/me/blocks/nobody", headers=auth(ann)), 404,
                  "player_not_found")
    assert [b["handle"] for b in client.get("/me/blocks", headers=auth(ann))
            .get_json()["blocks"]] == ["bob"]
    # what the account's data holds of it
    tables = client.get("/me/export", headers=auth(ann)).get_json()["tables"]
    assert [b["handle"] for b in tables["blocks"]] == ["bob"]


def test_a_block_stops_private_messages_and_hides_the_blocked_ones(app, client, three):
    game, tokens = three
    players = app.extensions["alhambra_players"]
    talk_of = app.extensions["alhambra"]
    assert client.put("/me/blocks/bob", headers=auth(tokens[0])).status_code == 201
    assert players.blocks_between(ANN, BOB) and players.blocks_between(BOB, ANN)
    assert not players.blocks_between(ANN, CID)
    # no private message either way, nothing written
    for sender, to in ((1, 0), (0, 1)):
        body = check_problem(client.post(f"/games/{game.id}/messages",
                                         json={"text": "psst", "to": to},
                                         headers=auth(game.tokens[sender])), 403, "blocked")
        assert body["seat"] == to
    # the blocked account's table messages: the blocker reads none; the others do
    for sender, text in ((1, "from bob"), (2, "from cid"), (0, "from ann")):
        r = client.post(f"/games/{game.id}/messages", json={"text": text},
                        headers=auth(game.tokens[sender]))
        assert r.status_code == 201, r.get_json()

    def read(seat):
        r = client.get(f"/games/{game.id}/messages", headers=auth(game.tokens[seat]))
        return [m["text"] for m in r.get_json()["messages"]]

    assert read(0) == ["from cid", "from ann"]
    assert read(1) == ["from bob", "from cid", "from ann"]  # the blocked one is not told
    assert read(2) == ["from bob", "from cid", "from ann"]
    # nor do the blocker's mails show them (its account's token reads as its seat)
    from service.talk import TableTalk

    assert [m.text for m in TableTalk(talk_of).unmailed(game.id, 0)] == ["from cid"]
    r = client.get(f"/games/{game.id}/messages", headers=auth(tokens[0]))
    assert [m["text"] for m in r.get_json()["messages"]] == ["from cid", "from ann"]
    # lifted: the messages are there again
    assert client.delete("/me/blocks/bob", headers=auth(tokens[0])).status_code == 204
    assert read(0) == ["from bob", "from cid", "from ann"]
    r = client.post(f"/games/{game.id}/messages", json={"text": "hi", "to": 0},
                    headers=auth(game.tokens[1]))
    assert r.status_code == 201


def test_neither_joins_a_public_game_where_the_other_sits(app, client):
    ann, bob, cid = (signed_in(app, a) for a in (ANN, BOB, CID))
    handles(client, {"ann": ann, "bob": bob})
    assert client.put("/me/blocks/bob", headers=auth(ann)).status_code == 201
    for first, second in ((ann, bob), (bob, ann)):
        g = client.post("/games", json={"players": 4, "public": True, "seats": [
            {"name": "Host", "email": "h@example.org"}]}).get_json()
        assert client.post(f"/games/{g['game_id']}/join", json={},
                           headers=auth(first)).status_code == 201
        body = check_problem(client.post(f"/games/{g['game_id']}/join", json={},
                                         headers=auth(second)), 403, "blocked")
        assert "blocked" in body["detail"]
        assert client.post(f"/games/{g['game_id']}/join", json={},
                           headers=auth(cid)).status_code == 201
        seats = client.get(f"/games/{g['game_id']}").get_json()["seats"]
        assert [s["joined"] for s in seats] == [True, True, True, False]
    # a private game (with its invite code) is the host's business
    g = client.post("/games", json={"players": 3, "seats": [
        {"name": "Host", "email": "h@example.org"}]}).get_json()
    for token in (ann, bob):
        r = client.post(f"/games/{g['game_id']}/join", json={"invite_code": g["invite_code"]},
                        headers=auth(token))
        assert r.status_code == 201, r.get_json()


def test_reports_of_a_message_or_a_player(app, client, three):
    game, tokens = three
    moderation = app.extensions["alhambra_moderation"]
    sent = client.post(f"/games/{game.id}/messages", json={"text": "you are all idiots"},
                       headers=auth(game.tokens[1])).get_json()
    private = client.post(f"/games/{game.id}/messages", json={"text": "secret", "to": 2},
                          headers=auth(game.tokens[1])).get_json()
    r = client.post("/reports", json={"game_id": game.id, "message_id": sent["id"],
                                      "reason": "insults"}, headers=auth(tokens[0]))
    assert r.status_code == 201, r.get_json()
    first = r.get_json()["id"]
    r = client.post("/reports", json={"handle": "BOB", "reason": "stalls every game"},
                    headers=auth(tokens[2]))
    assert r.status_code == 201 and r.get_json()["id"] > first
    queue = moderation.reports()
    assert [(q.reporter_handle, q.game_id, q.message_id, q.target_handle, q.reason,
             q.message_text, q.message_sender) for q in queue] == [
        ("ann", game.id, sent["id"], "bob", "insults", "you are all idiots", "P1"),
        ("cid", None, None, "bob", "stalls every game", None, None)]
    # refusals, nothing kept
    for body, status, code in (
            ({"reason": "nothing named"}, 422, "validation_error"),
            ({"game_id": game.id, "reason": "no message id"}, 422, "validation_error"),
            ({"handle": "bob", "reason": ""}, 422, "validation_error"),
            ({"handle": "bob", "reason": "x", "extra": 1}, 422, "validation_error"),
            ({"handle": "nobody", "reason": "who"}, 404, "player_not_found"),
            ({"game_id": game.id, "message_id": private["id"], "reason": "can't see it"},
             404, "message_not_found"),
            ({"game_id": game.id, "message_id": 99, "reason": "none"}, 404,
             "message_not_found"),
            ({"game_id": "nope", "message_id": 1, "reason": "none"}, 404,
             "game_not_found"),
            ({"handle": "bob", "reason": "bad\u202etext"}, 422,
             "message_control_characters")):
        check_problem(client.post("/reports", json=body, headers=auth(tokens[0])), status,
                      code)
    check_problem(client.post("/reports", json={"handle": "bob", "reason": "x"}), 401,
                  "unauthorized")
    assert len(moderation.reports()) == 2
    # the one who received the private message may report it
    r = client.post("/reports", json={"game_id": game.id, "message_id": private["id"],
                                      "reason": "creepy"}, headers=auth(tokens[2]))
    assert r.status_code == 201
    # a day's reports per account, then 429
    for _ in range(REPORTS_PER_DAY - 2):  # cid filed two already
        assert client.post("/reports", json={"handle": "bob", "reason": "again"},
                           headers=auth(tokens[2])).status_code == 201
    r = client.post("/reports", json={"handle": "bob", "reason": "again"},
                    headers=auth(tokens[2]))
    check_problem(r, 429, "too_many_reports")
    assert r.headers["Retry-After"]
    # closed: off the queue, kept
    assert moderation.close_report(first, "op") and not moderation.close_report(first, "op")
    assert first not in [q.id for q in moderation.reports()]
    assert first in [q.id for q in moderation.reports(closed=True)]
    assert [e.action for e in moderation.entries()] == ["close-report"]
    tables = client.get("/me/export", headers=auth(tokens[0])).get_json()["tables"]
    assert [(x["id"], x["reason"]) for x in tables["reports"]] == [(first, "insults")]


def test_a_hidden_message_vanishes_for_every_reader_and_stays_kept(app, client, three):
    game, tokens = three
    moderation = app.extensions["alhambra_moderation"]
    talk = app.extensions["alhambra"]
    sent = client.post(f"/games/{game.id}/messages", json={"text": "spam link"},
                       headers=auth(game.tokens[1])).get_json()
    from service.talk import TableTalk

    before = TableTalk(talk).mark(game.id)
    moderation.hide_message(game.id, sent["id"], "op")
    assert TableTalk(talk).mark(game.id) != before  # open streams blank it
    for token in (*game.tokens, game.host_token):
        r = client.get(f"/games/{game.id}/messages", headers=auth(token))
        assert [(m["text"], m["deleted"]) for m in r.get_json()["messages"]] == \
            [("", True)]
    assert TableTalk(talk).unmailed(game.id, 0) == []
    # the host cannot delete it (its text stays kept), the operator not hide it twice
    check_problem(client.delete(f"/games/{game.id}/messages/{sent['id']}",
                                headers=auth(game.host_token)), 404, "message_not_found")
    from service.errors import MessageNotFound

    with pytest.raises(MessageNotFound):
        moderation.hide_message(game.id, sent["id"], "op")
    # kept with who hid it, and its report shows the text to the operator
    r = client.post("/reports", json={"game_id": game.id, "message_id": sent["id"],
                                      "reason": "spam"}, headers=auth(tokens[0]))
    assert r.status_code == 201
    assert moderation.reports()[0].message_text == "spam link"
    store = talk.store
    with store.d.reading() as db:
        row = db.one("select text, hidden_by, hidden_at from messages where game_id = ? "
                     "and id = ?", (game.id, sent["id"]))
    assert row["text"] == "spam link" and row["hidden_by"] == "op" and row["hidden_at"]
    assert [(e.action, e.target) for e in moderation.entries()] == \
        [("hide-message", f"{game.id}/{sent['id']}")]


def test_a_suspended_account_is_refused_and_its_games_go_on(app, client, three):
    game, tokens = three
    moderation = app.extensions["alhambra_moderation"]
    pat = client.post("/me/tokens", json={"description": "bot", "scopes": ["read", "play"]},
                      headers=auth(tokens[1])).get_json()["token"]
    taken = moderation.suspend("bob", "abuse", "op")
    assert taken == [game.id]
    doc = client.get(f"/games/{game.id}", headers=auth(game.tokens[0])).get_json()
    assert doc["view"]["seats"][1]["bot"]  # the game goes on, a bot in its seat
    for token in (tokens[1], pat):
        for r in (client.get("/me", headers=auth(token)),
                  client.get("/me/games", headers=auth(token)),
                  client.get(f"/games/{game.id}", headers=auth(token)),
                  client.post("/reports", json={"handle": "ann", "reason": "x"},
                              headers=auth(token))):
            body = check_problem(r, 403, "account_suspended")
            assert "suspended" in body["detail"]
    # no new sign-in either
    players = app.extensions["alhambra_players"]
    request = players.request_sign_in(BOB)
    code = sign_in_code(app.extensions["alhambra"].secret_key, request.id)
    check_problem(client.post("/players/session", json={"code": code}), 403,
                  "account_suspended")
    assert moderation.suspend("bob", None, "op") == []  # suspended already
    assert moderation.unsuspend(BOB, "op")  # by address too
    assert client.get("/me", headers=auth(tokens[1])).status_code == 200
    assert client.get("/me", headers=auth(pat)).status_code == 200
    assert [(e.action, e.target, e.detail) for e in moderation.entries()] == \
        [("suspend", BOB, "abuse"), ("unsuspend", BOB, None)]


def test_a_banned_address_cannot_sign_in(app, client):
    moderation = app.extensions["alhambra_moderation"]
    players = app.extensions["alhambra_players"]
    key = app.extensions["alhambra"].secret_key
    earlier = sign_in_code(key, players.request_sign_in("spam@example.org").id)
    assert moderation.ban("spam@example.org", "spam", "op")
    assert not moderation.ban("spam@example.org", "spam", "op")
    r = client.post("/players/sign-in", json={"email": "SPAM@Example.org"})
    assert r.status_code == 202  # as for any address: no telling who is banned
    with app.extensions["alhambra"].store.d.reading() as db:
        assert db.scalar("select count(*) from sign_ins where email = ?",
                         ("spam@example.org",)) == 1  # the earlier one only
    check_problem(client.post("/players/session", json={"code": earlier}), 403,
                  "address_banned")
    assert moderation.unban("spam@example.org", "op")
    later = sign_in_code(key, players.request_sign_in("spam@example.org").id)
    assert client.post("/players/session", json={"code": later}).status_code == 201
    assert [e.action for e in moderation.entries()] == ["ban", "unban"]


def test_a_deleted_account_leaves_no_address_in_the_moderation_tables(app, client, three):
    game, tokens = three
    moderation = app.extensions["alhambra_moderation"]
    assert client.put("/me/blocks/bob", headers=auth(tokens[0])).status_code == 201
    assert client.put("/me/blocks/ann", headers=auth(tokens[1])).status_code == 201
    assert client.post("/reports", json={"handle": "bob", "reason": "x"},
                       headers=auth(tokens[0])).status_code == 201
    assert client.post("/reports", json={"handle": "ann", "reason": "y"},
                       headers=auth(tokens[2])).status_code == 201
    moderation.suspend("ann", None, "op")
    moderation.unsuspend("ann", "op")
    assert client.delete("/me", headers=auth(tokens[0])).status_code == 204
    with app.extensions["alhambra"].store.d.reading() as db:
        for table in ("blocks", "reports", "moderation_log"):
            for row in db.query(f"select * from {table}"):
                assert ANN not in str(row), (table, row)
    assert client.get("/me/blocks", headers=auth(tokens[1])).get_json()["blocks"] == []
    assert len(moderation.reports()) == 2
