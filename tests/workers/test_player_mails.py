"""A signed-in player's preferences in the mails (issue 26), through the real worker and
SMTP sink: the player's language for seats that chose none, and ``notify: none`` (no
turn mails; the others still come)."""

from __future__ import annotations

from datetime import timedelta

from service.players import sign_in_code
from tests.support import auth, claim, new_game, wait_until


def player_token(stack, email: str) -> str:
    players = stack.app.extensions["alhambra_players"]
    request = players.request_sign_in(email)
    code = sign_in_code(stack.games.secret_key, request.id)
    return players.open_session(code)["token"]


def take(handle, seat: int) -> None:
    move = next(m for m in handle.notations(seat) if m.startswith("take"))
    r = handle.submit(seat, move, version=handle.get()["version"])
    assert r.status_code == 201, r.get_json()


def row_result(stack, game_id: str, kind: str, seat: int, version: int):
    def done():
        rows = [r for r in stack.store.due_rows(game_id)
                if (r.kind, r.seat, r.version) == (kind, seat, version) and
                r.state in ("done", "failed")]
        return rows[0].result if rows else None
    return wait_until(done, 20, what=f"the {kind} row of seat {seat} at v{version}")


def test_the_players_language_and_no_turn_mails(stack, smtp):
    me = "quiet.player@example.org"
    token = player_token(stack, me)
    r = stack.client.patch("/me", json={"language": "fi", "notify": "none"},
                           headers=auth(token))
    assert r.status_code == 200
    handle = new_game(stack.client, 2, emails=[me, "loud.player@example.org"])
    started = smtp.wait(handle.id, "started", 2)
    by_rcpt = {m.rcpt[0]: m for m in started}
    assert by_rcpt[me].msg["Content-Language"] == "fi"  # the player's language
    assert by_rcpt["loud.player@example.org"].msg["Content-Language"] == "en"
    # the turn goes to and fro: my "your turn" is not sent, the other seat's is
    for _ in range(2):
        seat = handle.get()["current_seat"]
        take(handle, seat)
        version = handle.get()["version"]
        result = row_result(stack, handle.id, "your_turn", 1 - seat, version)
        assert result == ("not-wanted" if 1 - seat == 0 else "sent")
    assert all(m.rcpt == ["loud.player@example.org"]
               for m in smtp.of(handle.id, "your_turn"))


def test_the_others_mails_say_who_is_on_vacation(stack, smtp):
    from service import times

    me = "holiday.maker@example.org"
    token = player_token(stack, me)
    handle = new_game(stack.client, 2, emails=[me, "stay.home@example.org"],
                      time_per_move=86400)
    claim(stack.client, handle, 0, token)  # a vacation stops the seats one claimed
    until = times.now() + timedelta(days=3)
    r = stack.client.patch("/me", json={"vacation": {"from": times.to_text(times.now()),
                                                     "until": times.to_text(until)}},
                           headers=auth(token))
    assert r.status_code == 200, r.get_json()
    if handle.get()["current_seat"] == 1:
        take(handle, 1)
    take(handle, 0)  # the turn passes to the one at home: its mail says I am away
    (mail,) = smtp.wait(handle.id, "your_turn", 1,
                        where=lambda m: m.rcpt == ["stay.home@example.org"])
    line = f"P0 is on vacation until {until.strftime('%B')} {until.day}, {until.year} " \
        f"{until.strftime('%H:%M')} UTC: that clock stands still."
    assert line in mail.part("plain")
    assert line in mail.part("html")
