"""Table talk through a real ``serve`` (issue 27): streams parked in the stream hub get
``event: chat`` for the messages their reader may read, private ones to their two seats
only, and a deletion (service/stream_hub.py)."""

from __future__ import annotations

import json
import urllib.request

from tests.workers.test_serve_streams import _call, open_stream, read_until, served  # noqa: F401


def _post(base: str, path: str, body: dict, token: str) -> int:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json",
                                          "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status


def _delete(base: str, path: str, token: str) -> int:
    req = urllib.request.Request(base + path, method="DELETE",
                                 headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status


def test_the_stream_hub_carries_the_talk_to_whom_may_read_it(served):  # noqa: F811
    base, port = served
    _, created = _call(base, "/games", {"seats": [{"name": "Ann"}, {"name": "Bob"},
                                                  {"name": "Cy"}]})
    gid = created["game_id"]
    tokens = [s["token"] for s in created["seats"]]
    _, doc = _call(base, f"/games/{gid}")
    streams = [open_stream(port, gid, t, "127.0.0.1", doc["version"]) for t in tokens]
    got = [read_until(s, b"retry:", 10) for s in streams]  # answered: parked in the hub
    assert _post(base, f"/games/{gid}/messages", {"text": "hello table"}, tokens[0]) == 201
    assert _post(base, f"/games/{gid}/messages", {"text": "for Bob", "to": 1},
                 tokens[2]) == 201
    got = [read_until(s, b"hello table", 10, g) for s, g in zip(streams, got, strict=True)]
    assert _delete(base, f"/games/{gid}/messages/1", created["host_token"]) == 204
    got = [read_until(s, b'"deleted":true', 10, g) for s, g in zip(streams, got, strict=True)]
    for s in streams:
        s.close()
    texts = [g.decode() for g in got]
    assert all("event: chat" in t and "hello table" in t and '"deleted":true' in t
               for t in texts)
    assert "for Bob" in texts[1] and "for Bob" in texts[2] and "for Bob" not in texts[0]
