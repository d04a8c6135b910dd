"""How the OpenAPI document is written so that generated clients come out clean.

apispec writes what marshmallow declares; three shapes it chooses trip client generators
(openapi-python-client, openapi-typescript), and operations have no ``operationId``:

- a nullable nested object is ``anyOf: [{type: object, nullable: true}, X]`` (an empty
  model, ``Record<string, never> | null``, and ``{}`` passing for ``X``), and a nullable
  enum does not list ``null`` (``nullable`` adds no value to an enum in OpenAPI 3.0.3, so
  a strict validator refuses null): both are ``anyOf: [X, {nullable: true, enum: [null]}]``
  here, ``X | None`` to the generators and exactly X or null to validators (``allOf: [X]``
  with ``nullable: true`` is not: strict 3.0.3 validators refuse its null, and Swagger UI
  4, which /docs serves, cannot show OpenAPI 3.1);
- a request body's optional member with a ``default`` is required in the types
  openapi-typescript makes of a component: the components keep their defaults in words
  ("Default: …"); a query parameter keeps its ``default``;
- each operation is named by its view function (``create_game``, ``get_game``…), unique
  in the document.

A schema may add JSON Schema keywords the fields cannot say (``oneOf`` of its required
members: a rule of its ``validates_schema``) in a ``JSON_SCHEMA`` class attribute.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import marshmallow as ma
from apispec import APISpec, BasePlugin
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.openapi import OpenAPIConverter

#: The API's version (``info.version``), not the package's: semantic versioning of the
#: contract. A new operation, member or value: the minor number; a change a client may
#: break on (a member removed or retyped, a status dropped): the major, after the
#: deprecation period (docs/clients.md). Each goes with an "API" entry in CHANGELOG.md.
API_VERSION = "1.2.0"
#: fingerprint() of the document API_VERSION names; tests/service/test_contract.py fails
#: when the document changes and this does not (raise API_VERSION, then set this).
API_FINGERPRINT = "27fbaa4c1e6edcd4"


def fingerprint(document: dict[str, Any]) -> str:
    """A short digest of an OpenAPI document, its ``info.version`` aside."""
    info = {k: v for k, v in document.get("info", {}).items() if k != "version"}
    text = json.dumps({**document, "info": info}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: The null of a nullable member, as OpenAPI 3.0.3 validators and generators all read it.
NULL: dict[str, Any] = {"nullable": True, "enum": [None]}
#: Keywords that say what a member is, not which values it takes.
_ABOUT = ("description", "example", "default", "title", "readOnly", "writeOnly")


def _nullable(prop: dict[str, Any]) -> dict[str, Any]:
    """``prop`` with a nullable reference or enum as ``anyOf: [X, NULL]``."""
    any_of = prop.get("anyOf")
    if isinstance(any_of, list) and {"type": "object", "nullable": True} in any_of:
        rest = [s for s in any_of if s != {"type": "object", "nullable": True}]
        prop = {**prop, "anyOf": [*rest, NULL]}
    elif prop.get("nullable") and "enum" in prop:
        inner = {k: v for k, v in prop.items() if k not in (*_ABOUT, "nullable")}
        inner["enum"] = [v for v in inner["enum"] if v is not None]
        prop = {**{k: v for k, v in prop.items() if k in _ABOUT}, "anyOf": [inner, NULL]}
    for key in ("items", "additionalProperties"):
        if isinstance(prop.get(key), dict):
            prop[key] = _nullable(prop[key])
    return prop


def _without_default(prop: dict[str, Any]) -> dict[str, Any]:
    """``prop`` with its ``default`` said in its description (null, [] or {}: unsaid)."""
    if "default" not in prop:
        return prop
    prop = dict(prop)
    default = prop.pop("default")
    text = prop.get("description", "").rstrip()
    if default in (None, [], {}) or "Default:" in text:
        return prop
    value = default if isinstance(default, str) else json.dumps(default)
    end = "" if not text or text[-1] in ".?!)" else "."
    prop["description"] = f"{text}{end} Default: `{value}`.".lstrip()
    return prop


class ContractConverter(OpenAPIConverter):
    """apispec's converter with the shapes above."""

    def field2property(self, field: ma.fields.Field[Any]) -> dict[str, Any]:
        prop: dict[str, Any] = super().field2property(field)
        return _nullable(prop)

    def schema2jsonschema(self, schema: Any) -> dict[str, Any]:
        document: dict[str, Any] = super().schema2jsonschema(schema)  # type: ignore[no-untyped-call]
        document["properties"] = {name: _without_default(prop) for name, prop
                                  in document.get("properties", {}).items()}
        extra = getattr(schema, "JSON_SCHEMA", None)
        if extra:
            document.update(extra)
        return document


class ContractMarshmallowPlugin(MarshmallowPlugin):
    Converter = ContractConverter


class ConditionalGets(BasePlugin):
    """The ``If-None-Match`` header of each operation marked ``x-conditional``
    (blueprints/common.conditional), added to its other parameters."""

    def operation_helper(self, path: str | None = None,
                         operations: dict[str, Any] | None = None, **kwargs: Any) -> None:
        for operation in (operations or {}).values():
            if operation.pop("x-conditional", False):
                operation.setdefault("parameters", []).append({
                    "in": "header", "name": "If-None-Match", "required": False,
                    "schema": {"type": "string"}, "description": "An ETag of an earlier "
                    "answer: 304 (no body) if it is current"})


class OperationIds(BasePlugin):
    """Each operation's ``operationId``: its view function's name (with the method first
    when a function serves several); a name used twice is an error at start."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def init_spec(self, spec: APISpec) -> None:
        self.seen = {}

    def operation_helper(self, path: str | None = None,
                         operations: dict[str, Any] | None = None, **kwargs: Any) -> None:
        rule = kwargs.get("rule")
        if rule is None or not operations:
            return
        function = rule.endpoint.rsplit(".", 1)[-1]
        for method, operation in operations.items():
            name = function if len(operations) == 1 else f"{method}_{function}"
            operation_id = operation.setdefault("operationId", name)
            where = f"{method.upper()} {path}"
            if self.seen.setdefault(operation_id, where) != where:
                raise ValueError(f"operationId {operation_id} of {where} is already "
                                 f"{self.seen[operation_id]}'s")
