"""Games played move by move by a hypothesis state machine, with the engine's invariants
checked after every step: money and tiles are conserved, replaying the log gives the live
state, ``legal_moves`` agrees with ``decide`` both ways, and no view or redacted event
depends on what its seat may not see (A-7). Each rule draws its move from the data, so a
failure shrinks to a short sequence of moves."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engine import (
    SCHEMA,
    Move,
    RuleViolation,
    State,
    decide,
    default_moves,
    evolve,
    legal_moves,
    new_game,
    redact_event,
    replay,
    view,
)
from engine.bots import random_move
from engine.components import SCORING_CARDS, SPACE_CURRENCY, TILES, card_currency, card_value
from engine.components import money_cards as money
from engine.events import SECRET_FIELDS
from engine.variants import VARIANTS


@st.composite
def games(draw) -> tuple[str, int, int, dict, int]:
    """(variant, players, seed, options, schema): every variant, player count, option and
    event schema."""
    variant = VARIANTS[draw(st.sampled_from(sorted(VARIANTS)))]
    players = draw(st.integers(variant.min_players, variant.max_players))
    options = {key: draw(st.booleans()) for key in variant.options}
    schema = draw(st.sampled_from(range(1, SCHEMA + 1)))
    return variant.name, players, draw(st.integers(10**6, 2**40)), options, schema


def snapshot(state: State) -> str:
    """Every field of the state, as canonical JSON."""
    data = {name: getattr(state, name) for name in State.__slots__
            if name not in ("hands", "grids")}
    data["hands"] = [sorted(h.elements()) for h in state.hands]
    data["grids"] = [[sorted((list(p), t) for p, t in g.cells.items()), g.roots]
                     for g in state.grids]
    return json.dumps(data, sort_keys=True)


def candidates(state: State, seat: int) -> st.SearchStrategy[Move]:
    """Plausible moves, legal or not: tiles of the seat, the market or anywhere, cards of
    its hand, cells around its grid, both faces, display positions."""
    hand = sorted(state.hands[seat].elements()) or ["DE1"]
    grid = state.grids[seat]
    xs = [p[0] for p in grid.cells]
    ys = [p[1] for p in grid.cells]
    cells = st.tuples(st.integers(min(xs) - 1, max(xs) + 1), st.integers(min(ys) - 1,
                                                                         max(ys) + 1))
    mine = state.pending + state.reserves[seat] + list(grid.where)
    market = [t for space in state.market for t in space]
    tiles = st.sampled_from(mine + market) | st.sampled_from(sorted(TILES))
    cards = st.lists(st.sampled_from(hand), min_size=1, max_size=3).map(tuple)
    pay = st.just(()) | cards
    faces = st.sampled_from([None, 0, 1])
    return st.one_of(
        st.lists(st.integers(0, 5), min_size=1, max_size=4).map(
            lambda p: Move("take", positions=tuple(p))),
        st.builds(lambda t, c: Move("buy", tile=t, cards=c), tiles, cards),
        st.builds(lambda t, at, f, c: Move("place", tile=t, to="city", at=at, face=f,
                                           cards=c), tiles, cells, faces, pay),
        st.builds(lambda t, to, f, c: Move("place", tile=t, to=to, face=f, cards=c),
                  tiles, st.sampled_from(["reserve", "neutral"]), faces, pay),
        st.builds(lambda t, at: Move("redesign", tile=t, to="city", at=at), tiles, cells),
        st.builds(lambda t: Move("redesign", tile=t, to="reserve"), tiles),
        st.builds(lambda t, o: Move("redesign", tile=t, to="swap", other=o), tiles, tiles),
        st.just(Move("end")),
    )


def _bare(m: Move) -> tuple:
    return m.action, m.tile, m.to, m.at, m.other, m.face


def _sufficient(state: State, seat: int, move: Move) -> bool:
    """The payment of ``move`` is held and enough: for a buy, in the space's currency and
    reaching the price; for a flip, in one currency and at least 3 (G-3)."""
    if any(state.hands[seat][c] < n for c, n in Counter(move.cards).items()):
        return False
    total = sum(card_value(c) for c in move.cards)
    if move.action == "buy":
        space = state.space_of(str(move.tile))
        return (space is not None and total >= state.face(str(move.tile)).value
                and all(card_currency(c) == SPACE_CURRENCY[space] for c in move.cards))
    return len({card_currency(c) for c in move.cards}) == 1 and total >= 3


def listed(state: State, seat: int, move: Move, legal: set[Move]) -> bool:
    """``move`` is listed, up to paying more than a listed minimal payment (naming the
    face a tile already shows is refused, G-3: one spelling per move)."""
    if move in legal:
        return True
    return bool(move.cards) and any(_bare(m) == _bare(move) for m in legal if m.cards) \
        and _sufficient(state, seat, move)


def hidden_changed(state: State, seat: int | None, rng: random.Random) -> State:
    """``state`` with everything ``seat`` may not see changed: the seed, the order of the
    deck and of the bags, the other seats' cards (A-7)."""
    other = state.copy()
    other.seed += 1
    rng.shuffle(other.deck)
    for bag in other.bags.values():
        rng.shuffle(bag)
    for s in range(state.players):
        if s != seat:
            other.hands[s] = Counter({"FL9": n} if (n := state.hands[s].total()) else {})
    return other


class Games(RuleBasedStateMachine):
    """One game per example, from its setup on."""

    def __init__(self) -> None:
        super().__init__()
        self.state = State()
        self.events: list = []
        self.redacted = 0  # events whose redaction has been checked

    def push(self, events: list) -> None:
        for e in events:
            evolve(self.state, e)
        self.events += events

    @initialize(game=games())
    def setup(self, game) -> None:
        variant, players, seed, options, schema = game
        self.push(new_game(variant, [f"p{i}" for i in range(players)], seed, options, schema))

    def playing(self) -> bool:
        return self.state.phase != "over"

    @precondition(playing)
    @rule(data=st.data())
    def a_legal_move(self, data) -> None:
        seat = self.state.current
        move = data.draw(st.sampled_from(legal_moves(self.state, seat)), label="move")
        self.push(decide(self.state, seat, move))

    @precondition(playing)
    @rule()
    def time_runs_out(self) -> None:
        """Part S: the default moves always exist and end what the seat had to do."""
        seat, turn = self.state.current, self.state.turn
        moves = default_moves(self.state, seat)
        assert moves
        self.push(decide(self.state, seat, moves, timeout=True))
        s = self.state
        assert s.phase == "over" or s.current != seat or s.turn != turn

    @precondition(playing)
    @rule(count=st.integers(1, 80), seed=st.integers(0, 2**16))
    def bots_play_on(self, count: int, seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(count):
            if not self.playing():
                break
            seat = self.state.current
            self.push(decide(self.state, seat, random_move(self.state, seat, rng)))

    @precondition(playing)
    @rule(data=st.data(), timeout=st.booleans())
    def legal_moves_agree_with_decide(self, data, timeout: bool) -> None:
        """Every listed move is accepted; any other is refused with a rule id; no other
        seat may move; deciding changes nothing."""
        state, seat = self.state, self.state.current
        before = snapshot(state)
        legal = legal_moves(state, seat, timeout=timeout)
        assert legal, "a seat to move always has a legal move"
        for move in data.draw(st.lists(st.sampled_from(legal), max_size=4), label="listed"):
            assert decide(state, seat, move, timeout=timeout)
        for _ in range(6):
            move = data.draw(candidates(state, seat), label="candidate")
            try:
                decide(state, seat, move, timeout=timeout)
                accepted = True
            except RuleViolation as exc:
                assert exc.rule and exc.message
                accepted = False
            assert accepted == listed(state, seat, move, set(legal)), move
        for other in range(state.players):
            if other != seat:
                assert legal_moves(state, other) == []
        assert snapshot(state) == before

    @precondition(lambda self: not self.playing())
    @rule(seat=st.integers(0, 5), data=st.data())
    def nothing_is_played_after_the_end(self, seat: int, data) -> None:
        seat %= self.state.players
        assert legal_moves(self.state, seat) == []
        move = data.draw(candidates(self.state, seat), label="candidate")
        try:
            decide(self.state, seat, move)
        except RuleViolation as exc:
            assert exc.rule == "A-6"
        else:
            raise AssertionError(f"{move} accepted after the end")

    @invariant()
    def money_and_tiles_are_conserved(self) -> None:
        s = self.state
        copies = 2 if s.players == 2 else 6 if s.options.get("both_money_decks") else 3
        cards = Counter(s.display) + Counter(s.deck) + Counter(s.discard)
        for hand in s.hands:
            assert all(n > 0 for n in hand.values())
            cards += hand
        assert cards - Counter(SCORING_CARDS) == Counter(money(copies))
        tiles = [t for g in s.grids for t in g.cells.values() if t not in ("A00", "G00")]
        tiles += [t for bag in s.bags.values() for t in bag]
        tiles += [t for space in s.market for t in space]
        tiles += s.pending + s.neutral + [t for r in s.reserves for t in r]
        assert sorted(tiles) == sorted(t for k in s.variant.kinds for t in s.variant.bag(k))
        for t in tiles:  # every double-sided tile out of the bag shows a known face
            in_bag = any(t in bag for bag in s.bags.values())
            assert (t in s.faces) == (len(TILES[t].faces) == 2 and not in_bag)

    @invariant()
    def replay_equals_the_live_state(self) -> None:
        assert self.state.version == len(self.events)
        assert snapshot(replay(self.events)) == snapshot(self.state)

    @invariant()
    def a_view_never_depends_on_what_its_seat_may_not_see(self) -> None:
        s = self.state
        rng = random.Random(s.version)
        for seat in [None, *range(s.players)]:
            seen = view(s, seat)
            assert seen == view(hidden_changed(s, seat, rng), seat)
            for entry in seen["seats"]:
                mine = entry["seat"] == seat
                assert ("hand" in entry) == mine
                if mine:
                    assert entry["hand"] == sorted(s.hands[seat].elements())

    @invariant()
    def a_redacted_event_never_holds_a_secret(self) -> None:
        over = self.state.phase == "over"
        for e in self.events[self.redacted:]:
            secret = SECRET_FIELDS.get(e["type"]) or ("seed" if e["type"] == "game_created"
                                                      else None)
            for seat in [None, *range(self.state.players)]:
                shown = redact_event(e, seat, over)
                if e["type"] == "money_dealt":  # dealt face up: public
                    assert shown == e
                if secret is None or (secret == "seed" and over):
                    assert shown == e
                    continue
                assert e[secret] not in shown.values()
                changed = dict(e, **{secret: e[secret][::-1] if secret != "seed"
                                     else e["seed"] + 1})
                assert redact_event(changed, seat, over) == shown
        self.redacted = len(self.events)

    def teardown(self) -> None:
        event(f"reached: {self.state.phase}, {self.state.scorings_done} scoring(s)")

    @invariant()
    def a_finished_game_is_complete(self) -> None:
        s = self.state
        if s.phase == "over":
            assert s.scorings_done == 3 and self.events[-1]["type"] == "game_over"
            assert s.winners and all(s.scores[w] == max(s.scores) for w in s.winners)


Games.TestCase.settings = settings(
    max_examples=30, stateful_step_count=25, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TestGames = Games.TestCase
