"""Issue 33, item 1: a missing or unknown token is answered 401 before the body or the
query is validated, on every operation the document says needs a bearer token."""

from __future__ import annotations

import json
import re

import pytest

from service.problems import CODES
from tests.support import ROOT, auth, check_problem, new_game

DOCUMENT = json.loads((ROOT / "openapi" / "openapi.json").read_text())
BAD_QUERY = "?status=nope&since=-1&limit=0&offset=-1&variant=nope&cursor=%%%"


def _operations(required: bool) -> list[tuple[str, str, bool]]:
    """(method, path, has a body) of the bearer operations (token ``required`` or not)."""
    found = []
    for path, ops in DOCUMENT["paths"].items():
        for method, op in ops.items():
            security = op.get("security") if isinstance(op, dict) else None
            if security and (security == [{"bearer": []}]) == required:
                found.append((method.upper(), path, "requestBody" in op))
    return sorted(found)


REQUIRED = _operations(True)
OPTIONAL = _operations(False)


def _url(path: str, game_id: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: game_id if m[1] == "game_id" else "1", path)


def test_the_document_has_bearer_operations():
    assert len(REQUIRED) > 20 and ("POST", "/games/{game_id}/moves", True) in REQUIRED
    assert ("POST", "/games/{game_id}/seats/{seat}/bot", True) in REQUIRED  # host only


@pytest.mark.parametrize("method, path, body", REQUIRED)
def test_no_token_is_401_before_the_body_or_query(client, game, method, path, body):
    url = _url(path, game.id) + ("" if body else BAD_QUERY)
    r = client.open(url, method=method, json=["not", "an", "object"] if body else None)
    problem = check_problem(r, 401)
    assert problem["code"] in CODES and CODES[problem["code"]].status == 401
    assert problem["code"] == "unauthorized"
    assert r.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize("method, path, body", REQUIRED + OPTIONAL)
def test_an_unknown_token_is_401_before_the_body_or_query(client, game, method, path, body):
    url = _url(path, game.id) + ("" if body else BAD_QUERY)
    for token, codes in (("no-such-token-" + "x" * 20, {"invalid_token"}),
                         ("p_no-such-session", {"invalid_token", "invalid_player_token"})):
        r = client.open(url, method=method, headers=auth(token),
                        json=["not", "an", "object"] if body else None)
        assert check_problem(r, 401)["code"] in codes, (token, url)
    r = client.open(url, method=method, headers={"Authorization": "Basic abc"},
                    json=["not", "an", "object"] if body else None)
    check_problem(r, 401, "unauthorized")


def test_a_known_token_still_gets_the_validation_error(client, game):
    r = client.post(f"/games/{game.id}/moves", json=["x"], headers=auth(game.tokens[0]))
    check_problem(r, 422, "validation_error")
    r = client.get("/games?status=nope", headers=auth(game.host_token))
    check_problem(r, 422, "validation_error")
    # without a token an optional-bearer operation is validated as before
    check_problem(client.get("/games?status=nope"), 422, "validation_error")


def test_a_wrong_but_known_token_is_403(client):
    one, other = new_game(client, 2), new_game(client, 2)
    r = client.put(f"/games/{one.id}/notes", json={"text": "mine"},
                   headers=auth(other.tokens[0]))
    check_problem(r, 403, "forbidden")


def test_preflight_and_the_browser_page_need_no_token(client, game):
    assert client.options(f"/games/{game.id}/moves").status_code == 200
    r = client.get("/me", headers={"Accept": "text/html"})
    assert r.status_code == 200 and r.mimetype == "text/html"
