"""The golden "your turn" mails (issue 24): one game, the same mail in every language, built
through the workers' own rendering (``workers.notify.render``) and committed in
``tests/workers/golden/`` to be read line by line. Regenerate them after a deliberate change
of the mails' words or of a catalog:

    .venv/bin/python -m tests.workers.golden_mail

The game is deterministic: a fixed seed, greedy bots' moves for every seat until the first
scoring is done, a fixed clock. Its seat to move sees two cities besides its own, tiles in
the reserves, a scoring table and the history since its last move.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import engine
from engine.bots import choose
from service import i18n
from service.store import Game, Seat
from workers import notify
from workers.mail import Mail

GOLDEN = Path(__file__).resolve().parent / "golden"
NAMES = ["Ann", "Bob", "Cid"]
SENT = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)  # a Monday


def game_log() -> list[engine.Event]:
    """A game played by greedy bots until the first scoring is done, stopped when a seat's
    turn starts."""
    events = engine.new_game("alhambra", NAMES, 2024)
    state = engine.replay(events)
    rng = random.Random(7)
    while not (state.scorings_done >= 1 and events[-1]["type"] == "turn_started"):
        seat = state.current
        events += engine.play(state, seat, choose("greedy", state, seat, rng))
    return events


def your_turn_mail(lang: str) -> str:
    """The subject and the text part of the mail, as a reviewer reads them."""
    mail = your_turn(lang)
    return f"Subject: {mail.subject}\nContent-Language: {mail.language}\n\n{mail.text}"


def your_turn(lang: str) -> Mail:
    """The golden game's "your turn" mail in ``lang``."""
    events = game_log()
    state = engine.replay(events)
    version = len(events)
    game = Game(id="0123456789abcdef", variant="alhambra", options=state.options,
                players=len(NAMES), status="active", phase=state.phase, version=version,
                current_seat=state.current, time_per_move=3 * 86400,
                timeout_policy="default_move", deadline=SENT + timedelta(days=3),
                imported=False, created_at=SENT, updated_at=SENT)
    seats = [Seat(game.id, i, name, f"{name.lower()}@example.org", f"hash-{i}", SENT,
                  language=lang) for i, name in enumerate(NAMES)]
    batch = notify.Batch(game=game, seats=seats, events=events[-1:], from_version=version,
                         to_version=version, state=state, created_at=SENT,
                         public_url="https://alhambra.example.org",
                         read=lambda since, until: events[since:until], replies=True,
                         sent_at=SENT)
    mail = notify.render(batch, "your_turn", state.current)
    assert mail is not None and mail.language == lang
    return mail


def path(lang: str) -> Path:
    return GOLDEN / f"your_turn.{lang}.txt"


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for lang in i18n.LANGUAGES:
        path(lang).write_text(your_turn_mail(lang), encoding="utf-8")
        print(f"wrote {path(lang)}")


if __name__ == "__main__":
    main()
