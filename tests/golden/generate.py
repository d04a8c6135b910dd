"""(Re)generate the golden games of the current engine: ``python tests/golden/generate.py``.

Each game is played by a seeded random bot that sometimes lets its time run out (the
default move of RULES.md Part S, recorded as a timeout) and is written to
``tests/golden/v<schema>/<name>.json`` with its complete event log, its record, and the
final views (a spectator's and every seat's) and scores. ``test_golden.py`` replays them.

Files of an older schema stand for games already stored in users' databases: never
regenerate them, only add the current schema's folder.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine  # noqa: E402
from engine.bots import random_move  # noqa: E402
from engine.record import export_record  # noqa: E402

HERE = Path(__file__).resolve().parent
TIMEOUT_RATE = 0.08  # chance that a seat lets its time run out at a decision

# name: (variant, players, seed, options)
GAMES: dict[str, tuple[str, int, int, dict]] = {
    "alhambra-2p": ("alhambra", 2, 101, {}),
    "alhambra-4p": ("alhambra", 4, 102, {}),
    "granada-2p": ("granada", 2, 201, {}),
    "granada-5p-simple": ("granada", 5, 202, {"simple_scoring": True}),
    "combined-3p": ("alhambra_granada", 3, 301, {}),
    "combined-5p": ("alhambra_granada", 5, 302, {}),
    # since schema 2
    "alhambra-2p-capped": ("alhambra", 2, 103, {"dirk_third_draw_cap": True}),
    "combined-4p-both-decks": ("alhambra_granada", 4, 303, {"both_money_decks": True}),
}
#: Games with seats played by bots (S-2): name -> (seat levels, timed-out turns in a row
#: before a takeover, the seat that resigns and the turn it does so at).
SEATED: dict[str, tuple[list[str | None], int, int, int]] = {
    "alhambra-4p": ([None, None, None, "random"], 2, 1, 20),
}


def play_game(variant: str, players: int, seed: int, options: dict,
              seated: tuple[list[str | None], int, int, int] | None = None) -> list[dict]:
    """The complete log of a game between random bots that sometimes time out; with
    ``seated``, some seats are bots (their moves marked), a seat resigns at a turn and
    seats whose time runs out too often are taken over."""
    names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"][:players]
    bots, after, resigner, resign_turn = seated or (None, 0, -1, 0)
    events = engine.new_game(variant, names, seed, options, bots=bots,
                             takeover_after_timeouts=after,
                             takeover_bot="random" if seated else None)
    state = engine.replay(events)
    rng = random.Random(seed)
    while state.phase != "over":
        seat = state.current
        if seat == resigner and state.turn >= resign_turn and seat not in state.bots:
            new = engine.take_over(state, seat, "random", "resigned")
        elif seat in state.bots:
            new = engine.decide(state, seat, random_move(state, seat, rng),
                                bot=state.bots[seat])
        elif rng.random() < TIMEOUT_RATE * (3 if seated else 1):
            new = engine.decide(state, seat, engine.default_moves(state, seat), timeout=True)
        else:
            new = engine.decide(state, seat, random_move(state, seat, rng))
        for event in new:
            engine.evolve(state, event)
        events += new
    return events


def golden(variant: str, players: int, seed: int, options: dict,
           seated: tuple[list[str | None], int, int, int] | None = None) -> dict:
    events = play_game(variant, players, seed, options, seated)
    state = engine.replay(events)
    return {
        "schema": engine.SCHEMA,
        "engine_version": engine.__version__,
        "variant": variant, "players": players, "seed": seed, "options": options,
        "final": {
            "scores": list(state.scores), "winners": list(state.winners),
            "neutral_score": state.neutral_score if state.has_neutral else None,
            "views": {("spectator" if seat is None else str(seat)): engine.view(state, seat)
                      for seat in [None, *range(state.players)]},
        },
        "record": export_record(events, state),
        "log": events,
    }


def _lines(items: list, indent: str) -> str:
    """A JSON list with one compact item per line."""
    body = f",\n{indent}".join(json.dumps(x, separators=(",", ":")) for x in items)
    return f"[\n{indent}{body}\n{indent[:-1]}]"


def write(doc: dict, path: Path) -> None:
    """One JSON file, one line per view, record move and event, so that diffs stay
    readable."""
    final = doc["final"]
    views = ",\n".join(f"   {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}"
                        for k, v in final["views"].items())
    record = {k: v for k, v in doc["record"].items() if k != "moves"}
    parts = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in doc.items()
             if k not in ("final", "record", "log")]
    parts.append(' "final": {' + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}"
                                          for k, v in final.items() if k != "views")
                 + f', "views": {{\n{views}\n  }}}}')
    parts.append(' "record": ' + json.dumps(record)[:-1]
                 + ', "moves": ' + _lines(doc["record"]["moves"], "   ") + "}")
    parts.append(' "log": ' + _lines(doc["log"], "  "))
    text = "{\n" + ",\n".join(parts) + "\n}\n"
    assert json.loads(text) == json.loads(json.dumps(doc))
    path.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"games to write (default all: "
                        f"{', '.join(GAMES)}, and {', '.join(SEATED)} with -seats)")
    args = parser.parse_args(argv)
    folder = HERE / f"v{engine.SCHEMA}"
    folder.mkdir(exist_ok=True)
    for name in args.names or [*GAMES, *(f"{n}-seats" for n in SEATED)]:
        base = name.removesuffix("-seats")
        doc = golden(*GAMES[base], SEATED[base] if name != base else None)
        write(doc, folder / f"{name}.json")
        timeouts = sum(1 for e in doc["log"] if e.get("timeout"))
        redesigns = sum(1 for e in doc["log"] if e["type"] == "redesigned")
        print(f"{folder.name}/{name}.json: {len(doc['log'])} events, {timeouts} timeouts, "
              f"{redesigns} redesigns, scores {doc['final']['scores']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
