"""A game's words are its variant's (issue 34.2): the API's problem details in a Granada
game call the city Гранада in Russian (the Alhambra rulebook's Альгамбра in an Alhambra
game)."""

from __future__ import annotations

import pytest

from tests.support import auth, new_game


@pytest.mark.parametrize(("variant", "tile", "own", "other"), [
    ("granada", "G05", "Гранаде", "Альгамбр"), ("alhambra", "A05", "Альгамбре", "Гранад")])
def test_a_problem_detail_names_the_variants_city(client, variant, tile, own, other):
    h = new_game(client, 2, variant=variant)
    doc = h.get()
    r = client.post(f"/games/{h.id}/moves", headers={
        **auth(h.tokens[doc["current_seat"]]), "Accept-Language": "ru"},
        json={"version": doc["version"], "move": f"redesign {tile} reserve"})
    assert r.status_code == 422 and r.get_json()["rule"] == "A-3.3"
    detail = r.get_json()["detail"]
    assert own in detail and other not in detail, detail
