"""The rules of each kind of tile: what depends on whether a tile is Alhambra's or Granada's.

Alhambra tiles (Part A) have one face and walls; Granada tiles (Part G) have two faces and
moats, come up on the black marker's face and may be turned at placement. A variant uses
one kind, or both in the combined game (Part C), which thus composes the two: every rule
that depends on a tile's kind is asked of ``KINDS[TILES[tile].kind]``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .components import ALHAMBRA_POINTS, ALHAMBRA_TYPES, BARRIERS, GRANADA_TYPES, NEUTRAL_NAMES
from .errors import RuleViolation
from .events import Participant
from .majorities import ordered_places, shared_places
from .moves import Move
from .payments import FLIP_PRICE, check_flip_payment, flip_payments
from .words import msg

SIMPLE_POINTS = {1: [3], 2: [10, 3], 3: [18, 10, 3]}  # G-5 option simple_scoring


class AlhambraTiles:
    """Alhambra's tiles: one face, walls, majorities by the table of A-5.1."""

    name = "alhambra"
    types: tuple[str, ...] = ALHAMBRA_TYPES
    switches_marker = False  # does a refill that placed one switch the black marker?

    @property
    def barrier(self) -> str:
        """What the tile's barriers are: wall or moat."""
        return BARRIERS[self.name]

    @property
    def neutral_name(self) -> str:
        """Who collects these tiles in a two-player game: Dirk (A-8) or Juan (G-7)."""
        return NEUTRAL_NAMES[self.name]

    def refill_face(self, marker: int) -> int | None:
        """The face a tile drawn for the market now comes up on (None: single-faced)."""
        return None

    def neutral_faces(self, scorings_done: int, marker: int, count: int) -> list[int] | None:
        """The faces of tiles drawn for the neutral collector (None: single-faced)."""
        return None

    def placement_face(self, move: Move, face: int, hand: Counter[str], game_end: bool
                       ) -> tuple[int | None, list[str]]:
        """For a placement ``move`` of a tile now showing ``face``: the face it is turned
        to (None: as it lies) and the cards paid for that; RuleViolation if not allowed."""
        if move.face is not None or move.cards:
            raise RuleViolation("G-3", msg("{tile} has one face: it cannot be flipped",
                                           tile=move.tile))
        return None, []

    def flipped_placements(self, placements: list[Move], face: int, hand: Counter[str],
                           game_end: bool) -> list[Move]:
        """The placements of a tile turned over, given its ``placements`` as it lies."""
        return []

    def majority_points(self, scoring: int, type_: str, counts: dict[Participant, int],
                        best: dict[Participant, int], options: dict[str, Any]
                        ) -> dict[Participant, int]:
        """Points per participant for one building type (A-5.1)."""
        return shared_places(counts, ALHAMBRA_POINTS[type_][scoring])


class GranadaTiles(AlhambraTiles):
    """Granada's tiles: two faces, moats, the black marker, N-based majorities (Part G)."""

    name = "granada"
    types = GRANADA_TYPES
    switches_marker = True  # G-3, Decision G-3a, C-2

    def refill_face(self, marker: int) -> int | None:
        """New market tiles come up on the face the black marker shows (G-3)."""
        return marker

    def neutral_faces(self, scorings_done: int, marker: int, count: int) -> list[int] | None:
        """Juan's first 6 tiles lie even side up, later ones on the marker's face (G-7)."""
        return [0 if scorings_done == 0 else marker] * count

    def placement_face(self, move: Move, face: int, hand: Counter[str], game_end: bool
                       ) -> tuple[int | None, list[str]]:
        """G-3: build on the face bought, or pay at least 3 in one currency to flip; turn
        freely into the reserve; never flip in the game-end distribution (G-6)."""
        tile = move.tile
        wanted = face if move.face is None else move.face
        flip = wanted != face
        if move.face is not None and not flip:  # one spelling: a face is named to turn it
            raise RuleViolation("G-3", msg(
                "{tile} already shows its back: name a face only to turn a tile over (leave "
                "out ':back')", tile=tile) if wanted else msg(
                "{tile} already shows its front: name a face only to turn a tile over (leave "
                "out ':front')", tile=tile))
        if flip and game_end:
            raise RuleViolation("G-6", msg(
                "a tile received at the game end is placed as it lies: {tile} cannot be "
                "turned to its back", tile=tile) if wanted else msg(
                "a tile received at the game end is placed as it lies: {tile} cannot be "
                "turned to its front", tile=tile))
        if move.to == "reserve" or not flip:
            if move.cards:
                raise RuleViolation("G-3", msg("nothing to pay: {tile} is not being flipped",
                                               tile=tile) if not flip else
                                    msg("turning {tile} as it goes into the reserve is free",
                                        tile=tile))
            return (wanted if flip else None), []
        if not move.cards:
            raise RuleViolation("G-3", msg(
                "to build {tile} on its back you first pay at least {price} in one currency "
                "(add e.g. 'pay DE3')", tile=tile, price=FLIP_PRICE) if wanted else msg(
                "to build {tile} on its front you first pay at least {price} in one "
                "currency (add e.g. 'pay DE3')", tile=tile, price=FLIP_PRICE))
        check_flip_payment(hand, move.cards)
        return wanted, list(move.cards)

    def flipped_placements(self, placements: list[Move], face: int, hand: Counter[str],
                           game_end: bool) -> list[Move]:
        """Each placement turned over: with each minimal flip payment, free into the
        reserve; none at the game end (G-6)."""
        if game_end:
            return []
        other = 1 - face
        payments = flip_payments(hand)
        out = []
        for move in placements:  # listed by legal_moves: valid by construction
            if move.to == "reserve":
                out.append(Move.unchecked("place", tile=move.tile, to="reserve", face=other))
            else:
                out += [Move.unchecked("place", tile=move.tile, to=move.to, at=move.at,
                                       face=other, cards=p) for p in payments]
        return out

    def majority_points(self, scoring: int, type_: str, counts: dict[Participant, int],
                        best: dict[Participant, int], options: dict[str, Any]
                        ) -> dict[Participant, int]:
        """G-5: 1st gets N, then 2N/N, then 3N/2N/N (N: tiles of the type in all cities,
        Juan's included, Decision G-5a), or the simple table; ties go to the highest tile."""
        if options.get("simple_scoring"):
            table = SIMPLE_POINTS[scoring]
        else:
            n = sum(counts.values())
            table = [n * (scoring - i) for i in range(scoring)]
        return ordered_places(counts, best, table)


KINDS: dict[str, AlhambraTiles] = {k.name: k for k in (AlhambraTiles(), GranadaTiles())}
