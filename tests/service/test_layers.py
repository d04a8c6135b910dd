"""The layers import one way: HTTP (blueprints, problems, app) → application (games, auth,
errors) → store and engine. Checked on the import statements of each module."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imports(path: Path) -> set[str]:
    """The modules ``path`` imports, relative imports resolved to dotted names."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[:len(base) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.add(name)
            out.update(f"{name}.{a.name}" for a in node.names)
    return out


def files(*globs: str) -> list[Path]:
    return sorted(p for g in globs for p in ROOT.glob(g))


def test_the_application_layer_and_the_store_know_no_http():
    for path in files("service/games.py", "service/auth.py", "service/errors.py",
                      "service/store/*.py", "workers/*.py"):
        found = {m for m in imports(path) if m.split(".")[0] in ("flask", "flask_smorest",
                                                                 "werkzeug")}
        found |= {m for m in imports(path) if m.startswith(("service.problems",
                                                            "service.blueprints"))}
        assert not found, f"{path.relative_to(ROOT)} imports {sorted(found)}"


def test_blueprints_call_the_application_layer_only():
    for path in files("service/blueprints/*.py"):
        found = {m for m in imports(path) if m.startswith(("service.store", "engine"))
                 or m == "service.games.Games.store"}
        assert not found, f"{path.relative_to(ROOT)} imports {sorted(found)}"
        assert ".store." not in path.read_text(), f"{path.relative_to(ROOT)} uses the store"


def test_times_are_written_and_read_in_one_place():
    """service/times.py alone turns times into text and back (issue 11.9)."""
    for path in files("service/**/*.py", "workers/*.py"):
        if path.name == "times.py":
            continue
        text = path.read_text()
        for call in ("isoformat(", "fromisoformat(", "strptime(", "datetime.now(",
                     "utcnow("):
            assert call not in text, f"{path.relative_to(ROOT)} calls {call}"
