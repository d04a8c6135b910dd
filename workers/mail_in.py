"""Moves by e-mail: a reply to a game's mail is played through the same submit path as
the API (``Games.submit``), and answered.

    alhambra-pbem mail-in [--recipient ADDR] [--sender ADDR] < message   (pipe delivery)
    alhambra-pbem mail-in --listen HOST:PORT                           (an SMTP server)

A mail sent to a bounce address (``MAIL_BOUNCES_TO``, ``mail_bounces.py``) whose tag
verifies for the seat's address now is a bounce: a delivery report's failure is recorded
on the seat (after ``MAIL_HARD_FAILURES`` hard ones its address is failing), and it is
never answered. Otherwise a mail is for us when it is sent to a reply address whose tag
verifies (``reply_address.py``): the tag names the game, the seat and the version of the
game the answered mail showed. Then, in this order:

- an automatic mail (auto-reply, bounce, list or bulk mail: ``mail_auth.automatic``) is
  dropped without an answer, and so is a mail whose ``From`` cannot be read strictly
  (``mail_auth.sender``: one address, no other address in its display name), is not
  authenticated as ``MAIL_IN_AUTH`` asks (``mail_auth.authenticate``: an
  ``Authentication-Results`` header of the operator's MTA with an aligned DKIM or SPF
  pass) or is not the seat's address; a reply from the seat's address confirms it (a
  failing mark is cleared);
- the reply is read (``replies.py``): ``status``, ``help``, ``resign`` (``Games.resign``:
  a bot plays the seat from then on), ``language fi`` (the seat's mails in Finnish from
  then on) or moves; the command words in any language of the catalogs; beside them,
  table talk (``say``, ``say: …``, ``tell 2: …``, ``note: …``: talk_mail.py), said once
  even if the mail is delivered again;
- moves are submitted against the tag's version, with the mail's Message-ID as the
  idempotency key: a mail delivered twice plays once. If the game moved on since that
  version nothing is played ("stale");
- the answer (what was understood, what became of it, the game now and the legal moves)
  is due work (an ``answer`` row, one per reply's Message-ID, so it goes out once): a
  worker sends it (workers/jobs.py), again later while SMTP is away. An address gets at most
  ``MAIL_IN_ANSWERS_PER_HOUR`` answers (counted in the database, so the pipe, the
  listener and every host count together): beyond it a reply is still played but not
  answered, whatever its headers say, so that no auto-responder can loop with us.

The next seat's "your turn" mail is due work of the move, as after any move.

Pipe delivery exits 0 when the mail was handled (a refused move is handled: it gets an
answer; an ignored mail too), 67 (EX_NOUSER) when it is for no reply address of ours, and
75 (EX_TEMPFAIL) when the database cannot be reached, so that the mail server
tries again later. The SMTP listener says the same at the SMTP level: 550 at RCPT for an
address that is not ours, 552 for a message over ``MAIL_IN_MAX_SIZE`` (SIZE is
advertised), 451 while the database is away. Unknown or forged addresses,
foreign, unreadable or unauthenticated senders and automatic mails get no answer (no
backscatter); each is logged with the reason.
"""

from __future__ import annotations

import argparse
import asyncio
import email
import email.policy
import hashlib
import logging
import signal
import sys
import threading
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

import engine
from engine import terms
from service import i18n, logs, metrics, times
from service.errors import (
    AlreadySeated,
    DomainError,
    GameNotFound,
    GameOver,
    IdempotencyKeyReused,
    OutOfTurn,
    SeatNotClaimable,
    VersionConflict,
)
from service.players import Players
from service.settings import Settings
from service.store import Due, EventStore, MailFailure, Seat

from . import mail_auth, mail_bounces, replies, reply_address, talk_mail
from .context import Context

log = logging.getLogger("alhambra.mail_in")

EX_OK, EX_NOUSER, EX_TEMPFAIL, EX_CONFIG = 0, 67, 75, 78

#: What ``Gateway.deliver`` made of a message.
HANDLED, IGNORED, NOT_OURS = "handled", "ignored", "not-ours"


class Unavailable(Exception):
    """The database cannot be reached: deliver the mail again later."""


@dataclass(frozen=True)
class Target:
    """A verified reply address: the seat, and the version its mail showed."""

    tag: reply_address.Tag
    seat: Seat


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


class Gateway:
    """Replies in, moves through ``Games.submit``, answers onto the workers' queue."""

    def __init__(self, ctx: Context) -> None:
        if not ctx.settings.mail_reply_to and not ctx.settings.mail_bounces_to:
            raise ValueError("MAIL_REPLY_TO is not set: there are no reply addresses")
        self.ctx = ctx
        self.base = ctx.settings.mail_reply_to or ""
        self.bounces = ctx.settings.mail_bounces_to

    def accepts(self, address: str) -> bool:
        """Is ``address`` a reply or bounce address of ours (its tag verifies)?"""
        return self.target(address) is not None or self.bounce_target(address) is not None

    def bounce_target(self, address: str) -> Target | None:
        """The seat ``address`` is a bounce address of (``MAIL_BOUNCES_TO``), if its tag
        verifies for the seat's address now."""
        tag = mail_bounces.read_tag(self.bounces, address) if self.bounces else None
        if tag is None:
            return None
        seat = self._seat(tag)
        if seat is None or not mail_bounces.verify(self.ctx.settings.secret_key, tag,
                                                   seat.email):
            log.warning("mail-in: %s does not verify (forged, or the seat's address "
                        "changed since)", address)
            return None
        return Target(tag, seat)

    def _seat(self, tag: reply_address.Tag) -> Seat | None:
        try:
            seats = self.ctx.games.game(tag.game_id).seats
        except GameNotFound:
            return None
        except Exception as exc:  # noqa: BLE001 - any store failure: try again later
            raise Unavailable(f"the database: {exc}") from exc
        return next((s for s in seats if s.seat == tag.seat), None)

    def target(self, address: str) -> Target | None:
        """The seat ``address`` is the reply address of, if its tag verifies."""
        tag = reply_address.read(self.base, address) if self.base else None
        if tag is None:
            return None
        try:
            seats = self.ctx.games.game(tag.game_id).seats
        except GameNotFound:
            return None
        except Exception as exc:  # noqa: BLE001 - any store failure: try again later
            raise Unavailable(f"the database: {exc}") from exc
        seat = next((s for s in seats if s.seat == tag.seat), None)
        if seat is None or not reply_address.verify(self.ctx.settings.secret_key, tag,
                                                    seat.token_hash):
            log.warning("mail-in: %s does not verify (forged, old token or no such seat)",
                        address)
            return None
        return Target(tag, seat)

    def deliver(self, raw: bytes, addresses: list[str] | None = None,
                envelope_sender: str | None = None) -> str:
        """Handle one message for its recipients (None: those its headers name).
        Returns HANDLED, IGNORED or NOT_OURS; raises Unavailable."""
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        addresses = addresses if addresses is not None else replies.recipients(msg)
        bounced = [t for t in map(self.bounce_target, addresses) if t is not None]
        if bounced:
            return self.bounce(msg, bounced[0])
        targets: dict[tuple[str, int, int], Target] = {}
        for address in addresses:
            target = self.target(address)
            if target is not None:
                targets.setdefault((target.tag.game_id, target.seat.seat,
                                    target.tag.version), target)
        message_id = (replies.message_ids(msg.get("Message-ID")) or
                      [f"<{_digest(raw.decode('latin-1'))[:32]}@no-message-id>"])[0]
        if not targets:
            log.warning("mail-in: %s from %r is for no reply address of ours (%s): dropped",
                        message_id, str(msg.get("From", "?")), ", ".join(addresses or []))
            return NOT_OURS
        why = mail_auth.automatic(msg, envelope_sender)
        if why:
            log.info("mail-in: %s is automatic (%s): no answer", message_id, why)
            return IGNORED
        settings = self.ctx.settings
        try:
            sender = mail_auth.sender(msg)
            mail_auth.authenticate(msg, sender, settings.mail_in_auth,
                                   settings.mail_in_authserv_id)
        except mail_auth.Refused as exc:
            log.log(logging.ERROR if isinstance(exc, mail_auth.Unauthenticated) else
                    logging.WARNING, "mail-in: %s (envelope sender %s) refused: %s: "
                    "nothing played, no answer", message_id, envelope_sender or "?", exc)
            if isinstance(exc, mail_auth.Unauthenticated):
                self.note_authentication(str(exc))
            return IGNORED
        if settings.mail_in_auth != "none":
            self.note_authentication(None)
        handled = False
        for target in targets.values():
            handled = self._one(msg, message_id, target, sender) or handled
        return HANDLED if handled else IGNORED

    def note_authentication(self, unauthenticated: str | None) -> None:
        """Keep count of the replies refused one after another for want of the MTA's
        Authentication-Results (``unauthenticated``: why), or end the count (None: a
        reply was authenticated): ``/health`` says why replies are refused. A count that
        cannot be written is logged; the reply's handling goes on."""
        try:
            if unauthenticated is None:
                self.ctx.store.mail.authenticated()
            else:
                self.ctx.store.mail.unauthenticated(unauthenticated, times.now())
        except Exception:  # noqa: BLE001 - a health record, not the reply's handling
            log.exception("mail-in: the count of unauthenticated replies cannot be kept")

    def bounce(self, msg: EmailMessage, target: Target) -> str:
        """A mail to a seat's bounce address: a DSN's failure is recorded on the seat
        (a hard one counts towards its failing mark); never answered."""
        tag, seat = target.tag, target.seat
        found = mail_bounces.failures(msg)
        if not found:
            log.info("mail-in: %s to the bounce address of game %s seat %s: %s", str(
                msg.get("Message-ID", "?")), tag.game_id, tag.seat,
                "no delivery report: dropped" if found is None else "nothing failed")
            return IGNORED
        failure = next((f for f in found if f.permanent), found[0])
        assert seat.email is not None
        settings = self.ctx.settings
        try:
            failing = self.ctx.store.mail.record_failure(MailFailure(
                tag.game_id, seat.seat, seat.email, failure.reason, failure.permanent,
                times.now()), settings.mail_hard_failures)
        except Exception as exc:  # noqa: BLE001 - the store: try again later
            raise Unavailable(str(exc)) from exc
        metrics.bounce(failure.permanent)
        log.warning("mail-in: a bounce of game %s seat %s v%s (%s): %s: %s%s", tag.game_id,
                    seat.seat, tag.version, seat.email,
                    "failed" if failure.permanent else "delayed", failure.reason,
                    "; the address is failing now" if failing else "")
        return HANDLED

    def _one(self, msg: EmailMessage, message_id: str, target: Target, sender: str) -> bool:
        tag, seat = target.tag, target.seat
        if seat.email and sender != seat.email.lower():
            log.warning("mail-in: %s for game %s seat %s comes from %s, not the seat's "
                        "address: dropped", message_id, tag.game_id, seat.seat, sender)
            return False
        if seat.email and not seat.claimed_by and not seat.bot and \
                self.ctx.settings.mail_in_auth != "none":
            self.claim(target)
        if seat.mail_failing and seat.email:  # the seat's own mail: it confirms the address
            self.ctx.store.mail.set_address(tag.game_id, seat.seat, seat.email)
            log.info("mail-in: game %s seat %s wrote from %s: mails to it go again",
                     tag.game_id, seat.seat, seat.email)
        talked = replies.split_talk(replies.latest_lines(replies.body_text(msg)))
        reading = replies.read(replies.first_block(talked.rest))
        try:
            outcome = self.outcome(target, reading, message_id)
            if outcome is None:
                return False
            if talked.said or talked.note is not None:
                lang = i18n.best(None, target.seat.language)
                outcome.update(talk_mail.apply(self.ctx, tag.game_id, seat.seat, talked,
                                               message_id, lang))
                if outcome["result"] == "empty":
                    outcome["result"] = "talk"
            if not self.may_answer(seat.email or sender, message_id):
                log.warning("mail-in: %s for game %s seat %s: %s, not answered: %s had "
                            "MAIL_IN_ANSWERS_PER_HOUR (%s) answers in the last hour",
                            message_id, tag.game_id, seat.seat, outcome["result"], sender,
                            self.ctx.settings.mail_in_answers_per_hour)
                return True
            references = replies.message_ids(msg.get("References"))[-8:]
            add_answer(self.ctx, tag.game_id, seat.seat, message_id, references, outcome)
        except Unavailable:
            raise
        except Exception as exc:  # noqa: BLE001 - the store: try again later
            log.exception("mail-in: %s for game %s seat %s: cannot handle it now",
                          message_id, tag.game_id, seat.seat)
            raise Unavailable(str(exc)) from exc
        log.info("mail-in: %s for game %s seat %s at version %s: %s %s", message_id,
                 tag.game_id, seat.seat, tag.version, "delivered again, played once "
                 "before:" if outcome.get("replayed") else outcome["result"],
                 "; ".join(outcome.get("moves") or reading.lines)[:200])
        return True

    def claim(self, target: Target) -> None:
        """The seat's address wrote, its sender verified (MAIL_IN_AUTH): the seat is
        claimed by that address's account (service/players.py), if no other seat of the
        game is; its later mails carry the new token."""
        try:
            Players(self.ctx.games).claim(target.tag.game_id, target.seat.seat, None, None,
                                          verified=True)
        except (AlreadySeated, SeatNotClaimable):
            return
        log.info("mail-in: game %s seat %s claimed by its verified address",
                 target.tag.game_id, target.seat.seat)

    def may_answer(self, address: str, message_id: str) -> bool:
        """Is the answer to ``message_id`` within the address's answers of the last hour
        (the last guard against mail loops)?"""
        return answer_allowed(self.ctx.store, address.lower(), _digest(message_id)[:32],
                              self.ctx.settings.mail_in_answers_per_hour, 3600)

    def outcome(self, target: Target, reading: replies.Reading, message_id: str
                ) -> dict[str, Any] | None:
        """What becomes of the reply (JSON for the answer job, its words in the seat's
        language and the game's variant): played, refused, unreadable, empty, stale,
        over, status, help, resigned, language or unknown_language. None: no answer at
        all."""
        try:
            variant = self.ctx.games.game(target.tag.game_id).variant
        except GameNotFound:
            return None
        with i18n.speaking_of(variant):
            return self._outcome(target, reading, message_id)

    def _outcome(self, target: Target, reading: replies.Reading, message_id: str
                 ) -> dict[str, Any] | None:
        tag = target.tag
        lang = i18n.best(None, target.seat.language)
        out: dict[str, Any] = {"answered": tag.version, "wrote": reading.lines,
                               "moves": reading.understood}
        if reading.kind in ("status", "help", "empty"):
            return {**out, "result": reading.kind}
        if reading.kind == "unreadable":
            error = reading.error
            assert error is not None
            return {**out, "result": "unreadable", "line": reading.line,
                    "column": error.position, "expected": i18n.say(error.expected, lang),
                    "source": reading.lines[reading.line - 1]}
        if reading.kind == "language":
            if reading.language is None:
                return {**out, "result": "unknown_language"}
            try:
                self.ctx.games.set_language(self.ctx.games.game(tag.game_id),
                                            target.seat.seat, reading.language)
            except GameNotFound:
                return None
            return {**out, "result": "language"}
        key = f"mail:{message_id}" if len(message_id) <= 190 else \
            f"mail:{_digest(message_id)}"
        games = self.ctx.games
        try:
            if reading.kind == "resign":
                resigned = games.resign(games.game(tag.game_id), target.seat.seat)
                return {**out, "result": "resigned",  # the bot's level in words
                        "bot": i18n.say(terms.bot(resigned.bot or ""), lang)}
            played = games.submit(games.game(tag.game_id), target.seat.seat,
                                  reading.moves, tag.version, key)
        except VersionConflict:
            return {**out, "result": "stale"}
        except GameOver:
            return {**out, "result": "over"}
        except OutOfTurn as exc:
            return {**out, "result": "refused", "rule": exc.extra["rule"],
                    "detail": i18n.say(exc.detail, lang)}
        except engine.RuleViolation as exc:
            return {**out, "result": "refused", "rule": exc.rule,
                    "detail": i18n.say(exc.message, lang)}
        except IdempotencyKeyReused:
            log.warning("mail-in: %s was played already with other moves: dropped",
                        message_id)
            return None
        except GameNotFound:
            return None
        except DomainError as exc:
            return {**out, "result": "refused", "rule": exc.extra.get("rule", "-"),
                    "detail": i18n.say(exc.detail, lang)}
        return {**out, "result": "played", "played_version": played.version,
                "replayed": played.replayed,  # a delivery again: nothing played now
                "turn_mail": played.turn_mail,  # its batch mails the seat its turn
                # in words, as the history says them, in the seat's language
                "played": [i18n.say(line, lang) for line in played.own],
                "events": [i18n.say(line, lang) for line in played.news]}


def answer_allowed(store: EventStore, address: str, key: str, limit: int,
                   window_seconds: float) -> bool:
    """May the reply ``key`` from ``address`` be answered? Yes if it was before (a reply
    delivered again), or if fewer than ``limit`` answers to the address were allowed in
    the last ``window_seconds`` (this one counts then); older answers are forgotten. The
    address's replies are counted one at a time, across processes."""
    now = times.now()
    with store.transaction() as tx:
        allowed, count = tx.mail.answers(address, key, times.later(-window_seconds, now))
        if allowed:
            return True
        if count >= limit:
            return False
        tx.mail.allow_answer(address, key, now)
        return True


# -- the answer: due work of the workers --------------------------------------------------

def add_answer(ctx: Context, game_id: str, seat: int, message_id: str,
               references: list[str], outcome: dict[str, Any]) -> None:
    """The answer to the reply ``message_id`` as due work (workers/jobs.py sends it):
    once per reply, however often it is delivered."""
    ctx.store.add_due(game_id, [Due("answer", outcome["answered"], times.now(), seat=seat,
                                    reply=message_id,
                                    args={"outcome": outcome, "references": references})])


# -- the two transports --------------------------------------------------------------------

def deliver_stdin(settings: Settings, raw: bytes, recipients: list[str] | None = None,
                  sender: str | None = None) -> int:
    """Pipe delivery of one message: the exit status for the mail server."""
    if not settings.mail_reply_to and not settings.mail_bounces_to:
        log.error("mail-in: MAIL_REPLY_TO is not set")
        return EX_CONFIG
    try:
        ctx = Context(settings)
    except Exception as exc:  # noqa: BLE001 - the database cannot be opened
        log.error("mail-in: the database is unavailable (%s): try again later", exc)
        return EX_TEMPFAIL
    try:
        status = Gateway(ctx).deliver(raw, recipients or None, sender)
    except Unavailable as exc:
        log.error("mail-in: unavailable (%s): try again later", exc)
        return EX_TEMPFAIL
    finally:
        ctx.close()
    return EX_NOUSER if status == NOT_OURS else EX_OK


class Handler:
    """aiosmtpd's handler: the address is checked at RCPT, the message handled at DATA
    (in a thread: the store is a blocking client)."""

    TEMPFAIL = "451 4.3.0 Temporarily unavailable, try again later"

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope,  # noqa: N802
                          address: str, rcpt_options: list[str]) -> str:
        try:
            ours = await asyncio.to_thread(self.gateway.accepts, address)
        except Unavailable as exc:
            log.error("mail-in: RCPT %s: %s", address, exc)
            return self.TEMPFAIL
        if not ours:
            log.warning("mail-in: RCPT %s from %s refused: not a reply address of ours",
                        address, session.peer)
            return "550 5.1.1 No such recipient here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope  # noqa: N802
                          ) -> str:
        raw = envelope.original_content or envelope.content
        assert isinstance(raw, bytes)  # decode_data is off (Listener): bytes, as received
        try:
            await asyncio.to_thread(self.gateway.deliver, raw, list(envelope.rcpt_tos),
                                    envelope.mail_from)
        except Unavailable as exc:
            log.error("mail-in: DATA from %s: %s", envelope.mail_from, exc)
            return self.TEMPFAIL
        return "250 OK"


class Listener:
    """The SMTP listener (aiosmtpd in a thread of its own): ``start()``, ``stop()``."""

    def __init__(self, settings: Settings, host: str, port: int) -> None:
        self.ctx = Context(settings)
        self.gateway = Gateway(self.ctx)
        domain = settings.mail_reply_to.rpartition("@")[2] if settings.mail_reply_to \
            else "localhost"
        self.controller = Controller(Handler(self.gateway), hostname=host, port=port,
                                     server_hostname=domain, ident="alhambra-pbem",
                                     data_size_limit=settings.mail_in_max_size)

    @property
    def port(self) -> int:
        return self.controller.port

    def start(self) -> Listener:
        self.controller.start()
        log.info("mail-in: listening for replies on %s:%s", self.controller.hostname,
                 self.controller.port)
        return self

    def stop(self) -> None:
        self.controller.stop()
        self.ctx.close()

    def __enter__(self) -> Listener:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def listen(settings: Settings, host: str, port: int) -> int:
    """Run the listener until SIGTERM or SIGINT."""
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    with Listener(settings, host, port):
        stop.wait()
    return EX_OK


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--listen", metavar="HOST:PORT",
                        help="run an SMTP server for the replies (default: read one "
                             "message on standard input)")
    parser.add_argument("--recipient", action="append", default=[], metavar="ADDR",
                        help="the envelope recipient (pipe delivery; default: the "
                             "Delivered-To, X-Original-To, To and Cc headers)")
    parser.add_argument("--sender", metavar="ADDR",
                        help="the envelope sender (pipe delivery; empty for a bounce)")


def run_from_args(args: argparse.Namespace, settings: Settings) -> int:
    if settings.mail_in_log:  # its errors too, a traceback included
        try:
            sys.stderr = open(settings.mail_in_log, "a", buffering=1,  # noqa: SIM115
                              encoding="utf-8")
        except OSError as exc:
            print(f"mail-in: ALHAMBRA_MAIL_IN_LOG cannot be written: {exc}", file=sys.stderr)
            return EX_TEMPFAIL
    logs.configure(settings, stream=sys.stderr)
    if args.listen:
        settings = settings.replace(mail_in_listen=args.listen)
        address = settings.mail_in_address
        assert address is not None
        if not settings.mail_reply_to:
            log.error("mail-in: MAIL_REPLY_TO is not set")
            return EX_CONFIG
        return listen(settings, *address)
    raw = sys.stdin.buffer.read()
    return deliver_stdin(settings, raw, args.recipient, args.sender)
