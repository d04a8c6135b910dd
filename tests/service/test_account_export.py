"""A player's data out (issue 38): GET /me/export gives every row the service keeps of
the account, the player's own messages and notes but nobody else's, and no secret (not
even a hash of one)."""

from __future__ import annotations

from datetime import timedelta

from service import times
from service.auth import hash_token
from tests.support import auth, claimed, new_game


def test_an_export_holds_the_account_and_nothing_of_anyone_else(app, client):
    h = new_game(client, 2, emails=["ann@example.org", "bob@example.org"])
    sessions = claimed(app, h, {0: "ann@example.org", 1: "bob@example.org"})
    ann = sessions[0]
    for seat, text, to in ((0, "ANN-TO-BOB psst", 1), (1, "BOB-TO-ANN hi", 0),
                           (1, "BOB-TABLE hello", None)):
        r = client.post(f"/games/{h.id}/messages", json={"text": text, "to": to},
                        headers=auth(h.tokens[seat]))
        assert r.status_code == 201, r.get_json()
    for seat, notes in ((0, "ANN-NOTES towers"), (1, "BOB-NOTES gardens")):
        assert client.put(f"/games/{h.id}/notes", json={"text": notes},
                          headers=auth(h.tokens[seat])).status_code == 200
    made = client.post("/me/tokens", json={"description": "my phone", "scopes": ["read"]},
                       headers=auth(ann)).get_json()
    since = times.now() + timedelta(days=30)
    assert client.patch("/me", json={"vacation": {
        "from": times.to_text(since), "until": times.to_text(since + timedelta(days=3))}},
        headers=auth(ann)).status_code == 200

    r = client.get("/me/export", headers=auth(ann))
    assert r.status_code == 200, r.get_json()
    assert r.headers["Content-Disposition"].startswith("attachment")
    doc = r.get_json()
    tables = doc["tables"]
    assert doc["email"] == "ann@example.org"
    assert [p["email"] for p in tables["players"]] == ["ann@example.org"]
    assert [(s["game_id"], s["seat"], s["claimed_by"]) for s in tables["seats"]] == [
        (h.id, 0, "ann@example.org")]
    assert [m["text"] for m in tables["messages"]] == ["ANN-TO-BOB psst"]
    assert [t["notes"] for t in tables["talk"]] == ["ANN-NOTES towers"]
    assert [t["description"] for t in tables["player_tokens"]] == ["my phone"]
    assert len(tables["player_sessions"]) == 1 and len(tables["player_vacations"]) == 1
    assert len(tables["sign_ins"]) == 1 and tables["sign_ins"][0]["used_at"]
    text = r.get_data(as_text=True)
    for secret in (made["token"], hash_token(made["token"]), ann, hash_token(ann)):
        assert secret not in text  # no secret, nor a hash of one
    for other in ("BOB-NOTES", "BOB-TO-ANN", "BOB-TABLE", "bob@example.org"):
        assert other not in text  # nothing of anyone else


def test_only_the_sign_in_session_exports(app, client):
    h = new_game(client, 2, emails=["cid@example.org", "dee@example.org"])
    cid = claimed(app, h, {0: "cid@example.org"})[0]
    personal = client.post("/me/tokens", json={"description": "bot", "scopes": ["read"]},
                           headers=auth(cid)).get_json()["token"]
    r = client.get("/me/export", headers=auth(personal))
    assert r.status_code == 403 and r.get_json()["code"] == "session_needed"
    assert client.get("/me/export").status_code == 401
