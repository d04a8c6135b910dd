"""GET /games/{id}/stream: server-sent events of the redacted event items, live."""

from __future__ import annotations

import dataclasses
import json
import random
import threading

import pytest
from flask.testing import FlaskClient

from service import create_app
from service.blueprints import stream
from service.settings import Settings
from tests.support import FakeTime, GameHandle, auth, new_game, play_random


@pytest.fixture
def app(db_path):
    app = create_app(Settings(database=str(db_path), stream_seconds=0.3, stream_poll=0.01,
                              stream_keepalive=0.1))
    yield app
    app.extensions["alhambra"].store.close()


def stream_for(app, seconds: float) -> None:
    """Let this app's streams last ``seconds``."""
    settings = app.extensions["alhambra_settings"]
    app.extensions["alhambra_settings"] = dataclasses.replace(settings, stream_seconds=seconds)


class ThreadedClient(FlaskClient):
    """Requests as a threaded server (gunicorn's gthread, werkzeug's) passes them on."""

    def open(self, *args, **kwargs):
        kwargs["environ_overrides"] = {"wsgi.multithread": True,
                                       **kwargs.get("environ_overrides", {})}
        return super().open(*args, **kwargs)


@pytest.fixture
def client(app):
    app.test_client_class = ThreadedClient
    return app.test_client()


def parse(text: str) -> list[dict]:
    """The messages of an event stream: {"id", "data" (parsed), "retry", "comment"}."""
    messages = []
    for block in text.split("\n\n"):
        if not block:
            continue
        m: dict = {}
        for line in block.split("\n"):
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "":
                m["comment"] = value
            elif field == "data":
                m["data"] = json.loads(value)
            else:
                m[field] = value
        messages.append(m)
    return messages


def items(messages: list[dict]) -> list[dict]:
    return [m["data"] for m in messages if "data" in m]


def test_the_stream_sends_the_same_items_as_events_with_the_version_as_id(client):
    game = new_game(client, 3)
    for seat in (None, 0, 2):
        r = client.get(f"/games/{game.id}/stream", headers=auth(game.tokens[seat]
                                                                if seat is not None else None))
        assert r.status_code == 200
        assert r.mimetype == "text/event-stream"
        assert r.headers["Cache-Control"] == "no-cache"
        messages = parse(r.get_data(as_text=True))
        assert messages[0] == {"retry": "1000"}
        expected = client.get(f"/games/{game.id}/events",
                              headers=auth(game.tokens[seat] if seat is not None else None))
        assert items(messages) == expected.get_json()["events"]
        assert [int(m["id"]) for m in messages if "data" in m] == \
            [i["version"] for i in items(messages)] == list(range(1, game.get()["version"] + 1))


def test_a_seat_sees_its_own_hand_only_as_in_events(client):
    """A-7: hands are secret; the stream is redacted for the bearer token like /events."""
    game = new_game(client, 3)
    play_random(game, random.Random(5), max_moves=12)
    streams = [items(parse(client.get(f"/games/{game.id}/stream?since=10",
                                      headers=auth(t)).get_data(as_text=True)))
               for t in game.tokens]
    events = [client.get(f"/games/{game.id}/events?since=10", headers=auth(t)).get_json()[
        "events"] for t in game.tokens]
    assert streams == events
    spectator = items(parse(client.get(f"/games/{game.id}/stream?since=10").get_data(
        as_text=True)))
    assert all("deck" not in i["event"] and "tiles" not in i["event"]
               for i in spectator if i["event"]["type"] in ("money_shuffled", "bag_filled"))


def test_last_event_id_resumes_after_it_and_wins_over_since(client):
    game = new_game(client, 3)
    version = game.get()["version"]
    r = client.get(f"/games/{game.id}/stream?since=2", headers={"Last-Event-ID": "9"})
    got = items(parse(r.get_data(as_text=True)))
    assert [i["version"] for i in got] == list(range(10, version + 1))
    r = client.get(f"/games/{game.id}/stream?since={version}")
    assert items(parse(r.get_data(as_text=True))) == []


def test_a_move_made_while_the_stream_waits_arrives_on_it(app, client):
    stream_for(app, 10)
    game = new_game(client, 3)
    version = game.get()["version"]
    seat = game.get()["current_seat"]
    move = game.legal(seat)["moves"][0]["notation"]
    other = GameHandle(app.test_client(), game.id, game.tokens, game.host_token)
    answers = []
    mover = threading.Timer(0.4, lambda: answers.append(other.submit(seat, move, version)))
    r = client.get(f"/games/{game.id}/stream?since={version}",
                   headers=auth(game.tokens[0]), buffered=False)
    mover.start()
    text = ""
    for chunk in r.response:  # the stream polls while the move is being made
        text += chunk.decode()
        if "data:" in text:
            break
    mover.join()
    assert answers[0].status_code == 201
    got = items(parse(text))
    assert got[0]["version"] == version + 1 and got[0]["event"].get("move") == move
    r.close()


def test_a_quiet_stream_keeps_alive_then_ends_in_bounded_time(client, monkeypatch):
    """(On a fake clock: 0.3 s of stream, a keep-alive each 0.1 s.)"""
    game = new_game(client, 3)
    version = game.get()["version"]
    waited = FakeTime()
    monkeypatch.setattr(stream, "time", waited)
    text = client.get(f"/games/{game.id}/stream?since={version}").get_data(as_text=True)
    messages = parse(text)
    assert waited.slept == pytest.approx(0.3)  # it lasts stream_seconds, then ends
    assert messages.count({"comment": "keep-alive"}) in (2, 3) and not items(messages)


def test_a_one_request_at_a_time_server_ends_each_stream_at_once(app, client, monkeypatch):
    """Under gunicorn's sync workers an open page must not hold a worker: the stream sends
    what there is and ends; the client reconnects after `retry` (polling)."""
    stream_for(app, 30)
    game = new_game(client, 3)
    waited = FakeTime()
    monkeypatch.setattr(stream, "time", waited)
    text = client.get(f"/games/{game.id}/stream?since=5",
                      environ_overrides={"wsgi.multithread": False}).get_data(as_text=True)
    assert waited.slept == 0  # it never waits
    got = items(parse(text))
    assert [i["version"] for i in got] == list(range(6, game.get()["version"] + 1))


def test_a_finished_game_sends_its_events_and_ends_at_once(app, client, monkeypatch):
    stream_for(app, 30)
    game = new_game(client, 2)
    play_random(game, random.Random(3))
    waited = FakeTime()
    monkeypatch.setattr(stream, "time", waited)
    text = client.get(f"/games/{game.id}/stream?since=0").get_data(as_text=True)
    assert waited.slept == 0  # all there: it ends without waiting
    got = items(parse(text))
    assert got == client.get(f"/games/{game.id}/events").get_json()["events"]
    assert got[-1]["event"]["type"] == "game_over"


@pytest.mark.parametrize("case", ["unknown game", "bad token", "other game", "bad id",
                                  "bad since"])
def test_bad_requests_get_a_problem_and_no_stream(client, case):
    game, other = new_game(client, 3), new_game(client, 3)
    url, headers, status = f"/games/{game.id}/stream", {}, None
    if case == "unknown game":
        url, status = "/games/0123456789abcdef/stream", 404
    elif case == "bad token":
        headers, status = auth("not-a-token"), 401
    elif case == "other game":
        headers, status = auth(other.tokens[0]), 403
    elif case == "bad id":
        headers, status = {"Last-Event-ID": "twelve"}, 400
    else:
        url, status = url + "?since=-1", 422
    r = client.get(url, headers=headers)
    assert r.status_code == status
    assert r.mimetype == "application/problem+json" and r.get_json()["status"] == status
