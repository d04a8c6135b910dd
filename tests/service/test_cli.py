"""alhambra-pbem's commands, run as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys


def test_cli_create_game_and_openapi(tmp_path):
    env = {"ALHAMBRA_DATA": str(tmp_path), "PATH": ""}
    out = subprocess.run([sys.executable, "-m", "service.cli", "create-game", "--seat",
                          "Ann:ann@example.org", "--seat", "Bob", "--open", "1"],
                         capture_output=True, text=True, env=env, check=True)
    doc = json.loads(out.stdout)
    assert len(doc["seats"]) == 2 and doc["invite_code"] and doc["host_token"]
    assert doc["seats"][0]["join_url"].startswith("http")
    assert (tmp_path / "alhambra.db").exists()
    bad = subprocess.run([sys.executable, "-m", "service.cli", "create-game", "--variant",
                          "chess", "--seat", "A", "--seat", "B"], capture_output=True,
                         text=True, env=env)
    assert bad.returncode == 1 and "invalid_option" in bad.stderr
    spec = subprocess.run([sys.executable, "-m", "service.cli", "openapi"],
                          capture_output=True, text=True, env=env, check=True)
    assert json.loads(spec.stdout)["info"]["title"] == "alhambra-pbem"
