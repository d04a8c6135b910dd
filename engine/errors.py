"""The engine's errors: a broken rule, a move out of turn, unreadable notation, bad options,
a damaged log. Their sentences are ``Msg`` objects (``engine/words.py``): English, and
what the service needs to say them in the reader's language."""

from __future__ import annotations

from .words import Msg, msg


class RuleViolation(Exception):
    """A move that the rules forbid. ``rule`` is the rule id of docs/rules.md (e.g. ``A-4.3``)."""

    def __init__(self, rule: str, message: Msg | str) -> None:
        super().__init__(f"{message} ({rule})")
        self.rule = rule
        self.message = message


class NotYourTurn(RuleViolation):
    """A move by a seat that is not the one to act now (rule A-3: play passes in turn)."""

    def __init__(self, message: Msg | str) -> None:
        super().__init__("A-3", message)


class NotationError(ValueError):
    """Move text that cannot be read: ``position`` is the 1-based column of the problem."""

    def __init__(self, text: str, position: int, expected: Msg | str) -> None:
        rest = text[position - 1 :].split(None, 1)
        found = repr(rest[0]) if rest else msg("the end")
        self.message = msg("column {position}: expected {expected}, found {found}",
                           position=position, expected=expected, found=found)
        super().__init__(self.message)
        self.text = text
        self.position = position
        self.expected = expected


class OptionError(ValueError):
    """A bad variant, player count or option; ``field`` names the offending input."""

    def __init__(self, field: str, message: Msg | str) -> None:
        super().__init__(message)
        self.field = field


class LogError(ValueError):
    """A game log that does not replay: event number ``version`` (1-based) records what
    the game before it does not allow (a damaged or edited log)."""

    def __init__(self, version: int, event_type: str, message: str) -> None:
        super().__init__(f"event {version} ({event_type}): {message}")
        self.version = version
        self.event_type = event_type
        self.message = message
