"""Mails in each seat's language (issue 24, "done when"): a five-player game with one seat
per language, played by API and by mail replies through the SMTP listener and a real
worker. Every seat's mails are in its language, name every tile's walls, show every city,
and tell the history in words (no notation outside the "Reply with" lines). And a seat
changes its language, or asks for help, by a reply in its own language's words."""

from __future__ import annotations

import random
import re

from engine import terms
from engine.describe import tile_words
from service import i18n
from tests.support import (
    Received,
    answer_to,
    random_api_move,
    reply_to,
    smtp_send,
    wait_until,
)
from workers.notify import ANSWER_SUBJECTS

LANGS = ["en", "el", "fi", "da", "ru"]
NAMES = ["Ann", "Bea", "Cai", "Dag", "Eva"]
NOTATION = re.compile(r"\b(?:DE|DI|DU|FL)[1-9]\b|\b(?:take|buy|place|redesign)\s+(?:\d|[AG]\d\d)")
TILE_LINE = re.compile(r"^  (?:\d · [^:]+: )?([AG]\d\d): (.+?)(?:  \[[^\]]+\])?$", re.M)


def said(lang: str, msgid: str, **params: object) -> str:
    """A template's message in ``lang`` (the mails' ``_()``, %-placeholders)."""
    return i18n.translations(lang).gettext(msgid) % params


def mails_to(smtp, game_id: str, address: str) -> list[Received]:
    return [m for m in smtp.of(game_id) if m.rcpt == [address]]


def moves_offered(mail: Received, lang: str) -> list[str]:
    text = mail.part("plain")
    head = said(lang, "Reply with one of these lines:") + "\n"
    if head not in text:
        return []
    return [line.strip() for line in text.split(head, 1)[1].split("\n\n", 1)[0].splitlines()]


def turn_mail(smtp, game_id: str, address: str, version: int) -> Received | None:
    """The mail that gave the seat its turn at ``version`` (started or your turn)."""
    found = [m for m in mails_to(smtp, game_id, address)
             if m.version == version and m.kind in ("started", "your_turn")]
    return found[-1] if found else None


def mail_move(offered: list[str]) -> str:
    """A whole turn from the offered lines: a purchase put into the reserve, else money."""
    buy = next((m for m in offered if m.startswith("buy ")), None)
    if buy:
        return f"{buy}\nplace {buy.split()[1]} reserve"
    return next(m for m in offered if m.startswith("take"))


def test_five_seats_five_languages_by_api_and_by_mail(mail_stack, smtp):
    s = mail_stack
    emails = [f"{n.lower()}@lang.example.org" for n in NAMES]
    r = s.client.post("/games", json={"seats": [
        {"name": n, "email": e, "language": lang} for n, e, lang in zip(NAMES, emails, LANGS,
                                                                        strict=True)]})
    assert r.status_code == 201, r.get_json()
    gid = r.get_json()["game_id"]
    tokens = [seat["token"] for seat in r.get_json()["seats"]]
    smtp.wait(gid, "started", 5, timeout=30)
    rng = random.Random(24)
    by_mail = by_api = 0
    while by_mail + by_api < 20:
        doc = s.client.get(f"/games/{gid}").get_json()
        seat, version = doc["current_seat"], doc["version"]
        mail = wait_until(lambda: turn_mail(smtp, gid, emails[seat], version), 20,  # noqa: B023
                          what="the seat's turn mail")
        if (by_mail + by_api) % 2 == 0:  # every other turn by a reply to that mail
            msg = reply_to(mail, mail_move(moves_offered(mail, LANGS[seat])))
            smtp_send(s.listener.port, msg)
            answer = answer_to(smtp, gid, str(msg["Message-ID"]), timeout=30)
            assert answer.msg["Content-Language"] == LANGS[seat]
            events = s.client.get(f"/games/{gid}/events?since={version}",
                                  headers={"Accept-Language": LANGS[seat]}).get_json()
            own = [e["text"] for e in events["events"]
                   if "move" in e["event"] and e["event"]["seat"] == seat]
            assert own and said(LANGS[seat], "you played:") + "\n" + "".join(
                f"  - {line}\n" for line in own) in answer.part("plain")  # in words
            by_mail += 1
        else:  # a whole turn through the API
            while s.client.get(f"/games/{gid}").get_json()["current_seat"] == seat:
                legal = s.client.get(f"/games/{gid}/legal-moves",
                                     headers={"Authorization": f"Bearer {tokens[seat]}"}
                                     ).get_json()
                r = s.client.post(f"/games/{gid}/moves",
                                  headers={"Authorization": f"Bearer {tokens[seat]}"},
                                  json={"move": random_api_move(legal, rng),
                                        "version": legal["version"]})
                assert r.status_code == 201, r.get_json()
            by_api += 1
    final = s.client.get(f"/games/{gid}").get_json()
    wait_until(lambda: turn_mail(smtp, gid, emails[final["current_seat"]], final["version"]),
               20, what="the last turn mail")

    for seat, (name, lang) in enumerate(zip(NAMES, LANGS, strict=True)):
        mails = mails_to(smtp, gid, emails[seat])
        assert len([m for m in mails if m.kind in ("started", "your_turn")]) >= 4
        for mail in mails:
            text, html = mail.part("plain"), mail.part("html")
            assert mail.msg["Content-Language"] == lang, (lang, mail.subject)
            assert mail.subject == i18n.say(i18n.msg(  # one per game and seat, unfolded
                "{variant} · game {id} · {players}", variant=i18n.say(
                    terms.VARIANTS["alhambra"], lang), id=gid[:8], players=", ".join(NAMES)), lang)
            assert f'<html lang="{lang}">' in html
            # the HTML part draws the board with inlined styles, nothing to fetch or run
            assert 'class="board"' in html and 'style="' in html
            assert not re.search(r"<script|<style|<link|src=|url\(", html, re.I)
            assert said(lang, "Hello %(name)s,", name=name) in text
            # every tile the mail names, with its walls, in the seat's words
            tiles = TILE_LINE.findall(text)
            assert tiles, text
            for tile, words in tiles:
                assert words == i18n.say(tile_words(tile, sides=True, other=True), lang)
            # every city: the seat's own, then each other's with its name
            assert said(lang, "Your city (%(points)s):", points="X").split("(")[0] in text
            for other in NAMES:
                if other != name:
                    heading = said(lang, "%(name)s's city (%(points)s, %(cards)s):",
                                   name=other, points="X", cards="Y").split("X")[0]
                    assert heading in text, (lang, other)
            # the history in words
            history = [line for line in text.splitlines() if line.startswith("  - ")]
            assert not [line for line in history if NOTATION.search(line)], history
        if lang != "en":
            assert not any("Reply with" in m.part("plain") for m in mails)
    print(f"\n5 seats, 5 languages: {by_mail} turns by mail, {by_api} by the API, "
          f"{len(smtp.of(gid))} mails")


def test_a_reply_in_the_seats_own_words_asks_for_help_and_changes_the_language(mail_stack,
                                                                                 smtp):
    s = mail_stack
    emails = ["aino@lang.example.org", "bo@lang.example.org"]
    r = s.client.post("/games", json={"seats": [
        {"name": "Aino", "email": emails[0], "language": "fi"},
        {"name": "Bo", "email": emails[1], "language": "da"}]})
    gid = r.get_json()["game_id"]
    doc = s.client.get(f"/games/{gid}").get_json()
    (start,) = smtp.wait(gid, "started", where=lambda m: m.rcpt == [emails[0]])
    msg = reply_to(start, "Ohje")  # Finnish for "help", capitals aside
    smtp_send(s.listener.port, msg)
    helped = answer_to(smtp, gid, str(msg["Message-ID"]))
    assert said("fi", "build a bought tile at a cell: x grows east, y south, the fountain "
                      "is 0,0") in helped.part("plain")
    msg = reply_to(start, "kieli dansk")  # "language", in Finnish; the language by name
    smtp_send(s.listener.port, msg)
    changed = answer_to(smtp, gid, str(msg["Message-ID"]))
    assert changed.msg["Content-Language"] == "da"
    assert said("da", "your mails are in %(language)s from now on.", language="dansk") in \
        changed.part("plain")
    assert s.client.get(f"/games/{gid}").get_json()["seats"][0]["language"] == "da"
    msg = reply_to(start, "language xx")
    smtp_send(s.listener.port, msg)
    unknown = answer_to(smtp, gid, str(msg["Message-ID"]))
    assert unknown.status == i18n.say(i18n.msg(
        "{what}, move {turn}", what=ANSWER_SUBJECTS["unknown_language"], turn=1), "da")
    assert unknown.status == "Ukendt sprog, træk 1"
    assert unknown.subject == f"Alhambra · peli {gid[:8]} · Aino, Bo"  # the thread's (34.3)
    assert "en, el, fi, da, ru" in unknown.part("plain")
    assert doc["version"] == s.client.get(f"/games/{gid}").get_json()["version"]
    # Bo resigns by mail: the answer names the bot that plays his seat in his words
    (bos,) = smtp.wait(gid, "started", where=lambda m: m.rcpt == [emails[1]])
    msg = reply_to(bos, "resign")
    smtp_send(s.listener.port, msg)
    resigned = answer_to(smtp, gid, str(msg["Message-ID"])).part("plain")
    level = s.client.get(f"/games/{gid}").get_json()["view"]["seats"][1]["bot"]
    bot = i18n.say(terms.bot(level), "da")
    assert bot != level and said(
        "da", "you resigned: a %(bot)s bot plays your seat from now on (rule S-2).",
        bot=bot) in resigned
