"""The store's table talk (service/store/base.py: messages, talk settings), held against
both stores: messages numbered per game, the rate limit in the insert's transaction, the
at-once mail rows written with the message, deletion recorded, settings kept apart from
the mail mark, and all of it carried by dump and load (export/import)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from service import times
from service.store import GameNotFound, Message, Talk
from service.store.base import TooManyMessages
from service.store.transfer import decode, encode
from tests.store.test_contract import make_game


def note(game_id: str, sender: int | None, text: str, to: int | None = None, at=None,
         version: int = 0) -> Message:
    return Message(game_id, 0, sender, to, text, version, at or times.now())


def test_messages_are_numbered_per_game_and_read_after_an_id(store):
    make_game(store, "g1", 3)
    make_game(store, "g2", 2)
    first = store.add_message(note("g1", 0, "Καλή τύχη 🎲"))
    second = store.add_message(note("g1", None, "host speaking", version=4))
    other = store.add_message(note("g2", 1, "Удачи", to=0))
    assert (first.id, second.id, other.id) == (1, 2, 1)
    got = store.messages("g1")
    assert [(m.id, m.sender, m.to, m.text, m.version) for m in got] == [
        (1, 0, None, "Καλή τύχη 🎲", 0), (2, None, None, "host speaking", 4)]
    assert [m.id for m in store.messages("g1", since=1)] == [2]
    assert store.messages("g2")[0].to == 0
    with pytest.raises(GameNotFound):
        store.add_message(note("nope", 0, "hi"))


def test_the_rate_limit_counts_the_sender_in_the_window_and_writes_nothing_beyond(store):
    make_game(store, "g1", 3)
    now = times.now()
    store.add_message(note("g1", 0, "old", at=now - timedelta(hours=2)), limit=(2, 3600))
    store.add_message(note("g1", 0, "one", at=now), limit=(2, 3600))
    store.add_message(note("g1", 1, "other seat", at=now), limit=(2, 3600))
    store.add_message(note("g1", 0, "two", at=now), limit=(2, 3600))
    with pytest.raises(TooManyMessages):
        store.add_message(note("g1", 0, "three", at=now), limit=(2, 3600))
    assert [m.text for m in store.messages("g1")] == ["old", "one", "other seat", "two"]
    store.add_message(note("g1", None, "the host has its own count", at=now), limit=(2, 3600))


def test_at_once_mail_rows_come_with_the_message(store):
    make_game(store, "g1", 3)
    kept = store.add_message(note("g1", 0, "hello", version=7), notify=[1, 2])
    rows = [r for r in store.due_rows("g1") if r.kind == "message"]
    assert [(r.seat, r.version, r.args) for r in rows] == [
        (1, 7, {"message": kept.id}), (2, 7, {"message": kept.id})]


def test_a_deletion_is_recorded_and_the_text_gone(store):
    make_game(store, "g1", 2)
    kept = store.add_message(note("g1", 1, "rude words"))
    at = times.now()
    assert store.delete_message("g1", kept.id, at)
    assert not store.delete_message("g1", kept.id, at)  # once
    assert not store.delete_message("g1", 99, at)
    assert not store.delete_message("g1", 1 << 70, at)
    (gone,) = store.messages("g1")
    assert gone.text == "" and gone.deleted_at == at.replace(
        microsecond=at.microsecond // 1000 * 1000)


def test_talk_settings_and_the_mail_mark_are_kept_apart(store):
    make_game(store, "g1", 3)
    assert store.talk("g1") == []
    store.mailed_through("g1", 2, 5)
    store.set_talk(Talk("g1", 2, muted=(0,), mail_messages="at_once", notes="Bob: towers",
                        notes_in_mail=True))
    store.mailed_through("g1", 2, 3)  # lower: kept at 5
    assert store.talk("g1") == [Talk("g1", 2, (0,), "at_once", "Bob: towers", True, 5)]
    store.set_talk(Talk("g1", 2))
    assert store.talk("g1") == [Talk("g1", 2, mailed_through=5)]


def test_export_and_import_carry_messages_and_talk(store, spec):
    make_game(store, "g1", 2)
    store.add_message(note("g1", 0, "hi"))
    gone = store.add_message(note("g1", 1, "secret", to=0))
    store.delete_message("g1", gone.id, times.now())
    store.set_talk(Talk("g1", 1, muted=(0,), notes="mine"))
    rows = decode(encode(store.dump_game("g1")))  # as `alhambra-pbem export` writes it
    assert [r["text"] for r in rows["messages"]] == ["hi", ""]
    assert rows["talk"][0]["muted"] == [0]
    rows["games"][0]["id"] = "g2"
    for table in ("seats", "events", "due", "idempotency", "webhooks", "messages", "talk"):
        for r in rows[table]:
            r["game_id"] = "g2"
    for r in rows["seats"]:
        r["token_hash"] = None
    store.load_game(rows)
    assert store.messages("g2") == [
        Message(**{**m.__dict__, "game_id": "g2"}) for m in store.messages("g1")]
    assert store.talk("g2") == [Talk("g2", 1, (0,), notes="mine")]
    assert store.game("g2").spectators_read_chat is False


def test_message_marks_tell_streams_what_changed_in_one_query(store):
    make_game(store, "g1", 2)
    make_game(store, "g2", 2)
    make_game(store, "g3", 2)
    assert store.message_marks([]) == {}
    store.add_message(note("g1", 0, "a"))
    store.add_message(note("g1", 1, "b"))
    store.add_message(note("g2", 0, "c"))
    store.delete_message("g1", 1, times.now())
    assert store.message_marks(["g1", "g2", "g3"]) == {"g1": (2, 1), "g2": (1, 0)}
