"""/variants and /health."""

from __future__ import annotations

from .. import games
from ..schemas import HealthSchema, VariantsSchema
from .common import Blueprint, service

blp = Blueprint("meta", __name__, description="Variants and health")


@blp.route("/variants", methods=["GET"])
@blp.response(200, VariantsSchema)
def variants():
    """The variants this engine plays, with player counts and option defaults"""
    return {"variants": games.variants(), "timeout_policies": list(games.TIMEOUT_POLICIES)}


@blp.route("/health", methods=["GET"])
@blp.response(200, HealthSchema)
def health():
    """Liveness: 200 when the service answers"""
    service().health()
    return {"status": "ok"}
