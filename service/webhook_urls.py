"""Which URLs a webhook may call: refused at registration (``check_url``) and again at
each delivery after DNS resolution (``resolve``: every address the name has), so a
webhook cannot reach the server's own network (SSRF).

Always refused: schemes other than http and https, user info (``user:pw@``), IP
addresses written in odd forms (``2130706433``, ``0x7f000001``, ``0177.0.0.1``,
``127.1``), IPv6 zone ids, multicast and unspecified addresses. Refused unless the
operator allows private targets (``ALHAMBRA_WEBHOOK_ALLOW_PRIVATE=1``: a closed network,
tests): loopback, private, link-local, reserved and other non-global addresses, and names
that only mean something inside a network (``localhost``, ``*.local``, ``*.internal``,
names without a dot such as ``metadata``).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from engine.words import msg

from .errors import WebhookUrlRefused

#: The ``ipaddress`` properties that make an address no place for a webhook, in the
#: order a refusal names them; the first two are refused even with private targets on.
ALWAYS = ("is_multicast", "is_unspecified")
PRIVATE = ("is_loopback", "is_link_local", "is_reserved", "is_site_local", "is_private")
INTERNAL_SUFFIXES = (".localhost", ".local", ".internal", ".localdomain", ".home.arpa",
                     ".lan", ".intranet", ".corp")
LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
#: What ``inet_aton`` (and so getaddrinfo) reads as an IPv4 address: digits, hex, octal.
NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}\.?$")


@dataclass(frozen=True)
class Target:
    """A checked URL: what a delivery connects to and asks for."""

    scheme: str
    host: str  # lower case; an IPv6 address without brackets
    port: int
    path: str  # with the query


def check_url(url: str, allow_private: bool = False) -> Target:
    """The target of ``url``, or WebhookUrlRefused saying why not."""
    if len(url) > 2000 or any(ord(c) < 33 or c in "\\\x7f" for c in url):
        raise WebhookUrlRefused(msg("the URL is too long or has spaces, control characters "
                                    "or backslashes"))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise WebhookUrlRefused(msg("the URL cannot be read ({error})", error=str(exc))) \
            from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise WebhookUrlRefused(msg("only http and https URLs are called, not {scheme}",
                                    scheme=scheme) if scheme else
                                msg("only http and https URLs are called, not a URL "
                                    "without a scheme"))
    if "@" in parts.netloc:
        raise WebhookUrlRefused(msg("URLs with user info (user:password@) are refused"))
    host = (parts.hostname or "").lower()
    if not host:
        raise WebhookUrlRefused(msg("the URL has no host"))
    if "%" in host:
        raise WebhookUrlRefused(msg("IPv6 zone ids are refused"))
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None:
        check_address(address, allow_private)
    else:
        check_name(host, allow_private)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(scheme, host, port or (443 if scheme == "https" else 80), path)


def check_name(host: str, allow_private: bool = False) -> None:
    """Refuse a host name that is an IP address in disguise, is not a DNS name, or (with
    private targets off) names a host inside a network."""
    name = host.rstrip(".")
    if NUMERIC_HOST.match(host) or _inet_aton(host):
        raise WebhookUrlRefused(msg("{host} is an IP address in an odd form (decimal, hex, "
                                    "octal or shortened): write it as a dotted quad",
                                    host=repr(host)))
    try:
        ascii_name = name.encode("idna").decode("ascii")
    except UnicodeError:
        raise WebhookUrlRefused(msg("{host} is not a valid host name", host=repr(host))) \
            from None
    labels = ascii_name.split(".")
    if not all(LABEL.match(label) for label in labels):
        raise WebhookUrlRefused(msg("{host} is not a valid host name", host=repr(host)))
    if allow_private:
        return
    if len(labels) < 2 or labels[-1] == "localhost" or \
            ("." + ascii_name).endswith(INTERNAL_SUFFIXES):
        raise WebhookUrlRefused(msg("{host} names a host inside a private network",
                                    host=repr(host)))


def _inet_aton(host: str) -> bool:
    try:
        socket.inet_aton(host)
    except OSError:
        return False
    return True


def check_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address,
                  allow_private: bool = False) -> None:
    """Refuse an address no webhook may call (see the module's docstring)."""
    if isinstance(address, ipaddress.IPv6Address):
        for embedded in (address.ipv4_mapped, address.sixtofour):
            if embedded is not None:
                check_address(embedded, allow_private)
        if address.scope_id:
            raise WebhookUrlRefused(msg("IPv6 zone ids are refused"))
    for prop in ALWAYS + (() if allow_private else PRIVATE):
        if getattr(address, prop, False):
            kind = prop.removeprefix("is_").replace("_", "-")
            raise WebhookUrlRefused(
                msg("{address} is a {kind} address", address=str(address), kind=kind)
                if prop in ALWAYS else
                msg("{address} is a {kind} address (ALHAMBRA_WEBHOOK_ALLOW_PRIVATE=1 allows "
                    "it)", address=str(address), kind=kind))
    if not allow_private and not address.is_global:
        raise WebhookUrlRefused(msg("{address} is not a public address "
                                    "(ALHAMBRA_WEBHOOK_ALLOW_PRIVATE=1 allows it)",
                                    address=str(address)))


def resolve(target: Target, allow_private: bool = False) -> list[str]:
    """Every address of the target's host, each checked: WebhookUrlRefused if any is
    refused; OSError if the name cannot be resolved (now: it may be later)."""
    infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise WebhookUrlRefused(msg("{host} has no address", host=target.host))
    for text in addresses:
        check_address(ipaddress.ip_address(text.partition("%")[0]), allow_private)
    return addresses
