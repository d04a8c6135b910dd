"""/tournaments: tournaments and leagues made by an organiser, entered by accounts, run
by themselves (service/tournaments.py)."""

from __future__ import annotations

from typing import Any

from ..tournament_schemas import (
    TournamentInSchema,
    TournamentSchema,
    TournamentsQuerySchema,
    TournamentsSchema,
)
from ..tournaments import Tournaments
from .common import (
    BEARER_REQUIRED,
    LINK_HEADER,
    Blueprint,
    bearer_token,
    errors,
    next_link,
    players,
)

blp = Blueprint("tournaments", __name__, url_prefix="/tournaments",
                description="Tournaments and leagues at tables of 2 to 6")


def tournaments() -> Tournaments:
    return Tournaments(players().games)


@blp.route("", methods=["POST"])
@blp.arguments(TournamentInSchema())
@blp.response(201, TournamentSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 415, 422)
def create_tournament(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Make a tournament

    The organiser (the signed-in account, which needs a handle: 422 `handle_needed`)
    gives the games' settings as a create request's (no seats), the `format`, the
    `table_size` (2 to 6) and the least one, the `rounds` (a league's: seasons), the
    points and the entry rules. It is `open` for entries until the organiser starts it.
    A format, table size, variant or clock that cannot be: 422 `invalid_option` naming
    the field. The sign-in session's token, or a personal token with the `play`
    scope."""
    t = tournaments()
    made = t.create(players().player(bearer_token(), scope="play"), body)
    return t.document(made), 201, {"Location": f"/tournaments/{made.id}"}


@blp.route("", methods=["GET"])
@blp.arguments(TournamentsQuerySchema(), location="query")
@blp.response(200, TournamentsSchema, headers=LINK_HEADER)
@errors(blp, 422)
def list_tournaments(query: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Tournaments

    The tournaments of `status` (default: `open`, taking entries), the newest first;
    `limit` of them from `offset`, `total` in all; more: `Link: <…?offset=…>;
    rel="next"`. Anyone may read them."""
    t = tournaments()
    found, total = t.listed(query["status"], query["limit"], query["offset"])
    end = query["offset"] + query["limit"]
    more = next_link(offset=end) if total > end else {}
    return {"tournaments": [t.document(x, full=False) for x in found], "total": total}, \
        200, more


@blp.route("/<string:tournament_id>", methods=["GET"])
@blp.response(200, TournamentSchema)
@errors(blp, 404)
def get_tournament(tournament_id: str) -> dict[str, Any]:
    """A tournament

    Its settings, entries, `rounds[]` with their `tables[]` (players by handle in seat
    order, `game_id`, the final scores once over) and byes, and the `standings[]` after
    the latest round. Anyone may read it (404 `tournament_not_found`)."""
    t = tournaments()
    return t.document(t.get(tournament_id))


@blp.route("/<string:tournament_id>/entries", methods=["POST"])
@blp.response(200, TournamentSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404, 409, 422)
def enter_tournament(tournament_id: str) -> dict[str, Any]:
    """Enter a tournament

    The signed-in account (with a handle: 422 `handle_needed`) enters; again after a
    withdrawal or once inactive (a bot took its seat), it is seated again from the next
    round. 409 `tournament_closed`: started (a league takes entries between seasons) or
    finished; 409 `tournament_full`: at its cap; 403 `rating_out_of_range`; 403
    `blocked`: an entrant and you, one blocked the other. A personal token needs the
    `play` scope."""
    t = tournaments()
    return t.document(t.enter(players().player(bearer_token(), scope="play"),
                              tournament_id))


@blp.route("/<string:tournament_id>/entries/me", methods=["DELETE"])
@blp.response(200, TournamentSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404, 409)
def withdraw_from_tournament(tournament_id: str) -> dict[str, Any]:
    """Withdraw from a tournament

    The account is not seated again; a game of the running round goes on with a bot in
    its seat, and it ranks last at that table. 404 `not_entered`; 409
    `tournament_closed`: finished."""
    t = tournaments()
    return t.document(t.withdraw(players().player(bearer_token(), scope="play"),
                                 tournament_id))


@blp.route("/<string:tournament_id>/start", methods=["POST"])
@blp.response(200, TournamentSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404, 409)
def start_tournament(tournament_id: str) -> dict[str, Any]:
    """Start a tournament

    The organiser only (403 `not_organiser`): the entrants are seeded by rating and the
    first round's games made, every seat claimed by its account (each entrant's
    `/me/games` lists them). Each next round is paired when the last game of a round
    ends. 409 `tournament_closed`: started already; 409 `too_few_entrants`."""
    t = tournaments()
    return t.document(t.start(players().player(bearer_token(), scope="play"),
                              tournament_id))
