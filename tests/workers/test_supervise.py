"""The supervisor's back-off (a unit test: a fake child and a fake clock)."""

from __future__ import annotations

from workers import supervise
from workers.supervise import MAX_WAIT, MIN_WAIT, STABLE, Supervisor


class FakeChild:
    def __init__(self) -> None:
        self.starts = 0
        self.up = False

    def start(self) -> None:
        self.starts += 1
        self.up = True


def test_a_child_that_keeps_dying_waits_longer_each_time_then_counts_afresh(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(supervise.time, "monotonic", lambda: now[0])
    child = FakeChild()
    sup = Supervisor()
    sup.watch("child", child.start, lambda: child.up)
    assert child.starts == 1
    waits = []
    for _ in range(7):  # dies at once each time
        child.up = False
        sup.check()  # noticed: a restart is due after the pause
        due = sup.children[0].due
        waits.append(round(due - now[0], 3))
        now[0] = due - 0.01
        sup.check()
        assert not child.up  # not yet
        now[0] = due
        sup.check()
        assert child.up
    assert waits == [MIN_WAIT * 2 ** i for i in range(5)] + [MAX_WAIT, MAX_WAIT]
    assert child.starts == 8 and sup.children[0].restarts == 7
    now[0] += STABLE  # it ran long enough: the next death waits the least again
    child.up = False
    sup.check()
    assert sup.children[0].due - now[0] == MIN_WAIT


def test_a_child_that_does_not_start_is_tried_again_later(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(supervise.time, "monotonic", lambda: now[0])
    tries = []

    alive = [True]

    def start():
        tries.append(now[0])
        if len(tries) in (2, 3):
            raise OSError("no binary")
        alive[0] = True

    sup = Supervisor()
    sup.watch("child", start, lambda: alive[0])
    alive[0] = False
    for _ in range(40):
        now[0] += 1
        sup.check()
    assert tries == [0.0, 3.0, 7.0, 15.0]  # 2 s, then 4 s, then 8 s after each failure


def test_nothing_is_started_again_once_a_stop_has_begun(monkeypatch):
    """A child that dies with everything else on a SIGTERM to the group is left dead
    (issue 20.6): ``halt`` (serve's signal handler), or the process's stop event set."""
    import threading

    now = [0.0]
    monkeypatch.setattr(supervise.time, "monotonic", lambda: now[0])
    for how in ("halt", "event"):
        stopping = threading.Event()
        child = FakeChild()
        sup = Supervisor(stopping=stopping)
        sup.watch("child", child.start, lambda c=child: c.up)
        child.up = False
        sup.halt() if how == "halt" else stopping.set()
        for _ in range(10):
            now[0] += MAX_WAIT
            sup.check()
        assert child.starts == 1 and sup.children[0].due is None, how
