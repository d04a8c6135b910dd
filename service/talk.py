"""Table talk (issue 27): messages between the seats of a game, and each seat's private
notes. The application layer, without HTTP, like ``games.py``.

Messages are not game events: they live in the store's ``messages`` table beside the
log (``store.talk``), never pass through ``engine.decide`` and never change the
game's version, so a replay of the moves is the same with or without them. They are
part of the game's record all the same (export and import carry the table).

Who reads what (``visible``): a seat reads the table's messages and the private ones it
wrote or received, except those of the seats it muted; the host reads the table's; a
spectator reads the table's only where the game allows it (``spectators_read_chat``).
A deleted message keeps its place (id, sender, addressee, ``deleted``) without its text;
so does one an operator hid (service/moderation.py), for every reader. A seat reads no
message of the seats whose accounts its account blocked, as if it muted them, and no
private message goes between two accounts one of which blocked the other (``Blocked``).
A note is its seat's alone: no other reader, mail, webhook or stream ever holds it.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from engine.words import msg

from . import times
from .auth import Caller
from .errors import (
    Blocked,
    BotAddressee,
    Forbidden,
    InvalidOption,
    InvalidRecord,
    MessageControlCharacters,
    MessageEmpty,
    MessageNotFound,
    MessageRefused,
    MessageTooLong,
    TooManyMessages,
    UnknownSeat,
)
from .games import Games
from .results import MailTalk, MessageItem, Recorded
from .store import MAIL_MESSAGES, Due, Game, Message, Seat, Talk

MAX_MESSAGE = 1000  # characters of a message
MAX_NOTES = 10_000  # characters of a seat's notes
WINDOW = 3600.0  # seconds of the rate limit (Settings.messages_per_hour)


def mailed_at_once(message: Message, seats: Sequence[int]) -> list[Due]:
    """The due rows that mail ``message`` at once to ``seats`` (kind ``message``)."""
    return [Due("message", message.version, message.created_at, seat=s,
                reply=f"message-{message.id}", args={"message": message.id}) for s in seats]


def told_on_channels(message: Message, seats: Sequence[int]) -> list[Due]:
    """The due rows that tell ``message`` to the channels of ``seats``' accounts (kind
    ``notify``, event ``message``: workers/push.py)."""
    return [Due("notify", message.version, message.created_at, seat=s,
                reply=f"message-{message.id}", args={"what": "message",
                                                     "message": message.id})
            for s in seats]
ALLOWED_CONTROLS = "\n\t"
#: Bidirectional embeddings, overrides and isolates: they would turn the text shown.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def clean(text: str, limit: int, *, empty_ok: bool = False) -> str:
    """``text`` as kept: line ends as ``\\n``, surrounding space trimmed; MessageEmpty,
    MessageTooLong or MessageControlCharacters if it cannot be."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text and not empty_ok:
        raise MessageEmpty()
    if len(text) > limit:
        raise MessageTooLong(limit, len(text))
    if any(unicodedata.category(c) == "Cc" and c not in ALLOWED_CONTROLS or
           c in BIDI_CONTROLS or _invisible(c) for c in text):
        raise MessageControlCharacters()
    return text


def _invisible(c: str) -> bool:
    """A formatting character that shows nothing (a right-to-left mark, a zero-width
    space, a byte-order mark) or a line separator other than a line break: it could
    hide or turn the text shown (issue 39). The joiners that emoji and some scripts
    need, and the tags of flags, stay."""
    return unicodedata.category(c) in ("Cf", "Zl", "Zp") and c not in "\u200c\u200d" \
        and not "\U000e0020" <= c <= "\U000e007f"


@dataclass(frozen=True)
class Reader:
    """Who reads: a seat, or (``seat`` None) the host or a spectator."""

    seat: int | None = None
    host: bool = False
    muted: frozenset[int] = frozenset()


def visible(message: Message, reader: Reader, game: Game) -> bool:
    """May ``reader`` see ``message`` at all (its text, unless deleted)?"""
    if reader.seat is None:
        return message.to is None and (reader.host or game.spectators_read_chat)
    if message.sender == reader.seat:
        return True
    if message.sender is not None and message.sender in reader.muted:
        return False
    return message.to is None or message.to == reader.seat


def item(message: Message, names: Sequence[str | None]) -> MessageItem:
    """A message as served: its text gone once deleted."""
    def name(seat: int | None) -> str | None:
        return names[seat] if seat is not None and seat < len(names) else None

    return MessageItem(message.id, message.sender, name(message.sender), message.to,
                       name(message.to), "" if message.deleted_at else message.text,
                       message.created_at, message.version, message.deleted_at is not None)


def _mark(found: Sequence[Message]) -> tuple[int, int]:
    return (found[-1].id if found else 0, sum(1 for m in found if m.deleted_at))


class TableTalk:
    """Messages, mutes, notes and talk settings of the games of ``games``."""

    def __init__(self, games: Games) -> None:
        self.games = games
        self.store = games.store

    # -- who -------------------------------------------------------------------------------

    def settings(self, game_id: str) -> dict[int, Talk]:
        """Every seat's talk settings (the defaults for a seat that set none)."""
        rows = {t.seat: t for t in self.store.talk.settings(game_id)}
        players = self.games.game(game_id).players
        return {s: rows.get(s, Talk(game_id, s)) for s in range(players)}

    def reader(self, game: Game, caller: Caller) -> Reader:
        """The caller as a reader of ``game``'s talk (Forbidden: another game's token)."""
        if caller.hosts(game):
            return Reader(host=True)
        seat = caller.viewer(game)
        if seat is None:
            return Reader()
        return self.seat_reader(game.id, seat)

    def seat_reader(self, game_id: str, seat: int) -> Reader:
        talk = self.settings(game_id)[seat]
        seats = self.games.game(game_id).seats
        return Reader(seat=seat, muted=frozenset(talk.muted) | self.blocked(seats, seat))

    def blocked(self, seats: Sequence[Seat], seat: int) -> frozenset[int]:
        """The seats whose accounts the account of ``seat`` blocked (service/moderation.py):
        it reads their messages no more than a muted seat's."""
        mine = seats[seat].claimed_by if seat < len(seats) else None
        others = {s.claimed_by: s.seat for s in seats if s.claimed_by and s.seat != seat}
        if mine is None or not others:
            return frozenset()
        return frozenset(others[e] for e in self.store.moderation.blocked_by(mine, others))

    # -- messages --------------------------------------------------------------------------

    def send(self, game: Game, caller: Caller, text: str, to: int | None
             ) -> MessageItem:
        """A message from the caller's seat (or from the host, to the table only)."""
        sender = caller.owner(game, scope="talk")
        return self.write(game, sender, text, to)

    def write(self, game: Game, sender: int | None, text: str, to: int | None
              ) -> MessageItem:
        """Keep a message of ``sender`` (None: the host); the seats that asked for it at
        once get a mail, the accounts of the seats that read it whose channels chose
        ``message`` a notice (due rows written with it)."""
        text = clean(text, MAX_MESSAGE)
        seats = list(self.games.game(game.id).seats)
        if to is not None:
            if not 0 <= to < len(seats):
                raise UnknownSeat(to)
            if seats[to].bot:
                raise BotAddressee(to)
        if sender is None and to is not None:
            raise Forbidden(msg("the host writes to the table only"))
        writer = seats[sender].claimed_by if sender is not None else None
        reader = seats[to].claimed_by if to is not None else None
        if writer and reader and self.store.moderation.blocked_among(writer, [reader]):
            raise Blocked(msg("you cannot write to seat {seat} in private: one of you "
                              "blocked the other", seat=to), seat=to)
        message = Message(game.id, 0, sender, to, text, game.version, times.now())
        readers = self._readers(game, seats, message)
        notify = [s for s, talk in readers if talk.mail_messages == "at_once" and
                  seats[s].email]
        told = self._on_channels(seats, [s for s, _ in readers])
        limit = self.games.messages_per_hour
        try:
            with self.store.transaction() as tx:  # messages at once cannot pass the limit
                tx.lock_game(game.id)
                if tx.talk.sent_since(game.id, sender,
                                      times.later(-WINDOW, message.created_at)) >= limit:
                    raise TooManyMessages(limit)
                kept = tx.talk.add(message)
                tx.add_due(game.id, mailed_at_once(kept, notify) +
                           told_on_channels(kept, told), kept.created_at)
        except TooManyMessages as refused:
            refused.extra["retry_after"] = self._retry_after(game, sender, limit,
                                                             message.created_at)
            raise
        return item(kept, [s.name for s in seats])

    def _retry_after(self, game: Game, sender: int | None, limit: int, now: datetime
                     ) -> int:
        """Seconds until ``sender`` may write again: when the oldest of its last
        ``limit`` messages leaves the hour's window (the 429's ``Retry-After``)."""
        sent = sorted(m.created_at for m in self.store.talk.messages(game.id, 0)
                      if m.sender == sender and m.created_at > times.later(-WINDOW, now))
        oldest = sent[-limit] if 0 < limit <= len(sent) else now
        return max(1, math.ceil((times.later(WINDOW, oldest) - now).total_seconds()))

    def _readers(self, game: Game, seats: list[Seat], message: Message
                 ) -> list[tuple[int, Talk]]:
        """The claimed seats that may be told of ``message`` as it is written (with
        their talk settings): those that read it, not its sender's, not a bot's. Of
        them, those that asked so get it by mail at once (once claimed by their player:
        service/players.py; a claim sets it back to the default, which whoever held the
        seat's token before could change)."""
        out = []
        for seat, talk in self.settings(game.id).items():
            info = seats[seat]
            if seat == message.sender or not info.claimed_by or info.bot:
                continue
            muted = frozenset(talk.muted) | self.blocked(seats, seat)
            if visible(message, Reader(seat, muted=muted), game):
                out.append((seat, talk))
        return out

    def _on_channels(self, seats: list[Seat], readers: Sequence[int]) -> list[int]:
        """The ``readers`` whose accounts have a channel beyond e-mail that chose
        ``message`` (service/notify_channels.py; off by default)."""
        return [s for s in readers if seats[s].claimed_by and any(
            "message" in c.events for c in self.store.channels.of_account(
                str(seats[s].claimed_by)))]

    def read(self, game: Game, caller: Caller, since: int = 0) -> list[MessageItem]:
        """The messages after id ``since`` the caller may read."""
        return self.items(game, self.reader(game, caller), since)

    def items(self, game: Game, reader: Reader, since: int = 0,
              messages: Iterable[Message] | None = None) -> list[MessageItem]:
        names = [s.name for s in self.games.game(game.id).seats]
        found = self.store.talk.messages(game.id, since) if messages is None else messages
        return [item(m, names) for m in found if visible(m, reader, game)]

    def delete(self, game: Game, caller: Caller, message_id: int) -> None:
        """The host removes a message's text from every view (the deletion is kept):
        one it may read only; a private one is no message it knows of (404)."""
        if not caller.hosts(game):
            caller.viewer(game)  # 403 for another game's token first
            raise Forbidden(msg("only the game's host can delete a message"))
        found = next((m for m in self.store.talk.messages(game.id, since=message_id - 1)
                      if m.id == message_id), None) if 0 < message_id < 1 << 62 else None
        if found is None or not visible(found, Reader(host=True), game) or \
                not self.store.talk.delete(game.id, message_id, times.now()):
            raise MessageNotFound(message_id)

    def mark(self, game_id: str) -> tuple[int, int]:
        """What the streams compare: (the last message id, how many are deleted)."""
        return self.marks([game_id])[game_id]

    def marks(self, game_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """``mark`` of each game, in one query."""
        found = self.store.talk.marks(game_ids)
        return {g: found.get(g, (0, 0)) for g in game_ids}

    def changes(self, game: Game, caller: Caller, sent: tuple[int, int]
                ) -> tuple[list[MessageItem], tuple[int, int]]:
        """For a live stream that has told its reader of the talk up to the mark ``sent``:
        the caller's messages written since, and the deleted ones again if any was
        deleted since (a page blanks them); with the new mark."""
        found = self.store.talk.messages(game.id)
        mark = _mark(found)
        if mark == sent:
            return [], mark
        new = [m for m in found if m.id > sent[0] or m.deleted_at and mark[1] != sent[1]]
        return self.items(game, self.reader(game, caller), messages=new), mark

    # -- records ---------------------------------------------------------------------------

    def record(self, game: Game, caller: Caller) -> Recorded:
        """The game's record (``Games.record``) with the messages the caller may read."""
        doc = self.games.record(game, caller)
        return Recorded(doc, tuple(self.items(game, self.reader(game, caller))))

    def import_record(self, doc: dict[str, Any]) -> Game:
        """Import a record (``Games.import_record``) with its messages; a message that
        cannot be is InvalidRecord, and nothing is imported. Spectators of the imported
        game read its table messages (no seat has a token there)."""
        return self.games.import_record(doc, self._record_messages(doc))

    def _record_messages(self, doc: dict[str, Any]) -> list[Message]:
        found = doc.get("messages") or []
        players = len(doc.get("seats") or [])
        out = []
        if not isinstance(found, list):
            raise InvalidRecord(msg("messages must be a list"), None)
        for i, m in enumerate(found):
            try:
                sender, to = m.get("from"), m.get("to")
                for seat in (sender, to):
                    if seat is not None and (type(seat) is not int or
                                             not 0 <= seat < players):
                        raise UnknownSeat(seat)
                deleted = bool(m.get("deleted"))
                text = "" if deleted else clean(str(m["text"]), MAX_MESSAGE)
                at = times.from_text(str(m["created_at"]))
                version = m.get("version", 0)
                if type(version) is not int or not 0 <= version < 1 << 31:
                    raise ValueError(f"version {version!r} is no version of a game")
                out.append(Message("", 0, sender, to, text, version, at,
                                   at if deleted else None))
            except (MessageRefused, KeyError, TypeError, ValueError, AttributeError) as exc:
                reason = exc.detail if isinstance(exc, MessageRefused) else str(exc)
                raise InvalidRecord(msg("messages[{index}] cannot be imported: {reason}",
                                        index=i, reason=reason), None) from None
        return out

    # -- a seat's own --------------------------------------------------------------------

    def own(self, game: Game, caller: Caller) -> Talk:
        return self.settings(game.id)[caller.player(game, scope="talk")]

    def talk_settings(self, game: Game, caller: Caller) -> dict[str, Any]:
        talk = self.own(game, caller)
        return {"muted": sorted(talk.muted), "mail_messages": talk.mail_messages,
                "notes_in_mail": talk.notes_in_mail}

    def set_talk_settings(self, game: Game, caller: Caller, changes: dict[str, Any]
                          ) -> dict[str, Any]:
        """Change the caller's mute list, mail choice or notes in mail."""
        talk = self.own(game, caller)
        if "muted" in changes:
            talk = replace(talk, muted=self._mutes(game, talk.seat, changes["muted"]))
        if "mail_messages" in changes:
            if changes["mail_messages"] not in MAIL_MESSAGES:
                raise InvalidOption("mail_messages", msg(
                    "mail_messages is with_next or at_once"))
            talk = replace(talk, mail_messages=changes["mail_messages"])
        if "notes_in_mail" in changes:
            talk = replace(talk, notes_in_mail=bool(changes["notes_in_mail"]))
        self.store.talk.set(talk)
        return self.talk_settings(game, caller)

    def _mutes(self, game: Game, seat: int, seats: Iterable[int]) -> tuple[int, ...]:
        out = set()
        for s in seats:
            if not 0 <= s < game.players:
                raise UnknownSeat(s)
            if s != seat:
                out.add(s)
        return tuple(sorted(out))

    def mute(self, game: Game, caller: Caller, seat: int, muted: bool) -> dict[str, Any]:
        """Mute (or unmute) one seat for the caller."""
        talk = self.own(game, caller)
        now = set(talk.muted) | {seat} if muted else set(talk.muted) - {seat}
        if muted and not 0 <= seat < game.players:
            raise UnknownSeat(seat)
        return self.set_talk_settings(game, caller, {"muted": now})

    def notes(self, game: Game, caller: Caller) -> dict[str, Any]:
        return {"text": self.own(game, caller).notes}

    def set_notes(self, game: Game, caller: Caller, text: str) -> dict[str, Any]:
        talk = self.own(game, caller)
        self.store.talk.set(replace(talk, notes=clean(text, MAX_NOTES, empty_ok=True)))
        return self.notes(game, caller)

    def set_seat_notes(self, game_id: str, seat: int, text: str) -> None:
        """A seat's notes replaced (a ``note:`` line of its mail)."""
        talk = self.settings(game_id)[seat]
        self.store.talk.set(replace(talk, notes=clean(text, MAX_NOTES, empty_ok=True)))

    # -- mail ----------------------------------------------------------------------------

    def unmailed(self, game_id: str, seat: int) -> list[MessageItem]:
        """The messages ``seat`` may read that its mails have not shown yet, not its own
        and not deleted (the mail says who wrote each)."""
        game = self.games.game(game_id)
        talk = self.settings(game_id)[seat]
        reader = self.seat_reader(game_id, seat)
        return [i for i in self.items(game, reader, talk.mailed_through)
                if i.sender != seat and not i.deleted]

    def mail_section(self, game_id: str, seat: int) -> MailTalk:
        """What a mail to ``seat`` shows of the talk: its unmailed messages (``last``:
        the id to mark once sent) and its notes if it asked for them."""
        talk = self.settings(game_id)[seat]
        found = self.unmailed(game_id, seat)
        return MailTalk(tuple(found), found[-1].id if found else 0,
                        talk.notes if talk.notes_in_mail and talk.notes else None)

    def mailed(self, game_id: str, seat: int, last: int) -> None:
        if last:
            self.store.talk.mailed_through(game_id, seat, last)
