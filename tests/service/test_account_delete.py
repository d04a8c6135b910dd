"""A player's account gone (issue 38): DELETE /me. In a running game a bot takes the
seat over; afterwards no table of the database holds the address, every reader's view
calls the seat "(deleted)", the logs still replay, and the account's tokens stop."""

from __future__ import annotations

import random
import sqlite3

import engine
from service.players import DELETED
from service.ratings import Ratings
from tests.service.test_replay_access import finish
from tests.support import auth, claim, claimed, new_game

ANN = "Ann.Gone@Example.org"


def test_a_deleted_account_leaves_no_trace_of_its_address(app, client, db_path):
    games = app.extensions["alhambra"]
    running = new_game(client, 2, emails=[ANN, "bob@example.org"])
    over = new_game(client, 2, emails=[ANN, "cid@example.org"])
    offered = new_game(client, 2, emails=["dee@example.org", ANN])  # never claimed
    ann = claimed(app, running, {0: ANN})[0]
    claimed(app, running, {1: "bob@example.org"})
    claimed(app, over, {1: "cid@example.org"})
    claim(client, over, 0, ann)
    client.post(f"/games/{running.id}/messages", json={"text": "ANN WROTE this"},
                headers=auth(running.tokens[0]))
    client.put(f"/games/{running.id}/notes", json={"text": "ANN-NOTES"},
               headers=auth(running.tokens[0]))
    client.post("/me/tokens", json={"description": "phone", "scopes": ["read"]},
                headers=auth(ann))
    assert client.patch("/me", json={"handle": "anngone"}, headers=auth(ann)).status_code == 200
    finish(games, over.id, random.Random(38))  # rated: both seats claimed
    Ratings(games).rate_game(over.id)  # (the worker's due work)
    names = [r.get("name") for r in client.get("/ratings?variant=alhambra").get_json()[
        "ratings"]]
    assert "anngone" in names
    said = "".join(str(i["text"]) for i in client.get(f"/games/{running.id}/events")
                   .get_json()["events"])
    assert "P0" in said  # the seat's name, until the account goes

    r = client.delete("/me", headers=auth(ann))
    assert r.status_code == 204, r.get_json()
    assert client.get("/me", headers=auth(ann)).status_code == 401

    # no table holds the address, in any case or spelling
    address = ANN.lower()
    db = sqlite3.connect(db_path)
    tables = [t for (t,) in db.execute("select name from sqlite_master where type = 'table'")]
    for table in tables:
        for row in db.execute(f"select * from {table}"):  # noqa: S608 - the schema's names
            for value in row:
                text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
                assert address not in text.lower(), (table, row)
    db.close()

    # the running game goes on with a bot in the seat, called (deleted) everywhere
    doc = client.get(f"/games/{running.id}", headers=auth(running.tokens[1])).get_json()
    assert doc["seats"][0]["name"] == DELETED and doc["view"]["seats"][0]["bot"]
    assert doc["view"]["seats"][0]["name"] == DELETED
    events = client.get(f"/games/{running.id}/events").get_json()["events"]
    assert events[0]["event"]["seats"][0] == DELETED
    assert "P0" not in "".join(str(i["text"]) for i in events)
    assert "P0" not in str(doc)
    record = client.get(f"/games/{over.id}/record").get_json()
    assert record["seats"][0] == DELETED
    for game in (running, over, offered):  # the logs replay as they were
        log = games.store.read(game.id)
        assert engine.replay(log).version == len(log)
    # the finished game stays rated, by nobody one can name
    ratings = client.get("/ratings?variant=alhambra").get_json()["ratings"]
    assert len(ratings) == 2 and "anngone" not in str(ratings)
