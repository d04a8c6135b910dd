"""Moderation (issue 38): what a player does against another account, and what the
server's operator does with the reports. The application layer, without HTTP.

A player **blocks** an account by its handle (``block``): from then on neither may write
to the other in private (``Blocked``, service/talk.py), the blocker reads none of the
blocked account's messages in any game (as if it muted its seat: view, stream and mail),
and neither may join a public game where the other sits (service/games.py). A block is
one account's choice: the other is not told. ``Players.blocks_between`` is the
predicate the rest of the service asks.

A player **reports** a message it can read or an account (``report``): the report goes
to the operator's queue, at most ``REPORTS_PER_DAY`` a day per account (and per client
address: ``ALHAMBRA_LIMIT_REPORT``).

The **operator** (``alhambra-pbem reports``, service/cli.py) reads the queue and closes
reports, hides a message (served as deleted to every reader, its text kept with who hid
it), suspends an account (its tokens stop, it cannot sign in, a bot plays its seats in
the running games, as after a resignation) or lifts it, bans an address (no sign-in) or
lifts it. Each action is kept in the ``moderation_log`` and logged (logger
``service.moderation``).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import timedelta

import engine

from . import times
from .errors import (
    BlockRefused,
    DomainError,
    GameNotFound,
    MessageNotFound,
    PlayerNotFound,
    TooManyReports,
)
from .games import Games
from .players import by_handle
from .store import Player
from .store.moderation import Block, LogEntry, Report
from .talk import Reader, TableTalk, clean

log = logging.getLogger(__name__)

REPORTS_PER_DAY = 20  # reports an account may file in 24 hours
MAX_REASON = 1000  # characters of a report's reason


class Moderation:
    """Blocks and reports of the players, and the operator's actions, over ``games``'
    store."""

    def __init__(self, games: Games) -> None:
        self.games = games
        self.store = games.store

    # -- the players' side ---------------------------------------------------------------

    def account(self, text: str) -> Player:
        """The account of a handle (as a player types it) or, with an ``@``, of an
        address; PlayerNotFound."""
        found = self.store.players.player(text.strip().lower()) if "@" in text else \
            by_handle(self.store, text)
        if found is None:
            raise PlayerNotFound(text)
        return found

    def block(self, player: Player, text: str) -> bool:
        """``player`` blocks the account of the handle ``text`` (PlayerNotFound,
        BlockRefused for itself); False if it had blocked it already."""
        other = self.account(text)
        if other.email == player.email:
            raise BlockRefused()
        return self.store.moderation.block(player.email, other.email, times.now())

    def unblock(self, player: Player, text: str) -> bool:
        """The block of the handle ``text`` lifted; False if there was none."""
        return self.store.moderation.unblock(player.email, self.account(text).email)

    def blocks(self, player: Player, limit: int, offset: int) -> list[Block]:
        """The accounts ``player`` blocked, the latest first."""
        return self.store.moderation.blocks(player.email, limit, offset)

    def report(self, player: Player, reason: str, game_id: str | None = None,
               message_id: int | None = None, text: str | None = None) -> int:
        """A report by ``player`` of the message ``message_id`` of ``game_id`` (one it
        can read: a seat's it claimed, or as a spectator; MessageNotFound otherwise) or
        of the account of the handle ``text`` (PlayerNotFound), for the operator's queue;
        its id. TooManyReports past ``REPORTS_PER_DAY``."""
        reason = clean(reason, MAX_REASON)
        target = self.account(text) if text is not None else None
        if game_id is not None and message_id is not None:
            writer = self._writer(player, game_id, message_id)
            target = target or writer
        now = times.now()
        report = Report(0, player.email, game_id if message_id is not None else None,
                        message_id, target.email if target else None,
                        target.handle if target else None, reason, now)
        found = self.store.moderation.add_report(report, REPORTS_PER_DAY,
                                                 now - timedelta(days=1))
        if found is None:
            raise TooManyReports(REPORTS_PER_DAY)
        log.info("report %s filed (game %s, message %s)", found, report.game_id,
                 report.message_id)
        return found

    def _writer(self, player: Player, game_id: str, message_id: int) -> Player | None:
        """The account that wrote a message ``player`` may read (None: the host, or a
        seat nobody claimed); MessageNotFound if it may not read it."""
        game = self.games.game(game_id)
        talk = TableTalk(self.games)
        seat = next((s.seat for s in game.seats if s.claimed_by == player.email), None)
        reader = talk.seat_reader(game_id, seat) if seat is not None else Reader()
        reader = replace(reader, muted=frozenset())  # a muted seat's message is reported
        found = next((m for m in talk.items(game, reader, message_id - 1)
                      if m.id == message_id), None) if 0 < message_id < 1 << 31 else None
        if found is None:
            raise MessageNotFound(message_id)
        claimed = game.seats[found.sender].claimed_by if found.sender is not None else None
        return self.store.players.player(claimed) if claimed else None

    # -- the operator's side -------------------------------------------------------------

    def _log(self, actor: str, action: str, target: str, detail: str | None = None) -> None:
        self.store.moderation.log(actor, action, target, detail, times.now())
        log.info("moderation: %s %s %s%s", actor, action, target,
                 f" ({detail})" if detail else "")

    def reports(self, closed: bool = False) -> list[Report]:
        """The queue: the open reports (``closed``: every one), oldest first."""
        return self.store.moderation.reports(closed)

    def close_report(self, report_id: int, actor: str) -> bool:
        """False if no open report has this id."""
        if not self.store.moderation.close_report(report_id, actor, times.now()):
            return False
        self._log(actor, "close-report", str(report_id))
        return True

    def hide_message(self, game_id: str, message_id: int, actor: str) -> None:
        """Every reader gets the message as deleted from now on (view, streams, mails);
        its row keeps the text, when and by whom it was hidden. GameNotFound,
        MessageNotFound (none, or hidden already)."""
        self.games.game(game_id)
        if not self.store.moderation.hide_message(game_id, message_id, actor, times.now()):
            raise MessageNotFound(message_id)
        self._log(actor, "hide-message", f"{game_id}/{message_id}")

    def suspend(self, text: str, reason: str | None, actor: str) -> list[str]:
        """Suspend the account of a handle or address (PlayerNotFound): its session and
        personal tokens stop (AccountSuspended), it cannot sign in, and in each running
        game a bot takes its seat over (S-2, as a resignation). The games where a bot
        took over (none if it was suspended already)."""
        player = self.account(text)
        if not self.store.moderation.suspend(player.email, reason, times.now()):
            return []
        taken = []
        for game, seat in self.store.seats_of(player.email):
            if game.status == "active" and not seat.bot:
                try:
                    self.games.resign(game, seat.seat)
                    taken.append(game.id)
                except (DomainError, engine.RuleViolation, GameNotFound):
                    pass  # over, or a bot plays it already, meanwhile
        self._log(actor, "suspend", player.email, reason)
        return taken

    def unsuspend(self, text: str, actor: str) -> bool:
        """Lift a suspension (its seats stay the bots'); False if it was none."""
        player = self.account(text)
        if not self.store.moderation.unsuspend(player.email):
            return False
        self._log(actor, "unsuspend", player.email)
        return True

    def ban(self, address: str, reason: str | None, actor: str) -> bool:
        """No sign-in for ``address`` (normalised as a sign-in normalises it) from now on;
        False if it was banned already."""
        if not self.store.moderation.ban(address, reason, actor, times.now()):
            return False
        self._log(actor, "ban", address, reason)
        return True

    def unban(self, address: str, actor: str) -> bool:
        if not self.store.moderation.unban(address):
            return False
        self._log(actor, "unban", address)
        return True

    def entries(self, limit: int = 100) -> list[LogEntry]:
        """The last ``limit`` actions of operators, oldest first."""
        return self.store.moderation.entries(limit)
