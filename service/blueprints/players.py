"""/players and /me: sign in by e-mail, a player's session, preferences and games."""

from __future__ import annotations

from typing import Any

from flask import Response, request

from .. import present
from ..languages import request_language
from ..player_schemas import (
    ClaimSchema,
    LeaderboardSchema,
    MyGamesPageQuerySchema,
    MyGamesSchema,
    NewTokenSchema,
    PageQuerySchema,
    PlayerPatchSchema,
    PlayerSchema,
    RatingsPageQuerySchema,
    SessionInSchema,
    SessionSchema,
    SignInSchema,
    SignInSentSchema,
    TokenInSchema,
    TokensSchema,
)
from ..players import SIGN_IN_MINUTES, token_document
from ..ratings import Ratings
from ..results import MyGame
from ..schemas import JoinedSchema
from .common import (
    BEARER,
    BEARER_REQUIRED,
    ETAG_HEADER,
    LINK_HEADER,
    Blueprint,
    bearer_token,
    conditional,
    errors,
    join_url,
    next_link,
    players,
    serves_page,
)
from .web import me_page

blp = Blueprint("players", __name__, url_prefix="",
                description="Players: sign in by e-mail, my games, preferences")


@blp.route("/players/sign-in", methods=["POST"])
@blp.arguments(SignInSchema())
@blp.response(202, SignInSentSchema)
@errors(blp, 400, 415, 422, 429)
def sign_in(body: dict[str, Any]) -> dict[str, Any]:
    """Ask for a sign-in mail

    Always 202, whether the address plays here or not: a mail goes to it with a code and
    the link `{PUBLIC_URL}/me#code=…`. The code works once, for 15 minutes. Requests are
    limited per address and per client (429 `rate_limited`)."""
    players().request_sign_in(body["email"], body["language"] or request_language())
    return {"expires_in": SIGN_IN_MINUTES * 60}


@blp.route("/players/session", methods=["POST"])
@blp.arguments(SessionInSchema())
@blp.response(201, SessionSchema)
@errors(blp, 400, 401, 415, 422, 429)
def open_session(body: dict[str, Any]) -> dict[str, Any]:
    """Sign in with the mail's code

    A player token (keep it secret) for the address the code was sent to; the code is
    used up. An unknown, used or expired code: 401 `invalid_sign_in_code`."""
    return players().open_session(body["code"])


@blp.route("/players/session", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401)
def close_session() -> None:
    """Sign out

    The player token stops working (401 `invalid_player_token` from then on)."""
    players().end_session(bearer_token())


@blp.route("/me", methods=["GET"])
@serves_page
@blp.response(200, PlayerSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401)
def me() -> Response | dict[str, Any]:
    """The signed-in player

    Its address and preferences. (A browser asking for `text/html` here, without a token,
    gets the player's page.)"""
    if "Authorization" not in request.headers and request.accept_mimetypes.best_match(
            ["application/json", "text/html"]) == "text/html":
        return me_page()
    p = players()
    return p.document(p.player(bearer_token()))


@blp.route("/me", methods=["PATCH"])
@blp.arguments(PlayerPatchSchema())
@blp.response(200, PlayerSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 409, 415, 422)
def update_me(body: dict[str, Any]) -> dict[str, Any]:
    """Change preferences

    `language` (its seats' unless a seat chose its own) and `notify`: `turn` (a mail for
    each of my turns), `digest` (one mail a day at `digest_hour` UTC listing the games
    waiting for me; a turn mail still comes at once when its deadline is less than a day
    away), `none`. `vacation`: `{"from", "until"}` (null: call it
    off): the clocks of the player's seats stop meanwhile (a deadline inside it moves out
    by the time left, reminders wait) and each running game's log records it; at most
    `ALHAMBRA_VACATION_DAYS` days in a calendar year, else 422 `vacation_refused`.
    `bot`: true makes a new account a bot account (a program plays for it: invite it, or
    let it invite; 409 `bot_account_refused` once it held a seat or a rating)."""
    p = players()
    player = p.session(bearer_token())
    if "vacation" in body:
        vacation = body.pop("vacation")
        p.set_vacation(player, vacation and vacation["from_"], vacation and vacation["until"])
    return p.document(p.update(player, body))


@blp.route("/me/games", methods=["GET"])
@conditional(blp)
@blp.arguments(MyGamesPageQuerySchema(), location="query")
@blp.response(200, MyGamesSchema, headers=ETAG_HEADER | LINK_HEADER)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 422)
def my_games(query: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """My games

    Every game with a seat of the player's address: games where it is the player's turn
    first, then by the player's deadline, then the latest activity. With each, the seat's
    token, to open it (`/play/{id}#token=…`; a personal token of the account, or its
    session's, acts in these seats too). `?status=finished`: the games that are over;
    `?waiting=true`: only those where it is the player's turn. A cheap poll for clients
    that do not stream: send the answer's `ETag` back as `If-None-Match` and get 304 (no
    body) while the list is the same. A page of `limit` from `offset`; more:
    `Link: <…?offset=…>; rel="next"`."""
    p = players()
    player = p.player(bearer_token())
    games = p.my_games(player, finished=query["status"] == "finished")
    return page([g for g in games if g.your_turn or not query["waiting"]], query)


def page(items: list[MyGame], query: dict[str, Any]
         ) -> tuple[dict[str, Any], int, dict[str, str]]:
    """The ``limit`` items from ``offset``, and the Link to the next page if any."""
    end = query["offset"] + query["limit"]
    more = next_link(offset=end) if len(items) > end else {}
    return present.my_games(items[query["offset"]:end]), 200, more


@blp.route("/me/invitations", methods=["GET"])
@blp.arguments(PageQuerySchema(), location="query")
@blp.response(200, MyGamesSchema, headers=LINK_HEADER)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 422)
def my_invitations(query: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Seats offered to me

    The seats of games not over whose creator wrote the player's address on them and
    that nobody claimed yet (no token: `POST /games/{id}/seats/{seat}/claim` makes one
    the player's). Paged as `/me/games`."""
    p = players()
    return page(p.invitations(p.player(bearer_token())), query)


@blp.route("/games/<string:game_id>/seats/<int:seat>/claim", methods=["POST"])
@blp.arguments(ClaimSchema())
@blp.response(201, JoinedSchema)
@blp.doc(security=BEARER)
@errors(blp, 400, 401, 403, 404, 409, 415, 422)
def claim_seat(body: dict[str, Any], game_id: str, seat: int) -> tuple[dict[str, Any], int]:
    """Claim a seat offered to my address

    A seat whose creator wrote an address on it counts for nobody (no rating, not in
    that address's games, no vacation, no table-talk mails) until the holder of that
    address claims it: signed in with that address (its player token), or with the
    `code` of the link mailed to the address. The seat then moves to a new token, which
    this answer gives (the creator's copy stops working). 403 `not_your_invitation`:
    another address's seat, or a wrong code; 409 `seat_not_claimable`: no address, a
    bot, or claimed already; 409 `already_seated`: one seat per player and game."""
    token = bearer_token() if "Authorization" in request.headers else None
    p = players()
    player = p.session(token) if token is not None else None
    return present.joined(p.claim(game_id, seat, player, body["code"]), join_url), 201


@blp.route("/me/tokens", methods=["POST"])
@blp.arguments(TokenInSchema())
@blp.response(201, NewTokenSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 415, 422)
def create_token(body: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """Make a personal access token

    A token (`pat_…`, shown this once: only its hash is kept) that acts for the player in
    every seat it claimed, within its `scopes` (`read`, `play`, `talk`; 403
    `missing_scope` beyond them), for an app or a bot of the player's. Only the sign-in
    session's token makes, lists and deletes tokens (403 `session_needed` for a personal
    token)."""
    p = players()
    record, token = p.create_token(p.session(bearer_token()), body["description"],
                                   body["scopes"])
    return {**token_document(record), "token": token}, 201


@blp.route("/me/tokens", methods=["GET"])
@blp.response(200, TokensSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403)
def list_tokens() -> dict[str, Any]:
    """My personal access tokens

    Each token's id, description, scopes and last use (never its secret), oldest first."""
    p = players()
    return {"tokens": [token_document(t) for t in p.tokens(p.session(bearer_token()))]}


@blp.route("/me/tokens/<string:token_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def delete_token(token_id: str) -> None:
    """Delete a personal access token

    It stops working at once (401 `invalid_token`). 404 `token_not_found`: no token of
    the player's has this id."""
    p = players()
    p.delete_token(p.session(bearer_token()), token_id)


@blp.route("/ratings", methods=["GET"])
@blp.arguments(RatingsPageQuerySchema(), location="query")
@blp.response(200, LeaderboardSchema, headers=LINK_HEADER)
@errors(blp, 422)
def leaderboard(query: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """The leaderboard of a variant

    Players rated by openskill (Plackett-Luce) over their finished games of the variant
    in which every seat was a person's from the start (a seat a bot took over counts as
    last), the best `ordinal` (mu - 3 sigma) first; names, no addresses. `limit` of
    them from `offset`; more: `Link: <…?offset=…>; rel="next"`."""
    p = players()
    ratings = Ratings(p.games)
    end = query["offset"] + query["limit"]
    best = ratings.leaderboard(query["variant"], end + 1)
    more = next_link(offset=end) if len(best) > end else {}
    return {"variant": query["variant"], "ratings": best[query["offset"]:end]}, 200, more
