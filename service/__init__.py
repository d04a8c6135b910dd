"""alhambra-pbem REST service: games as event logs in SQLite behind an OpenAPI contract."""

from .app import create_app, openapi_document

__all__ = ["create_app", "openapi_document"]
