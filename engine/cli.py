"""``python -m engine``: simulate random games, replay a record, analyze a grid, play bot
matches (arena)."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from . import arena
from .bots import LEVELS, random_move
from .components import TILES
from .events import Event
from .record import RecordError, export_record, import_record
from .rules import new_game, play
from .state import State, replay
from .variants import VARIANTS


def simulate(variant: str, players: int, games: int, seed: int, records: Path | None,
             progress: bool) -> int:
    """Play ``games`` games between random bots; one JSON line each, then a summary."""
    if records:
        records.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    total_events = 0
    for i in tqdm(range(games), disable=not progress, file=sys.stderr, unit="game"):
        game_seed = seed + i
        events = new_game(variant, [f"bot{n + 1}" for n in range(players)], game_seed)
        state = replay(events)
        rng = random.Random(game_seed)
        while state.phase != "over":
            seat = state.current
            events += play(state, seat, random_move(state, seat, rng))
        total_events += len(events)
        print(json.dumps({"seed": game_seed, "scores": state.scores,
                          "winners": state.winners, "events": len(events)}), flush=False)
        if records:
            path = records / f"{variant}-{players}p-{game_seed}.json"
            path.write_text(json.dumps(export_record(events, state), indent=1))
    elapsed = time.perf_counter() - start
    print(json.dumps({"summary": True, "games": games, "seconds": round(elapsed, 3),
                      "games_per_second": round(games / elapsed, 2) if elapsed else None,
                      "events": total_events}))
    return 0


def replay_summary(events: list[Event]) -> dict[str, Any]:
    """The outcome of a replayed game in the shape ``replay`` prints."""
    state = replay(events)
    awards = [{"scoring": e["scoring"], "seat": e["seat"], "kind": e["kind"],
               "building": e["building"], "points": e["points"]}
              for e in events if e["type"] == "points_awarded"]
    return {
        "variant": state.variant.name,
        "seats": list(state.seats),
        "scores": list(state.scores),
        "winners": list(state.winners),
        "awards": awards,
        "cities": [[_city_entry(state, t, p) for p, t in sorted(g.cells.items())
                    if t != state.variant.start_tile] for g in state.grids],
        "reserves": [list(r) for r in state.reserves],
        "neutral": list(state.neutral),
    }


def _city_entry(state: State, tile: str, pos: tuple[int, int]) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": tile, "x": pos[0], "y": pos[1]}
    if len(TILES[tile].faces) == 2:
        entry["face"] = "back" if state.faces.get(tile, 0) else "front"
    return entry


class InputError(ValueError):
    """Input that ``analyze`` cannot read."""


def analyze(doc: Any) -> dict[str, Any]:
    """Check a grid given as tiles with positions; list its violations and, for each tile
    not in it, where it could be added."""
    if not isinstance(doc, dict):
        raise InputError("input must be a JSON object with 'variant' and 'tiles'")
    name = doc.get("variant", "alhambra")
    if name not in VARIANTS:
        raise InputError(f"unknown variant {name!r}; known: {sorted(VARIANTS)}")
    variant = VARIANTS[name]
    tiles = doc.get("tiles")
    if not isinstance(tiles, list):
        raise InputError("'tiles' must be a list of {\"id\", \"x\", \"y\"}")
    known = {t for kind in variant.kinds for t in variant.bag(kind)}
    grid = variant.new_grid()
    violations = []
    seen = set()
    for i, entry in enumerate(tiles):
        if not isinstance(entry, dict):
            raise InputError(f"tiles[{i}] must be an object")
        tile, x, y = entry.get("id"), entry.get("x"), entry.get("y")
        if tile not in known:
            raise InputError(f"tiles[{i}]: {tile!r} is not a tile of {name}")
        if type(x) is not int or type(y) is not int:  # bool is no int here
            raise InputError(f"tiles[{i}]: 'x' and 'y' must be integers")
        if entry.get("face", "front") not in ("front", "back") or (
                "face" in entry and len(TILES[tile].faces) == 1):
            raise InputError(f"tiles[{i}]: 'face' is 'front' or 'back', for Granada tiles only")
        if tile in seen:
            raise InputError(f"tiles[{i}]: {tile} is listed twice")
        seen.add(tile)
        if (x, y) in grid.cells:
            violations.append({"rule": variant.grid_rules["empty"],
                               "message": f"cell {x},{y} already holds {grid.cells[(x, y)]}"})
            continue
        grid.put(tile, (x, y))
    violations += [{"rule": r, "message": m} for r, m in grid.violations()]
    out: dict[str, Any] = {"valid": not violations, "violations": violations}
    lines = {kind: grid.longest_barrier(kinds) for kind, kinds in variant.barrier_lines}
    if len(lines) == 1:
        out["longest_wall"] = next(iter(lines.values()))  # Granada: the longest moat
    else:
        out.update({f"longest_{kind}": n for kind, n in lines.items()})
    positions: dict[str, list[list[int]]] = {}
    for tile in sorted(known - seen):
        cells = [list(p) for p in grid.legal_positions(tile)]
        if len(TILES[tile].faces) == 2:  # moats lie on the same sides of both faces
            positions[f"{tile}:front"] = positions[f"{tile}:back"] = cells
        else:
            positions[tile] = cells
    out["legal_positions"] = positions
    return out


def run_arena(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Play and print an arena match (engine/arena.py)."""
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in LEVELS]
    if unknown or len(set(bots)) != len(bots) or not bots:
        parser.error(f"--bots takes distinct levels of {', '.join(LEVELS)}, not {args.bots!r}")
    variant = VARIANTS[args.variant]
    if not variant.min_players <= args.players <= variant.max_players:
        parser.error(f"{args.variant} takes {variant.min_players}-{variant.max_players} players")
    if args.games < 1:
        parser.error("--games must be at least 1")
    print(f"arena: {args.variant}, {args.players} players, {args.games} games from seed "
          f"{args.seed}, bots {','.join(bots)} (seats rotated)")
    bar = tqdm(total=args.games, disable=not sys.stderr.isatty(), file=sys.stderr,
               unit="game")
    tallies = arena.run(args.variant, bots, args.players, args.games, args.seed, args.cap,
                        progress=lambda n: bar.update(1))
    bar.close()
    for line in arena.report(tallies, args.games):
        print(line)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="play games between random legal-move bots")
    sim.add_argument("--variant", default="alhambra", choices=sorted(VARIANTS))
    sim.add_argument("--players", type=int, default=4)
    sim.add_argument("--games", type=int, default=1)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--records", type=Path, help="write each game's record into this folder")
    rep = sub.add_parser("replay", help="import a game record and print its outcome")
    rep.add_argument("file", type=Path)
    sub.add_parser("analyze", help="check a grid read from stdin as JSON")
    ar = sub.add_parser("arena", help="play matches between bot levels, seats rotated")
    ar.add_argument("--bots", required=True,
                    help=f"levels separated by commas, of {', '.join(LEVELS)}")
    ar.add_argument("--variant", default="alhambra", choices=sorted(VARIANTS))
    ar.add_argument("--players", type=int, default=2)
    ar.add_argument("--games", type=int, default=100)
    ar.add_argument("--seed", type=int, default=0)
    ar.add_argument("--cap", type=float, default=None,
                    help="seconds after which a strong bot stops searching")
    args = parser.parse_args(argv)

    if args.command == "simulate":
        variant = VARIANTS[args.variant]
        if not variant.min_players <= args.players <= variant.max_players:
            parser.error(f"{args.variant} takes {variant.min_players}-{variant.max_players} "
                         f"players")
        return simulate(args.variant, args.players, args.games, args.seed, args.records,
                        progress=sys.stdout.isatty() and sys.stderr.isatty())
    if args.command == "arena":
        return run_arena(parser, args)
    if args.command == "replay":
        try:
            doc = json.loads(args.file.read_text())
            events = import_record(doc)
        except (OSError, json.JSONDecodeError) as exc:
            print(f"error: cannot read {args.file}: {exc}", file=sys.stderr)
            return 1
        except RecordError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(json.dumps(replay_summary(events)))
        return 0
    try:
        result = analyze(json.load(sys.stdin))
    except (json.JSONDecodeError, InputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0
