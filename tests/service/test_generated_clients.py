"""Clients generated from openapi/openapi.json work (issue 33): openapi-python-client makes a
client with no warning that creates and reads a game on a running server; openapi-typescript
types type-check the documented bodies under tsc --strict; and the answers of a scripted
game are all in the document by openapi-core's strict validation."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse
from werkzeug.serving import make_server

from tests.support import auth

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "openapi" / "openapi.json"
TS = ROOT / "tests" / "clients" / "ts"


def test_python_client_generates_cleanly_and_plays(app, tmp_path, monkeypatch):
    (tmp_path / "config.yml").write_text("post_hooks: []\n")
    generator = Path(sys.executable).with_name("openapi-python-client")
    out = subprocess.run([str(generator), "generate", "--path", str(SPEC), "--meta", "none",
                          "--output-path", str(tmp_path / "alhambra_client"),
                          "--config", str(tmp_path / "config.yml")],
                         capture_output=True, text=True, timeout=120)
    said = out.stdout + out.stderr
    assert out.returncode == 0 and "Warning" not in said and "WARNING" not in said \
        and "Unable" not in said, said
    monkeypatch.syspath_prepend(str(tmp_path))
    client_pkg = importlib.import_module("alhambra_client")
    from alhambra_client.api.games import create_game, get_game
    from alhambra_client.models import CreatedGame, CreateGame, Game, SeatSpec

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        api = client_pkg.Client(base_url=f"http://127.0.0.1:{server.server_port}",
                                raise_on_unexpected_status=True)
        created = create_game.sync(client=api, body=CreateGame(
            seats=[SeatSpec(name="Ann"), SeatSpec(name="Ben")]))
        assert isinstance(created, CreatedGame), created
        token = created.seats[0].token
        seated = client_pkg.AuthenticatedClient(base_url=api._base_url, token=token)
        game = get_game.sync(game_id=created.game_id, client=seated)
        assert isinstance(game, Game), game
        assert [s.name for s in game.seats] == ["Ann", "Ben"] and game.your_seat == 0
        assert game.status.value == "active" and game.view is not None
        assert game.view.seats[0].hand and game.seats[0].language is None
    finally:
        server.shutdown()
        thread.join(5)
        for name in [m for m in sys.modules if m.split(".")[0] == "alhambra_client"]:
            del sys.modules[name]


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_typescript_types_check_the_documented_bodies():
    """tests/clients/ts/client.ts: the bodies of docs/clients.md and a game's fields."""
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=TS, capture_output=True, text=True, timeout=120)

    installed = run("npm", "ci", "--no-audit", "--no-fund")
    assert installed.returncode == 0, installed.stderr
    generated = run("npx", "openapi-typescript", str(SPEC), "-o", "api.d.ts")
    assert generated.returncode == 0, generated.stderr
    checked = run("npx", "tsc", "-p", "tsconfig.json")
    assert checked.returncode == 0 and "error" not in checked.stdout, checked.stdout


def test_answers_of_a_scripted_game_are_in_the_document(client):
    """Strict response validation (openapi-core) of a short game: every answer on spec."""
    api = OpenAPI.from_file_path(str(SPEC), config=Config(
        extra_media_type_deserializers={"application/problem+json": json.loads}))
    answers = []

    def call(method: str, url: str, token: str | None = None, **kw):
        r = client.open(url, method=method, headers=auth(token) if token else {}, **kw)
        path, _, query = url.partition("?")
        request = MockRequest("http://localhost", method.lower(), path, args=dict(
            p.split("=") for p in query.split("&") if p), headers=auth(token) if token else {},
            data=json.dumps(kw["json"]).encode() if "json" in kw else None)
        answers.append((method, url, r.status_code, request, MockResponse(
            r.data, r.status_code, dict(r.headers), r.mimetype)))
        return r

    created = call("POST", "/games", json={"players": 3, "seats": [
        {"name": "Ann"}, {"name": "Ben", "language": "fi"}]}).get_json()
    game_id, host = created["game_id"], created["host_token"]
    call("GET", f"/games/{game_id}")
    joined = call("POST", f"/games/{game_id}/join",
                  json={"invite_code": created["invite_code"], "name": "Cid"}).get_json()
    tokens = {s["seat"]: s["token"] for s in created["seats"]} | {joined["seat"]:
                                                                 joined["token"]}
    game = call("GET", f"/games/{game_id}", tokens[0]).get_json()
    seat, version = game["current_seat"], game["version"]
    legal = call("GET", f"/games/{game_id}/legal-moves", tokens[seat]).get_json()
    other = tokens[(seat + 1) % 3]
    call("POST", f"/games/{game_id}/moves", other, json={"version": version, "move": "take 1"})
    call("POST", f"/games/{game_id}/moves", tokens[seat],
         json={"version": version - 1, "move": legal["moves"][0]["notation"]})
    call("POST", f"/games/{game_id}/moves", tokens[seat],
         json={"version": version, "move": "buy A99 with XX9"})
    call("POST", f"/games/{game_id}/moves/preview", tokens[seat],
         json={"moves": [legal["moves"][0]["move"]]})
    call("POST", f"/games/{game_id}/moves", tokens[seat],
         json={"version": version, "moves": [legal["moves"][0]["move"]]})
    call("GET", f"/games/{game_id}/events?since=2", tokens[seat])
    call("POST", f"/games/{game_id}/messages", tokens[seat], json={"text": "Good luck"})
    call("GET", f"/games/{game_id}/messages", host)
    call("GET", f"/games/{game_id}/record")
    call("GET", "/games?status=active")
    call("GET", "/games/0000000000000000")
    call("POST", "/games", json={"players": 9})
    call("GET", "/variants")
    statuses = {status for *_, status, _, _ in answers}
    assert {200, 201, 403, 404, 409, 422} <= statuses, statuses
    off = []
    for method, url, status, request, response in answers:
        try:
            api.validate_response(request, response)
        except Exception as exc:  # the failures are listed, not the first alone
            off.append(f"{method} {url} {status}: {exc!r}: {getattr(exc, '__cause__', '')}")
    assert not off, "\n".join(off)
