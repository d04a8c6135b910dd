"""/me/export and DELETE /me: everything the service keeps of a player's account, and
the account deleted."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from ..player_schemas import AccountExportSchema
from .common import BEARER_REQUIRED, Blueprint, bearer_token, errors, players

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
    p = players()
    doc: dict[str, Any] = AccountExportSchema().dump(p.export(p.session(bearer_token())))
    resp = jsonify(doc)
    resp.headers["Content-Disposition"] = 'attachment; filename="alhambra-account.json"'
    return resp


@blp.route("/me", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403)
def delete_me() -> None:
    """Delete my account

    In each running game a bot takes the account's seat over (as a resignation, rule
    S-2); then its address, preferences, sessions, personal tokens, vacations and notes
    are erased, and its seats are called `(deleted)` in every reader's view (the games'
    logs stay replayable). Its ratings stay, by nobody one can name. The sign-in
    session's token only (403 `session_needed` for a personal token); every token of
    the account stops (401)."""
    p = players()
    p.delete(p.session(bearer_token()))
