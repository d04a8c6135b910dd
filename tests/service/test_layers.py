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


def module_graph() -> dict[str, set[str]]:
    """Each module of engine/, service/ and workers/ → the modules of those it imports
    (``from . import x`` counts as importing the module ``x``, not its package)."""
    modules = {}
    for path in files("engine/**/*.py", "service/**/*.py", "workers/**/*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    module = ".".join(base + ([module] if module else []))
                for alias in node.names:
                    full = f"{module}.{alias.name}"
                    found.add(full if full in modules else module)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph``, or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                return path[path.index(dep):] + [dep]
            if dep not in state and (found := visit(dep)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycles_inside_a_package():
    graph = module_graph()
    for package in ("engine", "service", "workers"):
        inside = {m: {d for d in deps if d.split(".")[0] == package}
                  for m, deps in graph.items() if m.split(".")[0] == package}
        assert cycle(inside) is None, f"{package}: {' → '.join(cycle(inside) or [])}"


def test_packages_import_one_way():
    """engine imports neither service nor workers; workers use the service's application
    layer and store; service imports workers only in its CLI (the entry point that starts
    them)."""
    edges = {(m.split(".")[0], d.split(".")[0], m) for m, deps in module_graph().items()
             for d in deps if m.split(".")[0] != d.split(".")[0]}
    assert not {e for e in edges if e[0] == "engine"}
    assert {m for a, b, m in edges if (a, b) == ("service", "workers")} == {"service.cli"}
