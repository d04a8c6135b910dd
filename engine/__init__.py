"""alhambra-pbem rules engine: a pure, replayable decider for Alhambra and Granada.

State is a fold of events (``replay``; ``LogError`` for a damaged log); ``decide`` turns
moves into events or raises a ``RuleViolation`` carrying the rule id of docs/rules.md;
``legal_moves`` lists what a seat may do; ``view`` and ``redact_event`` hide what a seat
may not see; ``describe`` says an event in words.
"""

from .describe import clock_started, describe
from .errors import LogError, NotationError, NotYourTurn, OptionError, RuleViolation
from .events import SCHEMA, Event
from .legal import legal_moves
from .moves import Move, format_move, format_moves, parse_move, parse_moves
from .rules import (
    Decision,
    Preview,
    decide,
    decision,
    default_moves,
    new_game,
    play,
    preview,
    take_over,
)
from .state import State, evolve, replay
from .variants import VARIANTS
from .version import __version__
from .view import redact_event, view

__all__ = [
    "Decision", "Event", "LogError", "Move", "NotYourTurn", "NotationError", "OptionError",
    "Preview", "RuleViolation", "SCHEMA", "State", "VARIANTS", "__version__", "clock_started",
    "decide", "decision", "default_moves", "describe", "evolve", "format_move",
    "format_moves", "legal_moves", "new_game", "parse_move", "parse_moves", "play", "preview",
    "redact_event", "replay", "take_over", "view",
]
