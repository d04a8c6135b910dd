"""The players' records (service/players.py and service/ratings.py are their rules):
sign-in requests (only the hash of a code), sessions (only the hash of a token), each
address's preferences and vacation spans, the ratings and the games rated."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from .. import times
from .access import Access
from .base import Player, Rating, SignIn
from .dialect import as_time

PLAYER = "email, created_at, language, notify, digest_hour"
RATING = "email, variant, name, mu, sigma, games, updated_at"


def _player(row: dict[str, Any]) -> Player:
    return Player(row["email"], row["created_at"], row["language"], row["notify"],
                  row["digest_hour"])


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

    def add_session(self, token_hash: str, email: str, at: datetime) -> Player:
        """A session of ``email`` (the player made at its first); the player."""
        with self.a.write() as db:
            db.execute("insert into players (email, created_at) values (?, ?) "
                       "on conflict do nothing", (email, self.d.time(at)))
            db.execute("insert into player_sessions (token_hash, email, created_at) "
                       "values (?, ?, ?)", (token_hash, email, self.d.time(at)))
        player = self.player(email)
        assert player is not None
        return player

    def session_player(self, token_hash: str) -> Player | None:
        with self.a.read() as db:
            row = db.one("select p.email, p.created_at, p.language, p.notify, p.digest_hour "
                         "from player_sessions s join players p on p.email = s.email "
                         "where s.token_hash = ?", (token_hash,))
        return _player(row) if row else None

    def delete_session(self, token_hash: str) -> bool:
        with self.a.write() as db:
            return db.execute("delete from player_sessions where token_hash = ?",
                              (token_hash,)) == 1

    # -- preferences, digests, vacations ------------------------------------------------

    def player(self, email: str) -> Player | None:
        with self.a.read() as db:
            row = db.one(f"select {PLAYER} from players where email = ?", (email,))
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
            rows = db.query(f"select {RATING} from ratings where variant = ? and email in "
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
            rows = db.query(f"select {RATING} from ratings where variant = ? order by "
                            f"mu - 3 * sigma desc, email limit ?", (variant, limit))
        return [_rating(r) for r in rows]

    def ratings_of(self, email: str) -> list[Rating]:
        with self.a.read() as db:
            rows = db.query(f"select {RATING} from ratings where email = ? order by variant",
                            (email,))
        return [_rating(r) for r in rows]
