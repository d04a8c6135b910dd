"""The players' mails: the sign-in mail (its code and link), in the request's language.

``send_sign_in`` is the RQ job the API enqueues on the mail queue by name
(service/players.py ``rq_sender``) with only the request's id: the code is derived again
here from the id and the server's key, so that it is kept nowhere.
"""

from __future__ import annotations

import html
import logging

from engine.words import msg
from service import i18n, times
from service.players import SIGN_IN_MINUTES, me_path, sign_in_code
from service.store import SignIn

from .context import Context, context
from .mail import Mail

log = logging.getLogger("alhambra.players")

SUBJECT = msg("Sign in to Alhambra")


def sign_in_mail(sign_in: SignIn, code: str, public_url: str) -> Mail:
    """The sign-in mail of a request: its code, the link that signs in, what to do if
    one did not ask."""
    lang = i18n.best(None, sign_in.language)
    link = public_url + me_path(code)
    lines = [i18n.say(msg("Here is your code to sign in to Alhambra: {code}", code=code),
                      lang),
             i18n.say(msg("Or open this link: {link}", link=link), lang),
             i18n.say(msg("The code works once, for {minutes} minutes. If you did not ask "
                          "to sign in, ignore this mail.", minutes=SIGN_IN_MINUTES), lang)]
    text = "\n\n".join(lines) + "\n"
    body = "".join(f"<p>{html.escape(line)}</p>" for line in lines)
    body = body.replace(html.escape(link), f'<a href="{html.escape(link)}">'
                        f"{html.escape(link)}</a>", 1)
    page = (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"></head>'
            f"<body>{body}</body></html>")
    return Mail(game_id=f"sign-in-{sign_in.id}", version=0, kind="sign_in", seat=0,
                to_name="", to_addr=sign_in.email, subject=i18n.say(SUBJECT, lang),
                text=text, html=page, language=lang)


def send(ctx: Context, sign_in_id: str) -> str:
    """Mail the code of the request ``sign_in_id``, unless it was used or has ended."""
    sign_in = ctx.store.players.sign_in(sign_in_id)
    if sign_in is None:
        return "missing"
    if sign_in.used_at is not None or sign_in.expires_at <= times.now():
        return "stale"
    code = sign_in_code(ctx.settings.secret_key, sign_in_id)
    ctx.mailer.send(sign_in_mail(sign_in, code, ctx.settings.link_url))
    return "sent"


def send_sign_in(sign_in_id: str) -> str:
    """RQ's entry point (by this name): ``send`` with this process's context."""
    return send(context(), sign_in_id)
