"""Where a store's statements run: each on its own (reads on a connection, writes in a
transaction of their own), or all inside one open transaction (``SqlStore.transaction``:
an application-layer rule that must hold, such as a limit counted before an insert)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .dialect import Conn, Dialect


class Access:
    def __init__(self, dialect: Dialect, conn: Conn | None = None) -> None:
        self.d, self.conn = dialect, conn

    @contextmanager
    def read(self) -> Iterator[Conn]:
        if self.conn is not None:
            yield self.conn
        else:
            with self.d.reading() as conn:
                yield conn

    @contextmanager
    def write(self) -> Iterator[Conn]:
        if self.conn is not None:
            yield self.conn
        else:
            with self.d.writing() as conn:
                yield conn
