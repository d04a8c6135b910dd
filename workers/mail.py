"""Sending mail: stdlib ``smtplib`` and ``email``, or ``.eml`` files.

With ``SMTP_URL`` set, messages go to that server (one connection kept per process
while mails follow each other, closed after ``IDLE`` seconds unused and opened again
when the server drops it). With ``MAIL_BOUNCES_TO`` each mail has its own envelope
sender (mail_bounces.py); a recipient or message the relay refuses raises ``Refused``.
Without ``SMTP_URL``, each message is written to
``<data>/outbox/<game>-<version>-<kind>-seat<n>.eml`` and logged, so that a server with
no mail set up still shows what it would have sent.

Every mail of a game to a seat is in one thread: the seat's "game started" mail is its
root (``Message-ID: <game.seat<n>@domain>``), every later one refers to it
(``In-Reply-To``, ``References``; an answer to a player's reply to that reply too) and
has the same subject (notify.py). With
``MAIL_REPLY_TO`` set, a mail to a seat carries the seat's reply address as ``Reply-To``
(``reply_address.py``). Mails say ``Auto-Submitted: auto-generated`` (RFC 3834), answers
to a player's reply ``auto-replied``, so that well-behaved auto-responders leave them
alone.
"""

from __future__ import annotations

import logging
import os
import smtplib
import ssl
import threading
import time
from dataclasses import dataclass
from email.message import Message
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import formataddr, formatdate, parseaddr
from urllib.parse import parse_qs, unquote, urlsplit

from service.settings import Settings

from . import reply_address
from .mail_bounces import Refused, envelope_sender

log = logging.getLogger("alhambra.mail")

IDLE = 10.0  # seconds a connection to the relay is kept unused, then closed and opened anew


def _text(text: bytes | str) -> str:
    return text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)


@dataclass(frozen=True)
class SmtpConfig:
    host: str
    port: int
    user: str | None = None
    password: str | None = None
    starttls: bool = False
    ssl: bool = False
    timeout: float = 30.0


def parse_smtp_url(url: str) -> SmtpConfig:
    """``smtp://[user:password@]host[:port][?starttls=1]`` or ``smtps://…`` (implicit TLS)."""
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps"):
        raise ValueError(f"SMTP_URL must start with smtp:// or smtps://, not {url!r}")
    if not parts.hostname:
        raise ValueError(f"SMTP_URL has no host: {url!r}")
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    secure = parts.scheme == "smtps"
    return SmtpConfig(
        host=parts.hostname, port=parts.port or (465 if secure else 25),
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        starttls=query.get("starttls", "0").lower() in ("1", "true", "yes"),
        ssl=secure, timeout=float(query.get("timeout", 30)))


@dataclass
class Mail:
    """One message to one seat, about one version of one game."""

    game_id: str
    version: int
    kind: str
    seat: int
    to_name: str
    to_addr: str
    subject: str
    text: str
    html: str
    token_hash: str | None = None  # the seat's: its reply address is bound to it
    in_reply_to: str | None = None  # the Message-ID of the player's mail this answers
    references: tuple[str, ...] = ()  # that mail's References
    language: str = "en"  # its words' (Content-Language)
    failing: str | None = None  # why mails to ``to_addr`` stopped (the seat's mark): unsent
    new_thread: bool = False  # the seat's first mail: once sent, its subject is the thread's

    @property
    def key(self) -> str:
        return f"{self.game_id}-{self.version:05d}-{self.kind}-seat{self.seat}"


class Mailer:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.smtp = parse_smtp_url(settings.smtp_url) if settings.smtp_url else None
        self._conn: smtplib.SMTP | None = None
        self._last = 0.0  # time.monotonic() of the last mail sent on it
        self._idle: threading.Timer | None = None
        self.idle = IDLE
        self._lock = threading.Lock()
        sender = parseaddr(settings.mail_from)[1] or "alhambra@localhost"
        self.domain = sender.rpartition("@")[2] or "localhost"

    def message_id(self, mail: Mail) -> str:
        return f"<{mail.key}@{self.domain}>"

    def root_id(self, game_id: str, seat: int) -> str:
        """The id of the seat's "game started" mail, the root of the game's thread in
        its mailbox: every later mail to the seat refers to it."""
        return f"<{game_id}.seat{seat}@{self.domain}>"

    def reply_to(self, mail: Mail) -> str | None:
        """The seat's reply address for this mail's version (None without MAIL_REPLY_TO)."""
        base = self.settings.mail_reply_to
        if not base or not mail.token_hash:
            return None
        tag = reply_address.make_tag(self.settings.secret_key, mail.game_id, mail.seat,
                                     mail.version, mail.token_hash)
        return reply_address.address(base, tag) if tag else None

    def envelope_sender(self, mail: Mail) -> str:
        """The mail's envelope sender: its own bounce address with MAIL_BOUNCES_TO
        (mail_bounces.py), else the From address."""
        base = self.settings.mail_bounces_to
        if base:
            verp = envelope_sender(base, self.settings.secret_key, mail.game_id, mail.seat,
                                   mail.version, mail.to_addr)
            if verp:
                return verp
        return parseaddr(self.settings.mail_from)[1]

    def message(self, mail: Mail) -> Message:
        """multipart/alternative: the text part, then the HTML part. (email.mime's compat32
        classes: the same wire format as EmailMessage, five times faster to build.)"""
        out = MIMEMultipart("alternative")
        out["Subject"] = mail.subject  # non-ASCII: one encoded word (not a folded Header)
        out["From"] = self.settings.mail_from
        out["To"] = formataddr((mail.to_name, mail.to_addr), charset="utf-8")
        out["Date"] = formatdate(usegmt=True)
        # The same Message-ID on a resend lets the receiving side drop a duplicate too.
        root = self.root_id(mail.game_id, mail.seat)
        if mail.kind == "started":  # the thread's root
            out["Message-ID"] = root
        else:
            out["Message-ID"] = self.message_id(mail)
            out["In-Reply-To"] = mail.in_reply_to or root
            out["References"] = " ".join(dict.fromkeys((root, *mail.references,
                                                        *filter(None, [mail.in_reply_to]))))
        reply_to = self.reply_to(mail)
        if reply_to:
            out["Reply-To"] = reply_to
        # RFC 3834: an answer to a player's mail is auto-replied, every other mail
        # auto-generated; either way responders that honour it do not answer.
        out["Auto-Submitted"] = "auto-replied" if mail.in_reply_to else "auto-generated"
        out["Content-Language"] = mail.language
        out["X-Alhambra-Game"] = mail.game_id
        out["X-Alhambra-Version"] = str(mail.version)
        out["X-Alhambra-Kind"] = mail.kind
        out.attach(MIMEText(mail.text, "plain", "utf-8"))
        out.attach(MIMEText(mail.html, "html", "utf-8"))
        return out

    def send(self, mail: Mail) -> str:
        """Send (or write) the mail; returns where it went. ``Refused`` when the relay
        refuses the recipient or the message (its code says whether for good)."""
        message = self.message(mail)
        if self.smtp is None:
            return self._write(mail, message)
        sender = self.envelope_sender(mail)
        with self._lock:
            try:
                try:
                    self._connection().send_message(message, sender, [mail.to_addr])
                except (smtplib.SMTPServerDisconnected, ConnectionError):
                    # A kept connection may have been closed by the server: once more.
                    self._drop()
                    self._connection().send_message(message, sender, [mail.to_addr])
            except smtplib.SMTPRecipientsRefused as exc:
                code, text = next(iter(exc.recipients.values()))
                raise Refused(code, _text(text)) from exc
            except smtplib.SMTPDataError as exc:
                raise Refused(exc.smtp_code, _text(exc.smtp_error)) from exc
            self._last = time.monotonic()
            self._close_when_idle()
        log.info("mail %s to %s: %s", mail.key, mail.to_addr, mail.subject)
        return f"smtp://{self.smtp.host}:{self.smtp.port}"

    def _write(self, mail: Mail, message: Message) -> str:
        folder = self.settings.outbox_dir
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{mail.key}.eml"
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(message.as_bytes())
        tmp.replace(path)
        log.info("mail %s to %s written to %s (no SMTP_URL): %s", mail.key, mail.to_addr,
                 path, mail.subject)
        return str(path)

    def _connection(self) -> smtplib.SMTP:
        if self._conn is not None and time.monotonic() - self._last > self.idle:
            self._drop()  # not held open between batches: the relay may have closed it
        if self._conn is not None:
            return self._conn
        cfg = self.smtp
        assert cfg is not None
        if cfg.ssl:
            conn: smtplib.SMTP = smtplib.SMTP_SSL(cfg.host, cfg.port, timeout=cfg.timeout,
                                                  context=ssl.create_default_context())
        else:
            conn = smtplib.SMTP(cfg.host, cfg.port, timeout=cfg.timeout)
            if cfg.starttls:
                conn.starttls(context=ssl.create_default_context())
        if cfg.user:
            conn.login(cfg.user, cfg.password or "")
        self._conn = conn
        return conn

    def _close_when_idle(self) -> None:
        """Close the connection once it has been unused for ``IDLE`` seconds."""
        if self._idle is not None:
            self._idle.cancel()
        self._idle = threading.Timer(self.idle, self._close_if_idle)
        self._idle.daemon = True
        self._idle.start()

    def _close_if_idle(self) -> None:
        with self._lock:
            if self._conn is not None and time.monotonic() - self._last >= self.idle - 0.01:
                log.debug("closing the idle connection to the relay")
                self._drop()

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.quit()
            except (smtplib.SMTPException, OSError):
                conn.close()

    def close(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
        with self._lock:
            self._drop()
