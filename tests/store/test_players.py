"""The store's players (base.py, "players"), held against both stores: sign-in requests
(single use, expiry), sessions, preferences, and a player's seats across games."""

from __future__ import annotations

import threading
from datetime import timedelta

from service import times
from service.store import GameUpdate, SignIn
from tests.store.test_contract import make_game


def request(store, sid: str, email: str = "ann@example.org", minutes: int = 15,
            code_hash: str | None = None) -> SignIn:
    now = times.now()
    sign_in = SignIn(sid, email, code_hash or f"hash-{sid}", now,
                     now + timedelta(minutes=minutes), "fi")
    store.players.add_sign_in(sign_in)
    return sign_in


def test_a_sign_in_is_kept_and_used_once(store):
    request(store, "s1")
    kept = store.players.sign_in("s1")
    assert kept is not None and kept.email == "ann@example.org" and kept.language == "fi"
    assert kept.used_at is None and store.players.sign_in("nope") is None
    assert store.players.use_sign_in("hash-s1", times.now()) == "ann@example.org"
    assert store.players.use_sign_in("hash-s1", times.now()) is None  # single use
    assert store.players.sign_in("s1").used_at is not None
    assert store.players.use_sign_in("hash-unknown", times.now()) is None


def test_an_expired_sign_in_is_refused(store):
    request(store, "s2")
    assert store.players.use_sign_in("hash-s2", times.now() + timedelta(minutes=16)) is None
    assert store.players.use_sign_in("hash-s2", times.now()) == "ann@example.org"


def test_sign_ins_ended_a_day_ago_are_forgotten(store):
    request(store, "old", minutes=-(24 * 60 + 1))
    request(store, "new")
    assert store.players.sign_in("old") is None and store.players.sign_in("new") is not None


def test_one_code_used_at_once_by_many_is_used_once(store, spec):
    request(store, "race")
    got, barrier = [], threading.Barrier(6)

    def use():
        s = spec.open()
        try:
            barrier.wait()
            got.append(s.players.use_sign_in("hash-race", times.now()))
        finally:
            s.close()

    threads = [threading.Thread(target=use) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got.count("ann@example.org") == 1 and got.count(None) == 5


def test_sessions_make_the_player_and_end(store):
    assert store.players.player("ann@example.org") is None
    assert store.players.add_session("tok1", "ann@example.org", times.now()) == []
    player = store.players.player("ann@example.org")
    assert player.email == "ann@example.org" and player.notify == "turn"
    assert player.language is None
    store.players.add_session("tok2", "ann@example.org", times.now())  # a second device
    assert store.players.session_player("tok1") == store.players.session_player("tok2") == player
    assert store.players.delete_session("tok1") is True
    assert store.players.delete_session("tok1") is False
    assert store.players.session_player("tok1") is None
    assert store.players.session_player("tok2") == player


def test_preferences_change(store):
    store.players.add_session("tok", "bo@example.org", times.now())
    p = store.players.update_player("bo@example.org", {"language": "da", "notify": "none"})
    assert (p.language, p.notify) == ("da", "none")
    p = store.players.update_player("bo@example.org", {"notify": "digest"})
    assert (p.language, p.notify) == ("da", "digest")
    assert store.players.player("bo@example.org") == p


def test_a_players_seats_across_games(store):
    for gid in ("g1", "g2", "g3"):
        make_game(store, gid)  # seats p0@…, p1@…
    store.append("g3", 0, [{"type": "x"}], GameUpdate("over", "over", None, None))
    # an address written on a seat offers it; the account's seats are those it claimed
    offered = store.seats_of("P1@example.org", claimed=False)
    assert [(g.id, s.seat) for g, s in offered] == [("g1", 1), ("g2", 1)]
    assert store.seats_of("p1@example.org") == []
    assert store.players.claim("g1", 1, "p1@example.org", 1, "new-g1-1") is True
    assert store.players.claim("g1", 1, "p1@example.org", 1, "again") is False  # claimed
    assert store.players.claim("g1", 0, "p1@example.org", 1, "other") is False  # one a game
    assert store.players.claim("g2", 1, "p1@example.org", 2, "stale") is False  # rotated
    assert store.players.claim("g2", 1, "p1@example.org", 1, "new-g2-1") is True
    mine = store.seats_of("p1@example.org")
    assert [(g.id, s.seat) for g, s in mine] == [("g1", 1), ("g2", 1)]
    assert all(s.claimed_by == "p1@example.org" and s.token_generation == 1 and
               g.status == "active" for g, s in mine)
    assert store.seat_by_token_hash("tok-g1-1") is None  # the creator's copy: gone
    assert store.seat_by_token_hash("new-g1-1").seat == 1
    assert store.seats_of("p1@example.org", claimed=False) == []
    assert [g.id for g, _ in store.seats_of("p1@example.org", finished=True,
                                            claimed=False)] == ["g3"]
    assert store.seats_of("nobody@example.org") == []


def test_seats_from_before_claims_are_claimed_by_their_address_signing_in(store):
    from dataclasses import replace

    game = make_game(store, "old", 3)
    seats = [replace(s, claim_on_sign_in=True, email="same@example.org" if s.seat else
                     s.email) for s in store.game("old").seats]
    store.create_game(replace(game, id="old2"), [replace(s, game_id="old2",
                                                         token_hash=f"t2-{s.seat}")
                                                 for s in seats])
    assert store.players.add_session("t", "same@example.org", times.now()) == ["old2"]
    got = store.game("old2").seats
    assert [s.claimed_by for s in got] == [None, "same@example.org", None]  # one a game
    assert store.players.add_session("t2", "same@example.org", times.now()) == []


def test_a_handle_reads_like_no_other(store):
    store.players.add_session("a", "a@example.org", times.now())
    store.players.add_session("b", "b@example.org", times.now())
    assert store.players.set_handle("a@example.org", "alice", "alice") is True
    assert store.players.set_handle("b@example.org", "аlice", "alice") is False
    assert store.players.set_handle("a@example.org", "alice2", "alice2") is True  # its own
    assert store.players.player("a@example.org").handle == "alice2"
    assert store.players.set_handle("b@example.org", "alice", "alice") is True  # freed


def test_public_games_and_a_seat_opened_again(store):
    from dataclasses import replace

    game = make_game(store, "pub", status="open")
    assert store.game("pub").public is False
    store.create_game(replace(game, id="pub2", public=True), [])
    assert store.game("pub2").public is True
    assert [g.id for g in store.list_games(public=True)[0]] == ["pub2"]
    assert [g.id for g in store.list_games(public=False, status="open")[0]] == ["pub"]
    seat = store.game("pub").seats[1]
    assert store.unseat("pub", 1) is True
    opened = store.game("pub").seats[1]
    assert (opened.name, opened.email, opened.token_hash, opened.bot) == (None,) * 4
    assert opened.token_generation == seat.token_generation + 1
    assert store.seat_by_token_hash(seat.token_hash) is None
    assert store.unseat("pub", 1) is False  # open already
    assert store.join("pub", 1, "New", None, "tok-new") is True
    store.append("pub", 0, [{"type": "x"}], GameUpdate("active", "action", 0, None))
    assert store.unseat("pub", 1) is False  # started


def test_vacations_change_without_rewriting_the_past(store):
    t0 = times.now()
    day = timedelta(days=1)
    store.players.add_session("tv", "away@example.org", t0)
    store.players.set_vacation("away@example.org", t0 + day, t0 + 5 * day, t0)
    assert store.players.vacations("away@example.org") == [(t0 + day, t0 + 5 * day)]
    # two days in, it is cut short and a later one is planned
    store.players.set_vacation("away@example.org", t0 + 10 * day, t0 + 12 * day, t0 + 3 * day)
    assert store.players.vacations("away@example.org") == [(t0 + day, t0 + 3 * day),
                                                   (t0 + 10 * day, t0 + 12 * day)]
    # called off before it begins: gone; the past one stays
    store.players.set_vacation("away@example.org", None, None, t0 + 4 * day)
    assert store.players.vacations("away@example.org") == [(t0 + day, t0 + 3 * day)]
    assert store.players.vacations("nobody@example.org") == []


def test_ratings_are_written_once_per_game_and_never_over_a_newer_one(store):
    from service.store import Rating

    for gid in ("r1", "r2"):
        make_game(store, gid)
    store.players.add_session("ta", "a@x.org", times.now())
    store.players.set_handle("a@x.org", "ann", "ann")
    assert store.players.ratings("alhambra", ["a@x.org", "b@x.org"]) == {}
    before = [Rating("a@x.org", "alhambra", "A", 25, 8.3, 0),
              Rating("b@x.org", "alhambra", "B", 25, 8.3, 0)]
    after = [Rating("a@x.org", "alhambra", "A", 27, 7.8, 1),
             Rating("b@x.org", "alhambra", "B", 23, 7.8, 1)]
    assert store.players.rate("r1", before, after) == "rated"
    assert store.players.rate("r1", before, after) == "already"
    assert store.players.rate("r2", before, after) == "conflict"  # read before r1 was rated
    got = store.players.ratings("alhambra", ["a@x.org", "b@x.org", "c@x.org"])
    assert {e: (r.mu, r.sigma, r.games, r.name) for e, r in got.items()} == {
        "a@x.org": (27, 7.8, 1, "ann"), "b@x.org": (23, 7.8, 1, None)}  # handles only
    assert [r.email for r in store.players.leaderboard("alhambra")] == ["a@x.org", "b@x.org"]
    assert store.players.leaderboard("granada") == []
    assert [r.variant for r in store.players.ratings_of("a@x.org")] == ["alhambra"]
    assert store.players.rate("r2", list(got.values()), [Rating("a@x.org", "alhambra", "A", 28, 7,
                                                        2)]) == "rated"


def test_digest_players_and_one_digest_a_day(store):
    for email, hour in (("d1@x.org", 7), ("d2@x.org", 18), ("t@x.org", 7)):
        store.players.add_session(f"tok-{email}", email, times.now())
        store.players.update_player(email, {"notify": "digest" if email != "t@x.org" else "turn",
                                    "digest_hour": hour})
    assert store.players.player("d2@x.org").digest_hour == 18
    assert [p.email for p in store.players.digest_players(7)] == ["d1@x.org"]
    assert [p.email for p in store.players.digest_players(None)] == ["d1@x.org", "d2@x.org"]
    assert store.players.mark_digest("d1@x.org", "2027-01-01") is True
    assert store.players.mark_digest("d1@x.org", "2027-01-01") is False
    assert store.players.mark_digest("d1@x.org", "2027-01-02") is True


def test_personal_tokens_are_kept_by_hash_listed_and_deleted(store):
    """Issue 33: an account's personal tokens, by the hash of each; a use is written at
    most once a minute; deleting is the owner's only."""
    from service.store import PlayerToken

    now = times.now()
    store.players.add_player("ann@example.org", now)
    store.players.add_player("bob@example.org", now)
    one = PlayerToken("t1", "ann@example.org", "phone", ("read", "play"), now)
    assert store.players.add_token(one, "hash-1", 2)
    assert store.players.add_token(PlayerToken("t2", "ann@example.org", "bot", ("talk",),
                                               now + timedelta(seconds=1)), "hash-2", 2)
    assert not store.players.add_token(PlayerToken("t3", "ann@example.org", "more",
                                                   ("read",), now), "hash-3", 2)
    assert [(t.id, t.scopes) for t in store.players.tokens("ann@example.org")] == [
        ("t1", ("read", "play")), ("t2", ("talk",))]
    assert store.players.tokens("bob@example.org") == []
    found = store.players.token("hash-1", now)
    assert found is not None and found.email == "ann@example.org"
    assert found.last_used_at is None  # as it was before this use
    used = store.players.tokens("ann@example.org")[0].last_used_at
    assert used is not None and abs((used - now).total_seconds()) < 1
    store.players.token("hash-1", now + timedelta(seconds=30))  # within the minute
    assert store.players.tokens("ann@example.org")[0].last_used_at == used
    store.players.token("hash-1", now + timedelta(seconds=61))
    assert store.players.tokens("ann@example.org")[0].last_used_at > used
    assert store.players.token("hash-unknown", now) is None
    assert not store.players.delete_token("bob@example.org", "t1")  # not Bob's
    assert store.players.delete_token("ann@example.org", "t1")
    assert store.players.token("hash-1", now) is None
    assert [t.id for t in store.players.tokens("ann@example.org")] == ["t2"]


def test_an_accounts_export_reads_its_rows_on_both_stores(store):
    """Issue 38: the account's rows by table, its seats' messages and notes only."""
    from service.store import Message, Talk

    make_game(store, "g1")
    store.players.add_player("p1@example.org", times.now())
    assert store.players.claim("g1", 1, "p1@example.org", 1, "new-g1-1") is True
    store.talk.add(Message("g1", 0, 1, None, "mine", 0, times.now()))
    store.talk.add(Message("g1", 0, 0, 1, "theirs", 0, times.now()))
    store.talk.set(Talk("g1", 1, (0,), "at_once", "my notes", True))
    store.talk.set(Talk("g1", 0, (), "with_next", "their notes", False))
    rows = store.players.export("P1@example.org")
    assert [(s["game_id"], s["seat"]) for s in rows["seats"]] == [("g1", 1)]
    assert [m["text"] for m in rows["messages"]] == ["mine"]
    assert [(t["notes"], list(t["muted"])) for t in rows["talk"]] == [("my notes", [0])]
    assert [p["email"] for p in rows["players"]] == ["p1@example.org"]
