"""alhambra-pbem REST service: games as event logs in SQLite behind an OpenAPI contract."""

__version__ = "0.1.0"

from .app import create_app, openapi_document  # noqa: E402

__all__ = ["create_app", "openapi_document"]
