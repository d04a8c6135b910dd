"""A player's page /me in Chromium (issue 26): signed in from the mail's link or by typing
the code, the player's games with "your turn" first and their count in the tab's title,
kept up to date by polling, each opening its seat's page; signing out."""

from __future__ import annotations

import json
import sqlite3
import urllib.request
from datetime import timedelta

from service.auth import hash_token
from service.players import sign_in_code

from .conftest import watch_errors

ME = "me.web@example.org"


def code_for(server, email: str) -> str:
    """The code of the latest sign-in request of ``email`` (as its mail would say)."""
    db = sqlite3.connect(server.app.extensions["alhambra_settings"].database)
    try:
        (sid,) = db.execute("select id from sign_ins where email = ? order by created_at "
                            "desc limit 1", (email,)).fetchone()
    finally:
        db.close()
    return sign_in_code(server.app.extensions["alhambra"].secret_key, sid)


def two_games(server):
    """Two started games with a seat of mine (seat 0): (game id, the seats' tokens)."""
    out = []
    for other in ("ann.web@example.org", "bob.web@example.org"):
        doc = server.call("/games", {"seats": [{"name": "Me", "email": ME},
                                               {"name": "Other", "email": other}]})
        out.append((doc["game_id"], [s["token"] for s in doc["seats"]]))
    return out


def title(turns: int) -> str:
    return f"({turns}) My games · alhambra-pbem" if turns else "My games · alhambra-pbem"


def whose_turn(server, game_id: str) -> int:
    return server.call(f"/games/{game_id}")["current_seat"]


def my_page(server, new_context, poll: int):
    """/me opened by my sign-in mail's link (its code), read again every ``poll`` s:
    the page and its errors."""
    request = server.app.extensions["alhambra_players"].request_sign_in(ME)
    code = sign_in_code(server.app.extensions["alhambra"].secret_key, request.id)
    page = new_context().new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/me?poll={poll}#code={code}")
    return page, errors


def test_the_link_signs_in_and_lists_my_games(server, new_context):
    games = two_games(server)
    page, errors = my_page(server, new_context, 1)
    # the seats the creators wrote my address on are offered, not mine yet (issue 39)
    page.wait_for_selector("#offered li.offered")
    assert "code=" not in page.url  # used once, gone from the address
    assert page.locator("#who").inner_text() == f"Signed in as {ME}"
    assert page.locator("#offered li.offered").count() == 2
    assert page.locator("#games li").inner_text().startswith("No games yet")
    for game_id, tokens in games:  # each claimed: its page opens with a new token
        page.goto(f"{server.url}/me?poll=1")
        page.click(f"#offered li[data-game='{game_id}'] button.claim")
        page.wait_for_url(f"**/play/{game_id}#token=*")
        new = page.url.partition("#token=")[2]
        assert new != tokens[0]
        tokens[0] = new
    page.goto(f"{server.url}/me?poll=1")
    page.wait_for_selector("#games li.my-game")
    assert page.locator("#offered-box").is_hidden()
    mine = [g for g, _ in games if whose_turn(server, g) == 0]
    items = page.locator("#games li.my-game")
    assert items.count() == 2
    firsts = [items.nth(i).get_attribute("data-game") for i in range(len(mine))]
    assert sorted(firsts) == sorted(mine)  # my turns first
    assert page.title() == title(len(mine))
    assert page.locator("#games li.your-turn .deadline").count() == len(mine)

    # whoever is to move in the first game takes money: the turn passes, and the next
    # poll shows it (my turn there now, or no longer)
    game_id, tokens = games[0]
    turn = whose_turn(server, game_id)
    version = server.call(f"/games/{game_id}")["version"]
    legal = server.call(f"/games/{game_id}/legal-moves", token=tokens[turn])["moves"]
    take = next(m["notation"] for m in legal if m["notation"].startswith("take"))
    server.call(f"/games/{game_id}/moves", {"move": take, "version": version},
                token=tokens[turn])
    assert whose_turn(server, game_id) != turn
    expected = len(mine) - 1 if turn == 0 else len(mine) + 1
    page.wait_for_function(
        "(n) => document.querySelectorAll('#games li.your-turn').length === n",
        arg=expected)
    assert page.title() == title(expected)
    first = page.locator("#games li.my-game").first.get_attribute("data-game")
    assert whose_turn(server, first) == 0 or expected == 0

    # a game opens its seat's page, signed in as that seat
    page.click(f"#games li[data-game='{games[1][0]}'] a.game-link")
    page.wait_for_url(f"**/play/{games[1][0]}#token={games[1][1][0]}")
    assert errors == []


def test_a_link_with_another_code_asks_before_switching_accounts(server, new_context):
    """Issue 39, probe 5 (login CSRF): ``/me#code=<an attacker's unused code>`` silently
    replaced the signed-in player's session."""
    players = server.app.extensions["alhambra_players"]
    key = server.app.extensions["alhambra"].secret_key
    mine = sign_in_code(key, players.request_sign_in("victim.web@example.org").id)
    page = new_context().new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/me#code={mine}")
    page.wait_for_selector("#mine:not([hidden])")
    theirs = sign_in_code(key, players.request_sign_in("attacker.web@example.org").id)
    page.goto(f"{server.url}/me?again#code={theirs}")
    page.wait_for_selector("#switch:not([hidden])")
    assert "victim.web@example.org" in page.locator("#switch-text").inner_text()
    assert page.locator("#mine").is_hidden()
    page.click("#switch-no")
    page.wait_for_selector("#mine:not([hidden])")
    assert page.locator("#who").inner_text() == "Signed in as victim.web@example.org"
    token = page.evaluate("() => localStorage.getItem('alhambra-player-token')")
    assert server.call("/me", token=token)["email"] == "victim.web@example.org"
    # the attacker's code was not used: asked again, the player may choose it knowingly
    page.goto(f"{server.url}/me?third#code={theirs}")
    page.wait_for_selector("#switch:not([hidden])")
    page.click("#switch-yes")
    page.wait_for_function("() => document.getElementById('who').textContent"
                           ".includes('attacker.web@example.org')")
    assert errors == []


def test_typing_the_code_then_signing_out(server, new_context):
    page = new_context().new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/me")
    page.wait_for_selector("#signin:not([hidden])")
    assert page.locator("#mine").is_hidden()
    page.fill("#email", "Typed.Web@Example.org")
    page.click("#ask button[type=submit]")
    page.wait_for_function("() => document.getElementById('sent').textContent"
                           ".includes('on its way')")
    code = code_for(server, "typed.web@example.org")
    page.fill("#code", code.lower().replace("-", " "))
    page.click("#enter button[type=submit]")
    page.wait_for_selector("#mine:not([hidden])")
    assert page.locator("#games li").inner_text().startswith("No games yet")
    page.select_option("#pref-notify", "digest")
    page.select_option("#pref-language", "da")
    page.click("#prefs button[type=submit]")
    page.wait_for_selector("#notice.ok")
    token = page.evaluate("() => localStorage.getItem('alhambra-player-token')")
    assert server.call("/me", token=token)["notify"] == "digest"
    page.reload()  # the session is kept on this browser
    page.wait_for_selector("#mine:not([hidden])")
    page.click("#sign-out")
    page.wait_for_selector("#signin:not([hidden])")
    assert page.evaluate("() => localStorage.getItem('alhambra-player-token')") is None
    players = server.app.extensions["alhambra_players"]
    assert players.store.players.session_player(hash_token(token)) is None
    assert errors == []


def test_my_rating_is_on_my_page(server, new_context):
    from service.store import Rating

    email = "rated.web@example.org"
    store = server.app.extensions["alhambra"].store
    game = server.call("/games", {"seats": [{"name": "R", "email": email},
                                            {"name": "S", "email": "s.web@example.org"}]})
    store.players.rate(game["game_id"], [], [Rating(email, "granada", "R", 28.0, 7.0, 1)])
    request = server.app.extensions["alhambra_players"].request_sign_in(email)
    code = sign_in_code(server.app.extensions["alhambra"].secret_key, request.id)
    page = new_context().new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/me#code={code}")
    page.wait_for_selector("#ratings li[data-variant='granada']")
    assert page.locator("#ratings li").inner_text() == \
        "Granada: 7.0 (after 1 rated game)"  # ordinal: 28 - 3 × 7
    assert errors == []


def test_my_page_has_no_serious_accessibility_violations(server, new_context):
    from .test_a11y import open_page, serious_violations

    page, errors = open_page(new_context, server.url + "/me")
    page.wait_for_selector("#signin:not([hidden])")
    assert serious_violations(page) == []
    email = "a11y.web@example.org"
    server.call("/games", {"seats": [{"name": "A", "email": email},
                                     {"name": "B", "email": "b.a11y@example.org"}]})
    request = server.app.extensions["alhambra_players"].request_sign_in(email)
    code = sign_in_code(server.app.extensions["alhambra"].secret_key, request.id)
    page.goto(f"{server.url}/me?lang=en#code={code}")  # (a new document: not a hash change)
    page.wait_for_selector("#offered li.offered")
    assert serious_violations(page) == []
    assert errors == []


def test_the_others_page_says_who_is_on_vacation(server, new_context):
    from service import times

    email = "away.web@example.org"
    game = server.call("/games", {"seats": [{"name": "Home", "email": "home.web@example.org"},
                                            {"name": "Away", "email": email}],
                                  "time_per_move": 86400})
    request = server.app.extensions["alhambra_players"].request_sign_in(email)
    code = sign_in_code(server.app.extensions["alhambra"].secret_key, request.id)
    token = server.app.extensions["alhambra_players"].open_session(code)["token"]
    server.call(f"/games/{game['game_id']}/seats/1/claim", {}, token=token)  # mine
    until = times.now() + timedelta(days=2)
    req = urllib.request.Request(
        f"{server.url}/me", method="PATCH", headers={
            "Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        data=json.dumps({"vacation": {"from": times.to_text(times.now()),
                                      "until": times.to_text(until)}}).encode())
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert resp.status == 200
    page = new_context().new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/play/{game['game_id']}#token={game['seats'][0]['token']}")
    page.wait_for_function("() => document.getElementById('clock').textContent"
                           ".includes('on vacation')")
    assert "Away is on vacation until " in page.locator("#clock").inner_text()
    assert "that clock stands still." in page.locator("#clock").inner_text()
    assert errors == []


def test_my_page_follows_my_stream(server, new_context):
    """/me follows /me/stream: another seat's move gives me the turn, and my page shows
    it at once, long before its next poll (an hour away here); while it is open the
    account counts as watching (service/presence.py: no push)."""
    from service.presence import account_key

    games = two_games(server)
    page, errors = my_page(server, new_context, 3600)
    page.wait_for_selector("#offered li.offered")
    for game_id, tokens in games:
        page.click(f"#offered li[data-game='{game_id}'] button.claim")
        page.wait_for_url(f"**/play/{game_id}#token=*")
        tokens[0] = page.url.partition("#token=")[2]
        page.goto(f"{server.url}/me?poll=3600")
    page.wait_for_selector("#games li.my-game")
    game_id, tokens = next((g, t) for g, t in games if whose_turn(server, g) != 0)
    before = page.locator("#games li.your-turn").count()
    for _ in range(10):  # the others move until it is my turn there
        turn = whose_turn(server, game_id)
        if turn == 0:
            break
        version = server.call(f"/games/{game_id}")["version"]
        legal = server.call(f"/games/{game_id}/legal-moves", token=tokens[turn])["moves"]
        take = next(m["notation"] for m in legal if m["notation"].startswith("take"))
        server.call(f"/games/{game_id}/moves", {"move": take, "version": version},
                    token=tokens[turn])
    assert whose_turn(server, game_id) == 0
    page.wait_for_selector(f"#games li.your-turn[data-game='{game_id}']", timeout=15000)
    assert page.locator("#games li.your-turn").count() == before + 1
    presence = server.app.extensions["alhambra_presence"]  # made by the first stream
    assert presence.watching([account_key(ME)])
    assert errors == []
