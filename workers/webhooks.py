"""Webhook deliveries: a JSON POST signed with HMAC-SHA256, retried with backoff by RQ.

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
import json
import urllib.error
import urllib.request
from typing import Any

SIGNATURE_HEADER = "X-Alhambra-Signature"
DELIVERY_HEADER = "X-Alhambra-Delivery"
USER_AGENT = "alhambra-pbem-webhooks/1"


class DeliveryFailed(Exception):
    """The receiver did not answer 2xx (or could not be reached): RQ retries the job."""


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, header: str | None) -> bool:
    """Whether ``header`` is the signature of ``body`` under ``secret``."""
    return header is not None and hmac.compare_digest(sign(secret, body), header.strip())


def encode(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


def post(url: str, secret: str, payload: dict[str, Any], delivery: str,
         timeout: float = 10.0) -> int:
    """POST ``payload``; returns the status, raises DeliveryFailed unless 2xx."""
    body = encode(payload)
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "User-Agent": USER_AGENT,
        SIGNATURE_HEADER: sign(secret, body), DELIVERY_HEADER: delivery,
        "X-Alhambra-Event": "events"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except (urllib.error.URLError, OSError) as exc:
        raise DeliveryFailed(f"{url}: {exc}") from None
    if not 200 <= status < 300:
        raise DeliveryFailed(f"{url} answered {status}")
    return status
