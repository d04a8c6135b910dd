"""Moderation (issue 38) against a running ``alhambra-pbem serve``, with real HTTP and the
operator's commands run as an operator runs them (``alhambra-pbem reports``,
``hide-message``, ``suspend``, ``ban``) on the served database: a block, a report in the
queue, the message hidden, the account suspended while its game goes on with a bot, an
address banned, and every action in the log."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support import ROOT, wait_until
from tests.workers.test_serve_identity import CODE, Served, bearer, running


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with running(tmp_path_factory.mktemp("moderation"), env={
            "ALHAMBRA_LIMIT_SIGN_IN": "200/hour",
            "ALHAMBRA_LIMIT_SIGN_IN_ADDRESS": "50/hour"}) as served:
        yield served


def operator(served: Served, *args: str) -> subprocess.CompletedProcess:
    """``alhambra-pbem ARGS`` on the served data folder, as the operator ``op``."""
    env = {**os.environ, "ALHAMBRA_DATA": str(served.data), "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)
    return subprocess.run([sys.executable, "-m", "service.cli", *args, "--by", "op"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)


def test_block_report_hide_suspend_and_ban(served):
    http = served.http
    tokens = {name: served.sign_in(f"{name}@example.org") for name in ("ann", "bob", "cid")}
    for name, token in tokens.items():
        assert http.patch("/me", {"handle": name}, headers=bearer(token)).status_code == 200
    game = served.game([{"name": n.title(), "email": f"{n}@example.org"}
                        for n in ("ann", "bob", "cid")], time_per_move=3600)
    for seat, name in enumerate(("ann", "bob", "cid")):
        r = http.post(f"/games/{game.id}/seats/{seat}/claim", {}, headers=bearer(tokens[name]))
        assert r.status_code == 201, r.get_json()
        game.tokens[seat] = r.get_json()["token"]

    # ann blocks bob: no private word between them, bob's table talk hidden from ann
    r = http.put("/me/blocks/bob", None, headers=bearer(tokens["ann"]))
    assert r.status_code == 201
    assert [b["handle"] for b in http.get("/me/blocks", headers=bearer(tokens["ann"]))
            .get_json()["blocks"]] == ["bob"]
    r = http.post(f"/games/{game.id}/messages", {"text": "psst", "to": 0},
                  headers=bearer(game.tokens[1]))
    assert r.status_code == 403 and r.get_json()["code"] == "blocked"
    sent = http.post(f"/games/{game.id}/messages", {"text": "buy cheap gold at spam.example"},
                     headers=bearer(game.tokens[1])).get_json()
    seen = {seat: [m["text"] for m in http.get(f"/games/{game.id}/messages",
                                               headers=bearer(game.tokens[seat]))
                   .get_json()["messages"]] for seat in (0, 2)}
    assert seen == {0: [], 2: ["buy cheap gold at spam.example"]}

    # cid reports the message and the player: the operator's queue lists both
    for body in ({"game_id": game.id, "message_id": sent["id"], "reason": "spam"},
                 {"handle": "bob", "reason": "spams every table"}):
        r = http.post("/reports", body, headers=bearer(tokens["cid"]))
        assert r.status_code == 201, r.get_json()
    listed = operator(served, "reports")
    assert listed.returncode == 0, listed.stderr
    assert "by cid" in listed.stdout and f"message {game.id}/{sent['id']} by Bob (bob)" \
        in listed.stdout and '"buy cheap gold at spam.example"' in listed.stdout
    assert "player bob" in listed.stdout and "reason: spams every table" in listed.stdout
    queue = json.loads(operator(served, "reports", "--json").stdout)
    assert [q["reason"] for q in queue] == ["spam", "spams every table"]

    # the message hidden: gone for every reader, its text kept in the database
    hidden = operator(served, "hide-message", game.id, str(sent["id"]))
    assert hidden.returncode == 0, hidden.stderr
    for seat in (1, 2):
        messages = http.get(f"/games/{game.id}/messages",
                            headers=bearer(game.tokens[seat])).get_json()["messages"]
        assert [(m["text"], m["deleted"]) for m in messages] == [("", True)]
    again = operator(served, "hide-message", game.id, str(sent["id"]))
    assert again.returncode == 1 and "no message" in again.stderr

    # bob suspended: its tokens stop, it cannot sign in, a bot plays its seat
    pat = http.post("/me/tokens", {"description": "app", "scopes": ["read"]},
                    headers=bearer(tokens["bob"])).get_json()["token"]
    done = operator(served, "suspend", "bob", "--reason", "spam")
    assert done.returncode == 0 and "suspended" in done.stdout, done.stderr
    assert "moderation: op suspend bob@example.org (spam)" in done.stderr  # the log line
    for token in (tokens["bob"], pat):
        r = http.get("/me", headers=bearer(token))
        assert r.status_code == 403 and r.get_json()["code"] == "account_suspended"
    assert http.post("/players/sign-in", {"email": "bob@example.org"}).status_code == 202
    wait_until(lambda: served.sign_in_mails("bob@example.org")[1:] or None, 30,
               what="bob's second sign-in mail")
    codes = [CODE.search(m.get_body(("plain",)).get_content()).group(1)
             for m in served.sign_in_mails("bob@example.org")]
    answers = sorted(http.post("/players/session", {"code": c}).get_json()["code"]
                     for c in codes)  # the first code was used when bob signed in
    assert answers == ["account_suspended", "invalid_sign_in_code"]
    doc = http.get(f"/games/{game.id}", headers=bearer(game.tokens[0])).get_json()
    assert doc["view"]["seats"][1]["bot"] and doc["status"] == "active"

    # an address banned: its sign-in mails stop
    assert operator(served, "ban", "Spammer@Example.ORG").returncode == 0
    assert http.post("/players/sign-in", {"email": "spammer@example.org"}).status_code == 202
    assert http.post("/players/sign-in", {"email": "ann@example.org"}).status_code == 202
    wait_until(lambda: served.sign_in_mails("ann@example.org")[1:] or None, 30,
               what="ann's second sign-in mail")
    assert served.sign_in_mails("spammer@example.org") == []

    # reports closed; every action in the log
    first = queue[0]["id"]
    assert operator(served, "reports", "close", str(first)).returncode == 0
    assert operator(served, "reports", "close", str(first)).returncode == 1
    assert [q["id"] for q in json.loads(operator(served, "reports", "--json").stdout)] \
        == [queue[1]["id"]]
    log = operator(served, "reports", "log").stdout.splitlines()
    assert [line.split("\t")[1:4] for line in log] == [
        ["op", "hide-message", f"{game.id}/{sent['id']}"],
        ["op", "suspend", "bob@example.org"], ["op", "ban", "spammer@example.org"],
        ["op", "close-report", str(first)]]
    assert operator(served, "unsuspend", "bob").returncode == 0
    assert http.get("/me", headers=bearer(tokens["bob"])).status_code == 200
