"""The players' records (service/players.py and service/ratings.py are their rules):
sign-in requests (only the hash of a code), sessions (only the hash of a token), each
address's preferences, handle and vacation spans, its personal access tokens (only the
hash of each), the seats it claims, the ratings and the games rated."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from .. import times
from .access import Access
from .base import Player, PlayerToken, Rating, SignIn
from .dialect import as_time

PLAYER = ("email, created_at, language, notify, digest_hour, handle, is_bot, suspended_at, "
          "suspended_reason")
TOKEN = "id, email, description, scopes, created_at, last_used_at"
#: How stale a token's ``last_used_at`` may be before a use writes it again (seconds).
LAST_USED_STEP = 60
#: A rating with its player's handle as its name (never an address or a seat's name).
RATING = ("select r.email, r.variant, p.handle as name, r.mu, r.sigma, r.games, r.updated_at, "
          "p.is_bot "
          "from ratings r left join players p on p.email = r.email")


def _player(row: dict[str, Any]) -> Player:
    return Player(row["email"], row["created_at"], row["language"], row["notify"],
                  row["digest_hour"], row["handle"], bool(row["is_bot"]),
                  as_time(row["suspended_at"]), row["suspended_reason"])


def _token(row: dict[str, Any]) -> PlayerToken:
    created = as_time(row["created_at"])
    assert created is not None
    return PlayerToken(row["id"], row["email"], row["description"],
                       tuple(row["scopes"].split()), created, as_time(row["last_used_at"]),
                       row.get("suspended_at") is not None)


def _rating(row: dict[str, Any]) -> Rating:
    return Rating(**{**row, "updated_at": as_time(row["updated_at"])})


class PlayerRecords:
    def __init__(self, access: Access) -> None:
        self.a, self.d = access, access.d

    # -- signing in ---------------------------------------------------------------------

    def add_sign_in(self, sign_in: SignIn) -> None:
        """Keep a sign-in request; requests ended a day ago are forgotten."""
        s, t = sign_in, self.d.time
        with self.a.write() as db:
            db.execute("delete from sign_ins where expires_at < ?", (t(times.later(-86400)),))
            db.execute("insert into sign_ins (id, email, code_hash, created_at, expires_at, "
                       "language) values (?, ?, ?, ?, ?, ?)",
                       (s.id, s.email, s.code_hash, t(s.created_at), t(s.expires_at),
                        s.language))

    def sign_in(self, sign_in_id: str) -> SignIn | None:
        with self.a.read() as db:
            row = db.one("select id, email, code_hash, created_at, expires_at, language, "
                         "used_at from sign_ins where id = ?", (sign_in_id,))
        if row is None:
            return None
        return SignIn(**{**row, "expires_at": as_time(row["expires_at"]),
                         "used_at": as_time(row["used_at"])})

    def use_sign_in(self, code_hash: str, at: datetime) -> str | None:
        """The address of this code's request, marked used at ``at``, if it is unused and
        not expired then (single use: of two uses at once one wins)."""
        with self.a.write() as db:
            email: str | None = db.scalar(
                "update sign_ins set used_at = ? where code_hash = ? and used_at is null "
                "and expires_at > ? returning email", (self.d.time(at), code_hash,
                                                       self.d.time(at)))
        return email

    def add_session(self, token_hash: str, email: str, at: datetime) -> list[str]:
        """A session of ``email`` (the player made at its first); the seats from before
        claims that name the address become its (one per game): their games' ids."""
        with self.a.write() as db:
            db.execute("insert into players (email, created_at) values (?, ?) "
                       "on conflict do nothing", (email, self.d.time(at)))
            db.execute("insert into player_sessions (token_hash, email, created_at) "
                       "values (?, ?, ?)", (token_hash, email, self.d.time(at)))
            rows = db.query("select game_id, seat from seats where claim_on_sign_in = ? and "
                            "lower(email) = ? and claimed_by is null order by game_id, seat",
                            (True, email))
            claimed: list[str] = []
            for r in rows:
                if r["game_id"] not in claimed and db.execute(
                        "update seats set claimed_by = ?, claim_on_sign_in = ? where "
                        "game_id = ? and seat = ? and not exists (select 1 from seats o "
                        "where o.game_id = ? and o.claimed_by = ?)",
                        (email, False, r["game_id"], r["seat"], r["game_id"], email)) == 1:
                    claimed.append(r["game_id"])
        return claimed

    def add_player(self, email: str, at: datetime) -> None:
        """The account of ``email`` (its address proven otherwise than by signing in)."""
        with self.a.write() as db:
            db.execute("insert into players (email, created_at) values (?, ?) "
                       "on conflict do nothing", (email, self.d.time(at)))

    def claim(self, game_id: str, seat: int, email: str, generation: int, token_hash: str
              ) -> bool:
        """The seat becomes the account ``email``'s with a new token (its hash, of
        ``generation``) and its table talk's mails as by default: if nobody claimed it,
        its token is at ``generation - 1`` still and the account holds no other seat of
        the game (False otherwise: nothing changed)."""
        with self.a.write() as db:
            if db.execute("update seats set claimed_by = ?, claim_on_sign_in = ?, "
                          "token_hash = ?, token_generation = ? "
                          "where game_id = ? and seat = ? and claimed_by is null and "
                          "token_generation = ? and bot is null and not exists (select 1 "
                          "from seats o where o.game_id = ? and o.claimed_by = ?)",
                          (email, False, token_hash, generation, game_id, seat,
                           generation - 1,
                           game_id, email)) != 1:
                return False
            db.execute("update talk set mail_messages = 'with_next' where game_id = ? and "
                       "seat = ?", (game_id, seat))
        return True

    def set_handle(self, email: str, handle: str, key: str) -> bool:
        """The player's handle, and the key no other handle may share; False if another
        player's handle has that key."""
        with self.a.write() as db:
            if db.scalar("select 1 from players where handle_key = ? and email <> ?",
                         (key, email)):
                return False
            return db.execute("update players set handle = ?, handle_key = ? where "
                              "email = ?", (handle, key, email)) == 1

    def set_bot(self, email: str, bot: bool) -> bool:
        """Mark the account a bot account or not; False if it holds a seat or a rating
        (games played as one kind of player stay so)."""
        with self.a.write() as db:
            return db.execute(
                "update players set is_bot = ? where email = ? and not exists (select 1 "
                "from seats where claimed_by = ?) and not exists (select 1 from ratings "
                "where email = ?)", (self.d.encode("is_bot", bot), email, email,
                                     email)) == 1

    def session_player(self, token_hash: str) -> Player | None:
        with self.a.read() as db:
            row = db.one(f"select {', '.join('p.' + c for c in PLAYER.split(', '))} "
                         f"from player_sessions s join players p on p.email = s.email "
                         f"where s.token_hash = ?", (token_hash,))
        return _player(row) if row else None

    def delete_session(self, token_hash: str) -> bool:
        with self.a.write() as db:
            return db.execute("delete from player_sessions where token_hash = ?",
                              (token_hash,)) == 1

    # -- personal access tokens ----------------------------------------------------------

    def add_token(self, token: PlayerToken, token_hash: str, most: int) -> bool:
        """Keep the account's new token (by its hash) unless it holds ``most`` already
        (False: nothing kept)."""
        t = token
        with self.a.write() as db:
            self.d.lock_name(db, f"tokens {t.email}")
            if db.scalar("select count(*) from player_tokens where email = ?",
                         (t.email,)) >= most:
                return False
            db.execute("insert into player_tokens (id, email, token_hash, description, "
                       "scopes, created_at) values (?, ?, ?, ?, ?, ?)",
                       (t.id, t.email, token_hash, t.description, " ".join(t.scopes),
                        self.d.time(t.created_at)))
        return True

    def tokens(self, email: str) -> list[PlayerToken]:
        """The account's tokens, oldest first."""
        with self.a.read() as db:
            rows = db.query(f"select {TOKEN} from player_tokens where email = ? "
                            f"order by created_at, id", (email,))
        return [_token(r) for r in rows]

    def delete_token(self, email: str, token_id: str) -> bool:
        """Forget the account's token ``token_id``; False if it has none such."""
        with self.a.write() as db:
            return db.execute("delete from player_tokens where id = ? and email = ?",
                              (token_id, email)) == 1

    def token(self, token_hash: str, at: datetime) -> PlayerToken | None:
        """The token of this hash, used at ``at`` (kept to the minute: a write at most
        once a minute per token)."""
        with self.a.read() as db:
            row = db.one(f"select {', '.join('t.' + c for c in TOKEN.split(', '))}, "
                         f"p.suspended_at from player_tokens t join players p on "
                         f"p.email = t.email where t.token_hash = ?", (token_hash,))
        if row is None:
            return None
        found = _token(row)
        if found.last_used_at is None or \
                (at - found.last_used_at).total_seconds() >= LAST_USED_STEP:
            with self.a.write() as db:
                db.execute("update player_tokens set last_used_at = ? where id = ?",
                           (self.d.time(at), found.id))
        return found

    # -- what happened in an account's games (its stream: service/blueprints/me_stream.py)

    def account_changes(self, email: str, since: datetime
                        ) -> tuple[list[tuple[str, int, int, datetime]],
                                   list[tuple[str, int, datetime]]]:
        """What was written at ``since`` or later in the games of the seats ``email``
        claimed: their event batches (game, first version, version, time) and their
        messages (game, id, time), in no order."""
        with self.a.read() as db:
            batches = db.query(
                "select b.game_id, b.first, b.version, b.at from seats s "
                "join games g on g.id = s.game_id join event_batches b on "
                "b.game_id = s.game_id where s.claimed_by = ? and g.updated_at >= ? and "
                "b.at >= ?", (email, self.d.time(since), self.d.batch_at(since)))
            messages = db.query(
                "select m.game_id, m.id, m.created_at from seats s join messages m on "
                "m.game_id = s.game_id where s.claimed_by = ? and m.created_at >= ?",
                (email, self.d.time(since)))
        return ([(r["game_id"], r["first"], r["version"], self.d.batch_time(r["at"]))
                 for r in batches],
                [(r["game_id"], r["id"], as_time(r["created_at"]))  # type: ignore[misc]
                 for r in messages])

    # -- an account's data, for the player (GET /me/export) ------------------------------

    def export(self, email: str) -> dict[str, list[dict[str, Any]]]:
        """Every row the service keeps of the account ``email``, by table: its own
        (preferences, sessions, personal tokens, sign-in requests, vacations, ratings, the
        handles it blocked, the reports it filed, notification channels: an Apprise
        URL's secrets left out),
        the seats claimed by it or offered to its address with their talk settings and
        notes, the invitations it sent and its answers to those it was sent, the
        messages those seats wrote, and the mails to its address that failed or were
        answered. Hashes of secrets (tokens, codes) are left out: they are no data about
        the player, only locks."""
        seats = ("(select game_id, seat from seats where claimed_by = ? or lower(email) = ?)")
        queries = {
            "players": ("select email, created_at, language, notify, digest_hour, "
                        "digest_day, handle from players where email = ?", 1),
            "player_sessions": ("select created_at from player_sessions where email = ? "
                                "order by created_at", 1),
            "player_tokens": (f"select {TOKEN} from player_tokens where email = ? "
                              "order by created_at", 1),
            "sign_ins": ("select created_at, expires_at, used_at, language from sign_ins "
                         "where lower(email) = ? order by created_at", 1),
            "player_vacations": ("select since, until, created_at from player_vacations "
                                 "where email = ? order by since", 1),
            "invitations": ("select id, settings, status, game_id, created_at, expires_at, "
                            "closed_at from invitations where inviter = ? order by "
                            "created_at", 1),
            "invitees": ("select invitation_id, position, answer, answered_at from invitees "
                         "where email = ? order by invitation_id", 1),
            "tournament_entries": ("select tournament_id, entry, joined_at, withdrawn_at, "
                                   "inactive from tournament_entries where email = ? "
                                   "order by joined_at", 1),
            "ratings": ("select variant, name, mu, sigma, games, updated_at from ratings "
                        "where email = ? order by variant", 1),
            "seats": ("select s.game_id, g.variant, g.status, s.seat, s.name, s.email, "
                      "s.joined_at, s.bot, s.language, s.claimed_by, s.mail_failures, "
                      "s.mail_failing, s.thread_subject from seats s join games g on "
                      "g.id = s.game_id where s.claimed_by = ? or lower(s.email) = ? "
                      "order by g.created_at, s.game_id", 2),
            "talk": ("select game_id, seat, muted, mail_messages, notes, notes_in_mail from "
                     f"talk where (game_id, seat) in {seats} order by game_id", 2),
            "messages": ("select game_id, id, sender, recipient, text, version, created_at, "
                         "deleted_at from messages where (game_id, sender) in "
                         f"{seats} order by game_id, id", 2),
            "notify_channels": ("select id, kind, case when kind = 'push' then target end "
                                "as target, events, created_at, failures, last_error, "
                                "last_sent_at from notify_channels where email = ? "
                                "order by id", 1),
            "mail_failures": ("select game_id, seat, reason, permanent, at from "
                              "mail_failures where address = ? order by id", 1),
            "mail_answers": ("select allowed_at from mail_answers where address = ? "
                             "order by allowed_at", 1),
            "blocks": ("select p.handle, b.created_at from blocks b left join players p on "
                       "p.email = b.blocked where b.blocker = ? order by b.created_at", 1),
            "reports": ("select id, game_id, message_id, target_handle, reason, created_at, "
                        "closed_at from reports where reporter = ? order by id", 1),
        }
        address = email.lower()
        with self.a.read() as db:
            return {table: db.query(sql, (address,) * n) for table, (sql, n) in
                    queries.items()}

    def erase(self, email: str, anonymous: str, placeholder: str) -> None:
        """Forget the account ``email`` in one transaction: its rows go (preferences,
        sessions, personal tokens, sign-in requests, vacations, the mails to its address
        that failed or were answered, the blocks it made or was the target of); its
        reports and the operator's records of it name ``anonymous``; its seats are called
        ``placeholder``, lose the address and their notes, and stay claimed by
        ``anonymous`` (its ratings too: the games stay rated, by nobody one can name); the
        seats merely offered to its address lose the address."""
        address, false = email.lower(), self.d.encode("claim_on_sign_in", False)
        mine = "(select game_id, seat from seats where claimed_by = ?)"
        with self.a.write() as db:
            db.execute(f"update talk set notes = '' where (game_id, seat) in {mine}",
                       (address,))
            db.execute("update seats set name = ?, email = null, claimed_by = ?, "
                       "claim_on_sign_in = ?, mail_failing = null, thread_subject = null "
                       "where claimed_by = ?", (placeholder, anonymous, false, address))
            db.execute("update seats set email = null, claim_on_sign_in = ?, mail_failing = "
                       "null where lower(email) = ?", (false, address))
            db.execute("update ratings set email = ?, name = null where email = ?",
                       (anonymous, address))
            db.execute("update invitations set inviter = ? where inviter = ?",
                       (anonymous, address))
            db.execute("update invitees set email = ? where email = ?", (anonymous, address))
            db.execute("update tournament_entries set email = ? where email = ?",
                       (anonymous, address))
            db.execute("update tournaments set organiser = ? where organiser = ?",
                       (anonymous, address))
            for table in ("player_tokens", "player_sessions", "player_vacations",
                          "notify_channels", "players"):
                db.execute(f"delete from {table} where email = ?", (address,))
            db.execute("delete from sign_ins where lower(email) = ?", (address,))
            for table in ("mail_answers", "mail_failures"):
                db.execute(f"delete from {table} where address = ?", (address,))
            db.execute("delete from blocks where blocker = ? or blocked = ?",
                       (address, address))
            db.execute("update reports set reporter = ? where reporter = ?",
                       (anonymous, address))
            for table in ("reports", "moderation_log"):
                db.execute(f"update {table} set target = ? where target = ?",
                           (anonymous, address))

    # -- preferences, digests, vacations ------------------------------------------------

    def player(self, email: str) -> Player | None:
        with self.a.read() as db:
            row = db.one(f"select {PLAYER} from players where email = ?", (email,))
        return _player(row) if row else None

    def player_by_handle(self, handle: str) -> Player | None:
        """The player whose handle is ``handle`` (as kept: service/players.handle)."""
        with self.a.read() as db:
            row = db.one(f"select {PLAYER} from players where handle = ?", (handle,))
        return _player(row) if row else None

    def update_player(self, email: str, changes: dict[str, Any]) -> Player:
        """Set some of ``language``, ``notify``, ``digest_hour``; the player (KeyError:
        none)."""
        cols = [c for c in ("language", "notify", "digest_hour") if c in changes]
        if cols:
            with self.a.write() as db:
                db.execute(f"update players set {', '.join(f'{c} = ?' for c in cols)} "
                           f"where email = ?", (*(changes[c] for c in cols), email))
        player = self.player(email)
        if player is None:
            raise KeyError(email)
        return player

    def digest_players(self, hour: int | None) -> list[Player]:
        """The players on the digest whose hour is ``hour`` (None: every hour)."""
        with self.a.read() as db:
            rows = db.query(f"select {PLAYER} from players where notify = 'digest' and "
                            f"(cast(? as integer) is null or digest_hour = ?) order by email",
                            (hour, hour))
        return [_player(r) for r in rows]

    def mark_digest(self, email: str, day: str) -> bool:
        """Take the player's digest of ``day``: True once per day (whoever asks first)."""
        with self.a.write() as db:
            return db.execute("update players set digest_day = ? where email = ? and "
                              "(digest_day is null or digest_day <> ?)",
                              (day, email, day)) == 1

    def vacations(self, email: str) -> list[tuple[datetime, datetime]]:
        with self.a.read() as db:
            rows = db.query("select since, until from player_vacations where email = ? "
                            "order by since", (email,))
        return [(as_time(r["since"]), as_time(r["until"])) for r in rows]  # type: ignore[misc]

    def set_vacation(self, email: str, since: datetime | None, until: datetime | None,
                     at: datetime) -> None:
        """A change at ``at``: the spans end at ``at`` at the latest (one not begun is
        dropped), then (since, until) is added (None: none)."""
        t = self.d.time
        with self.a.write() as db:
            db.execute("delete from player_vacations where email = ? and since >= ?",
                       (email, t(at)))
            db.execute("update player_vacations set until = ? where email = ? and until > ?",
                       (t(at), email, t(at)))
            if since is not None and until is not None:
                db.execute("insert into player_vacations (email, since, until, created_at) "
                           "values (?, ?, ?, ?)", (email, t(since), t(until), t(at)))

    # -- ratings ------------------------------------------------------------------------

    def ratings(self, variant: str, emails: Sequence[str]) -> dict[str, Rating]:
        if not emails:
            return {}
        with self.a.read() as db:
            rows = db.query(f"{RATING} where r.variant = ? and r.email in "
                            f"({', '.join('?' * len(emails))})", (variant, *emails))
        return {r["email"]: _rating(r) for r in rows}

    def rate(self, game_id: str, before: Sequence[Rating], after: Sequence[Rating]) -> str:
        """Record a finished game's new ratings once: ``rated``, ``already`` (nothing
        written), or ``conflict`` (a rating changed since ``before`` was read: nothing
        written)."""
        stamp = self.d.time(times.now())
        with self.a.write() as db:
            for variant in sorted({r.variant for r in after}):
                self.d.lock_name(db, f"ratings {variant}")
            if db.scalar("select 1 from rated_games where game_id = ?", (game_id,)):
                return "already"
            for old in before:
                games = db.scalar("select games from ratings where email = ? and "
                                  "variant = ?", (old.email, old.variant))
                if (games or 0) != old.games:
                    return "conflict"
            db.executemany(
                "insert into ratings (email, variant, name, mu, sigma, games, updated_at) "
                "values (?, ?, ?, ?, ?, ?, ?) on conflict (email, variant) do update set "
                "name = excluded.name, mu = excluded.mu, sigma = excluded.sigma, "
                "games = excluded.games, updated_at = excluded.updated_at",
                [(r.email, r.variant, r.name, r.mu, r.sigma, r.games, stamp) for r in after])
            db.execute("insert into rated_games (game_id, rated_at) values (?, ?)",
                       (game_id, stamp))
        return "rated"

    def leaderboard(self, variant: str, limit: int = 50) -> list[Rating]:
        with self.a.read() as db:
            rows = db.query(f"{RATING} where r.variant = ? order by r.mu - 3 * r.sigma "
                            f"desc, r.email limit ?", (variant, limit))
        return [_rating(r) for r in rows]

    def ratings_of(self, email: str) -> list[Rating]:
        with self.a.read() as db:
            rows = db.query(f"{RATING} where r.email = ? order by r.variant", (email,))
        return [_rating(r) for r in rows]
