"""A tournament's mails to its entrants (the due kind ``tournament_mail``, of no game:
service/tournaments.py writes the rows as it pairs a round or finishes): the round's
context that the game's own "game started" mail lacks (the tournament, the round, the
table, the others at it), a bye or being left out, the standings after the round before;
at the end the final standings. In the entrant's language, to its account's address;
every mail of one tournament to one entrant in one thread.
"""

from __future__ import annotations

import html
from typing import Any

from babel.numbers import format_decimal

from engine import terms
from engine.words import listing, msg
from service import i18n
from service.links import open_path, tournament_path
from service.tournaments import Invited, Notice

from .mail import Mail

#: The lines of the standings a mail shows (the entrant's own line besides).
SHOWN = 20


def points(value: float, lang: str) -> str:
    return format_decimal(value, "#,##0.##", locale=lang)


def tournament_mail(notice: Notice, public_url: str) -> Mail:
    """The mail of ``notice`` (a round paired, or the end)."""
    lang = i18n.best(None, notice.language)

    def say(text: Any) -> str:
        return i18n.say(text, lang)

    page = public_url + tournament_path(notice.tournament_id)
    lines: list[tuple[str, str | None]] = []  # (text, link)
    if notice.what == "round":
        subject = say(msg("{name}: round {round}", name=notice.name, round=notice.round))
        if notice.table is not None:
            others = [h or "?" for h in notice.players if h != notice.handle]
            lines.append((say(msg("Round {round} of {name} is paired: you play at table "
                                  "{table} with {players}. Your game:", round=notice.round,
                                  name=notice.name, table=notice.table,
                                  players=listing(others))),
                          public_url + open_path(notice.game_id or "")))
        elif notice.bye:
            lines.append((say(msg("Round {round} of {name} is paired: you sit this round "
                                  "out with a bye (points: {points}).",
                                  round=notice.round, name=notice.name,
                                  points=points(notice.bye_points or 0, lang))), None))
        else:
            lines.append((say(msg("Round {round} of {name} is paired without you: a bot "
                                  "took your seat in a game, so you are not seated again "
                                  "unless you enter again on the tournament's page.",
                                  round=notice.round, name=notice.name)), None))
        if notice.standings:
            lines.append((say(msg("The standings after round {round}:",
                                  round=notice.round - 1)), None))
    else:
        subject = say(msg("{name}: the final standings", name=notice.name))
        if notice.mine is not None:
            lines.append((say(msg("{name} is over: your place is {rank} of {entrants} "
                                  "(points: {points}).", name=notice.name, rank=notice.mine[0],
                                  entrants=notice.entrants,
                                  points=points(notice.mine[1], lang))), None))
        lines.append((say(msg("The final standings:")), None))
    shown = [s for s in notice.standings
             if s[0] <= SHOWN or notice.mine is not None and s[0] == notice.mine[0]]
    table = [say(msg("{rank}. {player}, points: {points}", rank=rank, player=handle or "?",
                     points=points(value, lang))) for rank, handle, value in shown]
    outro = say(msg("The tournament's tables and standings: {url}", url=page))
    text = "\n".join([*(f"{line}\n{url}" if url else line for line, url in lines),
                      *(f"  {row}" for row in table), "", outro]) + "\n"
    paragraphs = "".join(
        f"<p>{html.escape(line)}"
        + (f'<br><a href="{html.escape(url)}">{html.escape(url)}</a>' if url else "")
        + "</p>" for line, url in lines)
    rows = "".join(f"<li>{html.escape(row)}</li>" for row in table)
    body = (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"></head><body>'
            f"{paragraphs}" + (f'<ul style="list-style: none; padding-left: 0">{rows}</ul>'
               if rows else "")
            + f'<p>{html.escape(outro)}</p></body></html>')
    return Mail(game_id=notice.tournament_id, version=notice.round,
                kind=f"tournament-{notice.what}", seat=notice.entry, to_name=notice.handle or "",
                to_addr=notice.email, subject=subject, text=text, html=body, language=lang)


def invited_mail(invited: Invited, number: int, public_url: str) -> Mail:
    """The mail inviting an account to enter an invitation-only tournament (``number``:
    its place among the invited)."""
    lang = i18n.best(None, invited.language)
    with i18n.speaking_of(invited.variant):
        variant = i18n.say(terms.VARIANTS.get(invited.variant, invited.variant), lang)
        organiser = invited.organiser or "?"
        subject = i18n.say(msg("{organiser} invites you to the tournament {name}",
                               organiser=organiser, name=invited.name), lang)
        line = i18n.say(msg("{organiser} invites you to the tournament {name} ({variant}); "
                            "only the players invited may enter. Enter it on its page "
                            "before it starts:", organiser=organiser, name=invited.name,
                            variant=variant), lang)
    page = public_url + tournament_path(invited.tournament_id)
    body = (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"></head><body>'
            f'<p>{html.escape(line)}<br><a href="{html.escape(page)}">{html.escape(page)}'
            "</a></p></body></html>")
    return Mail(game_id=invited.tournament_id, version=0, kind="tournament-invited",
                seat=number, to_name=invited.handle or "", to_addr=invited.email,
                subject=subject, text=f"{line}\n{page}\n", html=body, language=lang)
