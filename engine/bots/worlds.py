"""What a seat may know, and worlds consistent with it (determinisation).

Secret in a game (A-7): the order of the money deck (with the scoring cards in it) and of
the bags; the seed, which fixes both. The hands are not secret to a seat that follows the
public history: starting money is dealt face up (Part S), money is taken from the face-up
display (A-3.1) and every payment is in the public events (A-3.2, G-3), so each hand is
the sum of those events (tests/engine/test_bots.py checks it). ``knowledge`` puts the
secret parts in a fixed order; ``determinise`` draws one world from it with the bot's own
generator, so two games that differ only in secrets give the same worlds.
"""

from __future__ import annotations

import random

from ..components import SCORING_CARDS
from ..state import State


def knowledge(state: State) -> State:
    """A copy of ``state`` with its secrets in a fixed order: the deck and each bag
    sorted (scoring cards at the deck's end), seed 0."""
    out = state.copy()
    out.deck = sorted(c for c in state.deck if c not in SCORING_CARDS) + sorted(
        c for c in state.deck if c in SCORING_CARDS)
    out.bags = {kind: sorted(bag) for kind, bag in state.bags.items()}
    out.seed = 0
    return out


def determinise(state: State, rng: random.Random) -> State:
    """One world a seat cannot tell from ``state``: deck and bags shuffled, each scoring
    card still in the deck at a random place in it, a new seed for later reshuffles."""
    world = knowledge(state)
    cards = [c for c in world.deck if c not in SCORING_CARDS]
    rng.shuffle(cards)
    for card in (c for c in world.deck if c in SCORING_CARDS):
        cards.insert(rng.randint(0, len(cards)), card)
    world.deck = cards
    for bag in world.bags.values():
        rng.shuffle(bag)
    world.seed = rng.getrandbits(63)
    return world
