"""The contract: the committed OpenAPI document is the generated one, and the app keeps it
(schemathesis, through WSGI: no 5xx, no status, content type, header or body outside it)."""

from __future__ import annotations

import itertools
import json
import os
import random
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service import create_app, openapi_document
from service.schemas import CreateGameSchema, PreviewSchema, SubmitSchema
from service.settings import Settings
from service.spec import API_FINGERPRINT, API_VERSION, fingerprint
from tests.support import auth, new_game, play_random

SPEC = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
# CI (and a plain run) use at least 50 examples per operation; SCHEMATHESIS_EXAMPLES overrides
EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES") or 50)
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_headers_conformance, response_schema_conformance]


def test_committed_openapi_document_is_the_generated_one(app):
    generated = openapi_document(app)
    committed = json.loads(SPEC.read_text())
    assert committed == generated, (
        "openapi/openapi.json is stale: run `alhambra-pbem openapi > openapi/openapi.json`")


def test_openapi_and_docs_are_served(client):
    r = client.get("/openapi.json")
    assert r.status_code == 200 and r.get_json()["paths"] == json.loads(SPEC.read_text())[
        "paths"]
    docs = client.get("/docs")  # Swagger UI from our own server: works offline
    assert docs.status_code == 200 and b"/assets/swagger-ui/swagger-ui-bundle.js" in docs.data
    assert b"https://" not in docs.data and b"http://" not in docs.data
    bundle = client.get("/assets/swagger-ui/swagger-ui-bundle.js")
    assert bundle.status_code == 200 and b"SwaggerUIBundle" in bundle.data


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """An app with an open, an active and a finished game to aim the generated cases at."""
    # No worker claims this world's due mails: /health must not turn 503 ("due work lags")
    # when the module runs longer than the lag allowed (a slow, busy CI machine).
    app = create_app(Settings(database=str(tmp_path_factory.mktemp("st") / "st.db"),
                              health_max_lag=1e9))
    client = app.test_client()
    active = new_game(client, 3)
    over = new_game(client, 2)
    play_random(over, random.Random(1))
    open_ = client.post("/games", json={"players": 3, "seats": [{"name": "A"}]}).get_json()
    targets = [
        (None, None),  # whatever schemathesis generated
        (active.id, None), (active.id, active.tokens[0]), (active.id, active.tokens[1]),
        (active.id, active.tokens[2]), (active.id, active.host_token),
        (over.id, over.tokens[0]), (over.id, None),
        (open_["game_id"], open_["seats"][0]["token"]),
    ]
    yield app, itertools.cycle(targets)
    app.extensions["alhambra"].store.close()


def _call(case, world):
    app, targets = world
    game_id, token = next(targets)
    if game_id and case.path_parameters and "game_id" in case.path_parameters:
        case.path_parameters = {**case.path_parameters, "game_id": game_id}
    if token:
        case.headers = {**(case.headers or {}), **auth(token)}
    case.call_and_validate(app=app, checks=CHECKS)


schema = schemathesis.openapi.from_path(SPEC)
negative = schemathesis.openapi.from_path(SPEC)
negative.config.generation.update(modes=[GenerationMode.NEGATIVE])
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=list(HealthCheck))


@schema.parametrize()
@SETTINGS
def test_api_keeps_its_contract(case, world):
    """Valid requests (by the spec): any answer is in the spec, never a 5xx."""
    _call(case, world)


@negative.parametrize()
@SETTINGS
def test_api_keeps_its_contract_on_bad_input(case, world):
    """Requests that break the spec: a documented 4xx problem, never a 5xx."""
    _call(case, world)


def test_every_operation_has_a_unique_readable_operation_id():
    document = json.loads(SPEC.read_text())
    ids = [op.get("operationId") for item in document["paths"].values()
           for method, op in item.items() if method in ("get", "put", "post", "patch", "delete")]
    assert len(ids) >= 40 and all(ids), "an operation without operationId"
    assert len(set(ids)) == len(ids), sorted(i for i in ids if ids.count(i) > 1)
    assert all(i.isidentifier() and i.islower() for i in ids), ids
    assert {"create_game", "get_game", "submit_moves", "join_game"} <= set(ids)


def _spec_accepts(name: str, body) -> bool:
    from openapi_schema_validator import OAS30Validator
    document = json.loads(SPEC.read_text())
    schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
    return OAS30Validator(schema).is_valid(body)


@pytest.mark.parametrize(("name", "schema", "body"), [
    ("Submit", SubmitSchema, {"version": 1, "move": "take 1"}),
    ("Submit", SubmitSchema, {"moves": [{"action": "take", "positions": [1]}]}),
    ("Submit", SubmitSchema, {"version": 1}),
    ("Submit", SubmitSchema, {}),
    ("Submit", SubmitSchema, {"move": "take 1", "moves": [{"action": "take"}]}),
    ("Preview", PreviewSchema, {"move": "take 1"}),
    ("Preview", PreviewSchema, {"version": 2}),
    ("CreateGame", CreateGameSchema, {"seats": [{"name": "Ann"}, {"name": "Ben"}]}),
    ("CreateGame", CreateGameSchema, {"players": 3}),
    ("CreateGame", CreateGameSchema, {"players": 3, "seats": []}),
    ("CreateGame", CreateGameSchema, {"players": None, "seats": [None]}),
    ("CreateGame", CreateGameSchema, {"variant": "granada"}),
    ("CreateGame", CreateGameSchema, {"players": None, "seats": []}),
    ("CreateGame", CreateGameSchema, {"seats": [{"bot": "random"}, {"name": "A"}]}),
    ("CreateGame", CreateGameSchema, {"seats": [{"email": "a@example.org"}]}),
    ("CreateGame", CreateGameSchema, {"seats": [{"name": "A", "bot": "greedy"}]}),
    ("CreateGame", CreateGameSchema, {"seats": [{"bot": "greedy", "language": "fi"}]}),
    ("CreateGame", CreateGameSchema, {"seats": [{"bot": "greedy", "email": None}]}),
    ("CreateGame", CreateGameSchema, {"seats": [{"bot": "strong", "email": "a@b.org"}]}),
    ("CreateGame", CreateGameSchema, {"seats": [{"name": None, "bot": None}]}),
])
def test_request_rules_are_in_the_document(app, name, schema, body):
    """What the schemas' validates_schema refuses, the document refuses: a request valid
    by the document is accepted (and one it refuses is refused)."""
    with app.app_context():
        accepted = not schema().validate(body)
    assert _spec_accepts(name, body) == accepted, (body, schema().validate(body))


def test_the_api_version_moves_with_the_document():
    """A changed document needs a new API_VERSION (and its CHANGELOG entry)."""
    document = json.loads(SPEC.read_text())
    assert document["info"]["version"] == API_VERSION != "0.1.0"
    assert fingerprint(document) == API_FINGERPRINT, (
        "the API changed: raise API_VERSION in service/spec.py (minor: added; major: a "
        "client may break), add its 'API' entry to CHANGELOG.md, then set API_FINGERPRINT "
        f"to {fingerprint(document)!r}")
    changelog = (SPEC.parents[1] / "CHANGELOG.md").read_text()
    assert f"### API {API_VERSION}" in changelog
    clients = (SPEC.parents[1] / "docs" / "clients.md").read_text()
    assert "## Versions and deprecation" in clients and "Deprecation" in changelog


def test_every_paged_list_documents_its_paging_parameters():
    """Issue 33: a list that says its next page in a Link header takes `limit` and the
    offset (or cursor) in the document too, beside a conditional GET's If-None-Match
    (which once replaced the query's parameters of /me/games)."""
    document = json.loads(SPEC.read_text())
    paged = 0
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method not in ("get", "post"):
                continue
            headers = operation.get("responses", {}).get("200", {}).get("headers", {})
            if "Link" not in headers:
                continue
            paged += 1
            names = {p["name"] for p in operation.get("parameters", [])}
            assert "limit" in names and names & {"offset", "since", "before"}, \
                (method, path, names)
    assert paged >= 5
