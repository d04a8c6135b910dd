"""Every figure of issue 23's table in one JSON document, so that each change can be
compared with the last (quick mode by default: small runs, minutes not hours).

    .venv/bin/python -m benchmarks [--full | --smoke] [--skip api,postgres,...]
                                   [--save PATH] [--check benchmarks/results/limits.json]

Runs each benchmark script as its own process (they start servers and workers) and
reads its figures: ``disk`` (KB per finished 4-player game, bytes per event), ``api``
(submissions/s against the bare-Flask floor, latency with few and many games stored),
``postgres`` (the same on PostgreSQL, 1 and 2 API processes), ``engine`` (random games/s,
replay), ``mail_in`` (reply to next mail latency), ``workers`` (move to "your turn" mail
latency, mails a second), ``bots`` and ``growth`` (a move's time early and late in a long
game, issue 32). A benchmark that fails gives its error in place of its figures.

``--smoke``: every benchmark at a size of seconds (the whole run under a minute on the
2-core test machine), except ``postgres`` (its setup alone takes half a minute); CI runs
it. ``--save PATH`` writes the JSON document to PATH too. ``--check LIMITS`` compares the
figures with the limits of a JSON file (``benchmarks/results/limits.json``: only figures
robust to a busy machine, each with a comment) and exits 1 naming each figure beyond its
limit, missing, or a benchmark that failed; a limit with ``"enabled": false`` is shown,
not checked.
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
    "growth": ["--json", "--games", "3", "--modes", "in_process,serve,postgres"],
}
FULL = {"disk": ["--games", "8"], "api": ["--games", "2000", "--seconds", "6"],
        "postgres": ["--events", "200000"], "engine": ["--json"], "mail_in": [],
        "workers": [], "bots": [],
        "growth": ["--json", "--games", "5", "--modes", "in_process,serve,postgres"]}
SMOKE = {  # no postgres: its setup alone takes half a minute
    "disk": ["--games", "1"],
    "api": ["--games", "200", "--seconds", "1", "--rounds", "1", "--latency-moves", "10"],
    "engine": ["--json", "--games", "3", "--variant", "alhambra_granada"],
    "mail_in": ["--moves", "3"],
    "workers": ["--moves", "5", "--backlog", "10"],
    "bots": ["--games", "2", "--strong-games", "1"],
    "growth": ["--json", "--games", "1"],
}


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
    "growth": last_json,
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


def run(name: str, args: list[str], timeout: float = 1800) -> dict[str, Any]:
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / f"{name}.py"),
                               *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": [f"no answer in {timeout} s"], "seconds": timeout}
    took = round(time.perf_counter() - start, 1)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1:] or ["failed"],
                "seconds": took}
    return {"figures": PARSERS[name](proc.stdout), "seconds": took}


def check(out: dict[str, Any], limits_file: str) -> list[str]:
    """What fails the limits of ``limits_file``: each benchmark that failed, each enabled
    figure missing or beyond its ``min``/``max`` (a name is ``benchmark.key.key…`` within
    its figures; a benchmark not run is not checked). Says each on stderr."""
    failures = [f"{name} failed: {result['error']}" for name, result in out.items()
                if isinstance(result, dict) and "error" in result]
    for figure, limit in json.loads(Path(limits_file).read_text())["limits"].items():
        name, *keys = figure.split(".")
        if name not in out or "error" in out[name]:
            print(f"check {figure}: {name} {'failed' if name in out else 'not run'}",
                  file=sys.stderr)
            continue
        value = out[name]["figures"]
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        bounds = " ".join(f"{k} {limit[k]}" for k in ("min", "max") if k in limit)
        if not limit.get("enabled", True):
            verdict = "not checked (disabled)"
        elif value is None:
            verdict = "MISSING"
        elif limit.get("min", value) <= value <= limit.get("max", value):
            verdict = "ok"
        else:
            verdict = "REGRESSED"
        print(f"check {figure} = {value} ({bounds}): {verdict}", file=sys.stderr)
        if verdict in ("MISSING", "REGRESSED"):
            failures.append(f"{figure} = {value}, limit {bounds}")
    return failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--full", action="store_true", help="the issue's sizes (slow)")
    size.add_argument("--smoke", action="store_true", help="seconds each (CI), no postgres")
    parser.add_argument("--skip", default="", help="benchmarks to leave out, comma-separated")
    parser.add_argument("--only", default="", help="benchmarks to run, comma-separated")
    parser.add_argument("--save", metavar="PATH", help="write the JSON document to PATH")
    parser.add_argument("--check", metavar="LIMITS", help="exit 1 if a figure is beyond the "
                        "limits of this JSON file (benchmarks/results/limits.json)")
    args = parser.parse_args()
    mode = "full" if args.full else "smoke" if args.smoke else "quick"
    plan = {"full": FULL, "smoke": SMOKE, "quick": QUICK}[mode]
    skip = set(filter(None, args.skip.split(",")))
    only = set(filter(None, args.only.split(",")))
    out: dict[str, Any] = {"mode": mode}
    start = time.perf_counter()
    for name, bench_args in plan.items():
        if name in skip or (only and name not in only):
            continue
        out[name] = run(name, bench_args, timeout=180 if args.smoke else 1800)
        print(f"{name}: {out[name]['seconds']} s", file=sys.stderr, flush=True)
    out["seconds"] = round(time.perf_counter() - start, 1)
    document = json.dumps(out, indent=2)
    print(document)
    if args.save:
        Path(args.save).parent.mkdir(parents=True, exist_ok=True)
        Path(args.save).write_text(document + "\n")
    if args.check:
        failures = check(out, args.check)
        for failure in failures:
            print(f"check failed: {failure}", file=sys.stderr)
        sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
