"""Languages over HTTP (issue 24 §2): a seat's language at creation, on joining and
changed later; problem details and the events' words in the request's Accept-Language
(codes and rule ids the same in every language); the pages' JSON catalogs; the rules page's
headings."""

from __future__ import annotations

import pytest

from engine import terms
from service import i18n
from tests.support import auth, check_problem, new_game

GAME = "0123456789abcdef"


def test_a_seat_chooses_its_language_when_created_or_joining_and_changes_it(client):
    r = client.post("/games", json={"seats": [{"name": "Ann", "language": "fi-FI"},
                                              {"name": "Bob", "language": "ru"}],
                                    "players": 3})
    assert r.status_code == 201, r.get_json()
    created = r.get_json()
    gid, ann = created["game_id"], created["seats"][0]["token"]
    r = client.post(f"/games/{gid}/join", json={"invite_code": created["invite_code"],
                                                "name": "Cid", "language": "el"})
    assert r.status_code == 201, r.get_json()
    cid = r.get_json()["token"]
    doc = client.get(f"/games/{gid}").get_json()
    assert [s["language"] for s in doc["seats"]] == ["fi", "ru", "el"]

    r = client.put(f"/games/{gid}/seats/0/language", json={"language": "da"},
                   headers=auth(ann))
    assert r.status_code == 200 and r.get_json() == {"game_id": gid, "seat": 0,
                                                     "language": "da"}
    assert client.get(f"/games/{gid}").get_json()["seats"][0]["language"] == "da"
    # another seat's token may not, nor may no token; an unknown language is refused
    check_problem(client.put(f"/games/{gid}/seats/0/language", json={"language": "en"},
                             headers=auth(cid)), 403, "forbidden")
    check_problem(client.put(f"/games/{gid}/seats/0/language", json={"language": "en"}),
                  401, "unauthorized")
    for bad in ("xx", "", "fi FI", "de", 7, None):
        r = client.put(f"/games/{gid}/seats/0/language", json={"language": bad},
                       headers=auth(ann))
        check_problem(r, 422, "validation_error")
    assert client.get(f"/games/{gid}").get_json()["seats"][0]["language"] == "da"


def test_a_bots_seat_has_no_language_and_a_seat_may_choose_none(client):
    r = client.post("/games", json={"seats": [{"name": "Ann"}, {"bot": "random",
                                                                "language": "fi"}]})
    check_problem(r, 422, "validation_error")
    r = client.post("/games", json={"seats": [{"name": "Ann"}, {"bot": "random"}]})
    assert [s["language"] for s in r.get_json()["game"]["seats"]] == [None, None]


@pytest.mark.parametrize(("accept", "lang"), [
    ("fi", "fi"), ("ru-RU,ru;q=0.9,en;q=0.8", "ru"), ("de, el;q=0.5", "el"),
    ("da-DK", "da"), ("de", "en"), (None, "en")])
def test_problem_details_follow_accept_language(client, accept, lang):
    headers = {"Accept-Language": accept} if accept else {}
    r = client.get(f"/games/{GAME}", headers=headers)
    doc = check_problem(r, 404, "game_not_found")
    assert doc["detail"] == i18n.say(i18n.msg("there is no game {game}", game=repr(GAME)),
                                     lang)
    assert r.headers["Content-Language"] == lang
    assert "Accept-Language" in r.headers.get("Vary", "")


def test_a_broken_rule_is_explained_in_the_readers_language_with_the_same_rule_id(client):
    h = new_game(client, 3)
    seat = h.get()["current_seat"]
    answers = {}
    for lang in i18n.LANGUAGES:
        r = h.submit(seat, "place A01 at 1,0", h.get()["version"],
                     headers={"Accept-Language": lang})
        answers[lang] = check_problem(r, 422, "rule_violation")
    assert {a["rule"] for a in answers.values()} == {"A-3.4"}
    assert {a["type"] for a in answers.values()} == {"http://localhost/rules#A-3.4"}
    details = {lang: a["detail"] for lang, a in answers.items()}
    assert len(set(details.values())) == 5  # five languages, five sentences
    assert details["en"] == ("there is no tile to place now: tiles are placed after the "
                             "turn's actions")
    assert details["fi"].startswith("nyt ei ole rakennettavaa laattaa")
    # notation that cannot be read: its column and what was expected, in words
    r = h.submit(seat, "tkae 2", h.get()["version"], headers={"Accept-Language": "ru"})
    doc = check_problem(r, 422, "notation_error")
    assert doc["position"] == 1 and doc["detail"].startswith("столбец 1: ожидалось")
    assert "или" in doc["expected"]


def test_the_events_words_follow_accept_language(client):
    h = new_game(client, 2)
    events = {lang: client.get(f"/games/{h.id}/events?since=0",
                               headers={"Accept-Language": lang}).get_json()["events"]
              for lang in i18n.LANGUAGES}
    dealt = {lang: next(e["text"] for e in items if e["event"]["type"] == "money_dealt")
             for lang, items in events.items()}
    assert "was dealt" in dealt["en"] and "получает при раздаче" in dealt["ru"]
    dirk = {lang: next(e["text"] for e in items if e["event"]["type"] == "neutral_received")
            for lang, items in events.items()}
    assert dirk["el"].startswith(i18n.say(terms.NEUTRALS["Dirk"], "el"))  # Ντιρκ
    # the same events, only their words differ
    assert {lang: [e["event"] for e in items] for lang, items in events.items()} == \
        {lang: [e["event"] for e in events["en"]] for lang in events}


def test_the_pages_catalogs_are_public_resources(client):
    for lang in i18n.LANGUAGES:
        r = client.get(f"/i18n/{lang}.json")
        assert r.status_code == 200 and r.headers["Content-Language"] == lang
        assert "public" in r.headers["Cache-Control"]
        doc = r.get_json()
        assert doc["language"] == lang
        assert doc["messages"]["building\x04tower"] == i18n.say(terms.NAMES["tower"], lang)
    ru = client.get("/i18n/ru.json").get_json()["messages"]["{n} card"]
    assert ru == {"one": "{n} карта", "few": "{n} карты", "many": "{n} карт"}
    check_problem(client.get("/i18n/xx.json"), 404, "not_found")


def test_the_rules_page_has_its_headings_in_the_readers_language(client):
    page = client.get("/rules?lang=el").get_data(as_text=True)
    assert '<html lang="el">' in page
    assert "A-4 Κανόνες κτισίματος</h3>" in page and 'id="A-4.3"' in page
    assert "The headings are translated" not in page  # said in Greek
    page = client.get("/rules", headers={"Accept-Language": "fi"}).get_data(as_text=True)
    assert "A-4 Rakentamissäännöt</h3>" in page
    assert "A-4 Building rules</h3>" in client.get("/rules").get_data(as_text=True)
