"""An account's life against a running ``alhambra-pbem serve`` (issues 33 and 38): an
invitation by handle accepted and its game started with every seat claimed; the
account's data exported (``GET /me/export``) and then deleted (``DELETE /me``): a bot
takes its running seat, its tokens stop, and its address is in no table of the served
database any more."""

from __future__ import annotations

import sqlite3

import pytest

from tests.support import wait_until
from tests.workers.test_serve_identity import bearer, running


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with running(tmp_path_factory.mktemp("account"), env={
            "ALHAMBRA_LIMIT_SIGN_IN": "200/hour",
            "ALHAMBRA_LIMIT_SIGN_IN_ADDRESS": "50/hour"}) as served:
        yield served


def test_invited_exported_and_deleted(served):
    http = served.http
    ann, bob = (served.sign_in(f"{n}@example.org") for n in ("ann", "bob"))
    for name, token in (("ann", ann), ("bob", bob)):
        assert http.patch("/me", {"handle": name}, headers=bearer(token)).status_code == 200
    sent = http.post("/invitations", {"invitees": ["bob"], "time_per_move": 3600},
                     headers=bearer(ann))
    assert sent.status_code == 201, sent.get_json()
    invitation = sent.get_json()["id"]
    done = http.post(f"/invitations/{invitation}/accept", {}, headers=bearer(bob)).get_json()
    game_id = done["game_id"]
    assert done["status"] == "started" and game_id
    doc = http.get(f"/games/{game_id}", headers=bearer(bob)).get_json()
    assert doc["your_seat"] == 1 and doc["status"] == "active"
    # the started mails go to both claimed seats (the workers of serve send them)
    wait_until(lambda: len(served.mails("*.eml")) >= 4, 30, what="the started mails")

    exported = http.get("/me/export", headers=bearer(bob))
    assert exported.status_code == 200
    assert "attachment" in exported.headers["Content-Disposition"]
    tables = exported.get_json()["tables"]
    assert [(s["game_id"], s["seat"]) for s in tables["seats"]] == [(game_id, 1)]
    assert [i["answer"] for i in tables["invitees"]] == ["accepted"]

    r = http.open("/me", "DELETE", headers=bearer(bob))
    assert r.status_code == 204
    assert http.get("/me", headers=bearer(bob)).status_code == 401
    view = http.get(f"/games/{game_id}", headers=bearer(ann)).get_json()
    assert view["seats"][1]["name"] == "(deleted)" and 1 in [
        s["seat"] for s in view["view"]["seats"] if s.get("bot")]
    with sqlite3.connect(f"file:{served.data / 'alhambra.db'}?mode=ro", uri=True) as db:
        tables = [t for (t,) in db.execute("select name from sqlite_master where type = "
                                           "'table'")]
        for table in tables:
            for row in db.execute(f"select * from {table}"):
                assert "bob@example.org" not in str(row), (table, row)
