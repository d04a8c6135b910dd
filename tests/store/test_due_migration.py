"""The upgrade to due work, on both stores: a database of the schema before it (with an
outbox and notification claims) is migrated, and what was in flight becomes due work:
a batch not yet relayed is a batch to plan, a running game's last batch gets its clock
planned again, a sent mail stays done, a mail left unsent is sent again, an answer left
unsent (its outcome was never kept) is failed."""

from __future__ import annotations

import pytest

from service import times
from service.store import open_store, postgres, sqlite
from tests.store.conftest import database_before
from tests.support import StoreSpec

NOW = "2026-11-30T11:00:00.000Z"


def _game(game_id: str, status: str, version: int) -> str:
    return (f"insert into games (id, variant, options, players, status, phase, version, "
            f"current_seat, time_per_move, timeout_policy, deadline, imported, created_at, "
            f"updated_at) values ('{game_id}', 'alhambra', '{{}}', 2, '{status}', 'action', "
            f"{version}, 1, 3600, 'default_move', '2026-11-30T12:00:00.000Z', "
            f"false, '{NOW}', '{NOW}')")


ROWS = [
    _game("run", "active", 9), _game("done", "over", 5),
    "insert into outbox (game_id, from_version, to_version, created_at, delivered_at) "
    f"values ('run', 1, 4, '{NOW}', '{NOW}'), ('run', 5, 7, '{NOW}', null), "
    f"('run', 8, 9, '{NOW}', '{NOW}'), ('done', 1, 5, '{NOW}', '{NOW}')",
    "insert into notifications (game_id, version, recipient, kind, status, attempts, "
    "claimed_at, sent_at, error) values "
    f"('run', 4, 'seat:0', 'started', 'sent', 1, '{NOW}', '{NOW}', null), "
    f"('run', 4, 'seat:1', 'started', 'sending', 1, '{NOW}', null, null), "
    f"('run', 9, 'seat:1', 'reminder50', 'failed', 2, '{NOW}', null, 'SMTP down'), "
    f"('run', 9, 'hook:3', 'webhook', 'sent', 1, '{NOW}', '{NOW}', null), "
    f"('run', 7, 'seat:0', 'answer-0123456789ab', 'sending', 1, '{NOW}', null, null)",
]


@pytest.fixture(params=["sqlite", "postgres"])
def before(request, tmp_path) -> StoreSpec:
    """A database at the schema before due work (``_v10``, ``V7``), with the rows above."""
    return database_before(request, tmp_path, sqlite._v10, postgres.V7, lambda kind: [
        (sql.replace("false", "0") if kind == "sqlite" else sql, ()) for sql in ROWS])


def test_the_outbox_and_notifications_become_due_work(before):
    store = open_store(before.settings(), check_schema=False)
    store.migrate()
    try:
        rows = [(d.kind, d.from_version, d.version, d.seat, d.hook_id, d.percent, d.state,
                 d.attempts, d.result, d.args) for d in store.due_rows("run")]
        assert sorted(rows, key=str) == sorted([
            ("plan", 5, 7, None, None, None, "pending", 0, None, {"mails": True}),
            ("plan", 8, 9, None, None, None, "pending", 0, None, {"mails": False}),
            ("started", 1, 4, 0, None, None, "done", 1, "sent", None),
            ("started", 1, 4, 1, None, None, "pending", 1, None, None),
            ("reminder", 8, 9, 1, None, 50, "pending", 2, None, None),
            ("webhook", 8, 9, None, 3, None, "done", 1, "sent", None),
            ("answer", 5, 7, 0, None, None, "failed", 1, None, None)], key=str)
        assert store.due_rows("done") == []  # a finished game has nothing due
        # the unsent ones are due at once: a claiming loop takes them
        claimed = {(d.kind, d.version) for d in store.claim_due(10)}
        assert claimed == {("plan", 7), ("plan", 9), ("started", 4), ("reminder", 9)}
        assert store.next_due() is None or store.next_due() > times.now()
        assert store.count("due") == 7
    finally:
        store.close()
