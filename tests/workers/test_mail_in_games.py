"""Whole games played only by e-mail (issue 13): scripted players read their mails from
the SMTP sink, take a legal move from the mail's "Reply with one of these lines" section
and send their reply to the SMTP listener; the record at the end replays to the scores
the service reports."""

from __future__ import annotations

import random

import pytest

import engine
from engine.record import import_record
from tests.support import Received, new_game, offered_moves, reply_to, smtp_send


def _choose(lines: list[str], rng: random.Random) -> str:
    """Buy and build when possible (a short game), else take money."""
    for prefix in ("buy", "place", "take"):
        some = [m for m in lines if m.startswith(prefix) and
                (prefix != "place" or " at " in m)]
        if some:
            return rng.choice(some)
    return rng.choice(lines)


def _prompt(smtp, game_id: str, after: int) -> Received:
    """The next mail asking for a move (or the end of the game), after version ``after``."""
    def asks(m: Received) -> bool:
        return m.version > after and (m.kind == "game_over" or
                                      bool(offered_moves(m.part("plain"))))
    mails = smtp.wait(game_id, None, timeout=20, where=asks)
    return min(mails, key=lambda m: m.version)


@pytest.mark.parametrize("players,seed", [(2, 7), (3, 8)])
def test_a_whole_game_played_only_by_mail(mail_stack, smtp, players, seed):
    s = mail_stack
    rng = random.Random(seed)
    h = new_game(s.client, players)
    version, moves, answered = 0, 0, []
    while True:
        mail = _prompt(smtp, h.id, version)
        if mail.kind == "game_over":
            break
        version = mail.version
        answered.append(version)
        move = _choose(offered_moves(mail.part("plain")), rng)
        smtp_send(s.listener.port, reply_to(mail, move))
        moves += 1
        assert moves < 400
    final = h.get()
    assert final["status"] == "over"
    # Every reply was played and answered as such.
    played = smtp.wait(h.id, None, count=moves, where=lambda m: m.kind.startswith("answer-"))
    assert len(played) == moves
    assert all(a.status.startswith("Move played") for a in played)
    # The record replays to the scores the service reports (and the last mails say).
    record = s.client.get(f"/games/{h.id}/record").get_json()
    assert len(record["moves"]) == moves
    state = engine.replay(import_record(record))
    scores = [seat["score"] for seat in final["view"]["seats"]]
    assert list(state.scores) == scores and state.phase == "over"
    over = smtp.wait(h.id, "game_over", count=players)
    for seat in range(players):
        assert f"P{seat}: {scores[seat]}" in over[0].part("plain")
    # One mail asked for each move (not an answer and a "your turn" mail both).
    asking = sorted(m.version for m in smtp.of(h.id) if offered_moves(m.part("plain")))
    assert asking == answered, [(m.version, m.kind, m.rcpt) for m in smtp.of(h.id)
                                if asking.count(m.version) != answered.count(m.version)]
