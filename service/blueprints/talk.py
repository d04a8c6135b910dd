"""/games/{id}/messages, /mutes, /notes, /talk: table talk between the seats (service/talk.py)."""

from __future__ import annotations

from typing import Any

from .. import present
from ..schemas import (
    MessageInSchema,
    MessageListSchema,
    MessageSchema,
    MessagesPageQuerySchema,
    NotesSchema,
    TalkSettingsInSchema,
    TalkSettingsSchema,
)
from ..talk import TableTalk
from .common import (
    BEARER,
    BEARER_REQUIRED,
    LINK_HEADER,
    Blueprint,
    caller,
    errors,
    next_link,
    service,
)

blp = Blueprint("talk", __name__, url_prefix="/games",
                description="Table talk: messages between the seats, mutes, private notes")


def talk() -> TableTalk:
    return TableTalk(service())


@blp.route("/<string:game_id>/messages", methods=["POST"])
@blp.arguments(MessageInSchema())
@blp.response(201, MessageSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 404, 415, 422, 429)
def send_message(body: dict[str, Any], game_id: str
                 ) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Write a message

    With a seat token: to the table (`to` null) or to one seat; with the host token: to
    the table. Plain text (never HTML anywhere), 1 to 1,000 characters. Refused with
    nothing written: an empty text (`message_empty`), a longer one (`message_too_long`),
    control characters (`message_control_characters`), a seat the game does not have
    (`unknown_seat`), a seat a bot plays (`addressee_is_bot`), a private message between
    two accounts one of which blocked the other (403 `blocked`), and beyond the server's
    messages an hour (429 `too_many_messages`). Messages are not game events: the version
    does not change; open streams get them as `event: chat`."""
    t = talk()
    game = t.games.game(game_id)
    sent = t.send(game, caller(), body["text"], body["to"])
    return present.message(sent), 201, \
        {"Location": f"/games/{game.id}/messages?since={sent.id - 1}"}


@blp.route("/<string:game_id>/messages", methods=["GET"])
@blp.arguments(MessagesPageQuerySchema(), location="query")
@blp.response(200, MessageListSchema, headers=LINK_HEADER)
@blp.doc(security=BEARER)
@errors(blp, 400, 401, 403, 404, 422)
def list_messages(query: dict[str, Any], game_id: str
                  ) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Read the messages

    What the caller may read, after id `since`: a seat the table's messages and the
    private ones it wrote or received (none of the seats it muted, nor of the accounts
    its account blocked); the host the table's; anyone else the table's only if the game
    was created with `spectators_read_chat`. A message the host deleted or the server's
    operator hid keeps its place without its text (`deleted`). At most `limit`; when
    there are more, `Link: <…?since=<last id shown>…>; rel="next"`."""
    t = talk()
    game = t.games.game(game_id)
    items = t.read(game, caller(), query["since"])
    headers: dict[str, str] = {}
    if len(items) > query["limit"]:
        items = items[:query["limit"]]
        headers = next_link(since=items[-1].id)
    return present.messages(game.id, items), 200, headers


@blp.route("/<string:game_id>/messages/<int:message_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def delete_message(game_id: str, message_id: int) -> None:
    """Delete a message (the host)

    Its text is gone from every view, stream and mail not yet sent; the deletion is
    recorded (the message stays listed, `deleted` true, without text)."""
    t = talk()
    t.delete(t.games.game(game_id), caller(), message_id)
    return None


@blp.route("/<string:game_id>/mutes/<int:seat>", methods=["PUT"])
@blp.response(200, TalkSettingsSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404, 422)
def mute(game_id: str, seat: int) -> dict[str, Any]:
    """Mute a seat: its messages no longer reach the caller, in the page or by mail"""
    t = talk()
    return t.mute(t.games.game(game_id), caller(), seat, True)


@blp.route("/<string:game_id>/mutes/<int:seat>", methods=["DELETE"])
@blp.response(200, TalkSettingsSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404, 422)
def unmute(game_id: str, seat: int) -> dict[str, Any]:
    """Unmute a seat"""
    t = talk()
    return t.mute(t.games.game(game_id), caller(), seat, False)


@blp.route("/<string:game_id>/talk", methods=["GET"])
@blp.response(200, TalkSettingsSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def get_talk(game_id: str) -> dict[str, Any]:
    """The caller's talk settings: muted seats, how messages are mailed, notes in mail"""
    t = talk()
    return t.talk_settings(t.games.game(game_id), caller())


@blp.route("/<string:game_id>/talk", methods=["PUT"])
@blp.arguments(TalkSettingsInSchema())
@blp.response(200, TalkSettingsSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 404, 415, 422)
def set_talk(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Change the caller's talk settings (the fields given)

    `mail_messages`: `with_next` (default: messages come with the seat's next mail) or
    `at_once` (a mail for each message); `notes_in_mail`: the seat's own mails show its
    notes."""
    t = talk()
    return t.set_talk_settings(t.games.game(game_id), caller(), body)


@blp.route("/<string:game_id>/notes", methods=["GET"])
@blp.response(200, NotesSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def get_notes(game_id: str) -> dict[str, Any]:
    """The caller's private notes (no one else ever reads them)"""
    t = talk()
    return t.notes(t.games.game(game_id), caller())


@blp.route("/<string:game_id>/notes", methods=["PUT"])
@blp.arguments(NotesSchema())
@blp.response(200, NotesSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 404, 415, 422)
def set_notes(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Replace the caller's private notes (up to 10,000 characters; empty clears them)"""
    t = talk()
    return t.set_notes(t.games.game(game_id), caller(), body["text"])
