"""The API's answers are encoded by orjson (service/json_provider.py) as Flask's own
encoder would write them: keys in their order, dates as HTTP dates, words in UTF-8, and
what orjson refuses (an integer past 64 bits, echoed from a bad input) by the standard
library."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from service import create_app
from service.settings import Settings


@dataclass
class Point:
    x: int


def test_answers_read_as_flask_wrote_them(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))
    doc = {"zeta": 1, "alpha": ["Ελένη", "Frejä"], "when": datetime(2026, 1, 2, tzinfo=UTC),
           "big": 10 ** 30, "point": Point(3), 7: "seven"}
    with app.app_context():
        text = app.json.dumps({k: v for k, v in doc.items() if k != "big"})
        assert json.loads(text) == {"zeta": 1, "alpha": ["Ελένη", "Frejä"],
                                    "when": "Fri, 02 Jan 2026 00:00:00 GMT",
                                    "point": {"x": 3}, "7": "seven"}
        assert text.startswith('{"zeta":1,"alpha":["Ελένη"')  # in order, not escaped
        assert json.loads(app.json.dumps(doc))["big"] == 10 ** 30
        resp = app.json.response(doc)
        assert resp.mimetype == "application/json" and resp.data.endswith(b"}\n")
        assert json.loads(resp.data)["big"] == 10 ** 30
