"""Whom a reply is from, whether to believe it, and whether a person wrote it.

- ``sender``: the one address of the ``From`` header, read by the standard library's
  strict header parser (``email.headerregistry``), the address part only. A ``From`` the
  parser finds defects in, with several addresses (or a group, or several ``From``
  headers), or whose display name or comments hold another address than the real one
  (``ann@example.org <eve@evil.example>``, quoted, encoded-word or in a comment) is
  refused: a mail client may show that other address as the sender.
- ``authenticate``: with ``MAIL_IN_AUTH`` other than ``none``, the ``From`` header alone
  proves nothing; the reply counts only when an ``Authentication-Results`` header
  (RFC 8601, read by ``authres``) of the operator's MTA (``MAIL_IN_AUTHSERV_ID``; any
  other authserv-id is ignored: anyone can write such a header) says ``dkim=pass`` for a
  signing domain, or ``spf=pass`` for an envelope sender's domain, aligned with the From
  domain the way DMARC aligns them (relaxed: the same organisational domain under the
  Public Suffix List).
- ``automatic``: auto-replies, bounces, list and bulk mail (RFC 3834 and the headers
  responders write in practice), which must never be answered (mail loops).

Each says why it refuses, for the log; a refused mail gets no answer (no backscatter).
"""

from __future__ import annotations

import re
from email.errors import HeaderParseError
from email.header import decode_header, make_header
from email.headerregistry import Address
from email.message import EmailMessage
from functools import cache

import authres
from publicsuffixlist import PublicSuffixList

#: Local parts of senders that are mail systems, never people.
SYSTEM_SENDERS = ("mailer-daemon", "postmaster")
#: ``Precedence`` values of mail no one should answer.
NO_ANSWER_PRECEDENCE = ("bulk", "junk", "list", "auto_reply")
#: Headers auto-responders write (any value: the header is the sign).
RESPONDER_HEADERS = ("X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress")

#: Defects of a From header that leave its structure clear: a display name in raw UTF-8
#: (RFC 6532) instead of an encoded word.
TOLERATED = {"UndecodableBytesDefect"}
#: What separates the words of a display name when looking for addresses in it.
_WORDS = re.compile(r"[\s<>()\[\]\",;:]+")


class Refused(Exception):
    """The reply's sender cannot be read or believed; the message says why."""


class Unauthenticated(Refused):
    """No authentication result of the operator's MTA at all: a setup fault (every reply
    is refused until it is mended), not a sender's."""


def sender(msg: EmailMessage) -> str:
    """The From address, lower-cased: its one address, strictly parsed; Refused
    otherwise."""
    headers = msg.get_all("From") or []
    if len(headers) != 1:
        raise Refused("no From header" if not headers else
                      f"{len(headers)} From headers")
    header = headers[0]
    raw = _raw("From", msg)
    defects = {type(d).__name__ for d in getattr(header, "defects", ())} - TOLERATED
    if defects:
        raise Refused(f"the From header {raw!r} does not parse strictly "
                      f"({', '.join(sorted(defects))})")
    addresses: tuple[Address, ...] = getattr(header, "addresses", ())
    if any(g.display_name is not None for g in getattr(header, "groups", ())):
        raise Refused(f"the From header {raw!r} is a group")
    if len(addresses) != 1:
        raise Refused(f"the From header {raw!r} has {len(addresses)} addresses")
    address = addresses[0]
    if not address.username or not address.domain:
        raise Refused(f"the From header {raw!r} has no whole address")
    real: str = address.addr_spec.lower()
    try:  # the header as a mail client may show it: encoded words decoded, comments kept
        shown = str(make_header(decode_header(raw)))
    except (HeaderParseError, UnicodeError, LookupError, ValueError) as exc:
        raise Refused(f"the From header {raw!r} cannot be decoded ({exc})") from exc
    other = [w for w in _WORDS.split(f"{address.display_name} {shown}")
             if "@" in w.strip("@.") and w.strip(".").lower() != real]
    if other:
        raise Refused(f"the From header {raw!r} names {other[0]!r} beside its address "
                      f"{real}")
    return real


def authenticate(msg: EmailMessage, address: str, mode: str, authserv_id: str | None
                 ) -> None:
    """Refused unless ``mode`` is ``none`` or the MTA ``authserv_id`` found a ``dkim``
    (``dkim``), ``spf`` (``spf``) or either (``any``) pass aligned with ``address``'s
    domain."""
    if mode == "none":
        return
    assert authserv_id
    methods = ("dkim", "spf") if mode == "any" else (mode,)
    domain = organisational_domain(address.rpartition("@")[2])
    seen: list[str] = []
    ours = 0
    for value in _raw_all("Authentication-Results", msg):
        # a header our MTA wrote, even one it garbled (its authserv-id first)
        ours += value.lower().split(";")[0].split()[:1] == [authserv_id.lower()]
        try:
            header = authres.AuthenticationResultsHeader.parse_value(value)
        except Exception:  # noqa: BLE001 - authres raises several kinds: not a header
            continue
        if str(header.authserv_id).lower() != authserv_id.lower():
            continue  # another host's header (or one the sender wrote): proves nothing
        for result in header.results:
            method, outcome = str(result.method).lower(), str(result.result).lower()
            if method not in methods:
                continue
            identity = _identity(result)
            seen.append(f"{method}={outcome} {identity or '(no domain)'}")
            if outcome == "pass" and identity and \
                    organisational_domain(identity) == domain:
                return
    if not ours:
        raise Unauthenticated(
            f"no Authentication-Results header of {authserv_id} at all: the MTA's "
            f"milter that writes it (OpenDKIM and OpenDMARC, or rspamd: deploy/POSTFIX.md) "
            f"is not running, or names itself otherwise than MAIL_IN_AUTHSERV_ID; until it "
            f"writes one, MAIL_IN_AUTH={mode} refuses every reply")
    wanted = " or ".join(f"{m}=pass" for m in methods)
    raise Refused(f"no Authentication-Results of {authserv_id} says {wanted} aligned with "
                  f"{address.rpartition('@')[2]} (found: {'; '.join(seen) or 'none'})")


def organisational_domain(domain: str) -> str:
    """The registrable domain of ``domain`` (``mail.example.co.uk`` →
    ``example.co.uk``): DMARC's relaxed alignment compares these."""
    domain = domain.strip().strip(".").lower()
    return _psl().privatesuffix(domain) or domain


def automatic(msg: EmailMessage, envelope_sender: str | None = None) -> str | None:
    """Why the mail is an automatic one that must get no answer (an auto-reply, a bounce,
    a list or bulk mail), or None for a person's mail."""
    auto = _value(msg, "Auto-Submitted")
    if auto and not auto.startswith("no"):
        return f"Auto-Submitted: {auto}"
    for name in RESPONDER_HEADERS:
        if msg.get(name) is not None:
            return f"{name}: {_value(msg, name)}"
    precedence = _value(msg, "Precedence")
    if precedence in NO_ANSWER_PRECEDENCE:
        return f"Precedence: {precedence}"
    for name in ("List-Id", "List-Unsubscribe"):
        if msg.get(name) is not None:
            return f"a mailing list's mail ({name})"
    return_path = msg.get("Return-Path")
    if return_path is not None and str(return_path).strip("<> ") == "":
        return "a bounce (empty Return-Path)"
    senders = [a.addr_spec for h in msg.get_all("From") or []
               for a in getattr(h, "addresses", ())]
    if envelope_sender is not None:
        if envelope_sender.strip("<> ") == "":
            return "a bounce (empty envelope sender)"
        senders.append(envelope_sender.strip("<> "))
    for who in senders:  # a Postfix pipe hands a bounce's empty sender as "MAILER-DAEMON"
        local = who.rpartition("@")[0] if "@" in who else who
        if local.lower() in SYSTEM_SENDERS:
            return f"from {who}"
    return None


def _identity(result: authres.AuthenticationResult) -> str | None:
    """The domain a dkim result signed for (``header.d``, else ``header.i``'s domain) or
    an spf result checked (``smtp.mailfrom``'s domain)."""
    props = {f"{p.type}.{p.name}".lower(): str(p.value) for p in result.properties or ()}
    if str(result.method).lower() == "dkim":
        value = props.get("header.d") or props.get("header.i")
    else:
        value = props.get("smtp.mailfrom")
    if not value:
        return None
    return value.rpartition("@")[2].strip().strip(".").lower() or None


def _value(msg: EmailMessage, name: str) -> str:
    return str(msg.get(name, "")).strip().lower()


def _raw_all(name: str, msg: EmailMessage) -> list[str]:
    """The header's values as they came (unfolded), top first."""
    return [re.sub(r"\r?\n", "", str(v)) for k, v in msg.raw_items()
            if k.lower() == name.lower()]


def _raw(name: str, msg: EmailMessage) -> str:
    values = _raw_all(name, msg)
    return values[0].strip() if values else ""


@cache
def _psl() -> PublicSuffixList:
    return PublicSuffixList()  # the list the package ships (no download)
