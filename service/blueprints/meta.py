"""/variants and /health."""

from __future__ import annotations

from .. import games
from ..health import check
from ..schemas import HealthSchema, VariantsSchema
from .common import Blueprint, redis_client, service, settings

blp = Blueprint("meta", __name__, description="Variants and health")


@blp.route("/variants", methods=["GET"])
@blp.response(200, VariantsSchema)
def variants():
    """The variants this engine plays, with player counts and option defaults"""
    return {"variants": games.variants(), "timeout_policies": list(games.TIMEOUT_POLICIES)}


@blp.route("/health", methods=["GET"])
@blp.response(200, HealthSchema)
@blp.alt_response(503, schema=HealthSchema, description="A part is down (see parts)")
def health():
    """Health: the database, Redis, the workers' heartbeats and the outbox lag

    200 when every part is up; 503 when one is down (`parts` says which: `database`,
    `outbox` (`lag_seconds`: the age of the oldest batch not yet handed to the workers),
    `redis`, `worker` (mails, reminders, deadlines) and `webhook_worker`). Without
    `REDIS_URL` the API cannot see Redis or the workers (`unknown`)."""
    ok, parts = check(settings(), service().store, redis_client())
    return {"status": "ok" if ok else "down", "parts": parts}, 200 if ok else 503
