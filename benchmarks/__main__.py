"""Every figure of issue 23's table in one JSON document, so that each change can be
compared with the last (quick mode by default: small runs, minutes not hours).

    .venv/bin/python -m benchmarks [--full] [--skip api,postgres,...]

Runs each benchmark script as its own process (they start servers and workers) and
reads its figures: ``disk`` (KB per finished 4-player game, bytes per event), ``api``
(submissions/s against the bare-Flask floor, latency with few and many games stored),
``postgres`` (the same on PostgreSQL, 1 and 2 API processes), ``engine`` (random games/s,
replay), ``mail_in`` (reply to next mail latency), ``workers`` (move to "your turn" mail
latency, mails a second) and ``bots``. A benchmark that fails
gives its error in place of its figures.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

QUICK = {
    "disk": ["--games", "3"],
    "api": ["--games", "2000", "--seconds", "3", "--rounds", "1", "--latency-moves", "50"],
    "postgres": ["--events", "200000", "--seconds", "3", "--rounds", "1",
                 "--latency-moves", "50"],
    "engine": ["--json", "--games", "10"],
    "mail_in": ["--moves", "10"],
    "workers": ["--moves", "20", "--backlog", "100"],
    "bots": ["--games", "20", "--strong-games", "4"],
}
FULL = {"disk": ["--games", "8"], "api": ["--games", "2000", "--seconds", "6"],
        "postgres": ["--events", "200000"], "engine": ["--json"], "mail_in": [],
        "workers": [], "bots": []}


def numbers(text: str, patterns: dict[str, str]) -> dict[str, float]:
    """The first number after each pattern in ``text``."""
    out = {}
    for name, pattern in patterns.items():
        found = re.search(pattern + r"\s*([0-9.]+)", text)
        if found:
            out[name] = float(found.group(1).rstrip("."))
    return out


def last_json(text: str) -> Any:
    """The last JSON document of a script's output (one per line, or the whole)."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    for line in reversed(text.strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


PARSERS = {
    "disk": last_json,
    "engine": last_json,
    "bots": lambda t: [json.loads(x) for x in t.splitlines() if x.startswith("{")],
    "api": lambda t: numbers(t, {
        "floor_per_s": r"floor \(bare Flask route[^:]*:", "service_per_s": r"clients\):",
        "ratio": r"ratio service / floor:",
        "latency_ms_100_games": r"100 games stored: median",
        "latency_ratio": r"latency ratio \d+ / 100 games:"}),
    "postgres": lambda t: {"lines": [x for x in t.splitlines() if "floor" in x or
                                     "ratio" in x or "latency" in x]},
    "mail_in": lambda t: {"lines": [x for x in t.splitlines() if "median" in x]},
    "workers": lambda t: {"lines": [x.strip() for x in t.splitlines() if x.strip()]},
}


def run(name: str, args: list[str]) -> dict[str, Any]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / f"{name}.py"), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=1800)
    took = round(time.perf_counter() - start, 1)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1:] or ["failed"],
                "seconds": took}
    return {"figures": PARSERS[name](proc.stdout), "seconds": took}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--full", action="store_true", help="the issue's sizes (slow)")
    parser.add_argument("--skip", default="", help="benchmarks to leave out, comma-separated")
    parser.add_argument("--only", default="", help="benchmarks to run, comma-separated")
    args = parser.parse_args()
    plan = FULL if args.full else QUICK
    skip = set(filter(None, args.skip.split(",")))
    only = set(filter(None, args.only.split(",")))
    out: dict[str, Any] = {"mode": "full" if args.full else "quick"}
    for name, bench_args in plan.items():
        if name in skip or (only and name not in only):
            continue
        out[name] = run(name, bench_args)
        print(f"{name}: {out[name]['seconds']} s", file=sys.stderr, flush=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
