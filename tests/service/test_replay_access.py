"""Who may replay a game: a finished game, anyone, unless its host made it private
(``replay_public``: false); then only its seats and its host, while a running game stays
what it always was (its spectator view for anyone)."""

from __future__ import annotations

import random

import pytest

from engine.bots import random_move
from tests.support import auth, check_problem, new_game


def finish(games, game_id: str, rng: random.Random) -> None:
    """Play the game to its end with random moves, through the application layer."""
    while True:
        game = games.game(game_id)
        if game.status == "over":
            return
        state = games.state(game_id)
        move = random_move(state, state.current, rng)
        games.submit(game, state.current, [move], state.version, None)


READS = ("", "/events", "/record", "/stream")


@pytest.mark.parametrize("public", [True, False])
def test_a_finished_game_is_replayed_by_anyone_unless_its_host_keeps_it(client, games,
                                                                        public):
    g = new_game(client, 2, replay_public=public)
    assert g.get()["replay_public"] is public
    assert client.get(f"/games/{g.id}/events").status_code == 200  # running: as always
    finish(games, g.id, random.Random(4))
    for path in READS:
        r = client.get(f"/games/{g.id}{path}")
        r.get_data()  # a stream too: it ends, the game being over
        if public:
            assert r.status_code == 200, (path, r.get_json())
        else:
            problem = check_problem(r, 403, "forbidden")
            assert "private" in problem["detail"]
        for token in (g.tokens[1], g.host_token):
            r = client.get(f"/games/{g.id}{path}", headers=auth(token))
            assert r.status_code == 200 and r.get_data(), path
    other = new_game(client, 2)
    check_problem(client.get(f"/games/{g.id}/events", headers=auth(other.tokens[0])), 403,
                  "forbidden")
