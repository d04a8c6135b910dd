"""Invitations by handle on /me, in Chromium: an invitation sent through the API shows on
each invitee's page with the game, the clock, its end and who accepted; Accept and
Decline answer it from the page, the last acceptance makes the game and the page links
to the player's seat; the inviter sees the answers and cancels; an answer the API
refuses is shown; axe finds no serious violation. A screenshot of the section goes to
/work/shots when that folder exists."""

from __future__ import annotations

from tests.support import signed_in

from .test_a11y import serious_violations
from .test_tournament_page import SHOTS, accounts, post, signed_in_page

GAME = {"variant": "alhambra", "time_per_move": 86400}


def invite(server, token: str, invitees: list[str], bots: list[str] | None = None) -> dict:
    return post(server, "/invitations", token, {**GAME, "invitees": invitees,
                                                 "bots": bots or []})


def invitation(server, token: str, inv_id: str) -> dict:
    return server.call(f"/invitations/{inv_id}", token=token)


def me_page(server, new_context, token: str):
    page, errors = signed_in_page(server, new_context, token, bypass_csp=True,
                                  viewport={"width": 1280, "height": 900})
    page.goto(f"{server.url}/me?poll=1&lang=en")
    page.wait_for_selector("#mine:not([hidden])")
    return page, errors


def item(page, box: str, inv_id: str):
    return page.locator(f"#inv-{box} li[data-invitation='{inv_id}']")


def test_accepting_from_the_page_and_the_last_acceptance_links_to_the_game(server,
                                                                          new_context):
    tokens = accounts(server, "ia", 3)
    sent = invite(server, tokens["ia1"], ["ia2", "ia3"], ["greedy"])
    bob, bob_errors = me_page(server, new_context, tokens["ia2"])
    got = item(bob, "received", sent["id"])
    got.wait_for()
    text = got.inner_text()
    assert "ia1 invites you" in text
    assert "Alhambra, 4 players: ia1, you, ia3, and a greedy bot" in text
    assert "1 day per move" in text
    assert "nobody has accepted yet · no answer yet: you and ia3 · answers until" in text
    assert bob.locator("#inv-sent-box").is_hidden()
    assert bob.locator("#inv-closed-box").is_hidden()
    assert serious_violations(bob) == []

    got.get_by_role("button", name="Accept").click()
    got.get_by_text("You accepted").wait_for()
    assert "accepted so far: you · no answer yet: ia3" in got.inner_text()
    assert got.get_by_role("button").count() == 0
    answers = invitation(server, tokens["ia1"], sent["id"])["invitees"]
    assert [a["answer"] for a in answers] == ["accepted", None]

    ann, ann_errors = me_page(server, new_context, tokens["ia1"])
    mine = item(ann, "sent", sent["id"])
    mine.wait_for()
    assert "You invite ia2 and ia3" in mine.inner_text()
    assert "accepted so far: ia2 · no answer yet: ia3" in mine.inner_text()
    assert ann.locator("#inv-received-box").is_hidden()

    # the last acceptance makes the game: the invitation closes, linking to the seat
    cy, cy_errors = me_page(server, new_context, tokens["ia3"])
    item(cy, "received", sent["id"]).get_by_role("button", name="Accept").click()
    made = item(cy, "closed", sent["id"])
    made.get_by_role("link", name="Open the game").wait_for()
    assert "From ia1" in made.inner_text() and "The game is made." in made.inner_text()
    assert cy.locator("#inv-received-box").is_hidden()
    game_id = invitation(server, tokens["ia3"], sent["id"])["game_id"]
    assert game_id
    # the others' pages follow at their next poll
    item(ann, "closed", sent["id"]).get_by_role("link", name="Open the game").wait_for()
    item(bob, "closed", sent["id"]).get_by_role("link", name="Open the game").wait_for()
    assert serious_violations(bob) == []
    made.get_by_role("link", name="Open the game").click()
    cy.wait_for_url(f"**/play/{game_id}#token=*")
    seat_token = cy.url.partition("#token=")[2]
    assert server.call(f"/games/{game_id}", token=seat_token)["your_seat"] == 2
    assert bob_errors == [] and ann_errors == [] and cy_errors == []


def test_declining_cancelling_and_a_refused_answer(server, new_context):
    tokens = accounts(server, "ib", 3)
    one = invite(server, tokens["ib1"], ["ib2"])
    two = invite(server, tokens["ib1"], ["ib2", "ib3"])
    three = invite(server, tokens["ib3"], ["ib1"])
    bob, bob_errors = me_page(server, new_context, tokens["ib2"])
    item(bob, "received", one["id"]).get_by_role("button", name="Decline").click()
    closed = item(bob, "closed", one["id"])
    closed.wait_for()
    assert "Declined by you." in closed.inner_text()
    assert item(bob, "received", one["id"]).count() == 0
    assert invitation(server, tokens["ib1"], one["id"])["status"] == "declined"
    item(bob, "received", two["id"]).get_by_role("button", name="Accept").click()
    item(bob, "received", two["id"]).get_by_text("You accepted").wait_for()

    # ib3's page, read now and not again for a while, will offer an answer to a
    # cancelled invitation
    cy, cy_errors = signed_in_page(server, new_context, tokens["ib3"])
    cy.goto(f"{server.url}/me?poll=600&lang=en")
    stale = item(cy, "received", two["id"])
    stale.wait_for()

    # the inviter: one invitation to answer, one waiting for an answer, one declined
    ann, ann_errors = me_page(server, new_context, tokens["ib1"])
    waiting = item(ann, "sent", two["id"])
    waiting.wait_for()
    assert "accepted so far: ib2 · no answer yet: ib3" in waiting.inner_text()
    assert "Declined by ib2." in item(ann, "closed", one["id"]).inner_text()
    assert "ib3 invites you" in item(ann, "received", three["id"]).inner_text()
    assert serious_violations(ann) == []
    phone, phone_errors = signed_in_page(server, new_context, tokens["ib1"], bypass_csp=True,
                                         viewport={"width": 375, "height": 800})
    phone.goto(f"{server.url}/me?poll=600&lang=en")
    item(phone, "sent", two["id"]).wait_for()
    assert serious_violations(phone) == []
    assert phone.evaluate("document.documentElement.scrollWidth") <= 375
    if SHOTS.is_dir():
        ann.click("#invite-box summary")  # the form to invite players, open
        ann.locator("#invitations-box").screenshot(path=str(SHOTS / "me-invitations.png"))
        phone.locator("#invitations-box").screenshot(
            path=str(SHOTS / "me-invitations-phone.png"))
    waiting.get_by_role("button", name="Cancel the invitation").click()
    cancelled = item(ann, "closed", two["id"])
    cancelled.wait_for()
    assert "Cancelled by the inviter." in cancelled.inner_text()
    assert invitation(server, tokens["ib3"], two["id"])["status"] == "cancelled"
    assert ann.locator("#inv-sent-box").is_hidden()

    # an answer the API refuses (cancelled meanwhile) is said, and the list follows
    stale.get_by_role("button", name="Accept").click()
    cy.wait_for_selector("#notice.error")
    assert "cancelled" in cy.locator("#notice").inner_text()
    item(cy, "closed", two["id"]).wait_for()
    assert stale.count() == 0
    assert bob_errors == [] and ann_errors == [] and phone_errors == []
    assert [e for e in cy_errors if "409" not in e] == []


def test_an_invitation_sent_later_shows_at_the_next_poll_in_the_pages_language(
        server, new_context):
    tokens = accounts(server, "ic", 2)
    page, errors = signed_in_page(server, new_context, tokens["ic2"])
    page.goto(f"{server.url}/me?poll=1&lang=ru")
    page.wait_for_selector("#mine:not([hidden])")
    page.wait_for_selector("#games li")  # the first poll is done: nothing to answer
    for box in ("received", "sent", "closed"):  # only the form to invite players
        assert page.locator(f"#inv-{box}-box").is_hidden()
    assert page.locator("#invite-box summary").inner_text() == "Пригласить игроков"
    sent = invite(server, tokens["ic1"], ["ic2"], ["strong"])
    got = item(page, "received", sent["id"])
    got.wait_for()
    assert page.locator("#invitations-title").inner_text() == "Приглашения"
    assert page.locator("#inv-received-title").inner_text() == "Приглашения вам"
    assert "ic1 приглашает вас" in got.inner_text()
    assert "пока никто не принял · ещё не ответили: вы" in got.inner_text()
    assert got.get_by_role("button", name="Принять").count() == 1
    got.get_by_role("button", name="Отклонить").click()
    item(page, "closed", sent["id"]).get_by_text("Отклонено: вы.").wait_for()
    assert page.locator("#inv-received-box").is_hidden()
    assert errors == []


def test_inviting_players_from_the_page(server, new_context):
    tokens = accounts(server, "id", 3)
    page, errors = me_page(server, new_context, tokens["id1"])
    page.wait_for_selector("#invitations-box:not([hidden]) #invite-box:not([hidden])")
    page.click("#invite-box summary")
    page.fill("#invite-handles", "id2, nobody-here")
    page.get_by_role("button", name="Send the invitation").click()
    page.wait_for_selector("#notice.error")
    assert "no player has the handle 'nobody-here'" in page.locator("#notice").inner_text()
    assert server.call("/invitations", token=tokens["id1"])["invitations"] == []

    page.fill("#invite-handles", "id2, id3")
    page.select_option("#invite-variant", label="Granada")
    page.select_option("#invite-time", label="2 days")
    page.get_by_role("button", name="Send the invitation").click()
    page.wait_for_selector("#notice.ok")
    assert page.locator("#notice").inner_text() == "Invitation sent."
    assert page.input_value("#invite-handles") == ""
    (sent,) = server.call("/invitations", token=tokens["id1"])["invitations"]
    assert [n["handle"] for n in sent["invitees"]] == ["id2", "id3"]
    assert sent["settings"]["variant"] == "granada"
    assert sent["settings"]["time_per_move"] == 2 * 86400
    mine = item(page, "sent", sent["id"])
    mine.wait_for()
    assert "Granada, 3 players: you, id2, and id3 · 2 days per move" in mine.inner_text()
    assert serious_violations(page) == []
    assert [e for e in errors if "422" not in e] == []

    # an account without a handle cannot invite: no form, nothing to show
    bare, bare_errors = me_page(server, new_context, signed_in(server.app,
                                                               "no.handle@example.org"))
    bare.wait_for_selector("#games li")
    assert bare.locator("#invitations-box").is_hidden()
    assert bare.locator("#invite-box").is_hidden()
    assert bare_errors == []
