"""Webhook deliveries: a JSON POST signed with HMAC-SHA256, retried with backoff by RQ,
on their own queue (``ALHAMBRA_QUEUE``-webhooks, served by its own worker process), so a
slow or dead receiver never delays a mail, a reminder or a deadline.

Each delivery checks the URL again and resolves its name: if any address is one no
webhook may call (``service/webhook_urls.py``) nothing is sent. It connects to a checked
address (not a second lookup: no DNS rebinding) within the connect timeout, waits at most
the read timeout for each read, and follows no redirect (a 3xx is a failure).

Headers of each delivery:

- ``X-Alhambra-Signature: sha256=<hex>``: HMAC-SHA256 of the raw body with the hook's
  secret (check it with ``verify``, in constant time);
- ``X-Alhambra-Delivery``: ``<game>:<from>-<to>:<hook>``, the same on every retry, so a
  receiver can drop a delivery it has already processed;
- ``X-Alhambra-Event: events``.

The body: ``{"game_id", "webhook_id", "seat", "from_version", "to_version", "events":
[{"version", "event"}]}`` with each event redacted for the hook's seat (``seat`` null: the
spectator's view).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import socket
import ssl
from typing import Any

from service.webhook_urls import Target, check_url, resolve

SIGNATURE_HEADER = "X-Alhambra-Signature"
DELIVERY_HEADER = "X-Alhambra-Delivery"
USER_AGENT = "alhambra-pbem-webhooks/1"
MAX_ANSWER = 64 * 1024  # bytes of an answer read (and dropped)


class DeliveryFailed(Exception):
    """The receiver did not answer 2xx (or could not be reached): RQ retries the job."""


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, header: str | None) -> bool:
    """Whether ``header`` is the signature of ``body`` under ``secret``."""
    return header is not None and hmac.compare_digest(sign(secret, body), header.strip())


def encode(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


def post(url: str, secret: str, payload: dict[str, Any], delivery: str, *,
         connect_timeout: float = 3.0, read_timeout: float = 5.0,
         allow_private: bool = False) -> int:
    """POST ``payload``; returns the status. WebhookUrlRefused if the URL or any address
    of its host may not be called; DeliveryFailed unless the answer is 2xx."""
    body = encode(payload)
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT,
               SIGNATURE_HEADER: sign(secret, body), DELIVERY_HEADER: delivery,
               "X-Alhambra-Event": "events"}
    status = send(url, body, headers, connect_timeout=connect_timeout,
                  read_timeout=read_timeout, allow_private=allow_private)
    if 300 <= status < 400:
        raise DeliveryFailed(f"{url} answered {status} (a redirect: not followed)")
    if not 200 <= status < 300:
        raise DeliveryFailed(f"{url} answered {status}")
    return status


def send(url: str, body: bytes, headers: dict[str, str], *, connect_timeout: float = 3.0,
         read_timeout: float = 5.0, allow_private: bool = False) -> int:
    """POST ``body`` with ``headers`` to a checked address of the URL's host (no redirect
    followed); the answer's status, whatever it is (the Web Push deliveries use it too:
    workers/push.py). WebhookUrlRefused if the URL or any address of its host may not be
    called; DeliveryFailed if it cannot be reached."""
    target = check_url(url, allow_private)
    try:
        addresses = resolve(target, allow_private)
    except OSError as exc:
        raise DeliveryFailed(f"{target.host} cannot be resolved: {exc}") from None
    conn = _connect(target, addresses, connect_timeout, read_timeout)
    try:
        conn.request("POST", target.path, body=body,
                     headers={**headers, "Connection": "close"})
        response = conn.getresponse()
        response.read(MAX_ANSWER)
        return response.status
    except (OSError, http.client.HTTPException) as exc:
        raise DeliveryFailed(f"{url}: {type(exc).__name__}: {exc}") from None
    finally:
        conn.close()


def _connect(target: Target, addresses: list[str], connect_timeout: float,
             read_timeout: float) -> http.client.HTTPConnection:
    """An HTTP connection to the first checked address that answers, TLS checked against
    the host's name."""
    errors = []
    for address in addresses:
        try:
            sock = socket.create_connection((address, target.port), connect_timeout)
            break
        except OSError as exc:
            errors.append(f"{address}: {exc}")
    else:
        raise DeliveryFailed(f"cannot connect to {target.host}:{target.port} ("
                             + "; ".join(errors) + ")")
    sock.settimeout(read_timeout)
    conn: http.client.HTTPConnection
    if target.scheme == "https":
        try:
            sock = ssl.create_default_context().wrap_socket(sock,
                                                            server_hostname=target.host)
        except (OSError, ssl.SSLError) as exc:
            sock.close()
            raise DeliveryFailed(f"TLS with {target.host} failed: {exc}") from None
        conn = http.client.HTTPSConnection(target.host, target.port, timeout=read_timeout)
    else:
        conn = http.client.HTTPConnection(target.host, target.port, timeout=read_timeout)
    conn.sock = sock  # connected to the checked address: request() does not connect again
    return conn
