"""Issue 27's "done when": a 3-player game whose players talk by page and by mail (table
and private), one mutes another, the host deletes a message; then every response, stream,
webhook body, export and mail of the game is read as each seat, as the host and as a
spectator, and none holds a message or note its reader must not see (while the ones it
must see are there). Real parts: the API, a worker process, the SMTP listener of mail-in,
an aiosmtpd sink, a local webhook receiver."""

from __future__ import annotations

import json
import random
import threading
import time

from service import create_app
from service.settings import Settings
from tests.service.test_replay_access import finish
from tests.support import auth, claimed, new_game, reply_to, smtp_send, wait_until
from tests.workers.test_webhooks import Receiver

READERS = ("p0", "p1", "p2", "host", "spectator")


class Talk:
    """The messages and notes written, and who may read each (the issue's rules)."""

    def __init__(self) -> None:
        self.messages: dict[str, tuple[int | None, int | None]] = {}  # token -> (from, to)
        self.deleted: set[str] = set()
        self.notes: dict[str, int] = {}  # token -> its seat
        self.muted: dict[int, set[int]] = {0: set(), 1: set(), 2: set()}

    def may_read(self, reader: str, token: str, sent_before: bool = False) -> bool:
        """``sent_before``: in what may have gone out before the deletions (a live stream,
        a mail): a deleted message as it was."""
        if token in self.notes:
            return reader == f"p{self.notes[token]}"
        if token in self.deleted and not sent_before:
            return False
        sender, to = self.messages[token]
        if reader in ("host", "spectator"):
            return reader == "host" and to is None
        seat = int(reader[1])
        if sender == seat:
            return True
        return (to is None or to == seat) and sender not in self.muted[seat]

    def tokens(self) -> list[str]:
        return [*self.messages, *self.notes]

    def check(self, reader: str, text: str, where: str, sent_before: bool = False) -> None:
        for token in self.tokens():
            if token in text:
                assert self.may_read(reader, token, sent_before), \
                    f"{where}: {reader} reads {token}"


def test_every_reader_reads_exactly_what_it_may(mail_stack, smtp, tmp_path):
    s = mail_stack
    h = new_game(s.client, 3)
    claimed(s.app, h, {2: "p2@example.org"})  # at-once mails go to claimed seats only
    tokens = {"p0": h.tokens[0], "p1": h.tokens[1], "p2": h.tokens[2],
              "host": h.host_token, "spectator": None}
    talk = Talk()
    receiver = Receiver({})
    receiver.thread.start()
    # a second API on the same database whose streams last a little (the test reads them)
    streams_app = create_app(Settings.from_env({**s.env, "ALHAMBRA_STREAM_SECONDS": "6"}))
    try:
        for reader in ("p0", "p1", "p2", "host"):
            r = s.client.post(f"/games/{h.id}/webhooks", json={"url": f"{receiver.url}/{reader}"},
                              headers=auth(tokens[reader]))
            assert r.status_code == 201, r.get_json()
        start = h.get()
        version, current = start["version"], start["current_seat"]
        (started,) = smtp.wait(h.id, "started", where=lambda m: m.version == version and
                               m.rcpt == [f"p{current}@example.org"])

        def api(reader, method, path, body=None):
            r = s.client.open(f"/games/{h.id}{path}", method=method, json=body,
                              headers=auth(tokens[reader]))
            assert r.status_code < 300, (path, r.get_json())
            return r.get_json(silent=True)

        def say(reader, token, to=None, extra=""):
            seat = None if reader == "host" else int(reader[1])
            api(reader, "POST", "/messages", {"text": f"{token} Καλή τύχη 🎲{extra}",
                                              "to": to})
            talk.messages[token] = (seat, to)

        # settings: p2 mutes p0 and wants each message at once; p1 keeps notes in its mails
        api("p2", "PUT", "/mutes/0")
        talk.muted[2].add(0)
        api("p2", "PUT", "/talk", {"mail_messages": "at_once"})
        api("p1", "PUT", "/talk", {"notes_in_mail": True})
        api("p1", "PUT", "/notes", {"text": "NOTEP1 Bob collects towers"})
        talk.notes["NOTEP1"] = 1

        # live streams of every reader, open while the page talk happens
        stream_texts: dict[str, str] = {}
        streams_client = streams_app.test_client()

        def read_stream(reader):
            r = streams_client.get(f"/games/{h.id}/stream?since={version}",
                                   headers=auth(tokens[reader]),
                                   environ_overrides={"wsgi.multithread": True})
            stream_texts[reader] = r.get_data(as_text=True)

        readers = [threading.Thread(target=read_stream, args=(r,)) for r in READERS]
        for t in readers:
            t.start()
        time.sleep(1.5)  # every stream open (its talk mark taken) before the talk
        # talk by page
        say("p0", "TABLEP0")
        say("p1", "PRIVP1TO0", to=0)
        say("p0", "PRIVP0TO2", to=2)  # muted by p2: p2 never reads it
        say("host", "TABLEHOST", extra=" <b>bold</b> https://example.org/x")
        say("p1", "TABLEP1GONE")
        gone = api("p0", "GET", "/messages")["messages"][-1]
        api("host", "DELETE", f"/messages/{gone['id']}")  # p2's mail of it may be out
        talk.deleted.add("TABLEP1GONE")
        say("p2", "PRIVP2TO1", to=1)
        for t in readers:
            t.join()

        # talk by mail: the seat to move replies with a move and talk together
        other = (current + 1) % 3
        move = next(line for line in started.part("plain").split("\n")
                    if line.strip().startswith("take"))
        body = (f"{move.strip()}\nsay: MAILTABLE{current} from the mail\n"
                f"tell {other + 1}: MAILPRIV{current}TO{other} psst\n"
                f"tell 0: NOBODY\n"  # mails count seats from 1 (issue 34)
                f"note: NOTEMAIL{current} remember the market")
        smtp_send(s.listener.port, reply_to(started, body))
        talk.messages[f"MAILTABLE{current}"] = (current, None)
        talk.messages[f"MAILPRIV{current}TO{other}"] = (current, other)
        talk.notes[f"NOTEMAIL{current}"] = current
        if current == 1:
            del talk.notes["NOTEP1"]  # replaced: no one should read it any more...
            talk.notes["NOTEP1"] = 1  # ...but p1's earlier mails may hold it (its own)
        (answer,) = smtp.wait(h.id, None, where=lambda m: m.kind.startswith("answer-"))
        assert "Your message to everyone was sent." in answer.part("plain")
        assert f"Your message to P{other} was sent." in answer.part("plain")
        assert "there is no seat 0: the seats are numbered 1 to 3" in answer.part("plain")
        assert "Your notes were replaced." in answer.part("plain")
        assert wait_until(lambda: api(f"p{current}", "GET", "/notes")["text"].startswith(
            f"NOTEMAIL{current}"))
        # p2's at-once mails came through the due work
        smtp.wait(h.id, None, where=lambda m: m.kind.startswith("message-") and
                  m.rcpt == ["p2@example.org"])
        # the next seat's turn mail shows the talk since its last mail
        after = h.get()["version"]
        turn = smtp.wait(h.id, "your_turn", where=lambda m: m.version == after)[0]
        turn_seat = int(turn.rcpt[0][1])
        turn_text = turn.part("plain")
        assert "Table talk since your last mail:" in turn_text
        others = [s for s in range(3) if s != turn_seat]  # counted from 1, as on the page
        assert " ".join(turn_text.split()).count(
            f"\"tell {others[0] + 1}: …\" (seat {others[0] + 1} only); seats: "
            + ", ".join(f"{s + 1} P{s}" for s in others) + ".") == 1
        shown = "".join(m.part("plain") for m in smtp.of(h.id)
                        if m.rcpt == turn.rcpt and m.at < turn.at)  # (at-once mails)
        for token in talk.messages:
            if talk.may_read(f"p{turn_seat}", token) and talk.messages[token][0] != turn_seat:
                assert (token in turn_text) != (token in shown), (token, turn_seat)
        assert "TABLEP1GONE" not in turn_text + answer.part("plain")  # deleted before
        htmls = [m.part("html") for m in smtp.of(h.id) if "TABLEHOST" in m.part("html")]
        assert htmls
        for html in htmls:  # text in the HTML part too: escaped, no link made
            assert "&lt;b&gt;bold&lt;/b&gt;" in html and "<b>bold" not in html
            assert 'href="https://example.org/x"' not in html

        # the game goes to its end: the records (each reader's export) can be read
        finish(s.games, h.id, random.Random(27))
        wait_until(lambda: len(smtp.of(h.id, "game_over")) == 3, timeout=60)
        for reader in READERS:
            seen: list[tuple[str, str]] = []
            for path in ("", "/events", "/messages", "/record", "/legal-moves", "/notes",
                         "/talk", "/webhooks"):
                r = s.client.get(f"/games/{h.id}{path}", headers=auth(tokens[reader]))
                seen.append((path, r.get_data(as_text=True)))
            for where, text in seen:
                talk.check(reader, text, where)
            talk.check(reader, stream_texts[reader], "stream", sent_before=True)
            seen.append(("stream", stream_texts[reader]))
            every = "".join(text for _, text in seen)
            for token in talk.messages:  # and what it may read is there
                if talk.may_read(reader, token):
                    assert token in every, (reader, token)
            shown = {m["text"].split()[0] for m in json.loads(
                dict(seen)["/record"])["messages"] if m["text"]}
            assert shown == {t for t in talk.messages if talk.may_read(reader, t)}, reader
            if reader.startswith("p"):
                live = {line.split('"text":"')[1].split()[0]
                        for line in stream_texts[reader].split("\n")
                        if line.startswith("data:") and '"text":"' in line
                        and '"deleted":false' in line}
                assert live - talk.deleted == {  # (a deleted one may have gone out first)
                    t for t in talk.messages if talk.may_read(reader, t)
                    and not t.startswith("MAIL")}, reader
        # every mail of the game, as its recipient
        mails = smtp.of(h.id)
        assert mails
        for m in mails:
            reader = m.rcpt[0].split("@")[0]
            for part in ("plain", "html"):
                talk.check(reader, m.part(part), f"mail {m.kind} v{m.version}",
                           sent_before=True)
        # webhook bodies carry events only: no talk at all
        calls = receiver.of("/p0") + receiver.of("/p1") + receiver.of("/p2") + \
            receiver.of("/host")
        assert calls
        for call in calls:
            text = call["body"].decode()
            assert not any(token in text for token in talk.tokens()), call["path"]
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()
        streams_app.extensions["alhambra"].store.close()
