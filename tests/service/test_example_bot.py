"""examples/bot.py (issue 33), on the client generated from openapi/openapi.json only: a
bot account with a personal token accepts invitations and plays whole games from its
one stream while a person plays the other seats; every event of the bot's stream came
(none lost across the stream's reconnections), and every answer the bot got (its
stream's aside) is in the document (openapi-core, strict)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from flask import request
from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse
from werkzeug.serving import make_server

from service import create_app
from service.account_feed import Key
from service.settings import Settings
from tests.service.test_me_stream import read
from tests.support import auth, random_api_move, signed_in

ROOT = Path(__file__).resolve().parents[2]
#: Games at once (the closing note's run: ALHAMBRA_BOT_GAMES=20)
GAMES = int(os.environ.get("ALHAMBRA_BOT_GAMES", "2"))


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """The Python client generated from the committed document."""
    where = tmp_path_factory.mktemp("client")
    (where / "config.yml").write_text("post_hooks: []\n")
    generator = Path(sys.executable).with_name("openapi-python-client")
    out = subprocess.run([str(generator), "generate", "--path",
                          str(ROOT / "openapi" / "openapi.json"), "--meta", "none",
                          "--output-path", str(where / "alhambra_client"),
                          "--config", str(where / "config.yml")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return where


def record_answers(app) -> list[tuple]:
    """Each answer of the bot's requests (its token's), as openapi-core reads them."""
    answers: list[tuple] = []

    @app.after_request
    def keep(resp):
        if request.headers.get("User-Agent", "").startswith("python-httpx") and \
                not resp.is_streamed:
            answers.append((request.method, request.full_path, MockRequest(
                "http://localhost", request.method.lower(), request.path,
                args=dict(request.args), headers=dict(request.headers),
                data=request.get_data() or None), MockResponse(
                resp.get_data(), resp.status_code, dict(resp.headers), resp.mimetype)))
        return resp
    return answers


def off_spec(answers: list[tuple]) -> list[str]:
    """The answers openapi-core's strict validation finds off the document."""
    api = OpenAPI.from_file_path(str(ROOT / "openapi" / "openapi.json"), config=Config(
        extra_media_type_deserializers={"application/problem+json": json.loads}))
    off = []
    for method, path, req, resp in answers:
        try:
            api.validate_response(req, resp)
        except Exception as exc:  # listed, not the first alone
            off.append(f"{method} {path} {resp.status_code}: {exc!r}")
    return off


def person_plays(client, token: str, game_ids: list[str], stop: threading.Event) -> None:
    """The person's side: a random legal move wherever it is the person's turn."""
    rng = random.Random(7)
    while not stop.is_set():
        for game_id in game_ids:
            legal = client.get(f"/games/{game_id}/legal-moves", headers=auth(token))
            body = legal.get_json()
            if legal.status_code == 200 and body["your_turn"] and body["moves"]:
                client.post(f"/games/{game_id}/moves", headers=auth(token), json={
                    "move": random_api_move(body, rng), "version": body["version"]})
        stop.wait(0.02)


def test_the_example_bot_accepts_and_plays_whole_games_from_its_stream(generated, tmp_path):
    settings = Settings(database=str(tmp_path / "bot.db"), stream_seconds=3.0,
                        stream_poll=0.05, stream_keepalive=1.0, stream_settle=0.5)
    app = create_app(settings)
    answers = record_answers(app)
    client = app.test_client()
    ann = signed_in(app, "ann@example.org")
    robo = signed_in(app, "robo@example.org")
    assert client.patch("/me", json={"handle": "ann"}, headers=auth(ann)).status_code == 200
    r = client.patch("/me", json={"handle": "robo", "bot": True}, headers=auth(robo))
    assert r.get_json()["bot"] is True
    pat = client.post("/me/tokens", json={"description": "bot", "scopes": ["read", "play"]},
                      headers=auth(robo)).get_json()["token"]
    start, _ = read(client, robo)
    # one invitation waits before the bot starts; the others come while it streams
    invitations = [client.post("/invitations", json={"invitees": ["robo"]},
                               headers=auth(ann)).get_json()["id"]]

    server = make_server("127.0.0.1", 0, app, threaded=True)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    record = tmp_path / "events.txt"
    bot = subprocess.Popen(
        [sys.executable, str(ROOT / "examples" / "bot.py"), "--url",
         f"http://127.0.0.1:{server.server_port}", "--token", pat, "--games", str(GAMES),
         "--seconds", str(120 * GAMES), "--record", str(record)],
        env={"PYTHONPATH": str(generated), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stop = threading.Event()
    person = None
    try:
        invitations += [client.post("/invitations", json={"invitees": ["robo"]},
                                    headers=auth(ann)).get_json()["id"]
                        for _ in range(GAMES - 1)]
        store = app.extensions["alhambra"].store
        game_ids: list[str] = []
        for invitation_id in invitations:  # accepted by the bot: each makes a game
            for _ in range(600):
                found = store.invitations.get(invitation_id)
                if found is not None and found.game_id:
                    game_ids.append(found.game_id)
                    break
                stop.wait(0.05)
        assert len(game_ids) == GAMES, "the bot did not accept every invitation"
        person = threading.Thread(target=person_plays, args=(client, ann, game_ids, stop),
                                  daemon=True)
        person.start()
        out, err = bot.communicate(timeout=120 * GAMES + 60)
    finally:
        stop.set()
        if bot.poll() is None:
            bot.kill()
        if person is not None:
            person.join(10)
        server.shutdown()
        serving.join(5)
    assert bot.returncode == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    stuck = [(g.id, g.version, g.current_seat, g.status) for g in map(store.game, game_ids)
             if g.status != "over"]
    tail = [line for line in record.read_text().splitlines()
            if stuck and stuck[0][0] in line][-6:]
    assert summary["over"] == GAMES and summary["accepted"] == GAMES, (stuck, tail,
                                                                      out[-1500:])
    assert summary["streams"] >= 2  # it resumed with Last-Event-ID at least once
    for game_id in game_ids:
        assert store.game(game_id).status == "over"
    # nothing lost: the bot got every event its account's stream holds since it began
    _, everything = read(client, robo, start)
    # (your_turn is told while it is the turn only: a later look no longer has it)
    told = [line.split() for line in record.read_text().splitlines()]
    first, last = (f(Key.parse(i) for i, _ in told) for f in (min, max))
    lasting = sorted(i for i, kind in told if kind != "your_turn")
    held = sorted(e["id"] for e in everything if first <= Key.parse(e["id"]) <= last)
    off = off_spec(answers)
    print("example bot:", json.dumps({**summary, "games": GAMES, "told": len(told),
                                      "held": len(held), "lost": len(set(held) - set(lasting)),
                                      "answers": len(answers), "off_spec": len(off)}))
    assert not off, "\n".join(off[:20])
    assert {"/invitations", "/me/games", "/me"} <= {a[1].split("?")[0] for a in answers}
    assert lasting == held, set(held) ^ set(lasting)
    assert len(told) == len({i for i, _ in told}), "an event told twice"
    assert summary["moves"] > 20
