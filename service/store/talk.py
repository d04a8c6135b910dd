"""The table talk's records (service/talk.py is its rules): messages between the seats,
kept beside the log and numbered per game, and each seat's talk settings and notes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from ..errors import GameNotFound
from .access import Access
from .base import Message, Talk

#: A message as every reader gets it: one an operator hid (service/moderation.py) as a
#: deleted one, without its text (which the row keeps).
MESSAGE = ("game_id, id, sender, recipient, case when hidden_at is null then text else '' "
           "end as text, version, created_at, coalesce(deleted_at, hidden_at) as deleted_at")
TALK = "game_id, seat, muted, mail_messages, notes, notes_in_mail, mailed_through"
INT32 = range(-(1 << 31), 1 << 31)  # a message's id: beyond it, no message


def _message(row: dict[str, Any]) -> Message:
    row["to"] = row.pop("recipient")
    return Message(**row)


class TalkRecords:
    def __init__(self, access: Access) -> None:
        self.a, self.d = access, access.d

    def add(self, message: Message) -> Message:
        """Keep ``message`` as the game's next (its ``id`` ignored); GameNotFound. Its
        game's writers wait meanwhile (in a transaction: until it commits)."""
        game_id = message.game_id
        with self.a.write() as db:
            self.d.lock_game(db, game_id)
            if not db.scalar("select 1 from games where id = ?", (game_id,)):
                raise GameNotFound(game_id)
            last = db.scalar("select coalesce(max(id), 0) from messages where game_id = ?",
                             (game_id,))
            kept = replace(message, id=last + 1, deleted_at=None)
            db.execute("insert into messages (game_id, id, sender, recipient, text, version, "
                       "created_at) values (?, ?, ?, ?, ?, ?, ?)",
                       (game_id, kept.id, kept.sender, kept.to, kept.text, kept.version,
                        self.d.time(kept.created_at)))
        return kept

    def sent_since(self, game_id: str, sender: int | None, since: datetime) -> int:
        """How many messages ``sender`` (None: the host) wrote in the game after
        ``since``."""
        with self.a.read() as db:
            count: int = db.scalar("select count(*) from messages where game_id = ? and "
                                   "sender is not distinct from ? and created_at > ?",
                                   (game_id, sender, self.d.time(since)))
        return count

    def messages(self, game_id: str, since: int = 0) -> list[Message]:
        """The game's messages after id ``since``, by id, deleted ones too (no text)."""
        with self.a.read() as db:
            rows = db.query(f"select {MESSAGE} from messages where game_id = ? and id > ? "
                            f"order by id", (game_id, min(since, INT32.stop - 1)))
        return [_message(r) for r in rows]

    def marks(self, game_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """Per game with messages: (its last message id, how many are deleted or
        hidden)."""
        if not game_ids:
            return {}
        with self.a.read() as db:
            rows = db.query(f"select game_id, max(id) as last, "
                            f"count(coalesce(deleted_at, hidden_at)) as gone "
                            f"from messages where game_id in ({', '.join('?' * len(game_ids))}) "
                            f"group by game_id", list(game_ids))
        return {r["game_id"]: (r["last"], r["gone"]) for r in rows}

    def delete(self, game_id: str, message_id: int, at: datetime) -> bool:
        """Remove a message's text, keeping when; False if there is none to delete (or an
        operator hid it: its text stays for the operator)."""
        if message_id not in INT32:
            return False
        with self.a.write() as db:
            return db.execute("update messages set text = '', deleted_at = ? where "
                              "game_id = ? and id = ? and deleted_at is null and "
                              "hidden_at is null",
                              (self.d.time(at), game_id, message_id)) == 1

    def settings(self, game_id: str) -> list[Talk]:
        """The seats' talk settings, by seat (a seat that never set any has no row)."""
        with self.a.read() as db:
            rows = db.query(f"select {TALK} from talk where game_id = ? order by seat",
                            (game_id,))
        return [Talk(**{**r, "muted": tuple(r["muted"])}) for r in rows]

    def set(self, talk: Talk) -> None:
        """A seat's muted seats, mail choice and notes (not ``mailed_through``)."""
        with self.a.write() as db:
            db.execute("insert into talk (game_id, seat, muted, mail_messages, notes, "
                       "notes_in_mail) values (?, ?, ?, ?, ?, ?) on conflict (game_id, seat) "
                       "do update set muted = excluded.muted, mail_messages = "
                       "excluded.mail_messages, notes = excluded.notes, notes_in_mail = "
                       "excluded.notes_in_mail",
                       (talk.game_id, talk.seat, self.d.doc(list(talk.muted)),
                        talk.mail_messages, talk.notes,
                        self.d.encode("notes_in_mail", talk.notes_in_mail)))

    def mailed_through(self, game_id: str, seat: int, message_id: int) -> None:
        """The seat's mails have shown the messages up to ``message_id`` (kept if higher
        already)."""
        with self.a.write() as db:
            db.execute("insert into talk (game_id, seat, mailed_through) values (?, ?, ?) "
                       "on conflict (game_id, seat) do update set mailed_through = case when "
                       "excluded.mailed_through > talk.mailed_through then "
                       "excluded.mailed_through else talk.mailed_through end",
                       (game_id, seat, message_id))
