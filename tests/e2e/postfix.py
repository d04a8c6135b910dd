"""A private Postfix instance for the e2e tests (Debian's package): its own config, queue
and data folders and log file under one root, its SMTP server on one port of 127.0.0.1,
started, reloaded and stopped with ``postfix -c``. Nothing of the system's Postfix is
touched."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

#: The services of Postfix's own master.cf the tests need (chroot off: nothing is copied
#: into the queue folder), then the SMTP server on its port.
MASTER = """\
{port} inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
proxywrite unix -       -       n       -       1       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
virtual   unix  -       n       n       -       -       virtual
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
"""


def available() -> bool:
    """Is Debian's Postfix here (.ci/run installs it)?"""
    return bool(shutil.which("postfix")) or Path("/usr/sbin/postfix").exists()


class Postfix:
    """``root``/etc (main.cf, master.cf, maps), /spool, /lib, /postfix.log."""

    def __init__(self, root: Path, port: int, main: dict[str, str], services: str = "",
                 maps: dict[str, str] | None = None) -> None:
        self.root, self.port = root, port
        self.etc, self.log_path = root / "etc", root / "postfix.log"
        for sub in ("etc", "spool", "lib"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        shutil.chown(root / "lib", "postfix")
        self.main = {
            "compatibility_level": "3.6", "queue_directory": str(root / "spool"),
            "data_directory": str(root / "lib"), "maillog_file": str(self.log_path),
            "maillog_file_prefixes": str(root), "inet_interfaces": "127.0.0.1",
            "inet_protocols": "ipv4", "mynetworks": "127.0.0.0/8", "mydestination": "",
            "smtputf8_enable": "no", "biff": "no", "append_dot_mydomain": "no",
            "delay_warning_time": "0", "queue_run_delay": "1s",
            "minimal_backoff_time": "1s", "maximal_backoff_time": "2s", **main}
        self.services = MASTER.format(port=f"127.0.0.1:{port}") + services
        self.maps = dict(maps or {})
        self.write()

    def write(self) -> None:
        (self.etc / "main.cf").write_text(
            "".join(f"{k} = {v}\n" for k, v in self.main.items()))
        (self.etc / "master.cf").write_text(self.services)
        for name, text in self.maps.items():
            (self.etc / name).write_text(text)

    def map(self, name: str) -> str:
        """A map of ``maps`` as main.cf names it (texthash: no postmap)."""
        return f"texthash:{self.etc / name}"

    def _run(self, *args: str) -> None:
        # postfix(1) reports only to syslog and a terminal: `script` gives it one
        done = subprocess.run(["script", "-qec", " ".join(["postfix", "-c", str(self.etc),
                                                           *args]), "/dev/null"],
                              capture_output=True, timeout=60, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"postfix {' '.join(args)}: {done.stdout.decode()}"
                               f"{self.log()[-2000:]}")

    def start(self) -> Postfix:
        self._run("start")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                import socket

                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"Postfix does not listen on {self.port}: {self.log()[-2000:]}")

    def reload(self) -> None:
        self.write()
        self._run("reload")
        time.sleep(1)

    def stop(self) -> None:
        try:
            self._run("stop")
        except RuntimeError:
            pass

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
