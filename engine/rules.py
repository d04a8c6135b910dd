"""The decider: ``new_game`` (setup events), ``decide`` (moves -> events), ``legal_moves``.

``decide`` checks each move against the state and returns the facts it causes, including
the automatic steps that follow (end of turn A-3.4, scorings A-5, game end A-6). It never
changes the state it is given; ``play`` is the in-place form for callers that own the state.
Randomness (setup, reshuffles) comes from generators seeded by the game's seed and is
recorded in the events, so a log replays without them.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from .components import (
    CURRENCY_CODES,
    SCORING_CARDS,
    SPACE_CURRENCY,
    TILES,
    card_currency,
    card_value,
)
from .errors import NotYourTurn, RuleViolation
from .events import SCHEMA
from .moves import Move, format_move
from .state import Event, State, evolve
from .variants import VARIANTS, OptionError
from .version import __version__

Emit = Callable[[Event], None]
MONEY_TARGET = 20  # A-2 step 4: deal until a player holds 20 or more
DISPLAY_SIZE = 4


def _rng(state_or_seed: Any, purpose: str) -> random.Random:
    return random.Random(f"{state_or_seed}:{purpose}")


def _emitter(state: State, events: list[Event]) -> Emit:
    def emit(event: Event) -> None:
        events.append(event)
        evolve(state, event)
    return emit


# -- setup -------------------------------------------------------------------------------

def new_game(variant: str, seats: list[str], seed: int,
             options: dict[str, Any] | None = None, schema: int = SCHEMA) -> list[Event]:
    """The setup events of a new game (A-2); raises OptionError for bad input. ``schema``
    sets up a game as that older event schema did (to replay an old record)."""
    if variant not in VARIANTS:
        raise OptionError("variant", f"unknown variant {variant!r}; known: {sorted(VARIANTS)}")
    if schema not in range(1, SCHEMA + 1):
        raise OptionError("schema", f"unknown event schema {schema}; this engine knows 1 to "
                          f"{SCHEMA}")
    v = VARIANTS[variant]
    opts = v.check(len(seats), options or {}, schema)
    rng = _rng(seed, "setup")
    events: list[Event] = []
    state = State()
    emit = _emitter(state, events)
    created: Event = {"type": "game_created", "variant": variant, "seed": seed,
                      "seats": list(seats), "options": opts}
    if schema > 1:
        created.update(schema=schema, engine_version=__version__)
    emit(created)
    for kind in v.kinds:
        bag = v.bag(kind)
        rng.shuffle(bag)
        emit({"type": "bag_filled", "kind": kind, "tiles": bag})
    v.setup_market(state, emit, _rng(seed, "setup returns"))
    if state.has_neutral:
        _neutral_draw(state, emit, 6)
    deck = v.money_deck(len(seats), opts)
    rng.shuffle(deck)
    emit({"type": "money_shuffled", "deck": deck})
    dealt = []
    for seat in range(len(seats)):
        count = total = 0
        while total < MONEY_TARGET:
            total += card_value(state.deck[count])
            count += 1
        cards = state.deck[:count]
        emit({"type": "money_dealt", "seat": seat, "count": count, "total": total,
              "cards": cards})
        dealt.append((count, total, seat))
    emit({"type": "display_refilled", "cards": state.deck[:DISPLAY_SIZE]})
    stacked, aside = v.stack_deck(list(state.deck), rng)
    emit({"type": "deck_stacked", "deck": stacked, "set_aside": aside})
    # A-2 step 5: fewest cards, then lowest total, then the earliest seat (Decision A-2a).
    emit({"type": "turn_started", "seat": min(dealt)[2]})
    return events


def _neutral_draw(state: State, emit: Emit, count: int) -> None:
    kind = state.variant.kinds[-1]
    tiles = state.bags[kind][:count]
    if tiles:
        event: Event = {"type": "neutral_received", "tiles": tiles}
        faces = state.variant.neutral_faces(state, tiles)
        if faces is not None:
            event["faces"] = faces
        emit(event)


# -- the end of a turn, scorings, the game end --------------------------------------------

def refill_market(state: State, emit: Emit) -> None:
    """Fill each market space lacking a tile of a kind from that kind's bag (A-3.4 step 3)."""
    v = state.variant
    placed: set[str] = set()
    for i, space in enumerate(state.market):
        for kind in v.kinds:
            if any(TILES[t].kind == kind for t in space):
                continue
            bag = state.bags[kind]
            if bag:
                tile = bag[0]
                event: Event = {"type": "market_refilled", "space": i + 1, "tile": tile}
                face = v.refill_face(state, tile)
                if face is not None:
                    event["face"] = face
                emit(event)
                placed.add(kind)
    if placed:
        v.after_refill(state, emit, placed)


def _refill_display(state: State, emit: Emit) -> None:
    while len(state.display) < DISPLAY_SIZE:
        if not state.deck:
            if not state.discard:
                return
            deck, aside = state.variant.reshuffle(
                state, list(state.discard), _rng(state.seed, f"shuffle{state.shuffles}"))
            emit({"type": "deck_reshuffled", "deck": deck, "set_aside": aside})
            continue
        top = state.deck[0]
        if top in SCORING_CARDS:
            scoring = state.scorings_done + len(state.scorings_due) + 1
            emit({"type": "scoring_card_drawn", "card": top, "scoring": scoring})
        else:
            emit({"type": "card_drawn", "card": top})


def _score(state: State, scoring: int, emit: Emit) -> None:
    for award in state.variant.awards(state, scoring):
        emit(award)
    emit({"type": "scoring_done", "scoring": scoring})
    if state.has_neutral and scoring < 3:
        _neutral_draw(state, emit, state.variant.neutral_draw(state))


def _end_turn(state: State, emit: Emit) -> None:
    """A-3.4 steps 2-4, then the next turn or the game end (A-6)."""
    _refill_display(state, emit)
    refill_market(state, emit)
    for scoring in list(state.scorings_due):  # Decision A-3b: before the game end
        _score(state, scoring, emit)
    if any(not space for space in state.market):
        emit({"type": "game_ending",
              "spaces": [i + 1 for i, space in enumerate(state.market) if space]})
    else:
        emit({"type": "turn_started", "seat": (state.current + 1) % state.players})


def richest(state: State, space: int) -> int | None:
    """The one seat holding the most money of the space's currency, if any (A-6 step 2)."""
    currency = SPACE_CURRENCY[space]
    sums = [sum(card_value(c) * n for c, n in hand.items() if card_currency(c) == currency)
            for hand in state.hands]
    top = max(sums)
    if top == 0 or sums.count(top) > 1:
        return None
    return sums.index(top)


def _distribute(state: State, emit: Emit) -> None:
    """A-6 steps 2-5: give out the next space's tiles, or finish the game."""
    while state.distribution:
        space = state.distribution[0]
        seat = richest(state, space)
        emit({"type": "space_resolved", "space": space, "seat": seat})
        if seat is not None:
            for tile in list(state.market[space - 1]):
                emit({"type": "tile_awarded", "space": space, "seat": seat, "tile": tile})
            return
    _score(state, 3, emit)
    best = max(state.scores)
    emit({"type": "game_over", "scores": list(state.scores),
          "neutral_score": state.neutral_score if state.has_neutral else None,
          "winners": [i for i, s in enumerate(state.scores) if s == best]})


def _advance(state: State, emit: Emit) -> None:
    while not state.pending:
        if state.phase == "placement":
            _end_turn(state, emit)
        elif state.phase == "distribution":
            _distribute(state, emit)
        else:
            return


# -- moves -------------------------------------------------------------------------------

def _need_action(state: State) -> None:
    if state.phase == "action" and state.can_act:
        return
    if state.phase == "distribution":
        raise RuleViolation("A-6", f"the game is ending: place the tile you received "
                            f"({', '.join(state.pending)}) first")
    raise RuleViolation("A-3.4", f"your actions are over this turn; place your bought tiles "
                        f"({', '.join(state.pending)}) into the Alhambra or the reserve")


def _take(state: State, seat: int, move: Move) -> Event:
    display = state.display
    if len(set(move.positions)) != len(move.positions):
        raise RuleViolation("A-3.1", "a display position is named twice")
    for p in move.positions:
        if not 1 <= p <= len(display):
            raise RuleViolation("A-3.1", f"there is no card at display position {p}; the "
                                f"display holds {len(display)} card(s)")
    cards = [display[p - 1] for p in move.positions]
    total = sum(card_value(c) for c in cards)
    if len(cards) > 1 and total > 5:
        raise RuleViolation("A-3.1", f"several cards may be taken only if they total at most "
                            f"5; {'+'.join(cards)} total {total}")
    return {"type": "money_taken", "seat": seat, "positions": list(move.positions),
            "cards": cards}


def check_payment(state: State, seat: int, cards: Iterable[str], currency: str | None,
                  rule: str) -> int:
    """Check that ``seat`` holds ``cards``, all of ``currency`` if given, and return their
    sum; otherwise raise naming ``rule``."""
    cards = list(cards)
    if not cards:
        raise RuleViolation(rule, "a payment needs at least one card")
    hand = state.hands[seat]
    for c, n in Counter(cards).items():
        if hand[c] < n:
            held = f"only {hand[c]}" if hand[c] else "none"
            raise RuleViolation(rule, f"you pay {n} x {c} but hold {held}")
    if currency is not None:
        for c in cards:
            if card_currency(c) != currency:
                raise RuleViolation(rule, f"{c} is a {card_currency(c)} card; this payment "
                                    f"must be in {currency}")
    return sum(card_value(c) for c in cards)


def _buy(state: State, seat: int, move: Move) -> Event:
    space = state.space_of(move.tile)
    if space is None:
        raise RuleViolation("A-3.2", f"{move.tile} is not on the building market")
    currency = SPACE_CURRENCY[space]
    price = state.face(move.tile).value
    total = check_payment(state, seat, move.cards, currency, "A-3.2")
    if total < price:
        raise RuleViolation("A-3.2", f"{move.tile} costs {price} {currency}; "
                            f"{','.join(move.cards)} total {total}")
    return {"type": "tile_bought", "seat": seat, "space": space, "tile": move.tile,
            "cards": list(move.cards), "exact": total == price}


def _end(state: State, seat: int, move: Move, timeout: bool = False) -> Event:
    if not (state.acted or timeout) and _can_act(state, seat):
        raise RuleViolation("A-3", "a turn needs one action: 'end' without one is possible "
                            "only when you can do nothing at all (no money on display, "
                            "nothing to buy or redesign)")
    return {"type": "actions_ended", "seat": seat}


def _can_act(state: State, seat: int) -> bool:
    """Has ``seat`` any action at all: money to take, a tile to buy, a redesign (Part S)?"""
    return bool(state.display or _buy_moves(state, seat) or _redesign_moves(state, seat))


def _place(state: State, seat: int, move: Move) -> Event:
    if not state.pending:
        raise RuleViolation("A-3.4", "there is no tile to place now: tiles are placed after "
                            "the turn's actions")
    if move.tile not in state.pending:
        raise RuleViolation("A-3.4", f"{move.tile} is not among your tiles to place "
                            f"({', '.join(state.pending)})")
    event: Event = {"type": "tile_placed", "seat": seat, "tile": move.tile, "to": move.to}
    state.variant.placement_extras(state, seat, move, event)
    if move.to == "city":
        why = state.grids[seat].placement_error(move.tile, move.at)
        if why:
            raise RuleViolation(*why)
        event["at"] = list(move.at)
    elif move.to == "neutral":
        name = state.variant.neutral_name
        if not state.has_neutral:
            raise RuleViolation(state.variant.neutral_rule, f"{name} plays only in a "
                                f"2-player game")
        if state.phase == "distribution":
            raise RuleViolation(state.variant.neutral_rule, f"{name} never receives tiles "
                                f"in the game-end distribution")
    elif move.to != "reserve":
        raise RuleViolation("A-3.4", "a bought tile goes into the Alhambra, the reserve or "
                            "(two players) to the neutral collector")
    return event


def _redesign(state: State, seat: int, move: Move) -> Event:
    grid, reserve = state.grids[seat], state.reserves[seat]
    if move.to == "city":
        if move.tile not in reserve:
            raise RuleViolation("A-3.3", f"{move.tile} is not in your reserve")
        why = grid.placement_error(move.tile, move.at)
    elif move.to == "reserve":
        why = grid.removal_error(move.tile)
    elif move.to == "swap":
        if move.other not in reserve:
            raise RuleViolation("A-3.3", f"{move.other} is not in your reserve")
        why = grid.swap_error(move.tile, move.other)
    else:
        raise RuleViolation("A-3.3", "a redesign moves a reserve tile in, a tile out, or "
                            "swaps one of each")
    if why:
        raise RuleViolation(*why)
    event: Event = {"type": "redesigned", "seat": seat, "tile": move.tile, "to": move.to}
    if move.to == "city":
        event["at"] = list(move.at)
    if move.to == "swap":
        event["other"] = move.other
    return event


_ACTIONS = {"take": _take, "buy": _buy, "redesign": _redesign}


def _apply(state: State, seat: int, move: Move, emit: Emit, timeout: bool = False) -> None:
    """Check and play one move, then the automatic steps that follow it. The move's first
    event carries the move's notation (and ``timeout`` when the service played it)."""
    if state.phase == "over":
        raise RuleViolation("A-6", "the game is over")
    if seat != state.current or state.phase == "setup":
        raise NotYourTurn(f"it is {state.seats[state.current]}'s turn, not "
                          f"{state.seats[seat] if 0 <= seat < state.players else seat}'s")
    implicit_end = False
    if move.action == "place":
        # Placing a bought tile after an exact purchase ends the actions.
        implicit_end = state.phase == "action"
        check = _place
    elif move.action == "end":
        _need_action(state)
        check = functools.partial(_end, timeout=timeout)
    else:
        _need_action(state)
        check = _ACTIONS[move.action]
    event = check(state, seat, move)
    if implicit_end:
        emit({"type": "actions_ended", "seat": seat})
    event["move"] = format_move(move)
    if timeout:
        event["timeout"] = True
    emit(event)
    _advance(state, emit)


def decide(state: State, seat: int, moves: Move | list[Move], timeout: bool = False
           ) -> list[Event]:
    """The events that ``moves`` by ``seat`` cause, all of them legal, else a RuleViolation.

    A list is one submission: applied in order, all or none. ``timeout`` marks moves the
    service plays for a seat whose time ran out (RULES.md Part S).
    """
    moves = [moves] if isinstance(moves, Move) else list(moves)
    if not moves:
        raise RuleViolation("A-3", "no move given")
    work = state.copy()
    events: list[Event] = []
    emit = _emitter(work, events)
    for i, move in enumerate(moves):
        if i and (work.current != seat or _turn_changed(events)):
            raise RuleViolation("A-3", f"move {i + 1} ({move}) comes after your turn ended")
        _apply(work, seat, move, emit, timeout)
    return events


def _turn_changed(events: list[Event]) -> bool:
    return any(e["type"] in ("turn_started", "game_over") for e in events)


def play(state: State, seat: int, move: Move, timeout: bool = False) -> list[Event]:
    """Apply one move to ``state`` in place; on a RuleViolation the state is unchanged."""
    events: list[Event] = []
    _apply(state, seat, move, _emitter(state, events), timeout)
    return events


# -- legal moves -------------------------------------------------------------------------

@functools.lru_cache(maxsize=8192)
def minimal_payments(cards: tuple[str, ...], price: int) -> tuple[tuple[str, ...], ...]:
    """Every multiset of ``cards`` (one currency, sorted) reaching ``price`` from which no
    card can be left out, each highest value first."""
    counts = Counter(cards)
    distinct = sorted(counts, key=card_value, reverse=True)
    out: list[tuple[str, ...]] = []

    def rec(i: int, chosen: tuple[str, ...], total: int) -> None:
        if total >= price:
            if total - card_value(chosen[-1]) < price:
                out.append(chosen)
            return
        if i == len(distinct):
            return
        card = distinct[i]
        value = card_value(card)
        for k in range(counts[card], -1, -1):
            rec(i + 1, chosen + (card,) * k, total + value * k)

    rec(0, (), 0)
    return tuple(out)


def held(state: State, seat: int, code: str) -> tuple[str, ...]:
    """The seat's cards of one currency (by its code, e.g. ``DI``), sorted."""
    return tuple(sorted(c for c, n in state.hands[seat].items() if c[:2] == code
                        for _ in range(n)))


# Display positions (0-based) of every group of two or more cards, by display size.
_GROUPS = {n: [c for size in range(2, n + 1) for c in itertools.combinations(range(n), size)]
           for n in range(DISPLAY_SIZE + 1)}


def _take_moves(state: State) -> list[Move]:
    values = [card_value(c) for c in state.display]
    out = [Move("take", positions=(i + 1,)) for i in range(len(values))]
    for group in _GROUPS[len(values)]:
        if sum(values[i] for i in group) <= 5:
            out.append(Move("take", positions=tuple(i + 1 for i in group)))
    return out


def _buy_moves(state: State, seat: int) -> list[Move]:
    out = []
    for i, space in enumerate(state.market):
        if not space:
            continue
        cards = held(state, seat, CURRENCY_CODES[SPACE_CURRENCY[i + 1]])
        for tile in space:
            out += [Move("buy", tile=tile, cards=pay)
                    for pay in minimal_payments(cards, state.face(tile).value)]
    return out


def _redesign_moves(state: State, seat: int) -> list[Move]:
    grid, reserve = state.grids[seat], state.reserves[seat]
    out = []
    for tile in reserve:
        out.extend(Move("redesign", tile=tile, to="city", at=p)
                   for p in grid.legal_positions(tile))
    removable = grid.removable()
    out.extend(Move("redesign", tile=t, to="reserve") for t in grid.where if t in removable)
    out.extend(Move("redesign", tile=t, to="swap", other=o) for t, o in grid.swaps(reserve))
    return out


def _place_moves(state: State, seat: int) -> list[Move]:
    out = []
    for tile in state.pending:
        out.extend(state.variant.placement_moves(state, seat, tile))
    return out


def legal_moves(state: State, seat: int, kinds: Iterable[str] | None = None,
                timeout: bool = False) -> list[Move]:
    """Every move ``seat`` may make now (payments listed minimal), optionally only of the
    actions in ``kinds``; with ``timeout``, the moves allowed when its time ran out (then
    ending the turn without an action is one, Part S)."""
    if state.phase in ("over", "setup") or seat != state.current:
        return []
    want = set(kinds) if kinds is not None else {"take", "buy", "end", "redesign", "place"}
    out: list[Move] = []
    if state.phase in ("placement", "distribution"):
        return _place_moves(state, seat) if "place" in want else []
    if "take" in want:
        out += _take_moves(state)
    if "buy" in want:
        out += _buy_moves(state, seat)
    if "redesign" in want:
        out += _redesign_moves(state, seat)
    if "end" in want and (state.acted or timeout or not _can_act(state, seat)):
        out.append(Move("end"))
    if state.pending:
        out += _place_moves(state, seat) if "place" in want else []
    return out


def default_moves(state: State, seat: int) -> list[Move]:
    """The moves played for ``seat`` when its time runs out (RULES.md Part S): before any
    action, take the highest display card (lowest position on ties) or end with an empty
    display; after an exact purchase, end the actions; put each tile waiting for
    placement into the reserve. Each is taken from ``legal_moves`` for a timeout."""
    work = state.copy()
    out: list[Move] = []
    while work.phase not in ("over", "setup") and work.current == seat:
        legal = legal_moves(work, seat, timeout=True)
        if work.phase == "action":
            takes = [m for m in legal if m.action == "take" and len(m.positions) == 1]
            if takes and not work.acted:
                best = max(card_value(c) for c in work.display)
                move = next(m for m in takes
                            if card_value(work.display[m.positions[0] - 1]) == best)
            else:
                move = next(m for m in legal if m.action == "end")
        else:
            move = next(m for m in legal if m.action == "place" and m.to == "reserve")
        out.append(move)
        events = play(work, seat, move, timeout=True)
        if _turn_changed(events):
            break
    return out
