"""What mails say (issue 9 §2, §4): the move number players count (the engine's turn),
the version named as such, the neutral player by name. Built in-process from a played
game, through the job's own code."""

from __future__ import annotations

import random
import re

from tests.support import make_stack, new_game, run_due_here


def test_your_turn_mail_counts_moves_as_players_do_and_names_the_version(
        tmp_path, redis_server, smtp):
    s = make_stack(tmp_path, redis_server.url, smtp.url, "wording-idle")  # no worker
    ctx = s.context()
    try:
        h = new_game(s.client, 3)
        doc = h.get()
        version = doc["version"]
        for _ in range(4):  # four turns of 'take': the fifth turn starts
            seat = h.get()["current_seat"]
            version = h.submit(seat, "take 1", version).get_json()["version"]
        view = h.get()["view"]
        assert view["turn"] == 5 and version > 20
        assert run_due_here(ctx, h.id, lambda d: d.kind == "your_turn" and
                            d.version == version) == {
            ("your_turn", h.get()["current_seat"], version): "sent"}
        (mail,) = smtp.wait(h.id, "your_turn", where=lambda m: m.version == version)
        assert mail.status == "Your turn, move 5"
        text = mail.part("plain")
        assert "(move 5)" in text and f"move {version}" not in text
        assert f'{{"version": {version}, "move": ' in text
        assert re.search(rf"version {version}\b", text)
    finally:
        ctx.close()
        s.store.close()


def test_game_over_mail_names_the_neutral_player(tmp_path, redis_server, smtp):
    s = make_stack(tmp_path, redis_server.url, smtp.url, "wording-idle2")
    ctx = s.context()
    try:
        h = new_game(s.client, 2)
        rng = random.Random(4)
        doc = h.get()
        while doc["status"] != "over":
            seat = doc["current_seat"]
            r = s.client.get(f"/games/{h.id}/legal-moves",
                             headers={"Authorization": f"Bearer {h.tokens[seat]}"})
            moves = [m["notation"] for m in r.get_json()["moves"]]
            takes = [m for m in moves if m.startswith("take")]
            h.submit(seat, rng.choice(moves if rng.random() < 0.7 or not takes else takes),
                   doc["version"])
            doc = h.get()
        final = doc["view"]
        run_due_here(ctx, h.id, lambda d: d.kind == "game_over")
        (mail,) = smtp.wait(h.id, "game_over", where=lambda m: m.rcpt == ["p0@example.org"])
        text = mail.part("plain")
        assert f"Dirk: {final['neutral']['score']}" in text
        assert "neutral" not in text.lower().replace("the neutral player", "")
        assert mail.status == f"Game over, move {final['turn']}"
        assert "Dirk" in mail.part("html")
    finally:
        ctx.close()
        s.store.close()
