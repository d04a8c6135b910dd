"""The API's JSON encoder: Flask's, with orjson doing the encoding.

Every answer is encoded once per request, and a move's answer carries the whole view of
the game (12 KB late in a 6-player game): the standard library's encoder took as long as
the move's rules. orjson writes the same documents (UTF-8 as it is, not ``\\u`` escapes;
what it does not know, dates among them, goes to Flask's ``default`` as before; what it
refuses, an integer past 64 bits in an echoed bad input, the standard library writes).
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response
from flask.json.provider import DefaultJSONProvider

OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | \
    orjson.OPT_PASSTHROUGH_DATACLASS


class JsonProvider(DefaultJSONProvider):
    """Flask's JSON provider, encoding with orjson (keys in their order: never sorted)."""

    sort_keys = False

    ensure_ascii = False  # as orjson writes it, when the standard library must

    def encode(self, obj: Any, indent: bool = False) -> bytes:
        try:
            return orjson.dumps(obj, default=self.default,
                                option=OPTIONS | (orjson.OPT_INDENT_2 if indent else 0))
        except orjson.JSONEncodeError:  # what orjson refuses (an integer past 64 bits)
            return super().dumps(obj, indent=2 if indent else None).encode()

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return self.encode(obj, bool(kwargs.get("indent"))).decode()

    def response(self, *args: Any, **kwargs: Any) -> Response:
        obj = self._prepare_response_obj(args, kwargs)
        indent = self.compact is False or (self.compact is None and self._app.debug)
        response_class: type[Response] = self._app.response_class  # type: ignore[assignment]
        return response_class(self.encode(obj, indent) + b"\n", mimetype=self.mimetype)
