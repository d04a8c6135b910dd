"""Every kind of mail renders in every language, all through a game of each variant: the
seat's turn at many moments (an emptied market space, tiles to place, the game's end
distribution), a timeout, a takeover, the answers to replies, the game's end. Built
in-process through ``workers.notify.render`` from a game the engine plays (random bots),
so that no state of a game leaves a template without its words."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta

import pytest

import engine
from engine.bots import random_move
from engine.describe import CLOCK_EVENTS
from engine.state import evolve
from service import due, i18n
from service.store import Game, Seat
from workers import notify

SENT = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
RESULTS = ["played", "refused", "unreadable", "empty", "stale", "status", "help",
           "language", "unknown_language"]


def play(variant: str, players: int, seed: int) -> list[engine.Event]:
    """A whole game: random moves, one timed out, a seat taken over by a bot halfway."""
    events = engine.new_game(variant, [f"P{i}" for i in range(players)], seed)
    state = engine.replay(events)
    rng = random.Random(seed)
    while state.phase != "over":
        seat = state.current
        if len(events) > 150 and not state.bots:
            taken = engine.take_over(state, 1, "random", "abandoned")
            for event in taken:
                evolve(state, event)
            events += taken
            continue
        timeout = len(events) > 60 and not any(e.get("timeout") for e in events)
        events += engine.play(state, seat, random_move(state, seat, rng), timeout=timeout)
    return events


def batch(events: list[engine.Event], version: int, lang: str, players: int,
          variant: str, first: int | None = None) -> notify.Batch:
    """The batch of ``events`` from ``first`` (default: the last one) to ``version``."""
    state = engine.replay(events[:version])
    game = Game(id="0123456789abcdef", variant=variant, options=state.options,
                players=players, status="over" if state.phase == "over" else "active",
                phase=state.phase, version=version, current_seat=state.current,
                time_per_move=86400, timeout_policy="default_move",
                deadline=None if state.phase == "over" else SENT + timedelta(days=1),
                imported=False, created_at=SENT, updated_at=SENT)
    seats = [Seat(game.id, i, f"P{i}", f"p{i}@example.org", f"hash-{i}", SENT, language=lang)
             for i in range(players)]
    first = first or version
    return notify.Batch(game=game, seats=seats, events=events[first - 1:version],
                        from_version=first, to_version=version, state=state,
                        created_at=SENT, public_url="https://x.example.org",
                        read=lambda since, until: events[since:until], replies=True,
                        sent_at=SENT)


#: Another variant's words, by the variant of the game and the language (issue 34.2): a
#: Granada game has no fountain and its city is no Alhambra; an Alhambra game has no moats
#: nor Juan. (The combined game has both games' things.)
FOREIGN = {
    "granada": {"en": r"fountain|Alhambra", "ru": r"Альгамбр|фонтан",
                "fi": r"Alhambr|suihkuläh", "da": r"Alhambra|springvand",
                "el": r"Αλάμπρα|σιντριβ"},
    "alhambra": {"en": r"Granada|moat|Juan", "ru": r"Гранад|\bрв|\bров|Хуан",
                 "fi": r"Granad|vallihau|Juan", "da": r"Granada|voldgrav|Juan",
                 "el": r"Γρανάδ|τάφρ|Χουάν"},
}


def check_words(mail: notify.Mail | None, variant: str, lang: str) -> notify.Mail:
    """The mail, after checking it says no other variant's word (``FOREIGN``)."""
    assert mail is not None
    foreign = FOREIGN.get(variant, {}).get(lang)
    for part in (mail.subject, mail.text, mail.html) if foreign else ():
        found = re.search(foreign, part, re.IGNORECASE)
        assert found is None, (variant, lang, mail.kind, part[max(0, found.start() - 80):
                                                               found.end() + 80])
    return mail


def outcome(result: str) -> dict:
    return {"result": result, "answered": 5, "wrote": ["take 9"], "moves": ["take 9"],
            "rule": "A-3.1", "detail": "…", "line": 1, "column": 6, "expected": "…",
            "source": "take 9", "played": ["P0 took 9 ducats"],
            "events": ["P1 took 3 denars"], "changes": ["x"],
            "bot": "greedy", "turn_mail": False, "played_version": 6}


@pytest.mark.parametrize(("variant", "players", "seed"), [
    ("alhambra", 3, 1), ("granada", 2, 2), ("alhambra_granada", 4, 3)])
def test_every_mail_renders_in_every_language_through_a_whole_game(variant, players, seed):
    events = play(variant, players, seed)
    turns = [v for v, e in enumerate(events, 1) if e["type"] in CLOCK_EVENTS]
    special = [v for v, e in enumerate(events, 1)
               if e.get("timeout") or e["type"] == "seat_taken_over"]
    moments = sorted(set(turns[1::12] + turns[-2:] + special))
    kinds = set()
    for lang in i18n.LANGUAGES:
        for version in [turns[0]] + moments:  # the setup's batch first: "started" mails
            b = batch(events, version, lang, players, variant,
                      1 if version == turns[0] else None)
            planned = due.mails(b.from_version, b.events, b.state)
            for kind, seat in planned or [("your_turn", b.state.current)]:
                mail = check_words(notify.render(b, kind, seat), variant, lang)
                assert mail.language == lang and mail.text and mail.html
                kinds.add(kind)
            seat = b.state.current
            mail = check_words(notify.render(b, "reminder", seat), variant, lang)
            assert "<script" not in mail.html
            for result in RESULTS[version % len(RESULTS):][:2]:
                check_words(notify.render(b, "answer", seat, **outcome(result)), variant, lang)
        end = batch(events, len(events), lang, players, variant)
        for seat in range(players):
            assert check_words(notify.render(end, "game_over", seat), variant, lang).text
        assert check_words(notify.render(end, "answer", 0, **outcome("over")), variant,
                           lang).text
    assert {"started", "your_turn", "timeout", "taken_over"} <= kinds


def test_the_help_answer_keeps_the_notation_and_the_talk_on_lines_of_their_own():
    events = play("alhambra", 2, 5)
    b = batch(events, 20, "en", 2, "alhambra")
    text = notify.render(b, "answer", b.state.current, **outcome("help")).text
    assert "4 florins.\nTable talk, beside a move or alone:" in text
