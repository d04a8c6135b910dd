"""Every link of the project's Markdown to a local file or anchor resolves (issue 35):
`python tests/test_doc_links.py` lists the broken ones; the test asserts there are none.

An anchor is a heading's GitHub slug (lower case, punctuation dropped, spaces to `-`, a
repeated heading numbered `-1`, `-2`…) or an explicit `<a id="…">`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
EXPLICIT = re.compile(r"""<a\s+(?:id|name)=["']([^"']+)["']""")


def markdown_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split()
    return [ROOT / name for name in listed if "/vendor/" not in name]


def _prose(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, with their numbers."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's words
    text = re.sub(r"[`*_]", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text()
    found: set[str] = set(EXPLICIT.findall(text))
    seen: dict[str, int] = {}
    for _, line in _prose(text):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links() -> list[str]:
    broken = []
    for path in markdown_files():
        for number, line in _prose(path.read_text()):
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:…
                    continue
                name, _, anchor = target.partition("#")
                resolved = (path.resolve().parent / name).resolve() if name else path
                where = f"{path.relative_to(ROOT)}:{number}: {target}"
                if not resolved.exists():
                    broken.append(where + " (no such file)")
                elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                    broken.append(where + " (no such anchor)")
    return broken


def test_every_local_link_of_the_markdown_resolves():
    assert broken_links() == []


if __name__ == "__main__":
    problems = broken_links()
    print("\n".join(problems) or "every local link resolves")
    sys.exit(1 if problems else 0)
