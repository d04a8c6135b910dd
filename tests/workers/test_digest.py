"""The daily digest (issue 26), end to end: a player on ``notify: digest`` gets one mail
listing the games waiting for its move (from ``alhambra-pbem send-digests --now``, the
real command, through the SMTP sink), once a day; its turn mails wait for it."""

from __future__ import annotations

import subprocess
import sys

from service import times
from tests.support import ROOT, auth, claim, new_game, wait_until
from tests.workers.test_player_mails import player_token, take


def send_digests(stack, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "service.cli", "send-digests", *args],
                          env=stack.env, cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_digest_lists_the_games_waiting_for_me(stack, smtp):
    me = "digest.player@example.org"
    token = player_token(stack, me)
    hour = (times.now().hour + 12) % 24  # not now: the workers' own look sends nothing
    r = stack.client.patch("/me", json={"notify": "digest", "digest_hour": hour},
                           headers=auth(token))
    assert r.status_code == 200 and r.get_json()["digest_hour"] == hour
    games = [new_game(stack.client, 2, emails=[me, f"rival{i}@example.org"],
                      time_per_move=3 * 86400) for i in range(3)]
    for g in games:  # the digest lists the seats I claimed
        claim(stack.client, g, 0, token)
    for g in games[:2]:  # my turn in the first two, not in the third
        if g.get()["current_seat"] != 0:
            take(g, 1)
    if games[2].get()["current_seat"] == 0:
        take(games[2], 0)
    mine = [g.id for g in games if g.get()["current_seat"] == 0]
    assert len(mine) == 2
    assert send_digests(stack) == ""  # not its hour
    assert f"{me}: sent" in send_digests(stack, "--now")

    def digest():
        got = [m for m in smtp.messages if m.kind == "digest" and m.rcpt == [me]]
        return got or None
    (mail,) = wait_until(digest, 20, what="the digest")
    text = mail.part("plain")
    assert mail.subject == "Alhambra: 2 games wait for your move"
    for g in games:
        link = f"http://alhambra.test/play/{g.id}#token={g.tokens[0]}"
        assert (link in text) == (g.id in mine)
    assert "with P1, move " in text and "your deadline is " in text
    assert f"once a day at {hour:02d}:00 UTC" in text and "http://alhambra.test/me" in text
    assert f"{me}: done" in send_digests(stack, "--now")  # once a day
    assert len([m for m in smtp.messages if m.kind == "digest" and m.rcpt == [me]]) == 1
    # my turn mails (deadlines three days away) wait for the digest
    def turn_rows():
        rows = [d for g in games for d in stack.store.due_rows(g.id)
                if d.kind == "your_turn" and d.seat == 0]
        return (rows,) if all(d.state == "done" for d in rows) else None
    (rows,) = wait_until(turn_rows, 30)  # (none: I had the first move in each)
    assert all(d.result == "not-wanted" for d in rows)
    assert not [m for g in games for m in smtp.of(g.id, "your_turn") if m.rcpt == [me]]
