"""The building colours of the web page (service/web/js/names.js) for colour-blind players
(issue 25, point 7): the fifteen types of Alhambra + Granada stay apart in normal vision
and in simulated protanopia, deuteranopia (Machado 2009) and tritanopia (Brettel 1997),
measured as distances in the Oklab space (ColorAide), and every tile's name can be read on
its colour. The symbol and the name on each tile say the type as well (test_table.py)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from coloraide import Color

NAMES_JS = Path(__file__).resolve().parents[2] / "service" / "web" / "js" / "names.js"
TYPES = ["pavilion", "seraglio", "arcades", "chambers", "garden", "tower", "arena",
         "bath_house", "library", "hostel", "hospital", "market", "park", "school",
         "residential_area"]
VISIONS = {"normal": None, "protanopia": ("protan", "machado"),
           "deuteranopia": ("deutan", "machado"), "tritanopia": ("tritan", "brettel")}
LEAST = 0.09  # Oklab units (about 4-5 times a just noticeable difference)


def fills() -> dict[str, str]:
    block = NAMES_JS.read_text(encoding="utf-8").split("export const FILLS = {", 1)[1]
    block = block.split("};", 1)[0]
    return dict(re.findall(r'(\w+): "(#[0-9a-f]{6})"', block))


def seen(hex_colour: str, vision: str) -> Color:
    c = Color(hex_colour)
    how = VISIONS[vision]
    return (c if how is None else c.filter(how[0], method=how[1])).convert("oklab")


def test_every_type_has_a_colour_of_its_own():
    colours = fills()
    assert set(TYPES) <= set(colours)
    assert len({colours[t] for t in TYPES}) == len(TYPES)


@pytest.mark.parametrize("vision", list(VISIONS))
def test_the_fifteen_types_stay_apart_for_colour_blind_players(vision):
    colours = fills()
    close = []
    for a, b in itertools.combinations(TYPES, 2):
        d = seen(colours[a], vision).delta_e(seen(colours[b], vision), method="ok")
        if d < LEAST:
            close.append((a, b, round(d, 3)))
    assert close == [], f"too close in {vision}: {close}"


def test_the_name_on_each_tile_can_be_read():
    """WCAG contrast of at least 4.5 between the fill and the ink the page picks."""
    for t, colour in fills().items():
        c = Color(colour)
        assert max(c.contrast("black"), c.contrast("white")) >= 4.5, t
