"""The engine's version, recorded in each new game's ``game_created`` event and records."""

__version__ = "0.2.0"
