"""/me/export: everything the service keeps of a player's account."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify

from ..player_schemas import AccountExportSchema
from ..players import Players
from .common import BEARER_REQUIRED, Blueprint, bearer_token, errors

blp = Blueprint("account", __name__, url_prefix="",
                description="A player's data: what the service keeps of an account")


@blp.route("/me/export", methods=["GET"])
@blp.response(200, AccountExportSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403)
def export_me() -> Response:
    """Everything kept of my account

    Every row the service keeps about the signed-in player, by table: the account and its
    preferences, sessions and personal tokens (never a secret or its hash), sign-in
    requests, vacations, ratings, the seats claimed by it or offered to its address with
    their talk settings and notes, the messages those seats wrote, and the mails to its
    address that failed or were answered. The sign-in session's token only (403
    `session_needed` for a personal token); a file to keep
    (`Content-Disposition: attachment`)."""
    p: Players = current_app.extensions["alhambra_players"]
    doc: dict[str, Any] = AccountExportSchema().dump(p.export(p.session(bearer_token())))
    resp = jsonify(doc)
    resp.headers["Content-Disposition"] = 'attachment; filename="alhambra-account.json"'
    return resp
