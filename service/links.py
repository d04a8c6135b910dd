"""Where people open a game: the web client's pages (a seat's token in the fragment only,
which browsers never send)."""

from __future__ import annotations


def play_path(game_id: str, token: str | None = None) -> str:
    """The path of a game's page; with a seat token, that seat's page."""
    return f"/play/{game_id}" + (f"#token={token}" if token else "")


def replay_path(game_id: str, token: str | None = None) -> str:
    """The path of a game's replay (the game-over mail and page link it); with a seat
    token, in that seat's view."""
    return f"/replay/{game_id}" + (f"#token={token}" if token else "")


def open_path(game_id: str) -> str:
    """The player's page opening a game as the player's seat (a notice's link: the page
    knows the signed-in account's seat tokens, the notice holds none)."""
    return f"/me#open={game_id}"


def tournament_path(tournament_id: str) -> str:
    """The path of a tournament's page (its tables, links and standings)."""
    return f"/tournament/{tournament_id}"
