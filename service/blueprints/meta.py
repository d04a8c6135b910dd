"""/variants and /health."""

from __future__ import annotations

from flask_smorest import Blueprint

import engine

from ..games import TIMEOUT_POLICIES
from ..schemas import HealthSchema, VariantsSchema
from .common import service

blp = Blueprint("meta", __name__, description="Variants and health")


@blp.route("/variants", methods=["GET"])
@blp.response(200, VariantsSchema)
def variants():
    """The variants this engine plays, with player counts and option defaults"""
    return {"variants": [{"name": name, "min_players": v.min_players,
                          "max_players": v.max_players, "options": dict(v.options)}
                         for name, v in sorted(engine.VARIANTS.items())],
            "timeout_policies": list(TIMEOUT_POLICIES)}


@blp.route("/health", methods=["GET"])
@blp.response(200, HealthSchema)
def health():
    """Liveness: 200 when the service answers"""
    service().store.count("games")
    return {"status": "ok"}
