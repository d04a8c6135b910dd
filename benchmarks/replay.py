"""Benchmark of the replay page (/replay/<id>): how long one step takes in Chromium.

    .venv/bin/python benchmarks/replay.py [--players 6] [--seed 11] [--chromium /usr/bin/chromium]

A finished game between random bots is imported (POST /records) into the app served on
loopback, its replay opened in Chromium (Playwright), and every step timed in the page:
the arrow key's handler (the fold is done once, at load) and the layout it causes
(``performance.now()`` around the key event and a forced layout), then the same to the
next frame painted. Prints the load time and, per step, the median, 95th percentile and
the slowest; the goal is under 50 ms a step on a 6-player game.

Not a test: CI never runs it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.record import export_record  # noqa: E402
from tests.engine.helpers import play_random  # noqa: E402
from tests.web.conftest import CHROMIUM_ARGS, Server  # noqa: E402

#: One step in the page: (handler + layout, to the next painted frame), in ms.
STEP = """(key) => new Promise((done) => {
  const t0 = performance.now();
  document.body.dispatchEvent(new KeyboardEvent("keydown", {key, bubbles: true}));
  void document.body.offsetHeight;  // the layout the step causes
  const t1 = performance.now();
  requestAnimationFrame(() => setTimeout(() => done([t1 - t0, performance.now() - t0]), 0));
})"""


def summary(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
    return (f"median {statistics.median(values):5.1f} ms, p95 {p95:5.1f} ms, "
            f"max {values[-1]:5.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()

    from playwright.sync_api import sync_playwright

    state, events = play_random(args.seed, args.players)
    server = Server(Path(tempfile.mkdtemp()) / "replay.db")
    try:
        game_id = server.call("/records", export_record(events, state))["game_id"]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(server.url + f"/replay/{game_id}")
            page.wait_for_selector("body[data-ready]")
            load = page.evaluate("performance.now()")
            steps = int(page.get_attribute("#step", "data-steps"))
            forward = [page.evaluate(STEP, "ArrowRight") for _ in range(steps)]
            assert page.get_attribute("#step", "data-step") == str(steps)  # it stepped
            back = [page.evaluate(STEP, "ArrowLeft") for _ in range(min(steps, 60))]
            jumps = [page.evaluate(STEP, key) for key in ("Home", "PageDown", "PageDown",
                                                           "PageDown", "End", "PageUp")]
            browser.close()
    finally:
        server.stop()
    print(f"{args.players} players, {len(events)} events, {steps} steps; page ready "
          f"after {load:.0f} ms (loading, the events, the fold)")
    for name, runs in (("forward", forward), ("back", back), ("jumps", jumps)):
        print(f"{name:8s} handler + layout: {summary([r[0] for r in runs])}")
        print(f"{'':8s} to the next frame: {summary([r[1] for r in runs])}")


if __name__ == "__main__":
    main()
