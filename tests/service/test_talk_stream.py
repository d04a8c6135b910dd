"""Table talk on the game's live stream (issue 27): ``event: chat`` to the readers that may
read each message, deletions too (the hub's path: tests/web/test_chat.py)."""

from __future__ import annotations

import threading
import time

import pytest

from service import create_app
from service.settings import Settings
from tests.service.test_stream import ThreadedClient, parse, stream_for
from tests.support import auth, new_game


@pytest.fixture
def app(db_path):
    app = create_app(Settings(database=str(db_path), stream_seconds=0.3, stream_poll=0.01,
                              stream_keepalive=0.1))
    yield app
    app.extensions["alhambra"].store.close()


@pytest.fixture
def client(app):
    app.test_client_class = ThreadedClient
    return app.test_client()


def chats(text: str) -> list[dict]:
    return [m["data"] for m in parse(text) if m.get("event") == "chat"]


def test_messages_reach_open_streams_of_those_who_may_read_them(app, client):
    stream_for(app, 1.5)
    g = new_game(client, 3)
    writer = app.test_client()

    def talk():
        time.sleep(0.3)
        for token, body in ((g.tokens[0], {"text": "to all"}),
                            (g.tokens[0], {"text": "to P1", "to": 1}),
                            (g.tokens[2], {"text": "to P0", "to": 0})):
            r = writer.post(f"/games/{g.id}/messages", json=body, headers=auth(token))
            assert r.status_code == 201
        time.sleep(0.2)
        writer.delete(f"/games/{g.id}/messages/1", headers=auth(g.host_token))

    results: dict = {}

    def read(name, token):
        r = client.get(f"/games/{g.id}/stream", headers=auth(token))
        results[name] = r.get_data(as_text=True)

    readers = [threading.Thread(target=read, args=(n, t)) for n, t in
               (("p0", g.tokens[0]), ("p1", g.tokens[1]), ("p2", g.tokens[2]),
                ("host", g.host_token), ("spectator", None))]
    for t in readers:
        t.start()
    talk()
    for t in readers:
        t.join()
    seen = {name: [(c["id"], c["text"], c["deleted"]) for c in chats(text)]
            for name, text in results.items()}
    assert seen["p0"] == [(1, "to all", False), (2, "to P1", False), (3, "to P0", False),
                          (1, "", True)]
    assert seen["p1"] == [(1, "to all", False), (2, "to P1", False), (1, "", True)]
    assert seen["p2"] == [(1, "to all", False), (3, "to P0", False), (1, "", True)]
    assert seen["host"] == [(1, "to all", False), (1, "", True)]
    assert seen["spectator"] == []
    assert "to P1" not in results["p2"] and "to all" not in results["spectator"]
