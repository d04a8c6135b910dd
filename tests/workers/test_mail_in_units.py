"""The parts of play by e-mail on their own: reply addresses, reading a reply, telling
automatic mails, the settings."""

from __future__ import annotations

import email
import email.policy

import pytest

import engine
from service.settings import Settings, SettingsError
from workers import city, mail_auth, replies, reply_address

KEY = b"k" * 32
HASH = "ab" * 32


def test_a_reply_address_names_game_seat_and_version_and_verifies_only_unchanged():
    tag = reply_address.make_tag(KEY, "4ea4c0ffee123456", 2, 17, HASH)
    assert tag is not None and tag == tag.lower()
    addr = reply_address.address("moves@example.org", tag)
    assert addr.startswith("moves+4ea4c0ffee123456.2.17.") and len(addr.split("@")[0]) <= 64
    for seen in (addr, addr.upper(), f"<{addr}>"):
        read = reply_address.read("moves@example.org", seen)
        assert read == reply_address.Tag("4ea4c0ffee123456", 2, 17, tag.rsplit(".", 1)[1])
        assert reply_address.verify(KEY, read, HASH)
    read = reply_address.read("moves@example.org", addr)
    assert not reply_address.verify(KEY, read, "cd" * 32)  # the seat's token was rotated
    assert not reply_address.verify(KEY, read, None)  # an open seat
    assert not reply_address.verify(b"x" * 32, read, HASH)  # another server's key
    for other in ("moves@example.org", "moves+x@example.org", "other+" + addr[6:],
                  addr.replace("example.org", "example.com"), "not an address"):
        assert reply_address.read("moves@example.org", other) is None
    assert reply_address.make_tag(KEY, "a game", 0, 1, HASH) is None  # not a tag's id


TOP = "take 2\n\nThanks, see you\n-- \nAnn\n"
OUTLOOK = """buy A17 pay DI5
place A17 at 1,-1

________________________________
From: Alhambra <game@example.org>
Sent: Monday, 3 March 2025 10:00
To: Ann <ann@example.org>
Subject: [Alhambra 4ea4] Your turn, move 17

Reply with one of these lines:
  take 1
"""
GERMAN = """Take 1

Am Mo., 3. März 2025 um 10:00 Uhr schrieb Alhambra <game@example.org>:
> Reply with one of these lines:
>   take 2
"""
IPHONE = "take 3; take 4\n\nSent from my iPhone\n\n> On 3 Mar 2025, at 10:00, A wrote:\n> take 1\n"


@pytest.mark.parametrize("text,lines", [
    (TOP, ["take 2"]), (OUTLOOK, ["buy A17 pay DI5", "place A17 at 1,-1"]),
    (GERMAN, ["Take 1"]), (IPHONE, ["take 3; take 4"]), ("\n\n  \n", []),
    ("> take 1\n\nOn Mon, 3 Mar 2025 at 10:00, A <a@b.c> wrote:\n> --\n> x\n\ntake 4\n",
     ["take 4"]),
])
def test_the_moves_are_the_first_lines_above_the_quote_and_the_signature(text, lines):
    assert replies.reply_lines(text) == lines


@pytest.mark.parametrize("language", replies.LANGUAGES)
@pytest.mark.parametrize("move", ["take 3", "Take 1,2", "buy A17 pay DI5", "end", "status",
                                  "help", "place A17 at 1,0", "redesign swap A17 with A20"])
def test_no_language_takes_a_move_for_a_signature(language, move, monkeypatch):
    """(The Danish signature "Tak" took "take 3" for one.)"""
    monkeypatch.setattr(replies, "LANGUAGES", [language])
    assert replies.reply_lines(f"{move}\n") == [move]
    assert replies.reply_lines(f"\n{move}\n\nOn Mon, 3 Mar 2025, A <a@b.c> wrote:\n> x\n") == [
        move]
    assert replies.reply_lines(f"take 1\n{move}\n") == ["take 1", move]


def test_reading_moves_commands_and_errors():
    r = replies.read(["BUY a17 PAY di5 ,  di3", "place A17 at 1 , -1"])
    assert r.kind == "moves" and r.understood == ["buy A17 pay DI5,DI3", "place A17 at 1,-1"]
    assert replies.read(["take 1; take 2"]).understood == ["take 1", "take 2"]
    assert replies.read(["Status"]).kind == "status" and replies.read(["help."]).kind == "help"
    assert replies.read([]).kind == "empty"
    bad = replies.read(["take 1", "take 2 x"])
    assert bad.kind == "unreadable" and bad.line == 2 and bad.error.position == 8
    assert bad.understood == ["take 1"]
    with pytest.raises(engine.NotationError) as exc:
        engine.parse_moves("take 2 x")
    assert exc.value.position == bad.error.position


def _msg(headers: str) -> email.message.EmailMessage:
    return email.message_from_string(headers + "\n\ntake 1\n", policy=email.policy.default)


@pytest.mark.parametrize("headers,envelope,why", [
    ("From: a@b.c", None, None),
    ("From: a@b.c\nAuto-Submitted: no", None, None),
    ("From: a@b.c\nPrecedence: first-class", None, None),
    ("From: a@b.c\nAuto-Submitted: auto-replied", None, "Auto-Submitted"),
    ("From: a@b.c\nAuto-Submitted: auto-generated", None, "Auto-Submitted"),
    ("From: a@b.c\nPrecedence: Bulk", None, "Precedence"),
    ("From: a@b.c\nList-Id: <games.lists.example.org>", None, "List-Id"),
    ("From: Mail Delivery System <MAILER-DAEMON@b.c>", None, "MAILER-DAEMON"),
    ("From: postmaster@b.c", None, "postmaster"),
    ("From: a@b.c\nReturn-Path: <>", None, "Return-Path"),
    ("From: a@b.c", "", "envelope"),
    ("From: a@b.c", "mailer-daemon@b.c", "mailer-daemon"),
    ("From: a@b.c", "MAILER-DAEMON", "MAILER-DAEMON"),  # a Postfix pipe's null sender
    ("From: a@b.c", "<>", "envelope"),
    ("From: a@b.c", "player@b.c", None),
    ("From: a@b.c\nX-Autoreply: yes", None, "X-Autoreply"),
    ("From: a@b.c\nX-Autorespond: on vacation", None, "X-Autorespond"),
    ("From: a@b.c\nX-Auto-Response-Suppress: All", None, "X-Auto-Response-Suppress"),
    ("From: a@b.c\nPrecedence: auto_reply", None, "Precedence"),
    ("From: a@b.c\nList-Unsubscribe: <mailto:x@lists.b.c>", None, "List-Unsubscribe"),
    ("From: Mail Delivery System <MAILER-DAEMON>", None, "MAILER-DAEMON"),
])
def test_automatic_mails_are_told_apart(headers, envelope, why):
    said = mail_auth.automatic(_msg(headers), envelope)
    assert (said is None) == (why is None) and (why is None or why in said), said


@pytest.mark.parametrize("value", [
    "ann@example.org", "<Ann@Example.ORG>", "Ann Smith <ann@example.org>",
    '"Smith, Ann" <ann@example.org>', "Ann (at home) <ann@example.org>",
    '"ann@example.org" <ann@example.org>', "=?utf-8?q?J=C3=BCrgen?= <ann@example.org>",
])
def test_a_plain_from_is_read_as_its_address(value):
    assert mail_auth.sender(_msg(f"From: {value}")) == "ann@example.org"
    raw = "From: Jürgen <ann@example.org>\n\ntake 1\n".encode()  # a raw UTF-8 name
    assert mail_auth.sender(email.message_from_bytes(raw, policy=email.policy.default)) == \
        "ann@example.org"


@pytest.mark.parametrize("headers", [
    "", "From: ann@example.org\nFrom: eve@evil.example", "From: ann@example.org.",
    "From: Ann @ home <ann@example.org>", "From: =?utf-8?q?Ann_=3Ceve=40evil=2Eexample=3E?= "
    "<ann@example.org>", "From: undisclosed-recipients:;",
])
def test_a_from_that_is_not_one_clear_address_is_refused(headers):
    with pytest.raises(mail_auth.Refused):
        mail_auth.sender(_msg(headers or "Subject: no From"))


AR = "Authentication-Results: mx.ours.test; "


@pytest.mark.parametrize("headers,passes", [
    ("", ()),
    (AR + "dkim=pass header.d=example.org", ("dkim", "any")),
    (AR + "dkim=pass header.i=@mail.example.org", ("dkim", "any")),  # relaxed alignment
    (AR + "dkim=pass header.d=example.org.uk", ()),  # another organisation
    (AR + "dkim=pass header.d=org", ()),  # a public suffix is no organisation
    (AR + "dkim=neutral header.d=example.org", ()),
    (AR + "dkim=pass", ()),  # no domain
    (AR + "spf=pass smtp.mailfrom=bounce@news.example.org", ("spf", "any")),
    (AR + "spf=pass smtp.mailfrom=evil.example", ()),
    (AR + "spf=softfail smtp.mailfrom=example.org", ()),
    (AR + "dkim=fail header.d=example.org; spf=pass smtp.mailfrom=example.org",
     ("spf", "any")),
    ("Authentication-Results: MX.OURS.TEST 1; dkim=pass header.d=EXAMPLE.ORG",
     ("dkim", "any")),
    ("Authentication-Results: mx.evil.example; dkim=pass header.d=example.org\n"
     "Authentication-Results: mx.ours.test.evil.example; spf=pass smtp.mailfrom=example.org",
     ()),  # other authserv-ids: anyone can write those
    ("Authentication-Results: mx.ours.test; dkim=pass header.d=example.org; bro=ken ken",
     ("dkim", "any")),
    ("Authentication-Results: mx.ours.test; not a result", ()),
], ids=lambda v: v if isinstance(v, str) and len(v) < 12 else None)
def test_only_an_aligned_pass_of_our_mta_authenticates(headers, passes):
    msg = _msg("From: Ann <ann@example.org>" + (f"\n{headers}" if headers else ""))
    for mode in ("dkim", "spf", "any"):
        if mode in passes:
            mail_auth.authenticate(msg, "ann@example.org", mode, "mx.ours.test")
        else:  # no header of ours at all: the milter is missing (issue 34.6)
            ours = any(line.split(";")[0].split()[1:2] == ["mx.ours.test"]
                       for line in headers.lower().split("\n") if line)
            with pytest.raises(mail_auth.Unauthenticated if not ours else mail_auth.Refused,
                               match="no Authentication-Results of mx.ours.test says" if ours
                               else "no Authentication-Results header of mx.ours.test at all"):
                mail_auth.authenticate(msg, "ann@example.org", mode, "mx.ours.test")
    mail_auth.authenticate(msg, "ann@example.org", "none", None)  # MAIL_IN_AUTH=none


@pytest.mark.parametrize("domain,organisation", [
    ("example.org", "example.org"), ("Mail.Example.ORG.", "example.org"),
    ("a.b.example.co.uk", "example.co.uk"), ("co.uk", "co.uk"),
    ("ann.github.io", "ann.github.io"),  # the list's private part counts too
])
def test_organisational_domains(domain, organisation):
    assert mail_auth.organisational_domain(domain) == organisation


def test_message_ids_keep_only_ids():
    assert replies.message_ids("<a@b>  <c@d>\r\n\tBcc: x@y") == ["<a@b>", "<c@d>"]
    assert replies.message_ids(None) == []


def test_mail_settings(tmp_path):
    s = Settings.from_env({"ALHAMBRA_DATA": str(tmp_path), "MAIL_REPLY_TO": " Moves@Example.ORG ",
                           "MAIL_IN_LISTEN": "0.0.0.0:2525", "MAIL_IN_MAX_SIZE": "4096"})
    assert s.mail_reply_to == "moves@example.org" and s.mail_in_address == ("0.0.0.0", 2525)
    assert s.mail_in_max_size == 4096
    assert (s.mail_in_auth, s.mail_in_authserv_id, s.mail_in_answers_per_hour) == (
        "none", None, 10)  # the defaults
    auth = Settings.from_env({"ALHAMBRA_DATA": str(tmp_path), "MAIL_IN_AUTH": " DKIM ",
                              "MAIL_IN_AUTHSERV_ID": "mx.example.org",
                              "MAIL_IN_ANSWERS_PER_HOUR": "4"})
    assert (auth.mail_in_auth, auth.mail_in_authserv_id, auth.mail_in_answers_per_hour) == (
        "dkim", "mx.example.org", 4)
    again = Settings.from_env(auth.environ())  # as serve hands them to its children
    assert (again.mail_in_auth, again.mail_in_authserv_id, again.mail_in_answers_per_hour) \
        == ("dkim", "mx.example.org", 4)
    again = Settings.from_env(s.environ())
    assert (again.mail_reply_to, again.mail_in_listen, again.mail_in_max_size) == (
        s.mail_reply_to, s.mail_in_listen, s.mail_in_max_size)
    assert Settings(mail_reply_to="m@x", mail_in_listen="[::1]:25").mail_in_address == ("::1", 25)
    for bad in ({"MAIL_REPLY_TO": "moves+x@example.org"}, {"MAIL_REPLY_TO": "moves"},
                {"MAIL_REPLY_TO": "Moves <m@x>"},
                {"MAIL_REPLY_TO": "m@x", "MAIL_IN_LISTEN": "2525"},
                {"MAIL_IN_LISTEN": "127.0.0.1:2525"},  # without MAIL_REPLY_TO
                {"MAIL_IN_MAX_SIZE": "big"}, {"MAIL_IN_AUTH": "dmarc"},
                {"MAIL_IN_AUTH": "dkim"},  # without MAIL_IN_AUTHSERV_ID
                {"MAIL_IN_AUTH": "spf", "MAIL_IN_AUTHSERV_ID": "mx.example.org; x"},
                {"MAIL_IN_ANSWERS_PER_HOUR": "0"}, {"MAIL_IN_ANSWERS_PER_HOUR": "many"}):
        with pytest.raises(SettingsError):
            Settings.from_env({"ALHAMBRA_DATA": str(tmp_path), **bad})




def test_the_city_as_a_text_picture():
    tiles = [{"id": "A00", "type": "start", "value": 0, "walls": [], "x": 0, "y": 0},
             {"id": "A40", "type": "garden", "value": 10, "walls": ["n"], "x": 0, "y": -1},
             {"id": "A16", "type": "arcades", "value": 5, "walls": ["n", "w"], "x": -1,
              "y": -1},
             {"id": "A05", "type": "pavilion", "value": 6, "walls": ["n", "e"], "x": 1,
              "y": -1}]
    doc = city.__doc__.split("::\n\n", 1)[1].rstrip().split("\n")
    assert city.picture(tiles) == [line[4:] for line in doc]  # the docstring's picture
    granada = [{"id": "G00", "type": "start", "value": 0, "moats": [], "x": 0, "y": 0},
               {"id": "G38", "type": "bath_house", "value": 10, "moats": ["w", "s"],
                "x": 1, "y": 0}]
    assert city.picture(granada) == [
        "       0      1",
        "    .......+.......",
        "  0 . G00  : G38  .",
        "    .  **  :bat 10.",
        "    .......+======+",
    ]
    assert city.picture([]) == []
