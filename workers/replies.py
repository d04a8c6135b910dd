"""What a player's reply says: its text, its moves or command (whom it is from and
whether to answer it at all: ``mail_auth.py``).

The text is the ``text/plain`` part (``email`` decodes quoted-printable and base64 in any
charset), else the HTML part turned into text by ``html2text``. ``mail-parser-reply``
cuts off the quoted mail (``On … wrote:``, ``-----Original Message-----``, Outlook's
header block) and the signature; lines quoted with ``>`` go too. What is left to read is
the first block of non-empty lines: the moves, one a line or separated by ``;``, in the
notation of ``engine/NOTATION.md`` (``engine.parse_moves``), or the command ``status``,
``help``, ``resign`` (a bot plays the seat from then on, docs/rules.md S-2) or
``language fi`` (the seat's mails in that language). The command words are read in every
language of the catalogs (``pgettext("command", …)``: ``ohje``, ``hjælp``, ``помощь``…),
capitals and accents aside; the move notation is one notation in every language.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import getaddresses
from functools import cache

import html2text
from mailparser_reply import EmailReplyParser

import engine
from engine.words import pmsg
from service import i18n

#: Languages whose "On … wrote:" lines and signatures are recognised. (Not Danish: its
#: signature "Tak" would swallow a reply "take 3".)
LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "pl", "sv", "cs"]
#: The commands, by their English word (the catalogs give each language's).
COMMANDS = {"status": pmsg("command", "status"), "help": pmsg("command", "help"),
            "resign": pmsg("command", "resign"), "language": pmsg("command", "language")}
#: Table talk in a reply (issue 27): ``say`` (the lines after it, to the table),
#: ``say: text``, ``tell 2: text`` (to seat 2, or ``tell Bob: text``), ``note: text`` (the
#: seat's notes, replaced; ``note`` alone: the lines after it). Read in every language.
TALK = {"say": pmsg("command", "say"), "tell": pmsg("command", "tell"),
        "note": pmsg("command", "note")}
#: The most lines read as moves (a whole turn fits easily).
MAX_LINES = 20
#: The most lines of a reply read at all (talk and moves).
MAX_READ = 200

_MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!])")
_IDS = re.compile(r"<[^<>\s]{1,250}>")


@dataclass
class Reading:
    """What the reply asks: ``kind`` is moves, status, help, resign, language, empty or
    unreadable (``language``: the language asked for, None if unknown)."""

    kind: str
    lines: list[str] = field(default_factory=list)  # as written
    moves: list[engine.Move] = field(default_factory=list)
    error: engine.NotationError | None = None
    line: int = 0  # the 1-based line of the error
    language: str | None = None

    @property
    def understood(self) -> list[str]:
        return [str(m) for m in self.moves]


def body_text(msg: EmailMessage) -> str:
    """The reply's text: its plain part, else its HTML part as text ('' if neither)."""
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, UnicodeError):  # an unknown charset: read what can be read
        payload = part.get_payload(decode=True) or b""
        content = payload.decode("utf-8", "replace")
    if not isinstance(content, str):
        return ""
    if part.get_content_subtype() == "html":
        converter = html2text.HTML2Text()
        converter.body_width = 0
        converter.ignore_links = converter.ignore_images = converter.ignore_emphasis = True
        content = _MD_ESCAPE.sub(r"\1", converter.handle(content))
    return content


def latest_lines(text: str) -> list[str]:
    """The reply's own lines (stripped, empty ones kept), above the quoted mail and the
    signature. Lines quoted with ``>`` go first, wherever they are (a quoted signature
    would hide a reply written below the quote)."""
    text = text.replace("\r\n", "\n").replace("\xa0", " ")
    text = "\n".join(line for line in text.split("\n") if not line.lstrip().startswith(">"))
    replies = EmailReplyParser(languages=LANGUAGES).read(text).replies
    latest = replies[0].body if replies else text
    return [line.strip() for line in latest.split("\n")[:MAX_READ]]


def reply_lines(text: str) -> list[str]:
    """The first block of non-empty lines of the reply, above the quoted mail and the
    signature (``latest_lines``)."""
    return first_block(latest_lines(text))


def first_block(lines: list[str]) -> list[str]:
    """The first block of non-empty lines (at most ``MAX_LINES``)."""
    block: list[str] = []
    for line in lines:
        if not line:
            if block:
                break
            continue
        block.append(line)
        if len(block) >= MAX_LINES:
            break
    return block


def _plain(word: str) -> str:
    """A word without capitals and accents: "Βοήθεια" and "βοηθεια" read alike."""
    return "".join(c for c in unicodedata.normalize("NFD", word.casefold())
                   if not unicodedata.combining(c))


@cache
def command_words() -> dict[str, str]:
    """Each command word of every language (plain) → its command."""
    return {_plain(i18n.say(said, lang)): command for lang in i18n.LANGUAGES
            for command, said in COMMANDS.items()}


@dataclass
class Said:
    """A message of a reply: ``to`` a seat number, a name, or None (the table)."""

    text: str
    to: int | str | None = None


@dataclass
class Talked:
    """The table talk of a reply, and its other lines (moves or a command)."""

    rest: list[str]
    said: list[Said] = field(default_factory=list)
    note: str | None = None


@cache
def talk_words() -> dict[str, str]:
    """Each talk word of every language (plain) → ``say``, ``tell`` or ``note``."""
    return {_plain(i18n.say(said, lang)): word for lang in i18n.LANGUAGES
            for word, said in TALK.items()}


_TALK_LINE = re.compile(r"^(\w+)(?:\s+([^:]+?))?\s*(?::\s*(.*))?$", re.DOTALL)


def split_talk(lines: list[str]) -> Talked:
    """Take the talk lines out of a reply's lines: ``say``/``note`` alone take every line
    after them; ``say: …``, ``tell 2: …``, ``note: …`` one line each."""
    out = Talked([])
    for i, line in enumerate(lines):
        m = _TALK_LINE.match(line)
        word = talk_words().get(_plain(m.group(1))) if m else None
        if m is None or word is None or (word != "tell") != (m.group(2) is None):
            out.rest.append(line)
            continue
        if m.group(3) is None and ":" not in line:
            if word == "tell":  # "tell 2" alone: the lines after it
                out.said.append(Said("\n".join(lines[i + 1:]).strip(), _seat(m.group(2))))
                break
            following = "\n".join(lines[i + 1:]).strip()
            if word == "say":
                out.said.append(Said(following))
            else:
                out.note = following
            break
        text = (m.group(3) or "").strip()
        if word == "note":
            out.note = text
        else:
            out.said.append(Said(text, _seat(m.group(2)) if word == "tell" else None))
    return out


def _seat(who: str) -> int | str:
    who = who.strip()
    return int(who) if who.isdigit() and len(who) < 4 else who


@cache
def _language_names() -> dict[str, str]:
    return {_plain(name): lang for lang, name in i18n.NATIVE_NAMES.items()}


def read(lines: list[str]) -> Reading:
    """The moves of a whole turn (all lines), or a command, or why they cannot be read."""
    if not lines:
        return Reading("empty")
    words = lines[0].strip().rstrip(".!").split()
    command = command_words().get(_plain(words[0])) if words else None
    if command == "language" and len(words) <= 2:  # alone: which languages there are
        asked = _plain(words[1].rstrip(".!")) if len(words) == 2 else ""
        return Reading("language", lines,
                       language=i18n.language(asked) or _language_names().get(asked))
    if command is not None and command != "language" and len(words) == 1:
        return Reading(command, lines)
    moves: list[engine.Move] = []
    for number, line in enumerate(lines, start=1):
        try:
            moves += engine.parse_moves(line)
        except engine.NotationError as exc:
            return Reading("unreadable", lines, moves, exc, number)
    return Reading("moves", lines, moves)


def message_ids(value: object) -> list[str]:
    """The ``<id>``s of a Message-ID, In-Reply-To or References header (nothing else of
    it: these go back into our own headers)."""
    return _IDS.findall(str(value or ""))


def recipients(msg: EmailMessage) -> list[str]:
    """Addresses the mail was delivered to, as its headers tell (for pipe delivery without
    an envelope recipient): Delivered-To, X-Original-To, To, Cc."""
    values = [str(v) for name in ("Delivered-To", "X-Original-To", "To", "Cc")
              for v in msg.get_all(name, [])]
    return [addr for _, addr in getaddresses(values) if addr]
