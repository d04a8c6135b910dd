"""Properties over random play, 2-6 players: conservation, determinism, replay, redaction,
and ``legal_moves`` agreeing with ``decide`` in both directions."""

import dataclasses
import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Move,
    RuleViolation,
    decide,
    legal_moves,
    new_game,
    play,
    redact_event,
    replay,
    view,
)
from engine.bots import random_move
from engine.components import SPACE_CURRENCY as CURRENCY
from engine.components import TILES, card_currency, card_value, money_cards
from engine.variants import VARIANTS


@st.composite
def games(draw, variants=tuple(VARIANTS)):
    """(seed, players, variant, options): every variant, player count and scoring mode."""
    variant = VARIANTS[draw(st.sampled_from(variants))]
    players = draw(st.integers(variant.min_players, variant.max_players))
    options = {}
    if "simple_scoring" in variant.options:
        options["simple_scoring"] = draw(st.booleans())
    return draw(st.integers(0, 2**32)), players, variant.name, options


def play_random(seed: int, players: int, variant: str = "alhambra", options=None,
                steps: int | None = None, check=None):
    """Play a random game (or ``steps`` moves of one); call ``check(state)`` after each."""
    events = new_game(variant, [f"p{i}" for i in range(players)], seed, options)
    state = replay(events)
    rng = random.Random(seed)
    n = 0
    while state.phase != "over" and (steps is None or n < steps):
        seat = state.current
        move = random_move(state, seat, rng)
        events += play(state, seat, move)
        n += 1
        if check:
            check(state)
    return state, events


def snapshot(state) -> str:
    """Every field of the state, as canonical JSON."""
    data = {
        "version": state.version, "deck": state.deck, "discard": state.discard,
        "display": state.display, "hands": [sorted((+h).elements()) for h in state.hands],
        "bags": state.bags, "market": state.market, "faces": state.faces,
        "grids": [sorted((list(p), t) for p, t in g.cells.items()) for g in state.grids],
        "roots": [g.roots for g in state.grids], "reserves": state.reserves,
        "neutral": state.neutral, "scores": state.scores, "neutral_score": state.neutral_score,
        "current": state.current, "phase": state.phase, "can_act": state.can_act,
        "acted": state.acted, "pending": state.pending, "due": state.scorings_due,
        "done": state.scorings_done, "shuffles": state.shuffles, "aside": state.set_aside,
        "distribution": state.distribution, "winners": state.winners,
    }
    return json.dumps(data, sort_keys=True)


def conserved(state) -> None:
    copies = 2 if state.players == 2 else 6 if state.options.get("both_money_decks") else 3
    money = Counter(state.display) + Counter(state.deck) + Counter(state.discard)
    for hand in state.hands:
        assert all(n > 0 for n in hand.values())
        money += hand
    for card in ("S1", "S2"):
        money.pop(card, None)
    assert money == Counter(money_cards(copies))
    tiles = [t for g in state.grids for t in g.cells.values() if t not in ("A00", "G00")]
    tiles += [t for bag in state.bags.values() for t in bag]
    tiles += [t for space in state.market for t in space]
    tiles += state.pending + state.neutral + [t for r in state.reserves for t in r]
    assert sorted(tiles) == sorted(t for kind in state.variant.kinds
                                   for t in state.variant.bag(kind))
    assert len(tiles) == 54 * len(state.variant.kinds)
    for t in tiles:  # every double-sided tile out of the bag shows a known face
        in_bag = any(t in bag for bag in state.bags.values())
        assert (t in state.faces) == (len(TILES[t].faces) == 2 and not in_bag)


@settings(max_examples=20, deadline=None)
@given(game=games())
def test_money_and_tiles_are_conserved_at_every_step(game):
    play_random(*game, check=conserved)


@settings(max_examples=10, deadline=None)
@given(game=games())
def test_same_seed_and_moves_give_the_same_events_and_replay_equals_live_state(game):
    state, events = play_random(*game)
    again, events2 = play_random(*game)
    assert json.dumps(events) == json.dumps(events2)
    assert snapshot(replay(events)) == snapshot(state) == snapshot(again)
    assert state.version == len(events)


@settings(max_examples=15, deadline=None)
@given(game=games(), steps=st.integers(0, 300))
def test_a7_a_seat_never_sees_other_hands_or_the_deck_and_bag_order(game, steps):
    state, events = play_random(*game, steps=steps)
    for seat in [None, *range(state.players)]:
        v = view(state, seat)
        for entry in v["seats"]:
            assert ("hand" in entry) == (entry["seat"] == seat)
            assert entry["hand_size"] == sum(state.hands[entry["seat"]].values())
        text = json.dumps(v)
        assert "deck\"" not in text.replace("deck_size", "") and "bag\"" not in text
        for e in events:
            r = json.dumps(redact_event(e, seat))
            if e["type"] in ("money_shuffled", "deck_stacked", "deck_reshuffled"):
                assert '"deck"' not in r
            if e["type"] == "bag_filled":
                assert '"tiles"' not in r
            if e["type"] == "game_created":  # the seed would give away every draw
                assert "seed" not in redact_event(e, seat)
                assert redact_event(e, seat, over=True)["seed"] == e["seed"]


def _candidates(state, seat, rng: random.Random) -> list[Move]:
    """Plausible moves, legal or not: random tiles, faces, cells, cards, display positions."""
    hand = sorted((+state.hands[seat]).elements())
    grid = state.grids[seat]
    xs = [p[0] for p in grid.cells] + [0]
    ys = [p[1] for p in grid.cells] + [0]
    near = [(x, y) for x in range(min(xs) - 1, max(xs) + 2)
            for y in range(min(ys) - 1, max(ys) + 2)]
    mine = state.pending + state.reserves[seat] + list(grid.where)
    market = [t for space in state.market for t in space]
    everything = [t for kind in state.variant.kinds for t in state.variant.bag(kind)]
    tiles = mine + market + rng.sample(everything, 3)

    def cards():
        return tuple(rng.sample(hand, min(len(hand), rng.randint(1, 3))))

    out = []
    for _ in range(12):
        k = rng.randint(1, 3)
        out.append(Move("take", positions=tuple(rng.sample(range(1, 6), k))))
        out.append(Move("buy", tile=rng.choice(tiles), cards=cards() or ("DE1",)))
        tile = rng.choice(state.pending or tiles)
        face = rng.choice([None, 0, 1])
        pay = cards() if rng.random() < 0.5 else ()
        out.append(Move("place", tile=tile, to="city", at=rng.choice(near), face=face,
                        cards=pay))
        out.append(Move("place", tile=tile, to=rng.choice(["reserve", "neutral"]), face=face,
                        cards=pay))
        out.append(Move("redesign", tile=tile, to="city", at=rng.choice(near)))
        out.append(Move("redesign", tile=tile, to="reserve"))
        out.append(Move("redesign", tile=tile, to="swap", other=rng.choice(tiles)))
    out.append(Move("end"))
    return out


def _sufficient(state, seat, move) -> bool:
    """The payment of ``move`` is held and enough: for a buy, in the space's currency and
    reaching the price; for a flip, in one currency and at least 3 (G-3)."""
    need = Counter(move.cards)
    if not all(state.hands[seat][c] >= n for c, n in need.items()):
        return False
    total = sum(card_value(c) for c in move.cards)
    if move.action == "buy":
        space = state.space_of(move.tile)
        return (all(card_currency(c) == CURRENCY[space] for c in move.cards)
                and total >= state.face(move.tile).value)
    return len({card_currency(c) for c in move.cards}) == 1 and total >= 3


def _listed(state, seat, move, listed) -> bool:
    """``move`` is listed, up to naming the face a tile already shows and up to paying
    more than a listed minimal payment."""
    if move.face is not None and move.tile in state.faces and \
            state.faces[move.tile] == move.face:
        move = dataclasses.replace(move, face=None)
    if move in listed:
        return True
    def bare(m):
        return m.action, m.tile, m.to, m.at, m.other, m.face

    return bool(move.cards) and any(
        bare(m) == bare(move) for m in listed if m.cards
    ) and _sufficient(state, seat, move)


@settings(max_examples=25, deadline=None)
@given(game=games(), steps=st.integers(0, 400))
def test_legal_moves_are_accepted_and_unlisted_moves_refused(game, steps):
    state, _ = play_random(*game, steps=steps)
    seat = state.current
    legal = legal_moves(state, seat)
    if state.phase != "over":
        assert legal, "a seat to move always has a legal move"
    before = snapshot(state)
    for move in legal:
        decide(state, seat, move)
    rng = random.Random(game[0] + steps)
    listed = set(legal)
    for move in _candidates(state, seat, rng):
        try:
            decide(state, seat, move)
            accepted = True
        except RuleViolation:
            accepted = False
        assert accepted == _listed(state, seat, move, listed), move
    other = (seat + 1) % state.players
    assert legal_moves(state, other) == []
    assert snapshot(state) == before  # decide never changes the state it is given
