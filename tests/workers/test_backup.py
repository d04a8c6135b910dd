"""Backups that restore (issue 38): ``alhambra-pbem backup`` of a running ``serve`` whose
games are being played meanwhile, ``restore`` into a new data folder, and there every
game replays to the state its log had when the backup was made, and every seat's token
(derived from the backed-up key) still opens its seat."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import engine
from service import create_app
from service.settings import Settings
from service.store import open_store
from tests.support import ROOT, Http, random_api_move, start_serve, stop_serve, wait_until


def cli(data: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REDIS_", "SMTP_"))}
    return subprocess.run([sys.executable, "-m", "service.cli", *args], cwd=ROOT,
                          env={**env, "ALHAMBRA_DATA": str(data), "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)


def test_a_backup_of_a_busy_server_restores_every_game_and_seat(tmp_path):
    proc, base, log = start_serve(tmp_path, "--workers", "2")
    http = Http(base)
    try:
        wait_until(lambda: proc.poll() is not None or _healthy(http), 30, 0.1, "the API")
        games = []
        for players in (2, 3, 4, 2, 3, 4):
            r = http.post("/games", {"seats": [{"name": f"P{i}"} for i in range(players)]})
            assert r.status_code == 201, r.get_json()
            doc = r.get_json()
            games.append((doc["game_id"], [s["token"] for s in doc["seats"]]))
        stop, played = threading.Event(), []

        def play() -> None:  # moves in every game while the backup copies
            rng = random.Random(38)
            while not stop.is_set():
                for game_id, tokens in games:
                    doc = http.get(f"/games/{game_id}").get_json()
                    if doc["status"] != "active":
                        continue
                    seat = doc["current_seat"]
                    auth = {"Authorization": f"Bearer {tokens[seat]}"}
                    legal = http.get(f"/games/{game_id}/legal-moves", auth).get_json()
                    r = http.post(f"/games/{game_id}/moves", {
                        "version": doc["version"], "move": random_api_move(legal, rng)}, auth)
                    played.append(r.status_code)

        mover = threading.Thread(target=play)
        mover.start()
        wait_until(lambda: len(played) >= 30, 60, 0.05, "moves before the backup")
        made = cli(tmp_path / "data", "backup", str(tmp_path / "backup"))
        wait_until(lambda: len(played) >= 60, 60, 0.05, "moves after the backup")
        stop.set()
        mover.join(30)
        assert made.returncode == 0, made.stderr
        assert "backed up 6 games" in made.stderr
        assert set(played) == {201}
    finally:
        stop_serve(proc, [], log)

    # refused: a backup into a folder that holds something, a restore over games
    again = cli(tmp_path / "data", "backup", str(tmp_path / "backup"))
    assert again.returncode == 2 and "not an empty folder" in again.stderr
    over = cli(tmp_path / "data", "restore", str(tmp_path / "backup"))
    assert over.returncode == 2 and "holds 6 games" in over.stderr

    restored = cli(tmp_path / "restored", "restore", str(tmp_path / "backup"))
    assert restored.returncode == 0, restored.stderr
    original = open_store(Settings(database=str(tmp_path / "data" / "alhambra.db")))
    app = create_app(Settings(database=str(tmp_path / "restored" / "alhambra.db")))
    copy = app.extensions["alhambra"].store
    client = app.test_client()
    try:
        later = 0
        for game_id, tokens in games:
            game = copy.game(game_id)
            log_then = copy.read(game_id)
            log_now = original.read(game_id)
            assert len(log_then) == game.version and log_then == log_now[:game.version]
            state = engine.replay(log_then)  # the same state as the server had then
            assert (state.version, state.current) == (game.version, game.current_seat)
            later += len(log_now) - len(log_then)
            for seat, token in enumerate(tokens):  # the key came along
                r = client.get(f"/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
                assert r.status_code == 200 and r.get_json()["your_seat"] == seat
        assert later > 0  # moves were made after the backup: it is of one moment
    finally:
        original.close()
        copy.close()


def _healthy(http: Http) -> bool:
    try:
        return http.get("/health").status_code == 200
    except OSError:
        return False
