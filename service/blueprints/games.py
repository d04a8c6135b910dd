"""/games: create, list, read and join games."""

from __future__ import annotations

from typing import Any

from flask import current_app, request

from .. import present
from ..auth import Caller
from ..i18n import msg
from ..players import PLAYER_PREFIX
from ..problems import ApiError
from ..schemas import (
    AddBotSchema,
    BotSeatedSchema,
    CreatedGameSchema,
    CreateGameSchema,
    GameListSchema,
    GameSchema,
    JoinedSchema,
    JoinSchema,
    ListQuerySchema,
    MailFailuresSchema,
    RotatedTokenSchema,
    SeatLanguageSchema,
    SeatLanguageSetSchema,
    SeatMailAddressSchema,
    SeatMailAddressSetSchema,
)
from .common import (
    BEARER,
    BEARER_REQUIRED,
    ETAG_HEADER,
    LINK_HEADER,
    Blueprint,
    bearer_token,
    caller,
    conditional,
    errors,
    etag,
    join_url,
    next_link,
    service,
)

blp = Blueprint("games", __name__, url_prefix="/games",
                description="Games: create, list, read, join")


@blp.route("", methods=["POST"])
@blp.arguments(CreateGameSchema())
@blp.response(201, CreatedGameSchema)
@errors(blp, 400, 415, 422, 429)
def create_game(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Create a game

    Seats given with a name are filled now and get a secret token (`language`: the seat's
    mails and page in `en`, `el`, `fi`, `da` or `ru`); seats given as
    `{"bot": level}` are played by a bot (no token); the others are open and are joined
    with the invite code (or filled with a bot by the host). The game starts (setup events
    recorded) when every seat is filled. The clock: `time_per_move`, or a bank
    (`time_control`: `bank`, `increment`, `cap`), with days off or not (`days_off`,
    `timezone`); presets at `GET /time-controls`. An unknown variant, a bad option, a bad
    player count, an unknown bot level or a time control that cannot be gets 422
    `invalid_option` naming the `field`."""
    players = body["players"] if body["players"] is not None else len(body["seats"])
    games = service()
    created = games.create(
        variant=body["variant"], options=body["options"], players=players,
        seats=body["seats"], time_per_move=body["time_per_move"],
        timeout_policy=body["timeout_policy"],
        takeover_after_timeouts=body["takeover_after_timeouts"],
        takeover_bot=body["takeover_bot"], time_control=body["time_control"],
        replay_public=body["replay_public"], public=body["public"],
        spectators_read_chat=body["spectators_read_chat"])
    game = games.game(created["game_id"])
    return present.created(created, games.document(game, Caller()), join_url), 201, \
        {"Location": f"/games/{game.id}", "ETag": etag(game.version)}


@blp.route("", methods=["GET"])
@blp.arguments(ListQuerySchema(), location="query")
@blp.response(200, GameListSchema, headers=LINK_HEADER)
@blp.doc(security=BEARER)
@errors(blp, 401, 422)
def list_games(query: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """List games

    Newest first. Without a token: the open games (seats to join), or with
    `status=active` the public games in play (to watch); `over` lists nothing. With a
    seat token: that seat's game. With a host token: the games it hosts. A page of
    `limit` (default 50, at most 200) from `offset`, `total` in all; when there are more,
    `Link: <…?offset=…>; rel="next"`."""
    limit, offset = query["limit"], query["offset"]
    found = service().list_games(caller(), query.get("status"), limit, offset)
    more = offset + limit < found.total and len(found.games) == limit
    return present.game_list(found), 200, next_link(offset=offset + limit) if more else {}


@blp.route("/<string:game_id>", methods=["GET"])
@conditional(blp)
@blp.response(200, GameSchema, headers=ETAG_HEADER)
@blp.doc(security=BEARER)
@errors(blp, 401, 403, 404)
def get_game(game_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Read a game

    The view for the caller: a seat token sees its own hand; without a token, the spectator
    view. Also the version, whose turn it is and the deadline. The `ETag` is
    `"<version>.<hash>"`: the version (what `If-Match` on moves needs; the plain
    `"<version>"` works there too) and a hash of this answer, which depends on the token,
    the language and the clock (`Vary: Authorization, Accept-Language`); send it back as
    `If-None-Match` to get 304 while nothing you see changed."""
    games = service()
    doc = games.document(games.game(game_id), caller())
    return present.document(doc), 200, {"ETag": etag(doc.summary.game.version)}


@blp.route("/<string:game_id>/join", methods=["POST"])
@blp.arguments(JoinSchema())
@blp.response(201, JoinedSchema)
@errors(blp, 400, 403, 404, 409, 415, 422, 429)
def join_game(body: dict[str, Any], game_id: str) -> tuple[dict[str, Any], int]:
    """Join an open seat

    With the invite code from the game's creation, or none in a public game (and the
    seat's `language`, if it chooses one: its mails and page). A signed-in player may
    join with its player token alone: the seat is its own (claimed: rated, in its games;
    one seat per player, else 409 `already_seated`), with its address (and, unless the
    body says otherwise, its language and its handle or its address's first part as the
    name). Without a player token an `email` makes the seat an invitation to that
    address, which counts for nobody until claimed. Returns the seat's secret token.
    The last seat to be filled starts the game; a game whose seats are all taken
    answers 409 `game_full`. A player may not join a public game where sits an account
    it blocked or that blocked it (403 `blocked`)."""
    name, email, language = body["name"], body["email"], body["language"]
    token = bearer_token() if "Authorization" in request.headers else None
    claimed = token is not None and token.startswith(PLAYER_PREFIX)
    if claimed:
        player = current_app.extensions["alhambra_players"].player(token)
        email, language = player.email, language or player.language
        name = name or player.handle or player.email.partition("@")[0][:40]
    if not name:
        raise ApiError("validation_error", msg("give a name (or join signed in)"),
                       errors={"json": {"name": ["Missing data for required field."]}})
    joined = service().join(game_id, body["invite_code"], name, email, language, claimed)
    return present.joined(joined, join_url), 201


@blp.route("/<string:game_id>/seats/<int:seat>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404, 409)
def remove_seat(game_id: str, seat: int) -> None:
    """Open a joined seat again

    With the host token, before the game starts: the person (or bot) who had the seat
    leaves it, its token stops working, and whoever joins next gets a new one. A game
    that started, or a seat no one holds: 409 `seat_not_removable`."""
    service().remove_seat(game_id, caller(), seat)


@blp.route("/<string:game_id>/seats/<int:seat>/bot", methods=["POST"])
@blp.arguments(AddBotSchema())
@blp.response(201, BotSeatedSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 404, 409, 415, 422)
def add_bot(body: dict[str, Any], game_id: str, seat: int) -> tuple[dict[str, Any], int]:
    """Fill an open seat with a bot

    With the host token. The seat (0-based) is played by a bot of `level` (rule S-2); the
    last seat to be filled starts the game. A seat that is not open: 409 `seat_taken`;
    an unknown level: 422 `invalid_option`."""
    return present.bot_seated(service().add_bot(game_id, caller(), seat, body["level"])), 201


@blp.route("/<string:game_id>/seats/<int:seat>/language", methods=["PUT"])
@blp.arguments(SeatLanguageSchema())
@blp.response(200, SeatLanguageSetSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 404, 415, 422)
def set_language(body: dict[str, Any], game_id: str, seat: int) -> dict[str, Any]:
    """Choose a seat's language

    With the seat's own token: its mails (and its web page) are in `language` from now
    on (`en`, `el`, `fi`, `da` or `ru`; a regional tag such as `fi-FI` is read as `fi`).
    Another seat's token: 403. A reply `language fi` to a game's mail does the same."""
    games = service()
    return games.choose_language(games.game(game_id), caller(), seat, body["language"])


@blp.route("/<string:game_id>/seats/<int:seat>/mail-address", methods=["POST"])
@blp.arguments(SeatMailAddressSchema())
@blp.response(200, SeatMailAddressSetSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 400, 401, 403, 404, 415, 422)
def set_mail_address(body: dict[str, Any], game_id: str, seat: int) -> dict[str, Any]:
    """Give a seat a new mail address, or confirm the one it has

    With the seat's own token. After `MAIL_HARD_FAILURES` hard failures (refused by the
    relay, or bounced) mails to a seat's address stop, and the game document says why
    (`seats[].mail_failing`); a new `email`, or none (the seat confirms its address),
    makes them go again. A reply by mail from the address confirms it too."""
    games = service()
    return games.set_mail_address(games.game(game_id), caller(), seat, body["email"])


@blp.route("/<string:game_id>/mail-failures", methods=["GET"])
@blp.response(200, MailFailuresSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404)
def mail_failures(game_id: str) -> dict[str, Any]:
    """The game's failing mail deliveries, for its host

    Each mail refused by the relay (a 5xx: for good, a 4xx: tried again later) or
    bounced (a delivery report to the mail's own envelope sender, `MAIL_BOUNCES_TO`),
    newest first, and the seats whose address is failing (mails to it stopped)."""
    games = service()
    return games.mail_failures(games.game(game_id), caller())


@blp.route("/<string:game_id>/token", methods=["POST"])
@blp.response(201, RotatedTokenSchema)
@blp.doc(security=BEARER_REQUIRED)
@errors(blp, 401, 403, 404, 429)
def rotate_token(game_id: str) -> tuple[dict[str, Any], int]:
    """Rotate a seat's token

    With the seat's token: a new token for that seat (and its new `join_url`); the old
    token stops working at once (401 `invalid_token`), and so do the reply addresses of
    the mails sent before. The host token cannot rotate seats' tokens (403)."""
    games = service()
    rotated = games.rotate_token(games.game(game_id), caller())
    return present.rotated(rotated, join_url), 201
