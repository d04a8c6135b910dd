"""Two submissions against the same version: exactly one wins, the log has no gap (the
store's own race: tests/store/test_contract.py)."""

from __future__ import annotations

import threading

import pytest

from service import create_app
from service.settings import Settings
from tests.support import auth, new_game


def _race(clients, handle, moves, version, seat):
    barrier = threading.Barrier(len(clients))
    results = [None] * len(clients)

    def run(i):
        barrier.wait()
        results[i] = clients[i].post(
            f"/games/{handle.id}/moves", headers=auth(handle.tokens[seat]),
            json={"move": moves[i], "version": version})

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.mark.parametrize("separate_apps", [False, True], ids=["one-app", "two-apps"])
def test_one_of_two_concurrent_submissions_wins(db_path, separate_apps):
    apps = [create_app(Settings(database=str(db_path)))]
    if separate_apps:  # like two gunicorn workers: separate caches, one database
        apps.append(create_app(Settings(database=str(db_path))))
    clients = [apps[i % len(apps)].test_client() for i in range(2)]
    handle = new_game(clients[0], 3)
    store = apps[0].extensions["alhambra"].store
    for _ in range(5):
        doc = handle.get()
        seat, version = doc["current_seat"], doc["version"]
        legal = handle.legal(seat)["moves"]
        takes = [m["notation"] for m in legal if m["move"]["action"] == "take"][:2]
        assert len(takes) == 2
        before = {d.version for d in store.due_rows(handle.id)}
        results = _race(clients, handle, takes, version, seat)
        codes = sorted(r.status_code for r in results)
        assert codes == [201, 409], [r.get_json() for r in results]
        loser = next(r for r in results if r.status_code == 409).get_json()
        winner = next(r for r in results if r.status_code == 201).get_json()
        assert loser["code"] == "version_conflict"
        assert loser["current_version"] == winner["version"]
        # the due work of the winner's batch only (each batch has its deadline)
        assert {d.version for d in store.due_rows(handle.id)} == before | {winner["version"]}
        # finish the turn so the next round starts from a fresh action phase
        while True:
            doc = handle.get()
            if doc["current_seat"] != seat or doc["view"]["phase"] == "action":
                break
            legal = handle.legal(seat)["moves"]
            assert handle.submit(seat, legal[0]["notation"], doc["version"]).status_code == 201
    assert len(store.read(handle.id)) == handle.get()["version"]
    for a in apps:
        a.extensions["alhambra"].store.close()
