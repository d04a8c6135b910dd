"""The curl walkthrough (docs/clients.md) works when pasted (issue 9 §4): its shell block
runs as it is against a running `alhambra-pbem serve`."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from tests.support import ROOT, wait_until
from workers.redis_server import free_port


def curl_block() -> str:
    page = (ROOT / "docs" / "clients.md").read_text()
    section = page.split("## Play a game with curl", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)


def _healthy(base: str) -> bool:
    """The API answers (503 too: with --no-worker and no other worker, /health says the
    worker is down)."""
    try:
        with urllib.request.urlopen(base + "/health", timeout=2) as resp:
            return resp.status == 200
    except urllib.error.HTTPError as exc:
        return exc.code == 503
    except OSError:
        return False


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")),
                    reason="the walkthrough needs curl and jq")
def test_the_curl_walkthrough_runs_as_pasted(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REDIS_", "SMTP_"))}
    env.update(ALHAMBRA_DATA=str(tmp_path / "data"), PYTHONPATH=str(ROOT))
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115 - closed below
    server = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--port",
                               str(port), "--workers", "1", "--no-worker"], env=env,
                              cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL)
    try:
        wait_until(lambda: _healthy(base) or server.poll() is not None, 30, 0.1, "the API")
        assert server.poll() is None, (tmp_path / "serve.log").read_text()[-2000:]
        here = tmp_path / "shell"
        here.mkdir()
        out = subprocess.run(["bash", "-euo", "pipefail", "-c", curl_block()],
                             env={**env, "API": base}, capture_output=True, text=True,
                             timeout=60, cwd=here)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "take 1" in lines  # the legal moves
    assert re.search(r"^\w+ took \d (denar|dirham|ducat|florin)s?$", out.stdout,
                     re.M), out.stdout  # the words
    assert lines[-1] == "record_unavailable"
    assert not list(here.iterdir())  # nothing left where it was pasted
