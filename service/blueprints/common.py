"""Helpers shared by the blueprints: the Games service, the caller, game documents."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import current_app, request

import engine

from ..auth import Caller, current_caller
from ..errors import ApiError
from ..games import Games
from ..store import Game
from .web import play_path

BEARER = [{}, {"bearer": []}]  # the token is optional where this is the security
BEARER_REQUIRED = [{"bearer": []}]


def service() -> Games:
    return current_app.extensions["alhambra"]


def caller() -> Caller:
    return current_caller(service().store)


def errors(blp, *statuses: int) -> Callable:
    """Document the problem responses an operation may give."""
    import http

    def decorator(func):
        for status in statuses:
            func = blp.alt_response(status, response=http.HTTPStatus(status).name)(func)
        return func
    return decorator


def game_or_404(game_id: str) -> Game:
    return service().game(game_id)


def check_game_token(c: Caller, game: Game) -> None:
    """A token of another game may not be used on this one."""
    if c.anonymous or c.game_id == game.id or game.id in c.hosted:
        return
    raise ApiError(403, "forbidden", "this token belongs to another game")


def seat_of(c: Caller, game: Game) -> int:
    """The caller's seat in ``game``: 401 without a token, 403 if not a seat of it."""
    if c.anonymous:
        raise ApiError(401, "unauthorized", "a seat token is needed: "
                       "'Authorization: Bearer <token>'",
                       headers={"WWW-Authenticate": 'Bearer realm="alhambra-pbem"'})
    if c.game_id != game.id or c.seat is None:
        raise ApiError(403, "forbidden", "this token is not a seat of this game")
    return c.seat


def base_url() -> str:
    return (current_app.config.get("PUBLIC_URL") or request.host_url).rstrip("/")


def join_url(game_id: str, token: str) -> str:
    """The seat's page in the web client, the token in the fragment (never sent)."""
    return base_url() + play_path(game_id, token)


def game_summary(game: Game, c: Caller) -> dict[str, Any]:
    host = game.id in c.hosted
    seats = []
    for s in service().store.seats(game.id):
        entry = {"seat": s.seat, "name": s.name, "joined": s.token_hash is not None}
        if host:
            entry["email"] = s.email
        seats.append(entry)
    return {
        "game_id": game.id, "variant": game.variant, "options": game.options,
        "status": game.status, "phase": game.phase, "version": game.version,
        "players": game.players, "current_seat": game.current_seat,
        "time_per_move": game.time_per_move, "timeout_policy": game.timeout_policy,
        "deadline": game.deadline, "imported": game.imported, "created_at": game.created_at,
        "updated_at": game.updated_at, "seats": seats,
        "your_seat": c.seat if c.game_id == game.id else None,
    }


def game_document(game: Game, c: Caller) -> dict[str, Any]:
    doc = game_summary(game, c)
    if game.version:
        state = service().state(game.id, game.version)
        doc["view"] = engine.view(state, doc["your_seat"])
        doc["version"] = state.version
    else:
        doc["view"] = None
    return doc


def etag(version: int) -> str:
    return f'"{version}"'
