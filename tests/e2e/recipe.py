"""deploy/POSTFIX.md as the e2e test's script: its ``sh step=<part>`` blocks, read from the
document and run as written, with only the substitutions the document declares (its "How
this recipe is checked"): the paths of a private instance under one folder, the free
ports of the run, and the clone of the source as a copy of the checkout under test."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.support import ROOT

DOCUMENT = ROOT / "deploy" / "POSTFIX.md"
#: The parts in the order the document has them and the test runs them.
PARTS = ("host", "postfix", "start", "local", "listener", "stop")
#: The paths a run puts under its folder (the document's table).
PATHS = ("/etc/postfix", "/etc/alhambra-pbem.env", "/opt/alhambra-pbem",
         "/var/lib/alhambra-pbem", "/var/log/alhambra-pbem", "/var/log/postfix.log",
         "/var/mail/alhambra-test", "/run/alhambra-pbem")
#: The ports of 127.0.0.1 a run takes free ones for.
PORTS = (25, 8000, 2525)
_BLOCK = re.compile(r"^```sh step=(\w+)[^\n]*\n(.*?)^```", re.M | re.S)
_CLONE = re.compile(r"^git clone \S+ (/opt/alhambra-pbem)\b.*$", re.M)


@dataclass
class Step:
    part: str
    text: str  # as the document has it


def steps(text: str | None = None) -> list[Step]:
    """The document's steps, in its order."""
    return [Step(m[1], m[2]) for m in _BLOCK.finditer(
        DOCUMENT.read_text() if text is None else text)]


class Recipe:
    """The document's steps run under ``root`` with ``ports`` (25, 8000, 2525 -> free)."""

    def __init__(self, root: Path, ports: dict[int, int]) -> None:
        self.root, self.ports = root, ports
        self.log = root / "recipe.log"
        self.steps = steps()
        for path in PATHS:  # the host's folders (/etc, /var/lib…) are there on any host
            self.path(path).parent.mkdir(parents=True, exist_ok=True)

    def path(self, path: str) -> Path:
        """Where the document's ``path`` lies in this run."""
        return Path(self.substitute(path))

    def substitute(self, text: str) -> str:
        text = _CLONE.sub(lambda m: f"true  # {m[0]}: copied", text)
        for path in PATHS:
            text = re.sub(rf"(?<![\w/.-]){re.escape(path)}(?![\w.-])",
                          lambda _m, p=path: f"{self.root}{p}", text)
        for port in PORTS:
            new = str(self.ports[port])
            text = re.sub(rf"(?<=127\.0\.0\.1:){port}(?!\d)", new, text)
            text = re.sub(rf"(?<=\[127\.0\.0\.1\]:){port}(?!\d)", new, text)
            text = re.sub(rf"(?<=--port ){port}(?!\d)", new, text)
        return text

    def copy_checkout(self) -> None:
        """``git clone … /opt/alhambra-pbem``: the checkout under test (its files, as
        they are now, committed or not) copied there."""
        dest = self.path("/opt/alhambra-pbem")
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard"], cwd=ROOT, capture_output=True,
                                check=True).stdout.decode().split("\0")
        for name in filter(None, listed):
            source = ROOT / name
            if source.is_file():
                target = dest / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)

    def run(self, part: str, check: bool = True) -> None:
        """Every step of ``part``, in the document's order, as root with ``sh -e`` (a
        ``stop`` step without ``-e``: each of its lines is tried)."""
        if part == "host":
            self.copy_checkout()
        env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
               "HOME": "/root", "LANG": "C.UTF-8",
               "MAIL_CONFIG": str(self.path("/etc/postfix"))}
        for step in (s for s in self.steps if s.part == part):
            script = "umask 022\n" + self.substitute(step.text)
            with self.log.open("a") as out:
                out.write(f"\n### step={part}\n{script}\n")
                out.flush()
                done = subprocess.run(["sh", "-ex" if part != "stop" else "-x", "-c",
                                       script], env=env, cwd=self.root, stdout=out,
                                      stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      timeout=300, check=False)
            if check and done.returncode != 0:
                raise AssertionError(f"deploy/POSTFIX.md step={part} failed "
                                     f"({done.returncode}):\n{self.tail()}")

    def tail(self, n: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-n:] if self.log.exists() else ""
