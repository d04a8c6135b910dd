"""What a player's reply says: its text, its moves or command (whom it is from and
whether to answer it at all: ``mail_auth.py``).

The text is the ``text/plain`` part (``email`` decodes quoted-printable and base64 in any
charset), else the HTML part turned into text by ``html2text``, each block element (an
Outlook ``<p>``, a Gmail ``<div>``) one line, as a person sees it. Lines quoted with ``>``
go; a quote header line ("On … wrote:", s-nail's "Alhambra <…> wrote:", "… писал(а):",
"… έγραψε:", "… kirjoitti:", "Den … skrev …:", Gmail's Russian "…, Name <addr>:") and an
Outlook header block in any of our languages ("От: … / Отправлено: …") end the reply when
something is written above them, and are dropped when the reply is written below them.
``mail-parser-reply`` (with the languages it lacks added: ``QUOTE_LANGUAGES``) cuts off
the rest of the quoted mail and the signature. What is left to read is the first block
of non-empty lines (after a short greeting block, the next one): the moves, one a line or
separated by ``;``, in the notation of ``engine/NOTATION.md`` (``engine.parse_moves``;
a greeting line before them is skipped when the rest reads as moves), or the command ``status``,
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
from mailparser_reply import EmailReplyParser  # type: ignore[import-untyped]  # no stubs
from mailparser_reply.constants import MAIL_LANGUAGES  # type: ignore[import-untyped]

import engine
from engine.words import pmsg
from service import i18n

#: The quote headers of the languages ``mail-parser-reply`` lacks (and Danish's without its
#: signature "Tak", which would swallow a reply "take 3"), added to its table.
QUOTE_LANGUAGES: dict[str, dict[str, str]] = {
    "alhambra-ru": {
        "wrote_header": r"^(?:>\s?)*.{0,200}\s(?:писал|писала|написал|написала|пишет)"
                        r"(?:\(а\))?:$",
        "from_header": r"((?:(?:^|\n)[* ]*(?:От|Отправлено|Кому|Тема|Дата|Копия):[ *]*"
                       r"(?:\s{,2}).*){2,}(?:\n.*){,1})"},
    "alhambra-el": {
        "wrote_header": r"^(?:>\s?)*.{0,200}\sέγραψε:$",
        "from_header": r"((?:(?:^|\n)[* ]*(?:Από|Στάλθηκε|Προς|Θέμα|Ημερομηνία|Κοιν\.?):"
                       r"[ *]*(?:\s{,2}).*){2,}(?:\n.*){,1})"},
    "alhambra-fi": {
        "wrote_header": r"^(?:>\s?)*.{0,200}\skirjoitti(?:\s.{0,60})?:$",
        "from_header": r"((?:(?:^|\n)[* ]*(?:Lähettäjä|Lähetetty|Vastaanottaja|Aihe|"
                       r"Päivämäärä|Kopio):[ *]*(?:\s{,2}).*){2,}(?:\n.*){,1})"},
    "alhambra-da": {
        "wrote_header": r"^(?:>\s?)*(?:Den|[Mm]an|[Tt]ir|[Oo]ns|[Tt]or|[Ff]re|[Ll]ør|[Ss]øn|"
                        r"[0-9]).{0,200}\sskrev\s.{0,200}:$",
        "from_header": r"((?:(?:^|\n)[* ]*(?:Fra|Sendt|Til|Emne|Dato|Cc):[ *]*(?:\s{,2}).*)"
                       r"{2,}(?:\n.*){,1})"},
}
MAIL_LANGUAGES.update(QUOTE_LANGUAGES)
#: Languages whose quote headers and signatures are recognised.
LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "pl", "sv", "cs", *QUOTE_LANGUAGES]
#: A quote header line of any client we know: it ends with ":" and names the writer
#: with a verb ("wrote", "писал(а)", "έγραψε", "kirjoitti", "skrev", "schrieb", "a écrit"…)
#: or, as Gmail's Russian does, with the address alone ("…, Alhambra <game@test>:").
QUOTE_HEADER = re.compile(
    r"^.{0,300}(?:\b(?:wrote|schrieb|écrit|escribió|scritto|schreef|napisał|skrev|"
    r"kirjoitti|писал|писала|написал|написала|пишет)\b|έγραψε|\(а\)|>).{0,200}:$",
    re.IGNORECASE)
#: The first two lines of an Outlook header block ("From: …" then "Sent: …").
OUTLOOK_FROM = re.compile(r"^\W{0,2}(?:From|От|Από|Lähettäjä|Fra|Von|De|Da|Van|Od)\W{0,2}:",
                          re.IGNORECASE)
OUTLOOK_SENT = re.compile(r"^\W{0,2}(?:Sent|Date|Отправлено|Дата|Στάλθηκε|Ημερομηνία|"
                          r"Lähetetty|Päivämäärä|Sendt|Dato|Gesendet|Envoyé|Enviado|Inviato|"
                          r"Verzonden|Wysłano)\W{0,2}:", re.IGNORECASE)
#: An "-----Original Message-----" line, in any language.
SEPARATOR = re.compile(r"^-{3,}\s*[^-]{3,60}\s*-{3,}$")
#: The commands, by their English word (the catalogs give each language's).
COMMANDS = {"status": pmsg("command", "status"), "help": pmsg("command", "help"),
            "resign": pmsg("command", "resign"), "language": pmsg("command", "language")}
#: Table talk in a reply (issue 27): ``say`` (the lines after it, to the table),
#: ``say: text``, ``tell 2: text`` (to the second seat: mails count seats from 1, or
#: ``tell Bob: text``), ``note: text`` (the seat's notes, replaced; ``note`` alone: the
#: lines after it). Read in every language.
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
        payload = part.get_payload(decode=True)  # bytes (None if there is none)
        content = (payload if isinstance(payload, bytes) else b"").decode("utf-8", "replace")
    if not isinstance(content, str):
        return ""
    if part.get_content_subtype() == "html":
        converter = html2text.HTML2Text()
        converter.body_width = 0
        converter.ignore_links = converter.ignore_images = converter.ignore_emphasis = True
        converter.single_line_break = True  # each <p>, <div> a line; an empty one: a gap
        content = _MD_ESCAPE.sub(r"\1", converter.handle(content))
    return content


def _quote_start(lines: list[str]) -> int | None:
    """The index of the first line that starts a quoted mail: a quote header, an Outlook
    header block, an "Original Message" separator (None: there is none)."""
    for i, line in enumerate(lines):
        line = line.strip()
        if QUOTE_HEADER.match(line) or SEPARATOR.match(line):
            return i
        if OUTLOOK_FROM.match(line) and i + 1 < len(lines) and \
                OUTLOOK_SENT.match(lines[i + 1].strip()):
            return i
    return None


def _uncited(lines: list[str]) -> list[str]:
    """The lines without the quoted mail: what is above its header (a reply on top), or,
    when nothing is, what is below it (a reply written under the quote) without it."""
    while (start := _quote_start(lines)) is not None:
        if any(line.strip() for line in lines[:start]):
            return lines[:start]
        lines = lines[start + 1:]
    return lines


def latest_lines(text: str) -> list[str]:
    """The reply's own lines (stripped, empty ones kept), above the quoted mail and the
    signature. Lines quoted with ``>`` go first, wherever they are (a quoted signature
    would hide a reply written below the quote)."""
    text = text.replace("\r\n", "\n").replace("\xa0", " ")
    lines = [line for line in text.split("\n") if not line.lstrip().startswith(">")]
    text = "\n".join(_uncited(lines))
    replies = EmailReplyParser(languages=LANGUAGES).read(text).replies
    latest = replies[0].body if replies else text
    return [line.strip() for line in latest.split("\n")[:MAX_READ]]


def reply_lines(text: str) -> list[str]:
    """The first block of the reply's own lines (``latest_lines``, ``first_block``)."""
    return first_block(latest_lines(text))


def first_block(lines: list[str]) -> list[str]:
    """The first block of non-empty lines (at most ``MAX_LINES``); after a greeting block
    of a line or two that reads as no move, the next block too."""
    blocks: list[list[str]] = [[]]
    for line in lines:
        if line:
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    blocks = [b for b in blocks if b]
    if not blocks:
        return []
    block = blocks[0]
    if len(blocks) > 1 and len(block) <= 2 and read(block).kind == "unreadable" and \
            not any(_moves(line) for line in block):
        block = block + blocks[1]  # "Hi Bob," / (a gap) / the moves
    return block[:MAX_LINES]


def _moves(line: str) -> bool:
    """Does the line read as moves?"""
    try:
        return bool(engine.parse_moves(line))
    except engine.NotationError:
        return False


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
    """A message of a reply: ``to`` a seat number (counted from 1, as mails and pages
    show them), a name, or None (the table)."""

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
    reading = _read_moves(lines)
    if reading.kind == "unreadable" and reading.line == 1:
        # a greeting ("Привет!", "Hi Bob,") above the moves: skipped if the rest reads
        for skip in (1, 2):
            rest = _read_moves(lines[skip:]) if len(lines) > skip else None
            if rest is not None and rest.kind == "moves" and rest.moves and \
                    not any(_moves(line) for line in lines[:skip]):
                return rest
    return reading


def _read_moves(lines: list[str]) -> Reading:
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
