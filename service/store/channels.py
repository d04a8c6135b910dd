"""An account's notification channels' records (service/notify_channels.py is their
rules: what a channel may be, how many): Web Push subscriptions and Apprise URLs, with
their failures in a row (each delivery's end: ``attempt``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import times
from .access import Access
from .base import Channel
from .dialect import INT64, as_time

CHANNEL = ("id, email, kind, target, events, created_at, p256dh, auth, failures, "
           "last_error, last_sent_at")


def _channel(row: dict[str, Any]) -> Channel:
    created = as_time(row["created_at"])
    assert created is not None
    return Channel(**{**row, "events": tuple(row["events"].split()), "created_at": created,
                      "last_sent_at": as_time(row["last_sent_at"])})


class ChannelRecords:
    def __init__(self, access: Access) -> None:
        self.a, self.d = access, access.d

    def add(self, channel: Channel, limit: int) -> Channel | None:
        """Keep ``channel`` (its ``id`` is given here), or the account's channel of the
        same target with the new keys and events (a browser subscribing again); None if
        the account holds ``limit`` channels already."""
        c = channel
        with self.a.write() as db:
            row = db.one("select id from notify_channels where email = ? and target = ?",
                         (c.email, c.target))
            if row is not None:
                db.execute("update notify_channels set p256dh = ?, auth = ?, events = ?, "
                           "failures = 0, last_error = null where id = ?",
                           (c.p256dh, c.auth, " ".join(c.events), row["id"]))
                found = db.one(f"select {CHANNEL} from notify_channels where id = ?",
                               (row["id"],))
                assert found is not None
                return _channel(found)
            if db.scalar("select count(*) from notify_channels where email = ?",
                         (c.email,)) >= limit:
                return None
            channel_id: int = db.scalar(
                "insert into notify_channels (email, kind, target, p256dh, auth, events, "
                "created_at) values (?, ?, ?, ?, ?, ?, ?) returning id",
                (c.email, c.kind, c.target, c.p256dh, c.auth, " ".join(c.events),
                 self.d.time(c.created_at)))
        return Channel(**{**c.__dict__, "id": channel_id})

    def of_account(self, email: str, kinds: Sequence[str] = ("push", "apprise")
                   ) -> list[Channel]:
        """The account's channels of ``kinds``, oldest first."""
        with self.a.read() as db:
            rows = db.query(f"select {CHANNEL} from notify_channels where email = ? and kind "
                            f"in ({', '.join('?' * len(kinds))}) order by id",
                            (email, *kinds))
        return [_channel(r) for r in rows]

    def get(self, channel_id: int) -> Channel | None:
        if channel_id not in INT64:
            return None
        with self.a.read() as db:
            row = db.one(f"select {CHANNEL} from notify_channels where id = ?", (channel_id,))
        return _channel(row) if row else None

    def delete(self, channel_id: int, email: str | None = None) -> bool:
        """Remove a channel (of the account ``email`` only, if given); False if there was
        none."""
        if channel_id not in INT64:
            return False
        with self.a.write() as db:
            if email is None:
                return db.execute("delete from notify_channels where id = ?",
                                  (channel_id,)) == 1
            return db.execute("delete from notify_channels where id = ? and email = ?",
                              (channel_id, email)) == 1

    def attempt(self, channel_id: int, error: str | None) -> None:
        """A delivery's end: a success resets the failures in a row (and says when), a
        failure counts one more and keeps ``error``."""
        with self.a.write() as db:
            if error is None:
                db.execute("update notify_channels set failures = 0, last_sent_at = ? "
                           "where id = ?", (self.d.time(times.now()), channel_id))
            else:
                db.execute("update notify_channels set failures = failures + 1, "
                           "last_error = ? where id = ?", (error[:500], channel_id))
