"""An invitation's mail to an invitee (the due kind ``invitation_mail``, of no game:
service/invitations.py writes one row per invitee with the invitation): who invites,
to which game (the variant, the others at the table, the bots, the time control), until
when, and where to answer (the player's page: accepting needs the account, so the mail
carries no token and no reply address). In the invitee's language."""

from __future__ import annotations

import html
from datetime import datetime
from typing import Any

from engine import terms
from engine.words import listing, msg
from service import i18n
from service.clock import TimeControl
from service.players import me_path
from service.store import Player
from service.store.invitations import Invitation

from .clock_words import control_words, deadline_words
from .mail import Mail


def invitation_mail(invitation: Invitation, position: int, invitee: Player,
                    handles: dict[str, str | None], public_url: str, now: datetime) -> Mail:
    """The mail to the invitee at ``position`` (``handles``: each address's handle)."""
    with i18n.speaking_of(invitation.settings["variant"]):
        return _mail(invitation, position, invitee, handles, public_url, now)


def _mail(invitation: Invitation, position: int, invitee: Player,
          handles: dict[str, str | None], public_url: str, now: datetime) -> Mail:
    lang = i18n.best(None, invitee.language)
    s = invitation.settings

    def say(text: Any) -> str:
        return i18n.say(text, lang)

    inviter = handles.get(invitation.inviter) or "?"
    variant = say(terms.VARIANTS.get(s["variant"], s["variant"]))
    others = [handles.get(n.email) or "?" for n in invitation.invitees
              if n.position != position]
    others += [say(msg("a {bot} bot", bot=terms.bot(level))) for level in s["bots"]]
    control = TimeControl.parse(s.get("time_per_move"), s.get("time_control"), 1)
    link = public_url + me_path()  # where it is answered
    subject = say(msg("{inviter} invites you to a game of {variant}", inviter=inviter,
                      variant=variant))
    lines = [
        say(msg("{inviter} invites you to a game of {variant} with {others}.",
                inviter=inviter, variant=variant, others=listing(others))
            if others else msg("{inviter} invites you to a game of {variant}.",
                               inviter=inviter, variant=variant)),
        say(msg("Time control: {control}.", control=control_words(control, lang))),
        say(msg("It expires {deadline}.",
                deadline=deadline_words(invitation.expires_at, now, lang))),
        say(msg("Accept or decline it on your page:")),
    ]
    text = "\n\n".join(lines) + f"\n{link}\n"
    body = (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"></head><body>'
            + "".join(f"<p>{html.escape(line)}</p>" for line in lines[:-1])
            + f'<p>{html.escape(lines[-1])}<br><a href="{html.escape(link)}">'
              f"{html.escape(link)}</a></p></body></html>")
    return Mail(game_id=invitation.id, version=0, kind="invitation", seat=position,
                to_name=invitee.handle or "", to_addr=invitee.email, subject=subject,
                text=text, html=body, language=lang)
