"""A seat rotates its token (point 10 of issue 10): POST /games/{id}/token with the seat's
token returns a new one; the old one stops working everywhere."""

from __future__ import annotations

import threading

from tests.support import auth, check_problem, new_game


def _rotate(client, game_id: str, token: str | None):
    return client.post(f"/games/{game_id}/token", headers=auth(token))


def test_the_new_token_works_and_the_old_one_stops(client, games):
    game = new_game(client, 2)
    old = game.tokens[0]
    r = _rotate(client, game.id, old)
    assert r.status_code == 201
    new = r.get_json()
    assert new["seat"] == 0 and new["token"] != old
    assert new["join_url"].endswith(f"/play/{game.id}#token={new['token']}")
    doc = client.get(f"/games/{game.id}", headers=auth(new["token"])).get_json()
    assert doc["your_seat"] == 0 and "hand" in doc["view"]["seats"][0]
    for r in (client.get(f"/games/{game.id}", headers=auth(old)),
              client.get(f"/games/{game.id}/legal-moves", headers=auth(old)),
              client.post(f"/games/{game.id}/moves", headers=auth(old),
                          json={"move": "take 1", "version": doc["version"]}),
              _rotate(client, game.id, old)):
        check_problem(r, 401, "invalid_token")
    # the token the workers derive for the seat's mails is the new one
    assert games.seat_token(game.id, 0) == new["token"]
    again = _rotate(client, game.id, new["token"]).get_json()["token"]
    assert again not in (old, new["token"])
    assert client.get(f"/games/{game.id}", headers=auth(again)).status_code == 200
    # the other seat is untouched
    assert client.get(f"/games/{game.id}", headers=auth(game.tokens[1])).get_json()[
        "your_seat"] == 1


def test_only_the_seats_own_token_rotates_it(client):
    game = new_game(client, 2)
    other = new_game(client, 2)
    check_problem(_rotate(client, game.id, None), 401, "unauthorized")
    check_problem(_rotate(client, game.id, game.host_token), 403, "forbidden")
    check_problem(_rotate(client, game.id, other.tokens[0]), 403, "forbidden")
    check_problem(_rotate(client, "0123456789abcdef", game.tokens[0]), 404)
    assert client.get(f"/games/{game.id}", headers=auth(game.tokens[0])).status_code == 200


def test_of_two_rotations_with_one_token_one_wins(app):
    client = app.test_client()
    game = new_game(client, 2)
    barrier = threading.Barrier(4)
    answers = []

    def rotate():
        c = app.test_client()
        barrier.wait()
        answers.append(_rotate(c, game.id, game.tokens[0]))

    threads = [threading.Thread(target=rotate) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    won = [r for r in answers if r.status_code == 201]
    assert len(won) == 1, [r.get_json() for r in answers]
    assert all(r.get_json()["code"] == "invalid_token" for r in answers if r not in won)
    assert client.get(f"/games/{game.id}", headers=auth(won[0].get_json()["token"])
                      ).status_code == 200
