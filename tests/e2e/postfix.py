"""A private Postfix instance for the e2e tests (Debian's package): its own config, queue
and data folders and log file under one root, its SMTP server on one port of 127.0.0.1;
deploy/POSTFIX.md's steps configure and start it (tests/e2e/recipe.py). Nothing of the
system's Postfix is touched."""

from __future__ import annotations

import shutil
import subprocess
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
    """A private instance's base: ``etc`` (main.cf, master.cf), ``root``/spool and
    ``root``/lib. What Debian's ``apt-get install postfix`` leaves in /etc/postfix, here
    for an instance of its own: its queue and data folders, its SMTP server on ``port``
    of 127.0.0.1, a log file under ``root`` allowed (``maillog_file_prefixes``; the
    recipe itself sets ``maillog_file``), short retry times. deploy/POSTFIX.md's steps
    do the rest (with ``MAIL_CONFIG`` = ``etc``)."""

    def __init__(self, etc: Path, root: Path, port: int, log_path: Path) -> None:
        self.etc, self.root, self.port, self.log_path = etc, root, port, log_path
        for folder in (etc, root / "spool", root / "lib"):
            folder.mkdir(parents=True, exist_ok=True)
        shutil.chown(root / "lib", "postfix")
        main = {
            "compatibility_level": "3.6", "queue_directory": str(root / "spool"),
            "data_directory": str(root / "lib"), "maillog_file_prefixes": str(log_path.parent),
            "myhostname": "mx.play.example.org", "inet_interfaces": "127.0.0.1",
            "inet_protocols": "ipv4", "mynetworks": "127.0.0.0/8", "mydestination": "",
            "smtputf8_enable": "no", "biff": "no", "append_dot_mydomain": "no",
            "delay_warning_time": "0", "queue_run_delay": "1s",
            "minimal_backoff_time": "1s", "maximal_backoff_time": "2s"}
        (etc / "main.cf").write_text("".join(f"{k} = {v}\n" for k, v in main.items()))
        (etc / "master.cf").write_text(MASTER.format(port=f"127.0.0.1:{port}"))

    def postconf(self, *args: str) -> None:
        subprocess.run(["postconf", "-c", str(self.etc), *args], check=True,
                       capture_output=True, timeout=30)

    def stop(self) -> None:
        """Stopped, if the recipe's own stop step did not (a failed run)."""
        subprocess.run(["postfix", "-c", str(self.etc), "stop"], capture_output=True,
                       timeout=60, check=False)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
