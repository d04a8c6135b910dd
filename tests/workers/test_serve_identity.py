"""Identity you can trust (issue 39), each probe of the players' layer tried again
against a running ``alhambra-pbem serve`` (embedded Redis and worker, mails in the data
folder's outbox), with real HTTP: what an attacker got before, refused now."""

from __future__ import annotations

import email
import email.policy
import random
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from service import times
from tests.support import GameHandle, Http, play_random, start_serve, stop_serve, wait_until

CODE = re.compile(r"\b([A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4})\b")


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


class Served:
    def __init__(self, base: str, data: Path) -> None:
        self.http = Http(base)
        self.data = data

    def mails(self, pattern: str) -> list[email.message.EmailMessage]:
        return [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
                for p in sorted((self.data / "outbox").glob(pattern))]

    def sign_in_mails(self, address: str) -> list[email.message.EmailMessage]:
        return [m for m in self.mails("sign-in-*.eml") if m["To"] == address]

    def sign_in(self, address: str) -> str:
        """A player token of ``address``, by the code its sign-in mail carries."""
        before = len(self.sign_in_mails(address))
        assert self.http.post("/players/sign-in", {"email": address}).status_code == 202
        mail = wait_until(lambda: self.sign_in_mails(address)[before:] or None, 30,
                          what=f"a sign-in mail to {address}")[-1]
        code = CODE.search(mail.get_body(("plain",)).get_content()).group(1)
        r = self.http.post("/players/session", {"code": code})
        assert r.status_code == 201, r.get_json()
        return r.get_json()["token"]

    def due(self, game_id: str, kind: str, what: str = "state, result") -> list[tuple]:
        """The game's due work of ``kind`` (read from the served database)."""
        with sqlite3.connect(f"file:{self.data / 'alhambra.db'}?mode=ro", uri=True) as db:
            return db.execute(f"select {what} from due where game_id = ? and kind = ? "
                              f"order by id", (game_id, kind)).fetchall()

    def game(self, seats: list[dict], **extra: Any) -> GameHandle:
        r = self.http.post("/games", {"seats": seats, **extra})
        assert r.status_code == 201, r.get_json()
        doc = r.get_json()
        return GameHandle(self.http, doc["game_id"], [s["token"] for s in doc["seats"]],
                          doc["host_token"], doc["invite_code"], doc)


@contextmanager
def running(tmp: Path, *args: str, env: dict[str, str]) -> Iterator[Served]:
    """``alhambra-pbem serve --workers 1 ARGS`` in ``tmp`` with ``env``, once healthy;
    stopped at the end."""
    proc, base, log = start_serve(tmp, "--workers", "1", *args, env=env)
    try:
        wait_until(lambda: proc.poll() is not None or _healthy(base), 30, 0.1, "the API")
        assert proc.poll() is None, (tmp / "serve.log").read_text()[-3000:]
        yield Served(base, tmp / "data")
    finally:
        stop_serve(proc, [], log)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with running(tmp_path_factory.mktemp("identity"), env={
            "ALHAMBRA_LIMIT_SIGN_IN": "200/hour", "ALHAMBRA_LIMIT_SIGN_IN_ADDRESS": "5/hour",
            "ALHAMBRA_LIMIT_SESSION": "30/hour"}) as served:
        yield served


def _healthy(base: str) -> bool:
    try:
        return Http(base).get("/health").status_code == 200
    except OSError:
        return False


def test_probe_1_no_rating_for_an_address_nobody_verified(served):
    """Before: a game naming a stranger's address and one's own second address, played
    out with both tokens, rated the stranger (a loss under a name the attacker chose)."""
    game = served.game([{"name": "Framed", "email": "stranger@example.org"},
                        {"name": "Sybil", "email": "sybil@example.org"}])
    doc = play_random(game, random.Random(3))
    assert doc["status"] == "over"
    assert wait_until(lambda: [r for r in served.due(game.id, "rating")
                               if r[0] == "done"] or None, 30,
                      what="the rating job") == [("done", "unrated")]
    board = served.http.get("/ratings?variant=alhambra").get_json()["ratings"]
    assert not [r for r in board if r["name"] in ("Framed", "Sybil")]
    # the stranger's games do not list it; the sybil's own claim rates nothing alone
    stranger = served.sign_in("stranger@example.org")
    assert served.http.get("/me/games?status=finished",
                           headers=bearer(stranger)).get_json()["games"] == []
    sybil = served.sign_in("sybil@example.org")
    r = served.http.post(f"/games/{game.id}/seats/1/claim", {}, headers=bearer(sybil))
    assert r.status_code == 201, r.get_json()
    assert served.http.get("/me", headers=bearer(sybil)).get_json()["ratings"] == []
    # nor may the sybil claim the stranger's seat
    r = served.http.post(f"/games/{game.id}/seats/0/claim", {}, headers=bearer(sybil))
    assert r.status_code == 403 and r.get_json()["code"] == "not_your_invitation"


def test_probe_1b_a_join_with_someone_elses_address_is_not_theirs(served):
    r = served.http.post("/games", {"players": 3, "public": True,
                                    "seats": [{"name": "Host", "email": "h1@example.org"}]})
    gid = r.get_json()["game_id"]
    r = served.http.post(f"/games/{gid}/join", {"name": "Fake",
                                                "email": "celebrity@example.org"})
    assert r.status_code == 201
    creator_token = r.get_json()["token"]
    celebrity = served.sign_in("celebrity@example.org")
    assert served.http.get("/me/games", headers=bearer(celebrity)).get_json()["games"] == []
    offered = served.http.get("/me/invitations", headers=bearer(celebrity)).get_json()
    assert [(g["game_id"], g["seat"], g["token"]) for g in offered["games"]] == \
        [(gid, 1, None)]
    # claimed: it is the celebrity's, under a token the joiner never saw
    r = served.http.post(f"/games/{gid}/seats/1/claim", {}, headers=bearer(celebrity))
    assert r.status_code == 201 and r.get_json()["token"] != creator_token
    assert served.http.get(f"/games/{gid}", headers=bearer(creator_token)).status_code == 401
    mine = served.http.get("/me/games", headers=bearer(celebrity)).get_json()["games"]
    assert [(g["game_id"], g["seat"]) for g in mine] == [(gid, 1)]


def test_probe_2_sign_in_mails_are_counted_on_the_address_they_go_to(served):
    """Before: ``victim@ｅxample.org`` and other spellings each got a fresh budget."""
    spellings = ["victim@ｅxample.org", "VICTIM@example.org", "Victim@Example.ORG",
                 "victim@ｅｘａｍｐｌｅ.org", "victim@example.org", "vIctim@EXAMPLE.org",
                 "ｖictim@example.org", "victim@example.ORG"]
    statuses = [served.http.post("/players/sign-in", {"email": s}).status_code
                for s in spellings]
    assert statuses == [202] * 5 + [429] * 3
    wait_until(lambda: len(served.sign_in_mails("victim@example.org")) == 5 or None, 30,
               what="five sign-in mails")
    assert {m["To"] for m in served.mails("sign-in-*.eml")} >= {"victim@example.org"}
    assert not [m for m in served.mails("sign-in-*.eml") if "ｅ" in m["To"]]


def test_probe_3_wrong_codes_never_lock_out_the_right_one(served):
    """Before: after 30 wrong codes from one address, the genuine code got 429."""
    address = "cafe.player@example.org"
    assert served.http.post("/players/sign-in", {"email": address}).status_code == 202
    mail = wait_until(lambda: served.sign_in_mails(address) or None, 30, what="the mail")[0]
    code = CODE.search(mail.get_body(("plain",)).get_content()).group(1)
    wrong = [served.http.post("/players/session", {"code": f"AAAA-BBBB-{i:04d}"})
             for i in range(31)]
    assert [r.status_code for r in wrong] == [401] * 30 + [429]
    assert "wrong sign-in codes" in wrong[-1].get_json()["detail"]
    right = served.http.post("/players/session", {"code": code})
    assert right.status_code == 201, right.get_json()


def test_probe_4_no_talk_mails_to_an_address_that_never_agreed(served):
    """Before: the creator set a victim seat's talk to at_once with the token he held and
    wrote from his other seats: 30 message mails in a minute."""
    game = served.game([{"name": "Victim", "email": "quiet@example.org"},
                        {"name": "Me", "email": "loud1@example.org"},
                        {"name": "Also me", "email": "loud2@example.org"}])
    mine = served.sign_in("loud2@example.org")
    r = served.http.post(f"/games/{game.id}/seats/2/claim", {}, headers=bearer(mine))
    game.tokens[2] = r.get_json()["token"]
    for seat in (0, 2):  # the victim's by its held token; seat 2 by its claimed player
        r = served.http.put(f"/games/{game.id}/talk", {"mail_messages": "at_once"},
                            headers=bearer(game.tokens[seat]))
        assert r.status_code == 200, r.get_json()
    # the started mails first (a mail that went later would show the talk itself)
    wait_until(lambda: served.due(game.id, "started") and
               all(state == "done" for state, _ in served.due(game.id, "started")), 30,
               what="the started mails")
    for i in range(5):
        r = served.http.post(f"/games/{game.id}/messages", {"text": f"spam {i}"},
                             headers=bearer(game.tokens[1]))
        assert r.status_code == 201, r.get_json()
    # the claimed seat that chose it is mailed each at once, the victim's seat none
    assert served.due(game.id, "message", "seat") == [(2,)] * 5
    wait_until(lambda: served.mails(f"{game.id}-*message*seat2.eml") or None, 30,
               what="seat 2's message mail")
    assert served.mails(f"{game.id}-*message*seat0.eml") == []


def test_probe_6_vacations_that_stop_games(served):
    """Before: 42 days in a row accepted; 40 edits of a vacation not begun each wrote an
    event into the opponent's game, whose move at the version it had read got 409."""
    game = served.game([{"name": "Away", "email": "away.often@example.org"},
                        {"name": "Rival", "email": "rival@example.org"}])
    player = served.sign_in("away.often@example.org")
    r = served.http.post(f"/games/{game.id}/seats/0/claim", {}, headers=bearer(player))
    game.tokens[0] = r.get_json()["token"]
    start = times.now() + timedelta(days=2)

    def go(since, days):
        return served.http.patch("/me", {"vacation": {
            "from": times.to_text(since), "until": times.to_text(since + timedelta(days))}},
            headers=bearer(player))

    long = go(start, 42)
    assert long.status_code == 422 and long.get_json()["code"] == "vacation_refused"
    version = game.get()["version"]
    for i in range(40):
        assert go(start + timedelta(hours=i), 3).status_code == 200
    assert game.get()["version"] == version  # not begun: no game changed
    assert go(times.now(), 1).status_code == 200  # begun: recorded at once
    assert game.get()["version"] == version + 1
    seat = game.get()["current_seat"]
    take = next(m for m in game.notations(seat) if m.startswith("take"))
    assert game.submit(seat, take, version=version).status_code == 201


def test_answers_with_tokens_or_addresses_are_never_stored_by_a_cache(served):
    r = served.http.post("/games", {"seats": [{"name": "A", "email": "a.cache@example.org"},
                                              {"name": "B"}]})
    assert r.status_code == 201 and r.headers["Cache-Control"] == "no-store"
    doc = r.get_json()
    seat = served.http.get(f"/games/{doc['game_id']}",
                           headers=bearer(doc["seats"][0]["token"]))
    assert seat.headers["Cache-Control"] == "no-store"
    player = served.sign_in("a.cache@example.org")
    mine = served.http.get("/me/games", headers=bearer(player))
    assert mine.headers["Cache-Control"] == "no-store"
    assert served.http.get("/me", headers=bearer(player)).headers["Cache-Control"] == \
        "no-store"


@pytest.mark.parametrize("seats", [
    [{"name": "\u3164"}, {"name": "Bob"}],                    # Hangul filler
    [{"name": "\u2800\u2800"}, {"name": "Bob"}],              # braille blanks
    [{"name": "Alice"}, {"name": "\u0410lice"}],              # Cyrillic А beside Latin A
    [{"name": "Ann"}, {"name": "Ann"}],                       # the same name twice
    [{"name": "ann"}, {"name": " ANN "}],                     # ... in another case
    [{"name": "the host"}, {"name": "Bob"}],                  # the host's signature
    [{"name": "THE HOST"}, {"name": "Bob"}],
    [{"name": "e" + "\u0301" * 39}, {"name": "Bob"}],         # 39 combining marks
    [{"name": "Ann\u200b"}, {"name": "Bob"}],                 # a zero-width space
])
def test_probe_8_names_that_impersonate_are_refused(served, seats):
    r = served.http.post("/games", {"seats": seats})
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["code"] in ("validation_error", "names_alike"), r.get_json()


def test_probe_8_a_join_may_not_read_like_a_seat_taken(served):
    game = served.game([{"name": "Alice"}], players=3)
    r = served.http.post(f"/games/{game.id}/join", {"invite_code": game.invite_code,
                                                   "name": "\u0410LICE"})
    assert r.status_code == 422 and r.get_json()["code"] == "names_alike", r.get_json()
    assert r.get_json()["seats"] == [0]
    ok = served.http.post(f"/games/{game.id}/join", {"invite_code": game.invite_code,
                                                    "name": "Alicia"})
    assert ok.status_code == 201, ok.get_json()


def test_probe_8_names_people_write_are_kept(served):
    seats = [{"name": "Zoë"}, {"name": "Nguyễn"}, {"name": "Ελένη"}, {"name": "Host"}]
    assert [s["name"] for s in served.game(seats).created["seats"]] == \
        ["Zoë", "Nguyễn", "Ελένη", "Host"]


@pytest.mark.parametrize("text", ["\u200fevil", "\u061cevil", "one\u2028two", "\ufeffhi",
                                  "zero\u200bwidth", "e\u202ereversed"])
def test_probe_8_messages_refuse_invisible_formatting(served, text):
    game = served.game([{"name": "A"}, {"name": "B"}])
    r = served.http.post(f"/games/{game.id}/messages", {"text": text},
                         headers=bearer(game.tokens[0]))
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["code"] == "message_control_characters"
    assert served.http.get(f"/games/{game.id}/messages",
                           headers=bearer(game.tokens[1])).get_json()["messages"] == []
    kept = "👩\u200d👩\u200d👧 family, and lines\nand\ttabs"  # joiners stay
    r = served.http.post(f"/games/{game.id}/messages", {"text": kept},
                         headers=bearer(game.tokens[0]))
    assert r.status_code == 201 and r.get_json()["text"] == kept


def test_the_host_deletes_only_messages_it_can_read(served):
    """Before: the host deleted a private message it could not read (204)."""
    game = served.game([{"name": "A"}, {"name": "B"}])
    private = served.http.post(f"/games/{game.id}/messages", {"text": "just you", "to": 1},
                               headers=bearer(game.tokens[0])).get_json()
    public = served.http.post(f"/games/{game.id}/messages", {"text": "all"},
                              headers=bearer(game.tokens[0])).get_json()
    host = bearer(game.host_token)
    for message_id in (private["id"], 0, -1, 10**25, 999):
        r = served.http.open(f"/games/{game.id}/messages/{message_id}", "DELETE",
                             headers=host)
        assert r.status_code == 404, (message_id, r.get_json())
    seen = served.http.get(f"/games/{game.id}/messages", headers=bearer(game.tokens[1]))
    assert [m["text"] for m in seen.get_json()["messages"]] == ["just you", "all"]
    r = served.http.open(f"/games/{game.id}/messages/{public['id']}", "DELETE", headers=host)
    assert r.status_code == 204


def test_probe_7_a_record_import_is_all_or_nothing(served):
    """Before: a message ``version`` of 10^25 answered 500 and left the game stored
    without its messages."""
    game = served.game([{"name": "A"}, {"name": "B"}])
    play_random(game, random.Random(7))
    r = served.http.get(f"/games/{game.id}/record", headers=bearer(game.tokens[0]))
    doc = r.get_json()
    message = {"from": 0, "text": "gg", "created_at": times.to_text(times.now())}

    def stored() -> tuple[int, int]:
        with sqlite3.connect(f"file:{served.data / 'alhambra.db'}?mode=ro", uri=True) as db:
            return (db.execute("select count(*) from games").fetchone()[0],
                    db.execute("select count(*) from messages").fetchone()[0])

    before = stored()
    for version in (10**25, 2**31, 10**6, -1, 2.5):  # 10**6: past the last
        bad = {**doc, "messages": [message, {**message, "version": version}]}
        r = served.http.post("/records", bad)
        assert r.status_code == 422 and r.get_json()["code"] == "invalid_record", \
            (version, r.get_json())
        assert "messages[1]" in r.get_json()["detail"]
    assert stored() == before
    good = {**doc, "messages": [message, {**message, "version": 1}]}
    r = served.http.post("/records", good)
    assert r.status_code == 201, r.get_json()
    assert stored() == (before[0] + 1, before[1] + 2)


def test_a_public_game_gives_one_seat_per_client_and_per_account(served):
    """Before: one client joined all 5 open seats of a public game, and one player token
    joined the same public game twice."""
    r = served.http.post("/games", {"players": 6, "public": True, "seats": [{"name": "H"}]})
    gid = r.get_json()["game_id"]
    first = served.http.post(f"/games/{gid}/join", {"name": "One"})
    again = served.http.post(f"/games/{gid}/join", {"name": "Two"})
    assert first.status_code == 201 and again.status_code == 429, again.get_json()
    player = served.sign_in("joins.twice@example.org")
    signed = served.http.post(f"/games/{gid}/join", {}, headers=bearer(player))
    twice = served.http.post(f"/games/{gid}/join", {"name": "Me again"},
                             headers=bearer(player))
    assert signed.status_code == 201, signed.get_json()
    assert twice.status_code == 409 and twice.get_json()["code"] == "already_seated"
    seats = served.http.get(f"/games/{gid}").get_json()["seats"]
    assert [s["joined"] for s in seats] == [True, True, True, False, False, False]
