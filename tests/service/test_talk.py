"""Table talk through the API (issue 27): who reads which message, the host's deletion,
mutes, notes and settings; bad input refused with its code and nothing written; the rate
limit; messages are not events (the game's version and log stay as they are)."""

from __future__ import annotations

import random

import pytest

from service import create_app
from service.settings import Settings
from tests.service.test_replay_access import finish
from tests.support import auth, check_problem, new_game, stored


@pytest.fixture
def app(db_path):
    app = create_app(Settings(database=str(db_path), messages_per_hour=5))
    yield app
    app.extensions["alhambra"].store.close()


def say(client, g, token, text, to=None):
    return client.post(f"/games/{g.id}/messages", json={"text": text, "to": to},
                       headers=auth(token))


def texts(client, g, token, since=0):
    r = client.get(f"/games/{g.id}/messages?since={since}", headers=auth(token))
    assert r.status_code == 200, r.get_json()
    return [m["text"] for m in r.get_json()["messages"]]


def test_each_reader_sees_what_it_may(client, games):
    g = new_game(client, 3)
    version = g.get()["version"]
    r = say(client, g, g.tokens[0], "  Καλή τύχη! 🎲 Удачи  ")
    assert r.status_code == 201
    sent = r.get_json()
    assert {k: sent[k] for k in ("id", "from", "from_name", "to", "text", "version",
                                 "deleted")} == {
        "id": 1, "from": 0, "from_name": "P0", "to": None, "text": "Καλή τύχη! 🎲 Удачи",
        "version": version, "deleted": False}
    assert say(client, g, g.tokens[1], "psst P2", to=2).status_code == 201
    assert say(client, g, g.host_token, "<b>welcome</b>").status_code == 201
    table = ["Καλή τύχη! 🎲 Удачи", "<b>welcome</b>"]
    assert texts(client, g, g.tokens[0]) == table
    assert texts(client, g, g.tokens[1]) == [table[0], "psst P2", table[1]]
    assert texts(client, g, g.tokens[2]) == [table[0], "psst P2", table[1]]
    assert texts(client, g, g.host_token) == table
    assert texts(client, g, None) == []  # spectators_read_chat is off by default
    assert texts(client, g, g.tokens[1], since=2) == [table[1]]
    # not events: the version and the log are as they were
    assert g.get()["version"] == version
    assert games.store.game(g.id).version == version


def test_spectators_read_the_table_where_the_game_allows_it(client):
    g = new_game(client, 2, spectators_read_chat=True)
    assert g.get()["spectators_read_chat"] is True
    say(client, g, g.tokens[0], "hello all")
    say(client, g, g.tokens[0], "just you", to=1)
    assert texts(client, g, None) == ["hello all"]


def test_bad_input_is_refused_and_nothing_written(client, games):
    r = client.post("/games", json={"seats": [{"name": "Ann", "email": "a@example.org"},
                                              {"bot": "random"},
                                              {"name": "Cy", "email": "c@example.org"}],
                                    "players": 3})
    doc = r.get_json()
    gid, ann = doc["game_id"], doc["seats"][0]["token"]
    url = f"/games/{gid}/messages"
    cases = [({"text": "   "}, "message_empty"), ({"text": "x" * 1001}, "message_too_long"),
             ({"text": "bell\x07"}, "message_control_characters"),
             ({"text": "\u202eevil"}, "message_control_characters"),
             ({"text": "hi", "to": 7}, "unknown_seat"),
             ({"text": "hi", "to": -1}, "unknown_seat"),
             ({"text": "hi", "to": 1}, "addressee_is_bot")]
    for body, code in cases:
        check_problem(client.post(url, json=body, headers=auth(ann)), 422, code)
    check_problem(client.post(url, json={"text": "hi"}), 401)
    check_problem(client.post(url, json={"text": "hi", "to": 0},
                              headers=auth(doc["host_token"])), 403)
    assert games.store.talk.messages(gid) == []
    ok = client.post(url, json={"text": "x" * 990 + "\n\tend 👨\u200d👩"},
                     headers=auth(ann))
    assert ok.status_code == 201


def test_the_rate_limit(client):
    g = new_game(client, 2)
    for i in range(5):
        assert say(client, g, g.tokens[0], f"m{i}").status_code == 201
    body = check_problem(say(client, g, g.tokens[0], "one more"), 429, "too_many_messages")
    assert body["limit"] == 5
    assert say(client, g, g.tokens[1], "the other seat may").status_code == 201
    assert len(texts(client, g, g.tokens[1])) == 6


def test_mute_and_unmute(client):
    g = new_game(client, 3)
    r = client.put(f"/games/{g.id}/mutes/1", headers=auth(g.tokens[0]))
    assert r.status_code == 200 and r.get_json()["muted"] == [1]
    say(client, g, g.tokens[1], "noise")
    say(client, g, g.tokens[1], "private noise", to=0)
    say(client, g, g.tokens[2], "signal")
    assert texts(client, g, g.tokens[0]) == ["signal"]
    assert texts(client, g, g.tokens[2]) == ["noise", "signal"]
    check_problem(client.put(f"/games/{g.id}/mutes/9", headers=auth(g.tokens[0])), 422,
                  "unknown_seat")
    check_problem(client.put(f"/games/{g.id}/mutes/1", headers=auth(g.host_token)), 403)
    r = client.delete(f"/games/{g.id}/mutes/1", headers=auth(g.tokens[0]))
    assert r.get_json()["muted"] == []
    assert texts(client, g, g.tokens[0]) == ["noise", "private noise", "signal"]


def test_the_host_deletes_a_message(client):
    g = new_game(client, 2)
    mid = say(client, g, g.tokens[0], "rude words").get_json()["id"]
    check_problem(client.delete(f"/games/{g.id}/messages/{mid}", headers=auth(g.tokens[1])),
                  403)
    assert client.delete(f"/games/{g.id}/messages/{mid}",
                         headers=auth(g.host_token)).status_code == 204
    check_problem(client.delete(f"/games/{g.id}/messages/{mid}", headers=auth(g.host_token)),
                  404, "message_not_found")
    for token in (g.tokens[0], g.tokens[1], g.host_token):
        (m,) = client.get(f"/games/{g.id}/messages", headers=auth(token)).get_json()["messages"]
        assert m["deleted"] is True and m["text"] == ""


def test_notes_and_settings_are_the_seats_own(client):
    g = new_game(client, 2)
    url = f"/games/{g.id}/notes"
    assert client.get(url, headers=auth(g.tokens[0])).get_json() == {"text": ""}
    r = client.put(url, json={"text": "Bob collects towers"}, headers=auth(g.tokens[0]))
    assert r.status_code == 200 and r.get_json() == {"text": "Bob collects towers"}
    assert client.get(url, headers=auth(g.tokens[1])).get_json() == {"text": ""}
    check_problem(client.get(url, headers=auth(g.host_token)), 403)
    check_problem(client.get(url), 401)
    check_problem(client.put(url, json={"text": "y" * 10_001}, headers=auth(g.tokens[0])),
                  422, "message_too_long")
    settings = client.put(f"/games/{g.id}/talk", json={"mail_messages": "at_once",
                                                        "notes_in_mail": True},
                          headers=auth(g.tokens[0])).get_json()
    assert settings == {"muted": [], "mail_messages": "at_once", "notes_in_mail": True}
    assert client.get(f"/games/{g.id}/talk", headers=auth(g.tokens[1])).get_json() == {
        "muted": [], "mail_messages": "with_next", "notes_in_mail": False}
    check_problem(client.put(f"/games/{g.id}/talk", json={"mail_messages": "daily"},
                             headers=auth(g.tokens[0])), 422)
    # the other views never hold a note
    for token in (None, g.tokens[1], g.host_token):
        assert "Bob collects" not in client.get(f"/games/{g.id}", headers=auth(token)
                                                ).get_data(as_text=True)


def test_records_carry_what_their_reader_may_see_and_imports_keep_it(client, games):
    g = new_game(client, 3)
    say(client, g, g.tokens[0], "gl hf")
    say(client, g, g.tokens[0], "our secret", to=1)
    gone = say(client, g, g.tokens[2], "rude").get_json()["id"]
    client.delete(f"/games/{g.id}/messages/{gone}", headers=auth(g.host_token))
    finish(games, g.id, random.Random(3))
    say(client, g, g.tokens[1], "gg")  # after the end too

    def record(token):
        r = client.get(f"/games/{g.id}/record", headers=auth(token))
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    assert [m["text"] for m in record(g.tokens[1])["messages"]] == [
        "gl hf", "our secret", "", "gg"]
    assert [m["text"] for m in record(g.tokens[2])["messages"]] == ["gl hf", "", "gg"]
    assert [m["text"] for m in record(g.host_token)["messages"]] == ["gl hf", "", "gg"]
    assert record(None)["messages"] == []  # spectators_read_chat off
    doc = record(g.tokens[1])
    assert doc["messages"][2]["deleted"] is True
    # the moves replay the same with or without the talk: not events
    bare = client.post("/records", json={k: v for k, v in doc.items() if k != "messages"})
    with_talk = client.post("/records", json=doc)
    assert bare.status_code == with_talk.status_code == 201, with_talk.get_json()
    assert bare.get_json()["view"] == with_talk.get_json()["view"]
    new_id = with_talk.get_json()["game_id"]
    assert with_talk.get_json()["spectators_read_chat"] is True
    shown = client.get(f"/games/{new_id}/messages").get_json()["messages"]
    assert [(m["from"], m["text"], m["deleted"]) for m in shown] == [
        (0, "gl hf", False), (2, "", True), (1, "gg", False)]
    # a record whose messages cannot be is refused whole
    before = stored(games.store, "games")
    for bad in ({"from": 5, "text": "x", "created_at": "2026-01-01T00:00:00Z"},
                {"from": 0, "text": "\x00", "created_at": "2026-01-01T00:00:00Z"},
                {"from": 0, "text": "x"},
                *({"from": 0, "text": "x", "created_at": "2026-01-01T00:00:00Z",
                   "version": v} for v in (10**25, -1, 1.5, "3", 10**6))):  # probe 7
        body = check_problem(client.post("/records", json={**doc, "messages": [bad]}), 422,
                             "invalid_record")
        assert "messages[0]" in body["detail"]
    assert stored(games.store, "games") == before
