"""Per-seat reply addresses: ``moves+<tag>@example.org`` for ``MAIL_REPLY_TO=moves@example.org``.

The tag names the game, the seat and the version of the game the mail shows, and ends
with a MAC under the server's secret key over those and the seat's current token hash:

    moves+4ea4c0ffee123456.1.17.k3j5h2m4n6p7q8r9@example.org

so a tag cannot be forged, nor moved to another game, seat or version, and rotating a
seat's token (a new ``token_hash``) retires every reply address it had. The tag is all
lower-case letters, digits and dots (mail systems may lower-case a local part), and the
MAC is 80 bits in base32.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

_TAG = re.compile(r"([0-9a-z]{1,40})\.(\d{1,2})\.(\d{1,9})\.([a-z2-7]{16})")


@dataclass(frozen=True)
class Tag:
    """What a reply address names: a seat of a game, and the version its mail showed."""

    game_id: str
    seat: int
    version: int
    mac: str


def _mac(key: bytes, game_id: str, seat: int, version: int, token_hash: str) -> str:
    digest = hmac.new(key, f"alhambra-pbem reply {game_id} {seat} {version} {token_hash}"
                      .encode(), hashlib.sha256).digest()
    return base64.b32encode(digest[:10]).decode().lower()


def make_tag(key: bytes, game_id: str, seat: int, version: int, token_hash: str
             ) -> str | None:
    """The tag of a seat's mail at ``version`` (None for a game id a tag cannot hold)."""
    tag = f"{game_id}.{seat}.{version}.{_mac(key, game_id, seat, version, token_hash)}"
    return tag if _TAG.fullmatch(tag) else None


def address(base: str, tag: str) -> str:
    """``base`` (``moves@example.org``) with the tag: ``moves+<tag>@example.org``."""
    local, _, domain = base.rpartition("@")
    return f"{local}+{tag}@{domain}"


def read(base: str, addr: str) -> Tag | None:
    """The tag of ``addr`` if it is one of ``base``'s reply addresses (any letter case),
    unverified; None for any other address."""
    addr = addr.strip().strip("<>").lower()
    local, _, domain = addr.rpartition("@")
    base_local, _, base_domain = base.lower().rpartition("@")
    prefix, plus, tag = local.partition("+")
    if not plus or prefix != base_local or domain != base_domain:
        return None
    m = _TAG.fullmatch(tag)
    if not m:
        return None
    return Tag(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4))


def verify(key: bytes, tag: Tag, token_hash: str | None) -> bool:
    """Does the tag's MAC hold for the seat's current token hash?"""
    return token_hash is not None and hmac.compare_digest(
        tag.mac, _mac(key, tag.game_id, tag.seat, tag.version, token_hash))
