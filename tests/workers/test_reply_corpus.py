"""Every client's reply (issue 22): a corpus of replies as mutt, s-nail, Gmail, Outlook
(HTML only, each line its own <p>), Apple Mail, iPhone, K-9 Mail and Thunderbird write
them, in English, Russian, Greek, Finnish and Danish (tests/workers/replies/, one file per
client and language: attribution lines, quoting, signatures and HTML as each client
shapes them). Each file says what it asks (``X-Corpus-Expect``: the moves, ``|`` between
lines, or the command), and is read as mail-in reads a reply."""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

import pytest

from workers import replies

CORPUS = sorted((Path(__file__).parent / "replies").glob("*.eml"))
CLIENTS = ("mutt", "s-nail", "gmail", "outlook", "applemail", "iphone", "k9", "thunderbird")
LANGUAGES = ("en", "ru", "el", "fi", "da")


def test_the_corpus_has_every_client_in_every_language():
    assert {p.stem for p in CORPUS} == {f"{c}-{lang}" for c in CLIENTS for lang in LANGUAGES}


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_each_reply_reads_as_its_writer_meant(path):
    msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    expect = [x.strip() for x in str(msg["X-Corpus-Expect"]).split("|")]
    reading = replies.read(replies.reply_lines(replies.body_text(msg)))
    if expect[0] in replies.COMMANDS:
        assert reading.kind == expect[0], reading
    else:
        assert (reading.kind, reading.understood) == ("moves", expect), reading.lines


def test_a_greeting_is_skipped_only_when_the_rest_reads_as_moves():
    assert replies.read(["Привет!", "take 1"]).understood == ["take 1"]
    assert replies.read(["Hi Bob,", "Here goes:", "take 1"]).understood == ["take 1"]
    wrong = replies.read(["Привет!", "tkae 1"])
    assert (wrong.kind, wrong.line) == ("unreadable", 1)
    assert replies.read(["take 1", "Thanks"]).kind == "unreadable"  # only before the moves
    lines = replies.reply_lines("Hi,\n\nI am still thinking.\n\nAnn\n")
    assert lines == ["Hi,", "I am still thinking."]
    assert replies.read(lines).kind == "unreadable"
    # a quote header with nothing above: the reply is below it; with a reply above: cut
    assert replies.reply_lines("Bob <b@x.org> писал(а):\n> take 2\n\ntake 1") == ["take 1"]
    assert replies.reply_lines("take 1\n\nBob <b@x.org> писал(а):\ntake 2") == ["take 1"]
