"""The webhooks' records (service/games.py is their rules: who may add one, how many):
each game's hooks, with their failures in a row (an attempt is recorded with its due
row's end: ``SqlStore.finish_due``)."""

from __future__ import annotations

from typing import Any

from .. import times
from .access import Access
from .base import Webhook
from .dialect import INT64, Conn, Dialect

HOOK = "id, game_id, seat, url, secret, created_at, failures, last_error, disabled_at"


def attempt(d: Dialect, db: Conn, hook_id: int, error: str | None, disable_after: int
            ) -> None:
    """A delivery attempt: a success resets the failures in a row; a failure counts one
    more, keeps ``error`` and disables the hook at the ``disable_after``-th."""
    if error is None:
        db.execute("update webhooks set failures = 0 where id = ?", (hook_id,))
    else:
        db.execute("update webhooks set failures = failures + 1, last_error = ?, "
                   "disabled_at = case when disabled_at is null and failures + 1 >= ? "
                   "then ? else disabled_at end where id = ?",
                   (error, disable_after, d.time(times.now()), hook_id))


def _hook(row: dict[str, Any]) -> Webhook:
    return Webhook(**row)


class WebhookRecords:
    def __init__(self, access: Access) -> None:
        self.a, self.d = access, access.d

    def counts(self, game_id: str, seat: int | None) -> tuple[int, int]:
        """The game's hooks and those of ``seat`` (None: the host)."""
        with self.a.read() as db:
            row = db.one("select count(*) as n, count(*) filter (where seat is not distinct "
                         "from ?) as mine from webhooks where game_id = ?", (seat, game_id))
        assert row is not None
        return row["n"], row["mine"]

    def add(self, game_id: str, seat: int | None, url: str, secret: str) -> Webhook:
        """Register a hook of ``seat`` (None: the host)."""
        stamp = times.now()
        with self.a.write() as db:
            hook_id: int = db.scalar("insert into webhooks (game_id, seat, url, secret, "
                                     "created_at) values (?, ?, ?, ?, ?) returning id",
                                     (game_id, seat, url, secret, self.d.time(stamp)))
        return Webhook(hook_id, game_id, seat, url, secret, stamp)

    def of_game(self, game_id: str) -> list[Webhook]:
        """The game's hooks, oldest first."""
        with self.a.read() as db:
            return [_hook(r) for r in db.query(f"select {HOOK} from webhooks where "
                                               f"game_id = ? order by id", (game_id,))]

    def get(self, hook_id: int) -> Webhook | None:
        if hook_id not in INT64:
            return None
        with self.a.read() as db:
            row = db.one(f"select {HOOK} from webhooks where id = ?", (hook_id,))
        return _hook(row) if row else None

    def delete(self, game_id: str, hook_id: int) -> bool:
        """Remove a hook of the game; False if it had none of that id."""
        if hook_id not in INT64:
            return False
        with self.a.write() as db:
            return db.execute("delete from webhooks where game_id = ? and id = ?",
                              (game_id, hook_id)) == 1
