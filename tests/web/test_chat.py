"""Table talk on the play page, in Chromium (issue 27): two browser contexts talk through
the chat panel (live, over the game's stream), by keyboard; text stays text; the unread
count; a private message; the notes box is its seat's own."""

from __future__ import annotations

from .conftest import watch_errors


def test_two_players_talk_in_the_chat_panel(server, new_context):
    created = server.call("/games", {"seats": [{"name": "Ann"}, {"name": "Bob"},
                                               {"name": "Cy"}]})
    pages, errors = [], []
    for seat in created["seats"][:2]:
        page = new_context(viewport={"width": 1280, "height": 900}).new_page()
        errors.append(watch_errors(page))
        page.goto(seat["join_url"])
        page.wait_for_selector("#chat-list li")
        page.wait_for_selector("#live.on")  # the stream is open
        pages.append(page)
    ann, bob = pages
    # Ann writes to the table by keyboard: Enter sends
    ann.focus("#chat-text")
    ann.keyboard.type("Καλή τύχη <b>all</b> 🎲")
    ann.keyboard.press("Enter")
    bob.wait_for_selector("#chat-list li[data-id='1']")
    got = bob.locator("#chat-list li[data-id='1']")
    assert "Ann" in got.inner_text() and "Καλή τύχη <b>all</b> 🎲" in got.inner_text()
    assert got.locator("b").count() == 0  # text, never HTML
    assert bob.get_attribute("#chat-unread", "data-count") == "1"
    assert ann.input_value("#chat-text") == ""
    # Bob reads (focus in the panel clears the count), then answers Ann alone
    bob.focus("#chat-list")
    assert bob.get_attribute("#chat-unread", "data-count") == "0"
    bob.select_option("#chat-to", "0")
    bob.fill("#chat-text", "just between us")
    bob.keyboard.press("Tab")
    bob.keyboard.press("Enter")  # the Send button, by keyboard
    ann.wait_for_selector("#chat-list li[data-id='2']")
    private = ann.locator("#chat-list li[data-id='2']")
    assert "just between us" in private.inner_text() and "private" in (
        private.get_attribute("class") or "")
    # newest at the bottom
    ids = ann.eval_on_selector_all("#chat-list li[data-id]",
                                   "els => els.map(e => e.dataset.id)")
    assert ids == ["1", "2"]
    # Cy's private view never got Bob's note to Ann
    cy = server.call(f"/games/{created['game_id']}/messages",
                     token=created["seats"][2]["token"])
    assert [m["text"] for m in cy["messages"]] == ["Καλή τύχη <b>all</b> 🎲"]
    # Bob mutes Ann in the talk settings (keyboard: a checkbox): her next message never
    # reaches his page, live or after a reload
    bob.click(".chat-settings summary")
    bob.focus("#mute-0")
    bob.keyboard.press("Space")
    bob.wait_for_selector(".chat-settings [role=status]:has-text('.')")
    assert bob.is_checked("#mute-0")
    ann.fill("#chat-text", "muted words")
    ann.keyboard.press("Enter")
    ann.wait_for_selector("#chat-list li[data-id='3']")
    bob.wait_for_timeout(1500)  # a stream look or two
    assert "muted words" not in bob.inner_text("#chat-list")
    assert "Καλή τύχη" not in bob.inner_text("#chat-list")  # none of hers at all
    bob.reload()
    bob.wait_for_selector("#chat-list li[data-id='2']")
    assert "muted words" not in bob.inner_text("#chat-list")
    # the notes box: saved, read back after a reload, nobody else's
    ann.fill("#notes-text", "Bob collects towers")
    ann.click("#notes-save")
    ann.wait_for_selector("#notes-saved:has-text('.')")
    ann.reload()
    ann.wait_for_function(
        "() => document.querySelector('#notes-text')?.value === 'Bob collects towers'")
    bob.reload()
    bob.wait_for_selector("#notes-text")
    assert bob.input_value("#notes-text") == ""
    assert errors == [[], []]
