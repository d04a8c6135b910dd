"""What only the SQLite store has to show: WAL mode and the indexes its queries use
(tests/store/ holds both stores to the contract)."""

from __future__ import annotations


def test_wal_mode_and_indexes(games):
    store = games.store
    assert store.conn.execute("pragma journal_mode").fetchone()[0] == "wal"
    plans = " ".join(str(r) for r in store.conn.execute(
        "explain query plan select * from seats where token_hash = ?", ("x",)))
    assert "USING INDEX" in plans or "USING COVERING INDEX" in plans
    plans = " ".join(str(r) for r in store.conn.execute(
        "explain query plan select data from event_batches where game_id = ? and "
        "version > ?",
        ("x", 3)))
    assert "PRIMARY KEY" in plans or "INDEX" in plans
    plans = " ".join(str(r) for r in store.conn.execute(
        "explain query plan select id from due where state = 'pending' and due_at <= ? "
        "order by due_at", ("x",)))
    assert "idx_due_pending" in plans
