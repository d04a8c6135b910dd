"""What only the SQLite database has to show: WAL mode and the indexes its queries use
(tests/store/ holds both databases to the contract)."""

from __future__ import annotations


def test_wal_mode_and_indexes(games):
    with games.store.d.reading() as db:
        conn = db.raw
        assert conn.execute("pragma journal_mode").fetchone()[0] == "wal"

        def plan(sql: str, *params: str) -> str:
            return " ".join(str(r) for r in conn.execute("explain query plan " + sql, params))

        assert "INDEX" in plan("select * from seats where token_hash = ?", "x")
        assert "PRIMARY KEY" in plan("select data from event_batches where game_id = ? and "
                                     "version > ?", "x", "3") or "INDEX" in plan(
            "select data from event_batches where game_id = ? and version > ?", "x", "3")
        assert "idx_due_pending" in plan("select id from due where state = 'pending' and "
                                         "due_at <= ? order by due_at", "x")
        # an append replaces the game's pending rows among them only, not among its done ones
        assert "idx_due_game_pending" in plan(
            "update due set state = 'done' where game_id = ? and state = 'pending' and "
            "kind in (?, ?)", "g", "deadline", "bot")
