"""Tournaments and leagues (issue 36): made by an organiser, entered by accounts, run by
themselves from the moment each game ends.

An organiser (an account with a handle) makes a tournament: the games' settings (as a
create request's), a format (service/tournament_plan.py: ``swiss``, ``round_robin``,
``knockout``, ``league``), a table size (2 to 6) and the least one, rounds (a league's:
seasons), points (``rank_points`` first to last; default 1 for the first, 0 for the last,
evenly between; ``bye_points``; ``skip_points`` for an inactive entrant left out) and
entry rules (a ``cap``, a rating range on the variant's openskill ordinal, ``invited``:
the only handles that may enter, ``max_timeouts``: a record of moving in time over the
last ``timeout_games`` finished games) and ``vacations_pause``. Accounts
with a handle enter while it is open (a league takes entries between seasons too: they
join the lowest division), not two one of whom blocked the other. The organiser
starts it: the entrants are seeded by rating (equals: the tournament's seed), and the
first round's tables made, each a game with every seat claimed by its account from the
start (as invitations make them: rated like any game).

The runner (``game_over``, the due kind ``tournament`` a game's end plans): the table's
outcome is recorded (the final scores; a seat a takeover bot took, by resignation,
withdrawal or timeouts, ranks last and its entrant is inactive: not seated again unless
it enters again); when the round's last game is over the next round is paired, once
(``TournamentRecords.open_round`` is compare-and-set), or the tournament finishes.
Everything follows from the entrants, the results and the seed. The round opened (or
the end) and its ``notices`` are written in one transaction: due rows of no game, a
``tournament_mail`` to each entrant it concerns and a ``push`` row to each channel that
chose ``tournament_round`` (``notice`` says what they tell; workers/tournament_mail.py).
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from . import times
from .errors import (
    Blocked,
    HandleNeeded,
    InvalidOption,
    NotEntered,
    NotInvitedToEnter,
    NotOrganiser,
    RatingOutOfRange,
    TimeoutRecord,
    TooFewEntrants,
    TournamentClosed,
    TournamentFull,
    TournamentNotFound,
    UnknownHandle,
)
from .games import Games, account_seat, check_variant
from .i18n import msg
from .pairing import Entrant, standing_order
from .players import by_handle
from .ratings import MODEL
from .standings import Result
from .store import Due, Player
from .store.tournaments import Entry, Round, Table, Tournament
from .tournament_plan import FORMATS, Played, Spec, final, next_round
from .tournament_plan import Table as Planned

__all__ = ["FORMATS", "Tournaments"]

log = logging.getLogger(__name__)

#: The create request's fields the games of a tournament take.
GAME_SETTINGS = ("options", "time_per_move", "time_control", "timeout_policy",
                 "takeover_after_timeouts", "takeover_bot", "replay_public",
                 "spectators_read_chat")
#: The rules a tournament keeps besides (service/tournament_plan.Spec's and entry's).
RULES = ("rank_points", "bye_points", "skip_points", "group_size", "division_size",
         "moves", "advance", "cap", "min_rating", "max_rating", "vacations_pause",
         "invited", "max_timeouts", "timeout_games")
#: The finished games an entry's record of moving in time looks at, unless said.
TIMEOUT_GAMES = 10


@dataclass(frozen=True)
class Notice:
    """What a tournament tells one entrant (workers/tournament_mail.py and push.py say
    it): a round paired (``round``: its table, game and the players in seat order; or a
    bye; or ``skipped``: left out, inactive; the standings after the round before) or
    the end (``finished``: the final standings). ``waiting``: the table's game is not
    made yet (tell it a little later)."""

    tournament_id: str
    name: str
    what: str
    round: int
    entry: int
    email: str
    handle: str | None
    language: str | None
    table: int | None
    game_id: str | None
    players: tuple[str | None, ...]
    bye: bool
    skipped: bool
    standings: tuple[tuple[int, str | None, float], ...]  # rank, handle, points
    mine: tuple[int, float] | None  # the entrant's rank and points
    entrants: int
    waiting: bool
    bye_points: float | None


@dataclass(frozen=True)
class Invited:
    """An invitation-only tournament's mail to one invited account
    (workers/tournament_mail.py)."""

    tournament_id: str
    name: str
    variant: str
    organiser: str | None
    email: str
    handle: str | None
    language: str | None


class Tournaments:
    """Making, entering, starting and running tournaments, over the games' store."""

    def __init__(self, games: Games) -> None:
        self.games = games
        self.store = games.store
        self.records = games.store.tournaments

    # -- the organiser's and the players' acts -------------------------------------------

    def create(self, organiser: Player, body: dict[str, Any]) -> Tournament:
        """A new open tournament (InvalidOption naming a field that cannot be)."""
        if not organiser.handle:
            raise HandleNeeded()
        if body["format"] not in FORMATS:
            raise InvalidOption("format", msg("unknown format {format}; known: {known}",
                                              format=repr(body["format"]),
                                              known=", ".join(FORMATS)))
        size = body["table_size"]
        if not 2 <= size <= 6:
            raise InvalidOption("table_size", msg("a table seats 2 to 6 players"))
        least = body.get("least_size") or max(2, size - 1)
        if not 2 <= least <= size:
            raise InvalidOption("least_size", msg("the least table seats 2 players at "
                                                  "least and no more than a table"))
        points = body.get("rank_points")
        if points is not None and (len(points) < size or any(
                a < b for a, b in zip(points, points[1:], strict=False))):
            raise InvalidOption("rank_points", msg(
                "rank points name every rank of a table, first to last, none above the "
                "one before"))
        options: dict[str, Any] = {}
        for n in range(least, size + 1):
            options = check_variant(body["variant"], n, body.get("options") or {})
        self.games.time_control(body.get("time_per_move"), body.get("time_control"))
        invited = body.get("invited")
        if invited is not None:
            invited = sorted({self._account(h) for h in invited})
        now = times.now()
        settings = {**{k: body.get(k) for k in GAME_SETTINGS}, "options": options,
                    **{k: body.get(k) for k in RULES}, "invited": invited}
        tournament = Tournament(
            "tnm_" + secrets.token_hex(8), organiser.email, body["name"], body["variant"],
            settings, body["format"], size, least, body["rounds"],
            int(body["seed"]) if body.get("seed") is not None else secrets.randbits(31),
            "open", 0, 0, now)
        told = [Due("tournament_mail", 0, now, seat=n, reply=tournament.id,
                    args={"what": "invited", "handle": h})
                for n, h in enumerate(invited or ()) if h != organiser.handle]
        with self.store.transaction() as tx:  # the tournament and its invitations' mails
            tx.tournaments.add(tournament)
            tx.add_due("", told, now)
        return tournament

    def _account(self, name: str) -> str:
        """The handle of an account as kept (UnknownHandle: none has it)."""
        player = by_handle(self.store, name)
        if player is None or not player.handle:
            raise UnknownHandle(name)
        return player.handle

    def get(self, tournament_id: str) -> Tournament:
        found = self.records.get(tournament_id)
        if found is None:
            raise TournamentNotFound(tournament_id)
        return found

    def listed(self, status: str | None, limit: int, offset: int
               ) -> tuple[list[Tournament], int]:
        return self.records.listed(status, limit, offset)

    def enter(self, player: Player, tournament_id: str) -> Tournament:
        """The player's entry (again active, if it was inactive or withdrawn): while the
        tournament is open, or a league runs; within its cap and rating range; not with
        an entrant one of the two blocked."""
        t = self.get(tournament_id)
        if not player.handle:
            raise HandleNeeded()
        entries = self.records.entries(t.id)
        mine = next((e for e in entries if e.email == player.email), None)
        if t.status == "finished" or t.status == "running" and mine is None and \
                t.format != "league":
            raise TournamentClosed(t.status)
        s = t.settings
        if s.get("invited") is not None and player.handle not in s["invited"]:
            raise NotInvitedToEnter()
        if s.get("min_rating") is not None or s.get("max_rating") is not None:
            rating = self._ratings(t, [player.email])[player.email]
            if s.get("min_rating") is not None and rating < s["min_rating"] or \
                    s.get("max_rating") is not None and rating > s["max_rating"]:
                raise RatingOutOfRange(rating)
        if s.get("max_timeouts") is not None:
            timeouts, games = self.timeouts(player.email, s.get("timeout_games") or
                                            TIMEOUT_GAMES)
            if timeouts > s["max_timeouts"]:
                raise TimeoutRecord(timeouts, s["max_timeouts"], games)
        others = [e.email for e in entries if e.withdrawn_at is None]
        if self.store.moderation.blocked_among(player.email, others):
            raise Blocked(msg("you cannot enter: you and an entrant, one blocked the other"))
        if not self.records.enter(t.id, player.email, times.now(), s.get("cap")):
            raise TournamentFull(s["cap"])
        return self.get(t.id)

    def timeouts(self, email: str, count: int) -> tuple[int, int]:
        """The account's record of moving in time: in how many turns its time ran out
        (the service played its default moves: ``timeout`` in the log) in the last
        ``count`` finished games of seats it claimed, and how many games those were."""
        over = sorted(self.store.seats_of(email, finished=True),
                      key=lambda gs: gs[0].updated_at, reverse=True)[:count]
        turns = 0
        for game, seat in over:
            before = False  # the move before was a timeout of this seat (the same turn)
            for event in self.games.log(game.id, 0, game.version):
                if "move" in event:
                    out = bool(event.get("timeout")) and event.get("seat") == seat.seat
                    turns += int(out and not before)
                    before = out
        return turns, len(over)

    def withdraw(self, player: Player, tournament_id: str) -> Tournament:
        """The player's withdrawal: not seated again; a game of its running now goes on
        with a bot in its seat (it ranks last at that table)."""
        t = self.get(tournament_id)
        if t.status == "finished":
            raise TournamentClosed(t.status)
        if not self.records.withdraw(t.id, player.email, times.now()):
            raise NotEntered()
        for r in self.records.rounds_of(t.id)[-1:]:
            for table in r.tables:
                self._resign(t, table, player.email)
        return self.get(t.id)

    def _resign(self, t: Tournament, table: Table, email: str) -> None:
        if table.game_id is None or table.outcome is not None:
            return
        game = self.games.game(table.game_id)
        for seat in game.seats:
            if seat.claimed_by == email and game.status == "active":
                self.games.resign(game, seat.seat)

    def start(self, player: Player, tournament_id: str) -> Tournament:
        """The organiser starts it: the first round's tables and games."""
        t = self.get(tournament_id)
        if player.email != t.organiser:
            raise NotOrganiser()
        if t.status != "open":
            raise TournamentClosed(t.status)
        active = [e for e in self.records.entries(t.id) if e.withdrawn_at is None]
        if len(active) < t.least_size:
            raise TooFewEntrants(t.least_size)
        if not self.records.set_status(t.id, "running", "open", times.now()):
            raise TournamentClosed(self.get(t.id).status)
        self.advance(t.id)
        return self.get(t.id)

    # -- the runner ------------------------------------------------------------------------

    def game_over(self, game_id: str) -> str:
        """A game ended: if a tournament's, record its outcome and advance the
        tournament (``none``: no tournament's game; else what ``advance`` did)."""
        table = self.records.table_of_game(game_id)
        if table is None:
            return "none"
        game = self.games.game(game_id)
        if game.status != "over":
            return "running"
        if table.outcome is None:
            state = self.games.state(game_id)
            left = [e for seat, e in enumerate(table.seating) if seat in state.bots]
            self.records.set_outcome(game_id, {"scores": list(state.scores), "left": left})
            if left:
                self.records.set_inactive(table.tournament_id, left)
        return self.advance(table.tournament_id)

    def advance(self, tournament_id: str) -> str:
        """Pair the next round if the latest one is over (``paired``), ``waiting`` for
        its games, ``finished``; ``already``: another runner paired it."""
        t = self.get(tournament_id)
        if t.status != "running":
            return t.status
        rounds = self.records.rounds_of(t.id)
        if rounds and any(table.outcome is None for table in rounds[-1].tables):
            self._make_games(t, rounds[-1])
            return "waiting"
        now = times.now()
        if rounds:
            self.records.finish_round(t.id, rounds[-1].round, now)
        entries = self.records.entries(t.id)
        seeded = self._seeded(t, entries, rounds)
        active = {str(e.entry) for e in entries if e.withdrawn_at is None and
                  not e.inactive and self._seatable(e)}
        nxt = next_round(self.spec(t), seeded, active, [played(r) for r in rounds])
        told = [e for e in entries if e.withdrawn_at is None]
        if nxt is None:
            due = self.notices(t, t.round, "finished", told, now)
            with self.store.transaction() as tx:
                if tx.tournaments.set_status(t.id, "finished", "running", now):
                    tx.add_due("", due, now)
            log.info("tournament %s finished after round %s", t.id, t.round)
            return "finished"
        tables = [Table(t.id, t.round + 1, n, p.division, [int(x) for x in p.players])
                  for n, p in enumerate(nxt.tables, 1)]
        seated = {n for tb in tables for n in tb.seating}
        byes = {int(x) for x in nxt.seating.get("byes", ())}
        before = {n for tb in rounds[-1].tables for n in tb.seating} if rounds else set()
        told = [e for e in told if e.entry in seated | byes or
                e.inactive and e.entry in before]  # left out now: told once
        due = self.notices(t, t.round + 1, "round", told, now, seated=seated)
        with self.store.transaction() as tx:  # the round and what it tells, at once
            if not tx.tournaments.open_round(t.id, t.round, nxt.season, nxt.seating, tables,
                                             now):
                return "already"
            tx.add_due("", due, now)
        log.info("tournament %s: round %s paired, %s tables", t.id, t.round + 1, len(tables))
        self._make_games(self.get(t.id), self.records.rounds_of(t.id)[-1])
        return "paired"

    # -- what the entrants are told ------------------------------------------------------

    def notices(self, t: Tournament, round_: int, what: str, entries: list[Entry],
                at: datetime, seated: set[int] | None = None) -> list[Due]:
        """The due rows (of no game) telling ``entries`` of a round paired (``round``)
        or the tournament's end (``finished``): a ``tournament_mail`` each, and a
        ``push`` row for each channel of theirs that chose ``tournament_round`` (a
        round: only the seated ones'). ``seat`` names the entry, ``reply`` the
        tournament."""
        out = [Due("tournament_mail", round_, at, seat=e.entry, reply=t.id,
                   args={"what": what}) for e in entries]
        event = "tournament_round" if what == "round" else "tournament_finished"
        for e in entries:
            if what == "round" and (seated is None or e.entry not in seated):
                continue
            out += [Due("push", round_, at, seat=e.entry, hook_id=c.id, reply=t.id,
                        args={"what": event, "tournament": t.id, "round": round_})
                    for c in self.store.channels.of_account(e.email)
                    if "tournament_round" in c.events]
        return out

    def invited(self, tournament_id: str, handle: str) -> Invited | None:
        """What the mail inviting ``handle`` to an invitation-only tournament tells;
        None once the tournament is not open, the account is gone or has entered."""
        t = self.records.get(tournament_id)
        player = by_handle(self.store, handle)
        if t is None or t.status != "open" or player is None or any(
                e.email == player.email for e in self.records.entries(t.id)):
            return None
        return Invited(t.id, t.name, t.variant, self.handle(t.organiser), player.email,
                       player.handle, player.language)

    def notice(self, tournament_id: str, entry: int, round_: int, what: str
               ) -> Notice | None:
        """What a tournament's mail or notice to one entrant tells (workers render
        it); None if the tournament, the entry or its account is gone, or it withdrew."""
        t = self.records.get(tournament_id)
        if t is None:
            return None
        entries = self.records.entries(t.id)
        mine = next((e for e in entries if e.entry == entry), None)
        player = self.store.players.player(mine.email) if mine else None
        if mine is None or player is None or mine.withdrawn_at is not None:
            return None
        handles = {e.entry: self.handle(e.email) for e in entries}
        rounds = self.records.rounds_of(t.id)
        now = [r for r in rounds if r.round == round_]
        table = next((tb for r in now for tb in r.tables if entry in tb.seating), None)
        after = [r for r in rounds if r.round < round_] if what == "round" else \
            [r for r in rounds if r.round <= round_]
        lines = self.standings(t, entries, after, handles) if after else []
        own = next((x for x in lines if x["entry"] == entry), None)
        byes = now[0].seating.get("byes", ()) if now else ()
        return Notice(
            t.id, t.name, what, round_, entry, player.email, player.handle, player.language,
            table.tab if table else None, table.game_id if table else None,
            tuple(handles.get(n) for n in table.seating) if table else (),
            str(entry) in {str(b) for b in byes}, what == "round" and table is None and
            str(entry) not in {str(b) for b in byes},
            tuple((x["rank"], x["handle"], x["points"]) for x in lines),
            (own["rank"], own["points"]) if own else None, len(entries),
            bool(table and table.game_id is None), t.settings.get("bye_points"))

    def _seatable(self, entry: Entry) -> bool:
        player = self.store.players.player(entry.email)
        return player is not None and bool(player.handle)

    def _seeded(self, t: Tournament, entries: list[Entry], rounds: list[Round]
                ) -> list[str]:
        """The entrants best seed first: the first round's order (by rating at the start,
        equals in the seed's order), then later entries as they came."""
        if rounds:
            first = list(rounds[0].seating["seeded"])
            return first + [str(e.entry) for e in entries if str(e.entry) not in first]
        ratings = self._ratings(t, [e.email for e in entries])
        order = standing_order([Entrant(str(e.entry), rating=ratings[e.email])
                                for e in entries], t.seed)
        return [e.id for e in order]

    def _ratings(self, t: Tournament, emails: list[str]) -> dict[str, float]:
        known = self.store.players.ratings(t.variant, emails)
        base = MODEL.mu - 3 * MODEL.sigma
        return {e: known[e].ordinal if e in known else base for e in emails}

    def _make_games(self, t: Tournament, r: Round) -> None:
        """Each table of the round without a game gets one (every seat its account's)."""
        entries = {e.entry: e for e in self.records.entries(t.id)}
        s = t.settings
        for table in r.tables:
            if table.game_id is not None:
                continue
            seats: list[dict[str, Any] | None] = []
            for number in table.seating:
                email = entries[number].email
                player = self.store.players.player(email)
                seats.append(account_seat(player) if player and player.handle else
                             {"name": f"#{number}", "email": email, "claimed_by": email})
            created = self.games.create_seated({
                **s, "variant": t.variant,
                "timeout_policy": s["timeout_policy"] or "default_move",
                "takeover_after_timeouts": s["takeover_after_timeouts"]
                if s["takeover_after_timeouts"] is not None else 3,
                "replay_public": s["replay_public"] if s["replay_public"] is not None
                else True, "spectators_read_chat": bool(s["spectators_read_chat"])}, seats)
            if not self.records.set_game(t.id, r.round, table.tab, created["game_id"]):
                log.warning("tournament %s round %s table %s: a second game %s made",
                            t.id, r.round, table.tab, created["game_id"])

    @staticmethod
    def spec(t: Tournament) -> Spec:
        s = t.settings
        return Spec(t.format, t.table_size, t.least_size, t.rounds, t.seed,
                    tuple(s["rank_points"]) if s.get("rank_points") else None,
                    float(s["bye_points"]) if s.get("bye_points") is not None else 0.5,
                    s.get("skip_points") or 0.0, s.get("group_size"),
                    s.get("division_size"), s.get("moves") or 1, s.get("advance") or 1)

    # -- what the API shows ----------------------------------------------------------------

    def document(self, t: Tournament, full: bool = True) -> dict[str, Any]:
        """A tournament as the API shows it: its settings, entrants (handles), and with
        ``full`` its rounds' tables (games) and the standings."""
        entries = self.records.entries(t.id)
        handles = {e.entry: self.handle(e.email) for e in entries}
        organiser = self.handle(t.organiser)
        doc: dict[str, Any] = {
            "id": t.id, "name": t.name, "organiser": organiser, "variant": t.variant,
            "format": t.format, "table_size": t.table_size, "least_size": t.least_size,
            "planned_rounds": t.rounds, "seed": t.seed, "status": t.status, "round": t.round,
            "season": t.season or None, "created_at": t.created_at,
            "started_at": t.started_at, "finished_at": t.finished_at,
            "settings": {k: t.settings.get(k) for k in (*GAME_SETTINGS, *RULES)},
            "entrants": len([e for e in entries if e.withdrawn_at is None])}
        if not full:
            return doc
        rounds = self.records.rounds_of(t.id)
        doc["entries"] = [{"handle": handles[e.entry], "joined_at": e.joined_at,
                           "withdrawn": e.withdrawn_at is not None,
                           "inactive": e.inactive} for e in entries]

        def who(ids: Any) -> list[str | None]:
            return [handles.get(int(i)) for i in ids]
        doc["rounds"] = [{
            "round": r.round, "season": r.season, "started_at": r.started_at,
            "finished_at": r.finished_at, "byes": who(r.seating.get("byes", ())),
            "tables": [{"table": tb.tab, "division": tb.division, "game_id": tb.game_id,
                        "players": who(tb.seating),
                        "scores": tb.outcome["scores"] if tb.outcome else None,
                        "left": who(tb.outcome["left"]) if tb.outcome else []}
                       for tb in r.tables]} for r in rounds]
        doc["standings"] = [{k: v for k, v in line.items() if k != "entry"}
                            for line in self.standings(t, entries, rounds, handles)]
        return doc

    def standings(self, t: Tournament, entries: list[Entry] | None = None,
                  rounds: list[Round] | None = None,
                  handles: dict[int, str | None] | None = None) -> list[dict[str, Any]]:
        """The standings after the latest round, best first: each line's ``rank``,
        ``entry`` (number), ``handle``, ``division``, ``points`` and tie-breaks."""
        entries = self.records.entries(t.id) if entries is None else entries
        rounds = self.records.rounds_of(t.id) if rounds is None else rounds
        if handles is None:
            handles = {e.entry: self.handle(e.email) for e in entries}
        seeded = self._seeded(t, entries, rounds) if rounds else \
            [str(e.entry) for e in entries]
        lines = final(self.spec(t), seeded, [played(r) for r in rounds])
        return [{
            "rank": n, "entry": int(line.id), "handle": handles.get(int(line.id)),
            "division": division, "points": round(line.points, 4), "score": line.score,
            "opponents": round(line.opponents, 4), "played": line.played,
            "byes": line.byes} for n, (line, division) in enumerate(lines, 1)]

    def handle(self, email: str) -> str | None:
        """The handle of the account ``email`` (None: no more)."""
        player = self.store.players.player(email)
        return player.handle if player else None


def played(r: Round) -> Played:
    """A stored round as the planner reads it."""
    return Played(r.season, r.seating, tuple(
        Planned(t.division, tuple(str(p) for p in t.seating), None if t.outcome is None
                else Result(tuple(str(p) for p in t.seating), tuple(t.outcome["scores"]),
                            frozenset(str(p) for p in t.outcome["left"])))
        for t in r.tables))
