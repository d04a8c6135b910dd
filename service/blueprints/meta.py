"""/variants, /time-controls and /health."""

from __future__ import annotations

from typing import Any

from .. import clock, games
from ..health import check
from ..schemas import HealthSchema, TimeControlPresetsSchema, VariantsSchema
from .common import Blueprint, redis_client, service, settings

blp = Blueprint("meta", __name__, description="Variants, time controls and health")


@blp.route("/variants", methods=["GET"])
@blp.response(200, VariantsSchema)
def variants() -> dict[str, Any]:
    """The variants this engine plays, with player counts and option defaults"""
    return {"variants": games.variants(), "timeout_policies": list(games.TIMEOUT_POLICIES)}


@blp.route("/time-controls", methods=["GET"])
@blp.response(200, TimeControlPresetsSchema)
def time_controls() -> dict[str, Any]:
    """Time controls to offer when a game is created

    Days per move (1, 2, 3, 5, 7, 10, 14) and a bank of 10 days (+1 day a move, at most
    10 days), each with or without weekends off; each gives the create request's
    `time_per_move` and `time_control`. The clock of a seat runs only while it is to act,
    and not on its days off (whole days of `timezone`)."""
    return {"presets": clock.presets()}


@blp.route("/health", methods=["GET"])
@blp.response(200, HealthSchema)
@blp.alt_response(503, schema=HealthSchema, description="A part is down (see parts)")
def health() -> tuple[dict[str, Any], int]:
    """Health: the database, Redis, the workers' heartbeats and the due-work lag

    200 when every part is up; 503 when one is down (`parts` says which: `database`,
    `due` (`lag_seconds`: how long the earliest due work, a mail or a deadline, has waited
    past its time for a worker),
    `redis`, `worker` (mails, reminders, deadlines) and `webhook_worker`); `mail`
    (`failed_last_hour`: mails refused by the relay or bounced in the last hour). With
    `MAIL_IN_AUTH` other than `none`, `mail_in` is `failing` (not a 503) once the last
    3 replies were refused because the MTA wrote no `Authentication-Results` of
    `MAIL_IN_AUTHSERV_ID` (its milter is not running): `unauthenticated_in_a_row`,
    `last_refused_at` and `error` say so. Without `REDIS_URL` the API cannot see Redis
    or the workers (`unknown`)."""
    ok, parts = check(settings(), service().store, redis_client())
    return {"status": "ok" if ok else "down", "parts": parts}, 200 if ok else 503
