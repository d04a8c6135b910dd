"""``python -m engine``: simulate, replay and analyze, run as a user runs them."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_simulate_prints_a_line_per_game_and_a_summary_and_writes_records(tmp_path):
    out = run("simulate", "--variant", "alhambra", "--players", "3", "--games", "4",
              "--seed", "10", "--records", str(tmp_path))
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [g["seed"] for g in lines[:4]] == [10, 11, 12, 13]
    for g in lines[:4]:
        assert len(g["scores"]) == 3 and g["winners"] and g["events"] > 100
    assert lines[4]["summary"] and lines[4]["games"] == 4 and lines[4]["games_per_second"] > 0
    assert out.stderr == ""  # no progress bar when the output is piped
    records = sorted(tmp_path.glob("*.json"))
    assert len(records) == 4
    replayed = run("replay", str(records[0]))
    assert replayed.returncode == 0, replayed.stderr
    summary = json.loads(replayed.stdout)
    assert summary["scores"] == lines[0]["scores"] and summary["winners"] == lines[0]["winners"]
    assert summary["variant"] == "alhambra" and summary["neutral"] == []
    assert len(summary["cities"]) == 3 and len(summary["reserves"]) == 3
    total = {}
    for a in summary["awards"]:
        assert a["scoring"] in (1, 2, 3) and a["kind"] in ("majority", "wall")
        total[a["seat"]] = total.get(a["seat"], 0) + a["points"]
    assert [total.get(i, 0) for i in range(3)] == summary["scores"]


def test_replay_of_an_illegal_record_exits_1_naming_move_and_rule(tmp_path):
    run("simulate", "--players", "2", "--games", "1", "--seed", "3", "--records", str(tmp_path))
    path = next(tmp_path.glob("*.json"))
    doc = json.loads(path.read_text())
    doc["moves"][0]["move"] = "take 9"
    path.write_text(json.dumps(doc))
    out = run("replay", str(path))
    assert out.returncode == 1
    assert "move 1" in out.stderr and "A-3.1" in out.stderr


def test_analyze_reports_violations_longest_wall_and_legal_positions():
    grid = {"variant": "alhambra", "tiles": [
        {"id": "A04", "x": 0, "y": -1}, {"id": "A05", "x": 1, "y": -1},
        {"id": "A06", "x": 1, "y": 0}, {"id": "A07", "x": 2, "y": 0}]}
    out = run("analyze", stdin=json.dumps(grid))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["valid"] is False
    # A06's east wall meets A07's open west side, and A07 cannot be walked to.
    assert [v["rule"] for v in result["violations"]] == ["A-4.3", "A-4.4"]
    assert "A06" in result["violations"][0]["message"]
    assert "A07" in result["violations"][1]["message"]
    assert result["longest_wall"] == 3  # west and north of A04, north of A05
    assert "A04" not in result["legal_positions"]
    assert len(result["legal_positions"]) == 50
    assert [0, 1] in result["legal_positions"]["A14"]


def test_analyze_valid_grid_and_bad_input():
    out = run("analyze", stdin=json.dumps({"variant": "alhambra", "tiles": []}))
    result = json.loads(out.stdout)
    assert result["valid"] and result["longest_wall"] == 0
    assert sorted(map(tuple, result["legal_positions"]["A07"])) == [(-1, 0), (0, -1), (0, 1),
                                                                    (1, 0)]
    for bad in ("not json", json.dumps({"tiles": [{"id": "A99", "x": 0, "y": 1}]}),
                json.dumps({"tiles": [{"id": "A07", "x": "1", "y": 0}]}),
                json.dumps({"variant": "chess", "tiles": []})):
        out = run("analyze", stdin=bad)
        assert out.returncode == 2 and out.stdout == ""
        assert out.stderr.startswith("error: ") and len(out.stderr.strip().splitlines()) == 1


def test_granada_and_combined_simulate_replay_and_analyze(tmp_path):
    for variant, players in (("granada", 2), ("alhambra_granada", 3)):
        out = run("simulate", "--variant", variant, "--players", str(players), "--games", "1",
                  "--records", str(tmp_path / variant))
        assert out.returncode == 0, out.stderr
        record = next((tmp_path / variant).glob("*.json"))
        summary = json.loads(run("replay", str(record)).stdout)
        assert summary["variant"] == variant
        kinds = {a["kind"] for a in summary["awards"]}
        assert "moat" in kinds and ("wall" not in kinds) == (variant == "granada")
        granada_tiles = [c for city in summary["cities"] for c in city if c["id"][0] == "G"]
        assert granada_tiles and all(c["face"] in ("front", "back") for c in granada_tiles)
        if variant == "granada":
            assert len(summary["neutral"]) >= 6  # Juan's tiles
    grid = {"variant": "alhambra_granada", "tiles": [{"id": "A06", "x": 1, "y": 0},
                                                     {"id": "G16", "x": 2, "y": 0}]}
    result = json.loads(run("analyze", stdin=json.dumps(grid)).stdout)
    assert result["valid"]
    assert (result["longest_wall"], result["longest_moat"], result["longest_combined"]) == (
        1, 1, 2)
    assert result["legal_positions"]["G01:front"] == result["legal_positions"]["G01:back"]
    granada = json.loads(run("analyze", stdin=json.dumps(
        {"variant": "granada", "tiles": [{"id": "G23", "x": 0, "y": 1, "face": "back"}]})).stdout)
    assert granada["longest_wall"] == 1 and "A07" not in granada["legal_positions"]
    bad = run("analyze", stdin=json.dumps({"variant": "granada", "tiles": [
        {"id": "G23", "x": 0, "y": 1, "face": "up"}]}))
    assert bad.returncode == 2
