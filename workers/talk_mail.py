"""Table talk by mail (issue 27): what a seat's mails show of the talk, what a reply's
talk lines do, and the mail sent at once for a message (the ``message`` due kind).

Each mail to a seat shows the messages it may read that no mail showed it yet (not its
own, not deleted: a message deleted before the mail goes out is not in it), with who
wrote them, and its notes when it asked for them; once the mail is sent the seat's mark
moves on (``TableTalk.mailed``). A seat that chose ``at_once`` gets a ``message`` due
row with each message (written in the message's transaction): its job sends a mail of
the talk not yet shown, or nothing if a mail showed it meanwhile.
"""

from __future__ import annotations

from typing import Any

from engine.words import msg
from service import i18n
from service.errors import DomainError, MessageRefused
from service.store import Finish
from service.talk import TableTalk

from .context import Context
from .mail import Mail
from .replies import Talked


def section(ctx: Context, game_id: str, seat: int) -> dict[str, Any]:
    """The talk a mail to ``seat`` shows (the template's ``talk``) and ``last``: the
    message id to mark once it is sent."""
    talk = TableTalk(ctx.games)
    found = talk.mail_section(game_id, seat)
    seats = ctx.games.game(game_id).seats
    others = [s for s in seats if s.seat != seat and not s.bot]
    return {
        "messages": [{"who": m.from_name if m.sender is not None else None,
                      "private": m.to is not None, "lines": m.text.split("\n")}
                     for m in found.messages],
        "notes": found.notes.split("\n") if found.notes else None,
        "last": found.last,
        "example_seat": others[0].seat + 1 if others else 1,  # counted from 1, as read
        "seats": ", ".join(f"{s.seat + 1} {s.name or ''}".strip() for s in others),
    }


def sent(ctx: Context, mail: Mail | None, finish: Finish, talk: dict[str, Any]) -> Finish:
    """After a mail went out: its talk is shown (the seat's mark moves on)."""
    if mail is not None and finish.result == "sent":
        TableTalk(ctx.games).mailed(mail.game_id, mail.seat, talk["last"])
    return finish


def apply(ctx: Context, game_id: str, seat: int, talked: Talked, message_id: str,
          lang: str) -> dict[str, Any]:
    """Do what a reply's talk lines say (messages, notes); what the answer tells of it.
    A reply delivered again (its answer is due already) says nothing twice."""
    out: dict[str, Any] = {"talk_sent": [], "note_replaced": False, "note_error": None}
    if any(r.kind == "answer" and r.reply == message_id for r in ctx.store.due_rows(game_id)):
        return out
    talk = TableTalk(ctx.games)
    game = ctx.games.game(game_id)
    seats = game.seats
    for said in talked.said:
        entry: dict[str, Any] = {"to_name": None, "error": None}
        to = said.to
        if isinstance(to, str):
            to = next((s.seat for s in seats if (s.name or "").casefold() == to.casefold()),
                      None)
        elif isinstance(to, int):  # a mail counts seats from 1, as the pages do
            to = to - 1 if 1 <= to <= len(seats) else None
        try:
            if isinstance(said.to, int) and to is None:
                entry["error"] = i18n.say(msg("there is no seat {seat}: the seats are "
                                              "numbered 1 to {count}", seat=said.to,
                                              count=len(seats)), lang)
            elif to is None and said.to is not None:
                entry["error"] = i18n.say(msg("no player of this game is called {name}",
                                              name=str(said.to)), lang)
            else:
                entry["to_name"] = talk.write(game, seat, said.text, to).to_name
        except DomainError as exc:
            entry["error"] = i18n.say(exc.detail, lang)
        out["talk_sent"].append(entry)
    if talked.note is not None:
        try:
            talk.set_seat_notes(game_id, seat, talked.note)
            out["note_replaced"] = True
        except MessageRefused as exc:
            out["note_error"] = i18n.say(exc.detail, lang)
    return out
