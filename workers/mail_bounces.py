"""Bounces: every mail goes out with its own envelope sender (VERP), and what comes back
to it is read here.

With ``MAIL_BOUNCES_TO=bounces@example.org`` a mail to a seat is sent from

    bounces+4ea4c0ffee123456.1.17.k3j5h2m4n6p7q8r9@example.org

(the game, the seat, the version of the mail, and a MAC under the server's key over
those and the address the mail went to). A bounce (a DSN, RFC 3464 ``multipart/report``)
sent there reaches ``mail-in`` like a reply; its tag names the seat, and it counts only
while the seat still has the address it names (a bounce of an earlier address is
dropped). A ``failed`` recipient (status 5.x.x) is a hard failure, a ``delayed`` one a
temporary failure; the seat's address is marked failing after ``MAIL_HARD_FAILURES``
hard ones (``store.record_mail_failure``). A refusal at send time (a 5xx answer of the
relay, ``Refused``) counts the same. Nothing sent here is ever answered.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from email.message import Message

from . import reply_address

MAX_REASON = 300  # characters of a reason kept


class Refused(Exception):
    """The relay refused a mail's recipient (or its data) with ``code``."""

    def __init__(self, code: int, text: str) -> None:
        super().__init__(f"{code} {text}")
        self.code = code
        self.text = text

    @property
    def permanent(self) -> bool:
        return self.code >= 500

    @property
    def reason(self) -> str:
        return reason(f"{self.code} {self.text}")


@dataclass(frozen=True)
class Failure:
    """One recipient of a DSN that was not delivered: ``permanent`` (failed) or not
    (delayed), with the reason (its diagnostic code, else its status)."""

    recipient: str
    permanent: bool
    reason: str


def reason(text: str) -> str:
    """A reason as kept: one line, at most ``MAX_REASON`` characters."""
    return " ".join(text.split())[:MAX_REASON]


def _mac(key: bytes, game_id: str, seat: int, version: int, address: str) -> str:
    digest = hmac.new(key, f"alhambra-pbem bounce {game_id} {seat} {version} "
                      f"{address.lower()}".encode(), hashlib.sha256).digest()
    return base64.b32encode(digest[:10]).decode().lower()


def envelope_sender(base: str, key: bytes, game_id: str, seat: int, version: int,
                    address: str) -> str | None:
    """The VERP envelope sender of a seat's mail at ``version`` to ``address`` (None for
    a game id a tag cannot hold)."""
    tag = f"{game_id}.{seat}.{version}.{_mac(key, game_id, seat, version, address)}"
    if reply_address.read(base, reply_address.address(base, tag)) is None:
        return None
    return reply_address.address(base, tag)


def read_tag(base: str, address: str) -> reply_address.Tag | None:
    """The tag of one of ``base``'s bounce addresses (unverified; None: not one)."""
    return reply_address.read(base, address)


def verify(key: bytes, tag: reply_address.Tag, address: str | None) -> bool:
    """Was the mail of ``tag`` sent to ``address`` (the seat's address now)?"""
    return address is not None and hmac.compare_digest(
        tag.mac, _mac(key, tag.game_id, tag.seat, tag.version, address))


def failures(msg: Message) -> list[Failure] | None:
    """The recipients a DSN reports not delivered (None: the mail is no DSN)."""
    report = next((p for p in msg.walk()
                   if p.get_content_type() == "message/delivery-status"), None)
    if report is None:
        return None
    blocks = report.get_payload()
    if not isinstance(blocks, list):
        return []
    out: list[Failure] = []
    for block in blocks[1:]:  # the first block is about the message, the rest per recipient
        if not isinstance(block, Message):
            continue
        action = str(block.get("Action", "")).strip().lower()
        status = str(block.get("Status", "")).strip()
        if action not in ("failed", "delayed") and not status.startswith(("4.", "5.")):
            continue  # delivered, relayed, expanded
        recipient = str(block.get("Final-Recipient") or block.get("Original-Recipient")
                        or "").partition(";")[2].strip()
        diagnostic = str(block.get("Diagnostic-Code", "")).partition(";")[2].strip()
        permanent = action == "failed" or status.startswith("5.")
        # the remote server's own answer ("550 5.1.1 …"), else the status and the words
        said = diagnostic if re.match(r"\d{3}\s", diagnostic) else f"{status} {diagnostic}"
        out.append(Failure(recipient, permanent, reason(said.strip() or "failed")))
    return out
