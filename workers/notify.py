"""The content of the mails, in each seat's language (which mails a batch calls for:
service/due.py).

Nothing here decides a rule: whose turn it is, the hand, the market and the legal moves
all come from the engine (``engine.view``, ``engine.legal_moves``); events are shown as
``engine.redact_event`` gives them to the recipient's seat. What a mail shows of the game
is built by ``board.py``; the words come from the catalogs (``service/i18n.py``): the
templates' ``_()``, the engine's and this module's ``Msg`` sentences and the clock's
words (``clock_words.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

import css_inline
import jinja2

import engine
from engine import overview, terms
from engine.words import Msg, listing, msg
from service import i18n, present, times
from service.clock import TimeControl
from service.games import from_store, items_as_seen, neutral_name
from service.links import play_path, replay_path
from service.results import EventItem
from service.store import Game, Player, Seat

from . import board
from .clock_words import control_words, day_off_words, deadline_words, time_left_words
from .mail import Mail

MAX_LEGAL_MOVES = 200
SUBJECT_KINDS: dict[str, Msg] = {
    "started": msg("Game started"),
    "your_turn": msg("Your turn"),
    "reminder": msg("Reminder: your turn"),
    "timeout": msg("Your time ran out"),
    "taken_over": msg("A bot takes over a seat"),
    "game_over": msg("Game over"),
    "message": msg("Table talk"),
}
#: The subjects of the answers to a reply (mail_in.py), by what became of it.
ANSWER_SUBJECTS: dict[str, Msg] = {
    "played": msg("Move played"),
    "refused": msg("Move refused"),
    "unreadable": msg("Move not understood"),
    "empty": msg("No move found"),
    "stale": msg("Nothing played: the game moved on"),
    "over": msg("Game over"),
    "status": msg("Status"),
    "help": msg("Help"),
    "resigned": msg("You resigned"),
    "language": msg("Language changed"),
    "unknown_language": msg("Language not known"),
    "talk": msg("Message sent"),
}
#: Kinds of mail that list the seat's legal moves.
MOVE_KINDS = ("your_turn", "reminder", "answer")


@lru_cache(maxsize=4 * len(i18n.LANGUAGES))
def templates(lang: str = i18n.DEFAULT, variant: str | None = None) -> jinja2.Environment:
    """The mails' templates, their words in ``lang`` and a game of ``variant``'s (``_()``,
    ``ngettext()``, ``pgettext()`` with %-placeholders; ``{% trans %}`` blocks would be
    trimmed)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("workers", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html",),
                                            default_for_string=False),
        trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined,
        extensions=["jinja2.ext.i18n"])
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_translations(  # type: ignore[attr-defined]  # jinja2.ext.i18n's
        i18n.translations(lang, variant), newstyle=True)
    return env


def seat_language(batch: Batch, seat: int) -> str:
    """The language of ``seat``'s mails: its own, else its player's (``PATCH /me``), else
    English."""
    info = batch.seats[seat] if seat < len(batch.seats) else None
    player = batch.players.get(seat)
    return i18n.best(None, info.language if info else None,
                     player.language if player else None)


@dataclass
class Batch:
    """A batch of new events (versions ``from_version``..``to_version``) with what the
    mails need: the game row, its seats, the state after the batch and a reader of the
    game's earlier events (``read(since, until)``)."""

    game: Game
    seats: list[Seat]
    events: list[dict[str, Any]]  # versions from_version..to_version
    from_version: int
    to_version: int
    state: engine.State  # at to_version
    created_at: datetime  # when the batch was appended
    public_url: str
    read: Callable[[int, int], list[dict[str, Any]]]
    tokens: dict[int, str] = field(default_factory=dict)  # seat -> its token (secret links)
    #: seat -> the code that claims it (service/players.py), mailed only to its address
    claim_codes: dict[int, str] = field(default_factory=dict)
    replies: bool = False  # MAIL_REPLY_TO is set: seats may reply to play
    sent_at: datetime | None = None  # when the mails are written (deadlines in words); now
    players: dict[int, Player] = field(default_factory=dict)  # seat -> its signed-in player
    away: dict[int, datetime] = field(default_factory=dict)  # seat -> its vacation's end
    deadline_at: datetime | None = None  # the deadline the batch set (its due row says it)

    @property
    def names(self) -> list[str]:
        return list(self.state.seats)

    @property
    def over(self) -> bool:
        return self.state.phase == "over"

    def deadline(self) -> datetime | None:
        """The deadline set by (or running through) this batch: as its due row says
        (decided with the batch), else the game row's while it is at the batch (a row
        from before: else its time per move after the batch)."""
        if self.over:
            return None
        if self.deadline_at is not None:
            return self.deadline_at
        if self.game.version == self.to_version:
            return self.game.deadline
        return times.later(self.game.time_per_move, self.created_at)


def _items(batch: Batch, events: list[dict[str, Any]], first_version: int, seat: int
           ) -> list[EventItem]:
    return items_as_seen(from_store(events), first_version, seat, batch.over,
                       batch.names, neutral_name(batch.game.variant, batch.game.players),
                       batch.state)


def _lines(batch: Batch, events: list[dict[str, Any]], first_version: int, seat: int
           ) -> list[str]:
    """The words for ``events`` (from ``first_version``) as ``seat`` may see them, in its
    language."""
    lang = seat_language(batch, seat)
    return present.lines(_items(batch, events, first_version, seat), lang)


def since(batch: Batch, version: int, seat: int) -> list[str]:
    """What happened after ``version`` up to the batch's version, in words."""
    return _lines(batch, batch.read(version, batch.to_version), version + 1, seat)


def _since_last_move(batch: Batch, seat: int) -> tuple[int, list[dict[str, Any]]]:
    """The version of ``seat``'s last move (0: none yet) and the events since. Reads back
    from the batch in growing chunks, so a mail reads about one round of events, not the
    whole log."""
    events: list[dict[str, Any]] = []
    until, last = batch.to_version, 0
    chunk = 64
    while until > 0 and not last:
        since = max(0, until - chunk)
        older = batch.read(since, until)
        for i in range(len(older) - 1, -1, -1):
            e = older[i]
            if "move" in e and e.get("seat") == seat and not e.get("timeout"):
                last = since + i + 1
                older = older[i + 1:]
                break
        events = older + events
        until, chunk = since, chunk * 2
    return last, events


def _current(batch: Batch, say_: board.Speaker) -> str | None:
    """Whose turn it is (a seat a bot plays says so), None once the game is over."""
    state = batch.state
    if batch.over:
        return None
    name = batch.names[state.current]
    bot = state.bots.get(state.current)
    return say_(msg("{name} ({bot} bot)", name=name, bot=terms.bot(bot))) if bot else name


def context_for(batch: Batch, kind: str, seat: int, **extra: Any) -> dict[str, Any]:
    """The template variables of one mail, in the seat's language."""
    state, game = batch.state, batch.game
    lang = seat_language(batch, seat)
    say_ = board.Speaker(lang)
    view = engine.view(state, seat)
    me = view["seats"][seat]
    game_url = batch.public_url + play_path(game.id)
    deadline = batch.deadline()
    now = batch.sent_at or times.now()
    neutral = neutral_name(game.variant, game.players)
    plays = seat < len(state.hands) and seat not in state.bots
    ctx: dict[str, Any] = {
        "lang": lang, "language_name": i18n.NATIVE_NAMES[lang], "kind": kind,
        "game_id": game.id, "stylesheet": board.stylesheet(),
        "variant": say_(terms.VARIANTS.get(game.variant, game.variant)), "turn": view["turn"],
        "game_variant": game.variant,
        "version": batch.to_version, "seat": seat, "name": me["name"],
        "players": [{"seat": s["seat"], "name": s["name"], "score": s["score"]}
                    for s in view["seats"]],
        "game_url": game_url, "api_url": batch.public_url,
        "deadline": deadline_words(deadline, now, lang) if deadline else None,
        "deadline_date": i18n.date(deadline, lang) if deadline else None,
        **clock_context(batch, seat, deadline, now, lang),
        "replies": batch.replies and bool(batch.seats[seat].token_hash
                                          if seat < len(batch.seats) else False),
        "current_name": _current(batch, say_),
        "my_turn": not batch.over and state.current == seat and plays,
        "bot": state.bots.get(seat) and say_(terms.bot(state.bots[seat])),
        "hand": board.hand(state, seat, say_) if seat < len(state.hands) else None,
        "display": board.display(view, say_),
        "market": board.market(state, view, seat, say_),
        "neutral": say_(terms.neutral(neutral)) if view["neutral"] else None,
        "neutral_score": view["neutral"]["score"] if view["neutral"] else None,
        "neutral_points": say_(board.points(view["neutral"]["score"])) if view["neutral"]
        else None,
        "neutral_tiles": [board.tile_line(state, t["id"], say_)
                          for t in view["neutral"]["tiles"]] if view["neutral"] else [],
        "majorities": board.majorities(state, batch.names, neutral, say_),
        "next_scoring": say_(terms.SCORINGS[overview.next_scoring(state)]),
        "pending": [board.tile_line(state, t["id"], say_) for t in view["pending"]]
        if state.current == seat and plays else [],
        "cities": board.cities(state, view, seat, say_),
        "link": batch.public_url + play_path(game.id, batch.tokens[seat])
        if seat in batch.tokens else None,
        "claim_url": f"{batch.public_url}/me#claim={game.id}.{seat}.{batch.claim_codes[seat]}"
        if seat in batch.claim_codes else None,
        "record_url": f"{batch.public_url}/games/{game.id}/record",
        # a private game's replay opens from the seat's own link
        "replay_url": batch.public_url + replay_path(
            game.id, None if game.replay_public else batch.tokens.get(seat)),
        "legal_moves": [], "more_moves": 0, "changes": [], "scorings": [],
        # the other players on vacation (their clocks stand still: service/clock.py)
        "away": [say_(msg("{name} is on vacation until {when}: that clock stands still.",
                          name=batch.names[s],
                          when=i18n.date(until, lang) + " " + i18n.time(until, lang) + " UTC"))
                 for s, until in sorted(batch.away.items())
                 if s != seat and s < len(batch.names)],
        # table talk (workers/talk_mail.py): the messages and notes shown, what a reply said
        "talk": None, "talk_sent": [], "note_replaced": False, "note_error": None,
    }
    if (kind in MOVE_KINDS or kind == "started") and ctx["my_turn"]:
        moves = [str(m) for m in engine.legal_moves(state, seat)]
        ctx["legal_moves"] = moves[:MAX_LEGAL_MOVES]
        ctx["more_moves"] = max(0, len(moves) - MAX_LEGAL_MOVES)
    if kind in ("your_turn", "reminder"):
        last, events = _since_last_move(batch, seat)
        ctx["since_version"] = last
        ctx["changes"] = _lines(batch, events, last + 1, seat)
        ctx["scorings"] = board.scoring_tables(events, batch.names, neutral, say_)
    if kind == "timeout":
        items = _items(batch, batch.events, batch.from_version, seat)
        ctx["played"] = [say_(i.text) for i in items if i.text is not None and
                         i.event.get("timeout") and i.event.get("seat") == seat]
    if kind == "taken_over":
        ctx["taken_over"] = [
            {"line": say_(_taken_over_line(e, e["seat"] == seat, batch.names[e["seat"]])),
             "you": e["seat"] == seat}
            for e in batch.events if e["type"] == "seat_taken_over"]
    if kind == "game_over" or kind == "answer" and batch.over:
        over = next((e for e in batch.events if e["type"] == "game_over"), None) or {}
        scores = over.get("scores", list(state.scores))
        ctx["scores"] = sorted(({"name": n, "score": s, "left": state.left.get(i),
                                 "bot": state.bots.get(i) and say_(terms.bot(state.bots[i]))}
                                for i, (n, s) in enumerate(zip(batch.names, scores,
                                                               strict=False))),
                               key=lambda r: -r["score"])
        ctx["winners"] = [batch.names[w] for w in over.get("winners", state.winners)]
        ctx["winners_text"] = say_(listing(ctx["winners"]))
        ctx["scorings"] = board.scoring_tables(batch.read(0, batch.to_version), batch.names,
                                               neutral, say_)
    ctx.update(extra)
    return ctx


def clock_context(batch: Batch, seat: int, deadline: datetime | None, now: datetime,
                  lang: str) -> dict[str, Any]:
    """The clock in words (workers/clock_words.py): the game's time control; the time
    the seat has left when it is to act (until ``deadline``); the day off running now."""
    control = TimeControl.of(batch.game.time_per_move, batch.game.time_control)
    acting = deadline is not None and batch.state.current == seat
    off = control.day_off_until(now) if deadline is not None else None
    return {
        "time_control": control_words(control, lang),
        "time_left": time_left_words(control.running(now, deadline).total_seconds(),
                                     control.bank is not None, lang)
        if acting and deadline is not None else None,
        "day_off": day_off_words(control, off, lang) if off else None,
    }


def _taken_over_line(e: dict[str, Any], you: bool, name: str) -> Msg:
    """Who left, why, and which bot plays the seat now (S-2)."""
    bot = terms.bot(e["bot"])
    if you:
        return msg("you let the time run out too often in this game: a {bot} bot plays your "
                   "seat from now on, so the game goes on (rule S-2)", bot=bot) \
            if e["reason"] != "resigned" else \
            msg("you resigned: a {bot} bot plays your seat from now on, so the game goes on "
                "(rule S-2)", bot=bot)
    return msg("{name} resigned: a {bot} bot plays that seat from now on, so the game goes "
               "on (rule S-2)", name=name, bot=bot) if e["reason"] == "resigned" else \
        msg("{name} let the time run out too often: a {bot} bot plays that seat from now "
            "on, so the game goes on (rule S-2)", name=name, bot=bot)


def subject(ctx: dict[str, Any]) -> str:
    """``Alhambra · game 4ea4c0ff · Ann, Bob, Cid``: one subject for every mail of a game
    to a seat, so that clients threading by subject (Gmail) keep the game in one thread
    (in the seat's language as its first mail went: the seat keeps it,
    ``Seat.thread_subject``); what the mail is goes in ``status``."""
    return i18n.say(msg("{variant} · game {id} · {players}", variant=ctx["variant"],
                        id=ctx["game_id"][:8],
                        players=", ".join(p["name"] for p in ctx["players"])), ctx["lang"])


def status(ctx: dict[str, Any]) -> str:
    """``Your turn, move 17``: what the mail is and the move number players count (in
    the seat's language): the first line of its text and its preheader."""
    if ctx["kind"] == "answer":
        what = ANSWER_SUBJECTS[ctx["result"]]
    elif ctx["kind"] == "started" and ctx["legal_moves"]:
        what = msg("Game started: your turn")
    else:
        what = SUBJECT_KINDS[ctx["kind"]]
    return i18n.say(msg("{what}, move {turn}", what=what, turn=ctx["turn"]), ctx["lang"])


def render(batch: Batch, kind: str, seat: int, version: int | None = None,
           mail_kind: str | None = None, **extra: Any) -> Mail | None:
    """The mail of ``kind`` to ``seat``, or None if that seat has no address. ``extra``:
    more template variables (an answer's ``result``...)."""
    info = batch.seats[seat] if seat < len(batch.seats) else None
    if info is None or not info.email:
        return None
    with i18n.speaking_of(batch.game.variant):  # a Granada city is no Alhambra
        ctx = context_for(batch, kind, seat, **extra)
        if version is not None:
            ctx["version"] = version
        ctx["status"] = status(ctx)
        env = templates(ctx["lang"], batch.game.variant)
        html = env.get_template(f"{kind}.html").render(ctx)
        text = env.get_template(f"{kind}.txt").render(ctx)
        title = info.thread_subject or subject(ctx)  # the thread keeps its first subject
    return Mail(game_id=batch.game.id, version=ctx["version"], kind=mail_kind or kind,
                seat=seat, to_name=info.name or "", to_addr=info.email, subject=title,
                text=text, html=_inline(html), token_hash=info.token_hash,
                language=ctx["lang"], failing=info.mail_failing,
                new_thread=info.thread_subject is None)


_INLINER = css_inline.CSSInliner(load_remote_stylesheets=False, keep_style_tags=False)


def _inline(html: str) -> str:
    """The HTML part with its stylesheet moved into style attributes (mail clients drop
    ``<style>``): css-inline."""
    return _INLINER.inline(html)
