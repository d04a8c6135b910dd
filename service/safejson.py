"""Reading request bodies as JSON without surprises.

``loads`` is ``json.loads`` with bounds a client cannot push the server past: nesting
at most ``MAX_DEPTH`` deep (else Python's parser recurses until it fails), integers of at
most ``MAX_DIGITS`` digits (else int() refuses past 4,300), no ``NaN``/``Infinity`` (not
JSON), and only Unicode text: a lone surrogate such as ``"\\ud800"`` cannot be stored,
hashed or mailed. Each refusal is a ``BadJson`` whose message says which bound.
"""

from __future__ import annotations

import json
import re
from typing import Any

from engine.words import msg

MAX_DEPTH = 32
MAX_DIGITS = 30

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class BadJson(ValueError):
    """A body that is not JSON this API reads; the message says why."""


def _depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (strings skipped)."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(_STRINGS.sub("", text)):
        depth += 1 if m.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise BadJson(msg("a number has more than {digits} digits", digits=MAX_DIGITS))
    return int(text)


def _constant(name: str) -> Any:
    raise BadJson(msg("{name} is not a JSON number", name=name))


def _check_text(value: Any) -> None:
    """BadJson if a string (or key) of ``value`` holds a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise BadJson(msg("a string holds a lone surrogate (such as \\ud800): "
                                  "strings must be Unicode text"))
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def loads(data: bytes | str) -> Any:
    """The JSON document of ``data`` (UTF-8), or BadJson saying what is wrong."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        raise BadJson(msg("the body is not UTF-8")) from None
    if _depth(text) > MAX_DEPTH:
        raise BadJson(msg("arrays and objects are nested more than {depth} deep",
                          depth=MAX_DEPTH))
    try:
        value = json.loads(text, parse_int=_int, parse_constant=_constant)
    except BadJson:
        raise
    except (ValueError, RecursionError) as exc:
        raise BadJson(msg("the body is not valid JSON: {error}", error=str(exc))) from None
    _check_text(value)
    return value
