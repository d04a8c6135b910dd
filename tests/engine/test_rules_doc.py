"""docs/rules.md has an anchor for every rule id and Decision the engine cites, so that
an error's link (``rules#A-4.3``) always lands on its rule."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULE_ID = re.compile(r"\b[AGCS]-\d+(?:\.\d+)?[a-z]?\b")


def anchors() -> list[str]:
    return re.findall(r'<a id="([^"]+)"></a>', (ROOT / "docs" / "rules.md").read_text())


def test_every_rule_id_the_engine_cites_has_an_anchor_in_docs_rules():
    cited = {rule for path in (ROOT / "engine").glob("*.py")
             for rule in RULE_ID.findall(path.read_text())}
    cited |= set(RULE_ID.findall((ROOT / "engine" / "NOTATION.md").read_text()))
    assert {"A-3.1", "A-4.5", "C-3a", "G-6"} <= cited  # the pattern finds them
    assert cited - set(anchors()) == set()
    assert "S" in anchors()  # Part S


def test_anchors_are_unique():
    assert len(anchors()) == len(set(anchors()))
