"""Game records (like PGN): the moves of a game in notation, with what is needed to replay
and verify them.

A record is a JSON document::

    {"format": "alhambra-pbem-record", "format_version": 2, "engine_version": "0.2.0",
     "schema": 2, "variant": "alhambra", "options": {...}, "seed": 42,
     "seats": ["Ann", "Bob"],
     "moves": [{"seat": 0, "move": "take 2"}, {"seat": 1, "move": "buy A17 pay DI9"}, ...],
     "result": {"scores": [81, 77], "winners": [0],
                "neutral": {"name": "Dirk", "score": 95}}}

``schema`` is the event schema the game was set up with (events.py); ``result`` is
present once the game is over, with ``neutral`` in two-player games; a move played by the
service when a seat's time ran out carries ``"timeout": true``.

Seats played by bots (S-2), all optional: ``bots`` (per seat, the level of a seat created
as a bot, else null), ``takeover_after_timeouts`` and ``takeover_bot`` (as in
``game_created``); a move a bot chose carries ``"bot": level``; a takeover is an entry
``{"seat": 1, "taken_over": "greedy", "reason": "resigned"}`` among the moves; the result
has ``left`` (per seat: ``resigned``, ``abandoned`` or null) when a seat was taken over.

Format 1 (engine 0.1.0) had no ``schema`` (its games are of schema 1) and no ``neutral``
in the result; it is still read. A format 2 record without ``schema`` is of schema 2.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from .errors import NotationError, OptionError, RuleViolation
from .events import Event, GameCreated
from .moves import parse_move
from .rules import new_game, play, take_over
from .state import State, evolve, replay
from .version import __version__
from .words import Msg, msg

FORMAT = "alhambra-pbem-record"
FORMAT_VERSION = 2


class RecordError(ValueError):
    """A record that does not replay: ``move_number`` (1-based, 0 for the header) and the
    ``rule`` broken, if any."""

    def __init__(self, move_number: int, message: Msg | str, rule: str | None = None
                 ) -> None:
        if move_number:
            said = msg("move {number}: {message} ({rule})", number=move_number,
                       message=message, rule=rule) if rule else \
                msg("move {number}: {message}", number=move_number, message=message)
        else:
            said = msg("record header: {message}", message=message)
        super().__init__(said)
        self.move_number = move_number
        self.rule = rule
        self.message = message


def export_record(events: list[Event], state: State | None = None) -> dict[str, Any]:
    """The record of the game whose log is ``events``."""
    created = cast(GameCreated, events[0])
    state = state or replay(events)
    moves = []
    for e in cast(list[Mapping[str, Any]], events):
        if "move" in e:
            entry = {"seat": e["seat"], "move": e["move"]}
            if e.get("timeout"):
                entry["timeout"] = True
            if e.get("bot"):
                entry["bot"] = e["bot"]
            moves.append(entry)
        elif e["type"] == "seat_taken_over":
            moves.append({"seat": e["seat"], "taken_over": e["bot"], "reason": e["reason"]})
    doc: dict[str, Any] = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "engine_version": __version__,
        "variant": created["variant"], "options": created["options"],
        "seed": created["seed"], "seats": created["seats"], "moves": moves,
    }
    doc["schema"] = created.get("schema", 1)
    for key in ("bots", "takeover_after_timeouts", "takeover_bot"):
        if key in created:
            doc[key] = created[key]
    if state.phase == "over":
        doc["result"] = {"scores": list(state.scores), "winners": list(state.winners)}
        if state.has_neutral:
            doc["result"]["neutral"] = {"name": state.variant.neutral_name,
                                        "score": state.neutral_score}
        if state.left:
            doc["result"]["left"] = [state.left.get(i) for i in range(state.players)]
    return doc


def import_record(doc: Any) -> list[Event]:
    """Replay ``doc`` and return the game's events; RecordError at the first problem."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise RecordError(0, msg("not a game record: 'format' must be {format}",
                                 format=repr(FORMAT)))
    if doc.get("format_version") not in (1, FORMAT_VERSION):
        raise RecordError(0, msg("unsupported format_version {given}; this engine reads 1 "
                                 "and {version}", given=repr(doc.get("format_version")),
                                 version=FORMAT_VERSION))
    for key, kind in (("variant", str), ("seats", list), ("moves", list)):
        if not isinstance(doc.get(key), kind):
            raise RecordError(0, msg("'{key}' must be a {kind}", key=key,
                                     kind=kind.__name__))
    if not isinstance(doc.get("seed"), int) or isinstance(doc.get("seed"), bool):
        raise RecordError(0, msg("'seed' must be an integer"))
    if not all(isinstance(s, str) for s in doc["seats"]):
        raise RecordError(0, msg("'seats' must be a list of names"))
    schema = doc.get("schema", doc["format_version"])
    if not isinstance(schema, int) or isinstance(schema, bool):
        raise RecordError(0, msg("'schema' must be an integer"))
    bots = doc.get("bots")
    after = doc.get("takeover_after_timeouts", 0)
    level = doc.get("takeover_bot")
    if bots is not None and (not isinstance(bots, list) or not all(
            b is None or isinstance(b, str) for b in bots)):
        raise RecordError(0, msg("'bots' must be a list of bot levels or nulls"))
    if not isinstance(after, int) or isinstance(after, bool) or \
            not (level is None or isinstance(level, str)):
        raise RecordError(0, msg("'takeover_after_timeouts' must be an integer and "
                                 "'takeover_bot' a bot level"))
    try:
        events = new_game(doc["variant"], doc["seats"], doc["seed"], doc.get("options") or {},
                          schema, bots=bots, takeover_after_timeouts=after,
                          takeover_bot=level)
    except OptionError as exc:
        raise RecordError(0, msg("{field}: {message}", field=exc.field,
                                 message=exc.args[0])) from None
    state = replay(events)
    for n, entry in enumerate(doc["moves"], start=1):
        if isinstance(entry, dict) and isinstance(entry.get("taken_over"), str) and \
                isinstance(entry.get("seat"), int) and \
                entry.get("reason") in ("resigned", "abandoned"):
            try:
                taken = take_over(state, entry["seat"], entry["taken_over"], entry["reason"])
            except RuleViolation as exc:
                raise RecordError(n, msg("takeover: {message}", message=exc.message),
                                  exc.rule) from None
            for event in taken:
                evolve(state, event)
            events += taken
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("move"), str) or \
                not isinstance(entry.get("seat"), int):
            raise RecordError(n, msg("each move must be an object with 'seat' (a number) "
                                     "and 'move' (text)"))
        bot = entry.get("bot")
        try:
            move = parse_move(entry["move"])
            events += play(state, entry["seat"], move, bool(entry.get("timeout")),
                           bot if isinstance(bot, str) and bot else None)
        except NotationError as exc:
            raise RecordError(n, msg("{move}: {message}", move=repr(entry["move"]),
                                     message=exc.message)) from None
        except RuleViolation as exc:
            raise RecordError(n, msg("{move}: {message}", move=repr(entry["move"]),
                                     message=exc.message), exc.rule) from None
    result = doc.get("result")
    if result is not None:
        if state.phase != "over":
            raise RecordError(len(doc["moves"]), msg("the record claims a result but the "
                                                     "game is not over after its moves"))
        replayed = export_record(events, state)["result"]
        if not isinstance(result, dict) or any(result.get(k) != v for k, v in replayed.items()
                                               if k in result or k != "neutral"):
            raise RecordError(len(doc["moves"]), msg(
                "the recorded result {result} differs from the replayed one {replayed}",
                result=str(result), replayed=str(replayed)))
    return events
