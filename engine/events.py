"""The events of a game log and the version of their schema.

A game's log is a list of events, each a JSON object with a ``type``. ``SCHEMA`` is the
version of the event shapes and of the setup rules that produce them; ``game_created``
records it (with the engine version), and logs without it are version 1.

Schema versions:
- 1: engine 0.1.0. The combined game used both money decks (216 cards); a Granada tile
  without a moat drawn at setup stayed on top of the bag and the next tile with a moat
  was taken from below it.
- 2: ``game_created`` records ``schema`` and ``engine_version``; the combined game uses one
  money deck unless ``both_money_decks`` (Decision C-1a); a moatless Granada tile drawn at
  setup goes back into the bag at a random place (``tile_returned``, C-1).
"""

from __future__ import annotations

from typing import Any

SCHEMA = 2

Event = dict[str, Any]
