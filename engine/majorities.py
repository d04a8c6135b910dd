"""Majorities per building type: ranking participants and sharing points (A-5.1, G-5).

A participant is a seat number or ``"neutral"`` (Dirk or Juan, who score majorities only).
"""

from __future__ import annotations

from collections import Counter

from .components import Face
from .events import Participant


def shared_places(counts: dict[Participant, int], points: list[int]) -> dict[Participant, int]:
    """Alhambra majorities (A-5.1): tied players share the points of their places, rounded
    down; the next player takes the place after them. Only counts of 1 or more rank."""
    ranked = sorted((c for c in counts.values() if c > 0), reverse=True)
    out: dict[Participant, int] = {}
    place = 0
    for count in sorted(set(ranked), reverse=True):
        group = [p for p, c in counts.items() if c == count]
        total = sum(points[place : place + len(group)])
        for p in group:
            out[p] = total // len(group)
        place += len(group)
    return out


def ordered_places(
    counts: dict[Participant, int], best: dict[Participant, int], points: list[int]
) -> dict[Participant, int]:
    """Granada majorities (G-5): ties on count are broken by the highest-valued tile of the
    type, so every place is held by one participant."""
    ranked = sorted((p for p, c in counts.items() if c > 0),
                    key=lambda p: (counts[p], best[p]), reverse=True)
    return {p: points[i] for i, p in enumerate(ranked) if i < len(points)}


def type_counts(faces_by_participant: dict[Participant, list[Face]]
                ) -> dict[str, dict[Participant, int]]:
    """For each building type, the number of tiles each participant has of it."""
    out: dict[str, dict[Participant, int]] = {}
    for participant, faces in faces_by_participant.items():
        for type_, n in Counter(f.type for f in faces).items():
            out.setdefault(type_, {})[participant] = n
    return out


def best_values(faces_by_participant: dict[Participant, list[Face]]
                ) -> dict[str, dict[Participant, int]]:
    """For each building type, each participant's highest value of it."""
    out: dict[str, dict[Participant, int]] = {}
    for participant, faces in faces_by_participant.items():
        for f in faces:
            cur = out.setdefault(f.type, {})
            cur[participant] = max(cur.get(participant, 0), f.value)
    return out
