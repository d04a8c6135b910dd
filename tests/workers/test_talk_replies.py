"""The talk lines of a mail reply (workers/replies.py, issue 27): ``say`` (the lines after
it), ``say: …``, ``tell 2: …`` / ``tell Bob: …``, ``note: …``; the moves around them read
as before; the words in every language of the catalogs."""

from __future__ import annotations

from workers.replies import Said, first_block, latest_lines, read, split_talk


def test_one_line_forms_and_moves_together():
    talked = split_talk(["take 3", "say: good luck!", "tell 2: let's team up",
                         "tell Bob: hi: there", "note: Bob collects towers"])
    assert talked.rest == ["take 3"]
    assert talked.said == [Said("good luck!"), Said("let's team up", 2),
                           Said("hi: there", "Bob")]
    assert talked.note == "Bob collects towers"
    assert read(first_block(talked.rest)).understood == ["take 3"]


def test_say_alone_takes_the_lines_after_it_blank_ones_too():
    text = "take 3\nSay\nAway until Monday.\n\nSee you all!\n\nOn Mon, a@b wrote:\n> quoted"
    talked = split_talk(latest_lines(text))
    assert talked.rest == ["take 3"]
    assert talked.said == [Said("Away until Monday.\n\nSee you all!")]


def test_words_of_other_languages_and_what_is_not_talk():
    talked = split_talk(["sano: onnea", "передать 1: привет", "muistiinpano: tornit"])
    assert talked.said == [Said("onnea"), Said("привет", 1)] and talked.note == "tornit"
    plain = split_talk(["say hello", "tell: nobody", "take 3"])
    assert plain.said == [] and plain.rest == ["say hello", "tell: nobody", "take 3"]
