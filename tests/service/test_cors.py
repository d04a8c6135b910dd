"""CORS: pages of other origins may call the API from a browser (ALHAMBRA_CORS_ORIGINS),
without credentials; the web client's own pages are not shared."""

from __future__ import annotations

from service import create_app
from service.settings import Settings
from tests.support import auth, new_game

THEIRS = "https://client.example"


def test_any_origin_may_read_and_play_by_default(client):
    game = new_game(client, 2)
    r = client.get(f"/games/{game.id}", headers={"Origin": THEIRS})
    assert r.status_code == 200 and r.headers["Access-Control-Allow-Origin"] == "*"
    assert "ETag" in r.headers["Access-Control-Expose-Headers"]
    assert "Access-Control-Allow-Credentials" not in r.headers
    pre = client.options(f"/games/{game.id}/moves", headers={
        "Origin": THEIRS, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, idempotency-key"})
    assert pre.status_code == 200
    assert "POST" in pre.headers["Access-Control-Allow-Methods"]
    allowed = pre.headers["Access-Control-Allow-Headers"].lower()
    assert {"authorization", "content-type", "idempotency-key"} <= set(allowed.split(", "))
    doc = game.get()
    r = client.post(f"/games/{game.id}/moves", json={"move": game.notations(
        doc["current_seat"])[0], "version": doc["version"]},
        headers={"Origin": THEIRS, **auth(game.tokens[doc["current_seat"]])})
    assert r.status_code == 201 and r.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Origin" not in client.get("/", headers={"Origin": THEIRS}
                                                           ).headers


def test_only_the_configured_origins(tmp_path):
    app = create_app(Settings.from_env({"ALHAMBRA_CORS_ORIGINS": f"{THEIRS}/, https://b.org"},
                                       database=str(tmp_path / "c.db")))
    client = app.test_client()
    r = client.get("/variants", headers={"Origin": THEIRS})
    assert r.headers["Access-Control-Allow-Origin"] == THEIRS
    assert "Access-Control-Allow-Origin" not in client.get(
        "/variants", headers={"Origin": "https://evil.example"}).headers
    none = create_app(Settings.from_env({"ALHAMBRA_CORS_ORIGINS": ""},
                                        database=str(tmp_path / "d.db")))
    assert "Access-Control-Allow-Origin" not in none.test_client().get(
        "/variants", headers={"Origin": THEIRS}).headers
