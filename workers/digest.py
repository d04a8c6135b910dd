"""The daily digest of a player on ``notify: digest``: one mail at its chosen UTC hour
listing every game waiting for its move, with deadlines and a line on each, in its
language. (Its turn mails still come at once when a deadline is less than a day away:
jobs.wanted.)

Every claiming loop looks once a minute (``DigestTimer``); ``alhambra-pbem
send-digests`` sends them at once (``--now``: whatever the players' hours). The store
hands out each player's digest once a day (``mark_digest``), so loops on many hosts send
it once.
"""

from __future__ import annotations

import html
import logging
import time
from datetime import datetime
from typing import Any

from engine import terms
from engine.words import listing, msg, nmsg
from service import i18n, times
from service.links import play_path
from service.players import Players, me_path
from service.results import MyGame
from service.store import Player

from .context import Context
from .mail import Mail

log = logging.getLogger("alhambra.digest")


def digest_mail(player: Player, games: list[MyGame], public_url: str,
                now: datetime) -> Mail:
    """The digest of ``games`` (those waiting for the player's move)."""
    lang = i18n.best(None, player.language)

    def say(text: Any) -> str:
        return i18n.say(text, lang)

    lines = []
    for g in games:
        deadline, variant = g.deadline, g.game.variant
        line = say(msg("{variant} with {players}, move {version}: your deadline is {when}",
                       variant=terms.VARIANTS.get(variant, variant),
                       players=listing([name or "?" for name in g.others]),
                       version=g.game.version,
                       when=i18n.date(deadline, lang) + " " + i18n.time(deadline, lang) + " UTC"
                       if deadline else "–"))
        url = public_url + play_path(g.game.id, g.token)
        lines.append((line, url))
    subject = say(nmsg("Alhambra: {n} game waits for your move",
                       "Alhambra: {n} games wait for your move", len(games)))
    intro = say(msg("These games wait for your move:"))
    at = now.replace(hour=player.digest_hour, minute=0, second=0, microsecond=0)
    outro = say(msg("You get this mail once a day at {time} UTC. Your games and your "
                    "preferences: {url}", time=i18n.time(at, lang), url=public_url + me_path()))
    text = "\n".join([intro, "", *(f"- {line}\n  {url}" for line, url in lines), "",
                      outro]) + "\n"
    items = "".join(f'<li>{html.escape(line)}<br><a href="{html.escape(url)}">'
                    f"{html.escape(url)}</a></li>" for line, url in lines)
    page = (f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"></head><body>'
            f"<p>{html.escape(intro)}</p><ul>{items}</ul><p>{html.escape(outro)}</p>"
            f"</body></html>")
    day = now.strftime("%Y%m%d")
    return Mail(game_id=f"digest-{day}", version=0, kind="digest", seat=0, to_name="",
                to_addr=player.email, subject=subject, text=text, html=page, language=lang)


def send_digests(ctx: Context, now: datetime | None = None, every_hour: bool = False
                 ) -> dict[str, str]:
    """Send today's digest to each player on the digest whose hour it is (``every_hour``:
    to all of them), once a day: {address: sent, nothing (no game waits), or done
    (sent today already)}."""
    now = now or times.now()
    players = Players(ctx.games)
    out = {}
    for player in ctx.store.players.digest_players(None if every_hour else now.hour):
        if not ctx.store.players.mark_digest(player.email, now.strftime("%Y-%m-%d")):
            out[player.email] = "done"
            continue
        waiting = [g for g in players.my_games(player) if g.your_turn]
        if not waiting:
            out[player.email] = "nothing"
            continue
        ctx.mailer.send(digest_mail(player, waiting, ctx.settings.link_url, now))
        out[player.email] = "sent"
    return out


class DigestTimer:
    """The claiming loop's digests: a look once a minute (dispatch.run)."""

    def __init__(self, every: float = 60.0) -> None:
        self.every = every
        self.last = 0.0

    def tick(self, ctx: Context) -> None:
        if time.monotonic() - self.last < self.every:
            return
        self.last = time.monotonic()
        try:
            sent = send_digests(ctx)
        except Exception:  # noqa: BLE001 - the next minute tries again
            log.warning("digests could not be sent", exc_info=True)
            return
        if sent:
            log.info("digests: %s", sent)
