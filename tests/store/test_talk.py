"""The store's table talk (service/store/talk.py: messages, talk settings), held against
both databases: messages numbered per game, the rate limit (service/talk.py's rule) in
the insert's transaction, the at-once mail rows written with the message, deletion
recorded, settings kept apart from the mail mark, and all of it carried by dump and load
(export/import)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from service import times
from service.errors import TooManyMessages
from service.games import Games
from service.store import GameNotFound, Message, Talk
from service.talk import TableTalk
from service.transfer import decode, encode
from tests.store.test_contract import make_game


def note(game_id: str, sender: int | None, text: str, to: int | None = None, at=None,
         version: int = 0) -> Message:
    return Message(game_id, 0, sender, to, text, version, at or times.now())


def test_messages_are_numbered_per_game_and_read_after_an_id(store):
    make_game(store, "g1", 3)
    make_game(store, "g2", 2)
    first = store.talk.add(note("g1", 0, "Καλή τύχη 🎲"))
    second = store.talk.add(note("g1", None, "host speaking", version=4))
    other = store.talk.add(note("g2", 1, "Удачи", to=0))
    assert (first.id, second.id, other.id) == (1, 2, 1)
    got = store.talk.messages("g1")
    assert [(m.id, m.sender, m.to, m.text, m.version) for m in got] == [
        (1, 0, None, "Καλή τύχη 🎲", 0), (2, None, None, "host speaking", 4)]
    assert [m.id for m in store.talk.messages("g1", since=1)] == [2]
    assert store.talk.messages("g2")[0].to == 0
    with pytest.raises(GameNotFound):
        store.talk.add(note("nope", 0, "hi"))


def test_the_rate_limit_counts_the_sender_in_the_window_and_writes_nothing_beyond(store):
    talk = TableTalk(Games(store, cache_size=0, messages_per_hour=2))
    make_game(store, "g1", 3)
    store.talk.add(note("g1", 0, "old", at=times.now() - timedelta(hours=2)))
    game = store.game("g1")
    talk.write(game, 0, "one", None)
    talk.write(game, 1, "other seat", None)
    talk.write(game, 0, "two", None)
    with pytest.raises(TooManyMessages):
        talk.write(game, 0, "three", None)
    assert [m.text for m in store.talk.messages("g1")] == ["old", "one", "other seat", "two"]
    talk.write(game, None, "the host has its own count", None)


def test_at_once_mail_rows_come_with_the_message(store):
    talk = TableTalk(Games(store, cache_size=0))
    make_game(store, "g1", 3)
    for seat in (1, 2):
        store.talk.set(Talk("g1", seat, mail_messages="at_once"))
    talk.write(store.game("g1"), 0, "to nobody yet", None)  # no seat is claimed
    assert [r for r in store.due_rows("g1") if r.kind == "message"] == []
    for seat in (1, 2):  # a claim sets the talk mails back to the default
        assert store.players.claim("g1", seat, f"p{seat}@example.org", 1, f"c{seat}")
        mine = next(t for t in store.talk.settings("g1") if t.seat == seat)
        assert mine.mail_messages == "with_next"
        store.talk.set(Talk("g1", seat, mail_messages="at_once"))
    kept = talk.write(store.game("g1"), 0, "hello", None)
    rows = [r for r in store.due_rows("g1") if r.kind == "message"]
    assert [(r.seat, r.version, r.args) for r in rows] == [
        (1, 0, {"message": kept.id}), (2, 0, {"message": kept.id})]


def test_a_deletion_is_recorded_and_the_text_gone(store):
    make_game(store, "g1", 2)
    kept = store.talk.add(note("g1", 1, "rude words"))
    at = times.now()
    assert store.talk.delete("g1", kept.id, at)
    assert not store.talk.delete("g1", kept.id, at)  # once
    assert not store.talk.delete("g1", 99, at)
    assert not store.talk.delete("g1", 1 << 70, at)
    (gone,) = store.talk.messages("g1")
    assert gone.text == "" and gone.deleted_at == at.replace(
        microsecond=at.microsecond // 1000 * 1000)


def test_talk_settings_and_the_mail_mark_are_kept_apart(store):
    make_game(store, "g1", 3)
    assert store.talk.settings("g1") == []
    store.talk.mailed_through("g1", 2, 5)
    store.talk.set(Talk("g1", 2, muted=(0,), mail_messages="at_once", notes="Bob: towers",
                        notes_in_mail=True))
    store.talk.mailed_through("g1", 2, 3)  # lower: kept at 5
    assert store.talk.settings("g1") == [Talk("g1", 2, (0,), "at_once", "Bob: towers", True, 5)]
    store.talk.set(Talk("g1", 2))
    assert store.talk.settings("g1") == [Talk("g1", 2, mailed_through=5)]


def test_export_and_import_carry_messages_and_talk(store, spec):
    make_game(store, "g1", 2)
    store.talk.add(note("g1", 0, "hi"))
    gone = store.talk.add(note("g1", 1, "secret", to=0))
    store.talk.delete("g1", gone.id, times.now())
    store.talk.set(Talk("g1", 1, muted=(0,), notes="mine"))
    rows = decode(encode(store.transfer.dump("g1")))  # as `alhambra-pbem export` writes it
    assert [r["text"] for r in rows["messages"]] == ["hi", ""]
    assert rows["talk"][0]["muted"] == [0]
    rows["games"][0]["id"] = "g2"
    for table in ("seats", "events", "due", "idempotency", "webhooks", "messages", "talk"):
        for r in rows[table]:
            r["game_id"] = "g2"
    for r in rows["seats"]:
        r["token_hash"] = None
    store.transfer.load(rows)
    assert store.talk.messages("g2") == [
        Message(**{**m.__dict__, "game_id": "g2"}) for m in store.talk.messages("g1")]
    assert store.talk.settings("g2") == [Talk("g2", 1, (0,), notes="mine")]
    assert store.game("g2").spectators_read_chat is False


def test_message_marks_tell_streams_what_changed_in_one_query(store):
    make_game(store, "g1", 2)
    make_game(store, "g2", 2)
    make_game(store, "g3", 2)
    assert store.talk.marks([]) == {}
    store.talk.add(note("g1", 0, "a"))
    store.talk.add(note("g1", 1, "b"))
    store.talk.add(note("g2", 0, "c"))
    store.talk.delete("g1", 1, times.now())
    assert store.talk.marks(["g1", "g2", "g3"]) == {"g1": (2, 1), "g2": (1, 0)}
