"""The decider: ``new_game`` (setup events), ``decide`` (moves -> events; ``decision``:
with the state after them), ``preview`` (what
moves would show their seat, nothing drawn), ``default_moves``, ``take_over`` (a bot
plays a seat from now on, S-2).

``decide`` checks each move against the state and returns the facts it causes, including
the automatic steps that follow (end of turn A-3.4, scorings A-5, game end A-6). It never
changes the state it is given; ``play`` is the in-place form for callers that own the state.
Randomness (setup, reshuffles) comes from generators seeded by the game's seed and is
recorded in the events, so a log replays without them.
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

from . import events as ev
from .components import DISPLAY_SIZE, SPACE_CURRENCY, TILES, card_currency, card_value
from .errors import NotYourTurn, OptionError, RuleViolation
from .events import SCHEMA, Emit, Event
from .kinds import KINDS
from .legal import can_act, legal_moves
from .market import emitter, neutral_draw, refill_display, refill_market, rng
from .moves import Move, format_move
from .payments import check_payment
from .scoring import awards
from .state import State, evolve
from .terms import amount, money_words
from .terms import neutral as neutral_words
from .variants import VARIANTS
from .version import __version__
from .words import msg, nmsg

MONEY_TARGET = 20  # A-2 step 4: deal until a player holds 20 or more


# -- setup -------------------------------------------------------------------------------

def new_game(variant: str, seats: list[str], seed: int,
             options: dict[str, Any] | None = None, schema: int = SCHEMA, *,
             bots: list[str | None] | None = None, takeover_after_timeouts: int = 0,
             takeover_bot: str | None = None) -> list[Event]:
    """The setup events of a new game (A-2); raises OptionError for bad input. ``schema``
    sets up a game as that older event schema did (to replay an old record). S-2:
    ``bots`` gives the level of each seat played by a bot (None: a person); after
    ``takeover_after_timeouts`` turns in a row whose time ran out (0: never), a
    ``takeover_bot`` plays the seat. The caller checks the levels (engine.bots.LEVELS)."""
    if variant not in VARIANTS:
        raise OptionError("variant", msg("unknown variant {variant}; known: {known}",
                                         variant=repr(variant), known=str(sorted(VARIANTS))))
    if schema not in range(1, SCHEMA + 1):
        raise OptionError("schema", msg("unknown event schema {schema}; this engine knows 1 "
                                        "to {last}", schema=schema, last=SCHEMA))
    v = VARIANTS[variant]
    opts = v.check(len(seats), options or {}, schema)
    setup = rng(seed, "setup")
    events: list[Event] = []
    state = State()
    emit = emitter(state, events)
    created: ev.GameCreated = {"type": "game_created", "variant": variant, "seed": seed,
                               "seats": list(seats), "options": opts}
    if schema > 1:
        created["schema"] = schema
        created["engine_version"] = __version__
    if bots is not None and any(bots):
        if len(bots) != len(seats):
            raise OptionError("bots", msg("{levels} bot levels for {seats} seats",
                                          levels=len(bots), seats=len(seats)))
        created["bots"] = list(bots)
    if takeover_after_timeouts:
        if takeover_after_timeouts < 0 or not takeover_bot:
            raise OptionError("takeover_after_timeouts", msg(
                "a takeover needs a positive number of timeouts and a bot level"))
        created["takeover_after_timeouts"] = takeover_after_timeouts
    if takeover_bot:
        created["takeover_bot"] = takeover_bot
    emit(created)
    for kind in v.kinds:
        bag = v.bag(kind)
        setup.shuffle(bag)
        emit({"type": "bag_filled", "kind": kind, "tiles": bag})
    refill_market(state, emit, returns=rng(seed, "setup returns"))
    if state.has_neutral:
        neutral_draw(state, emit, 6)
    deck = v.money_deck(len(seats), opts)
    setup.shuffle(deck)
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
    stacked, aside = v.stack_deck(list(state.deck), setup)
    emit({"type": "deck_stacked", "deck": stacked, "set_aside": aside})
    # A-2 step 5: fewest cards, then lowest total, then the earliest seat (Decision A-2a).
    emit({"type": "turn_started", "seat": min(dealt)[2]})
    return events


# -- the end of a turn, scorings, the game end --------------------------------------------

def _score(state: State, scoring: int, emit: Emit) -> None:
    for award in awards(state, scoring):
        emit({"type": "points_awarded", "scoring": scoring, "seat": award.seat,
              "kind": award.kind, "building": award.building, "points": award.points})
    emit({"type": "scoring_done", "scoring": scoring})
    if state.has_neutral and scoring < 3:
        count = state.variant.neutral_draw(state.scorings_done,
                                           sum(len(b) for b in state.bags.values()),
                                           state.options)
        neutral_draw(state, emit, count)


def _end_turn(state: State, emit: Emit) -> None:
    """A-3.4 steps 2-4, then the next turn or the game end (A-6)."""
    refill_display(state, emit)
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
                event: ev.TileAwarded = {"type": "tile_awarded", "space": space,
                                         "seat": seat, "tile": tile}
                if tile in state.faces:
                    event["face"] = state.faces[tile]
                emit(event)
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
        raise RuleViolation("A-6", msg("the game is ending: place the tile you received "
                                       "({tiles}) first", tiles=", ".join(state.pending)))
    raise RuleViolation("A-3.4", msg("your actions are over this turn; place your bought "
                                     "tiles ({tiles}) into the Alhambra or the reserve",
                                     tiles=", ".join(state.pending)))


def _take(state: State, seat: int, move: Move) -> ev.MoneyTaken:
    display = state.display
    if len(set(move.positions)) != len(move.positions):
        raise RuleViolation("A-3.1", msg("a display position is named twice"))
    for p in move.positions:
        if not 1 <= p <= len(display):
            raise RuleViolation("A-3.1", nmsg(
                "there is no card at display position {position}; the display holds {n} "
                "card", "there is no card at display position {position}; the display holds "
                "{n} cards", len(display), position=p))
    cards = [display[p - 1] for p in move.positions]
    total = sum(card_value(c) for c in cards)
    if len(cards) > 1 and total > 5:
        raise RuleViolation("A-3.1", msg("several cards may be taken only if they total at "
                                         "most 5; {cards} total {total}",
                                         cards=money_words(cards), total=total))
    return {"type": "money_taken", "seat": seat, "positions": list(move.positions),
            "cards": cards}


def _buy(state: State, seat: int, move: Move) -> ev.TileBought:
    tile = str(move.tile)
    space = state.space_of(tile)
    if space is None:
        raise RuleViolation("A-3.2", msg("{tile} is not on the building market", tile=tile))
    currency = SPACE_CURRENCY[space]
    price = state.face(tile).value
    total = check_payment(state.hands[seat], move.cards, currency, "A-3.2")
    if total < price:
        raise RuleViolation("A-3.2", msg("{tile} costs {price}; {cards} total {total}",
                                         tile=tile, price=amount(currency, price),
                                         cards=money_words(move.cards), total=total))
    event: ev.TileBought = {"type": "tile_bought", "seat": seat, "space": space,
                            "tile": tile, "cards": list(move.cards), "exact": total == price}
    if tile in state.faces:
        event["face"] = state.faces[tile]
    return event


def _end(state: State, seat: int, timeout: bool) -> ev.ActionsEnded:
    if not (state.acted or timeout) and can_act(state, seat):
        raise RuleViolation("A-3", msg("a turn needs one action: 'end' without one is "
                                       "possible only when you can do nothing at all (no "
                                       "money on display, nothing to buy or redesign)"))
    return {"type": "actions_ended", "seat": seat}


def _place(state: State, seat: int, move: Move) -> ev.TilePlaced:
    tile = str(move.tile)
    if not state.pending:
        raise RuleViolation("A-3.4", msg("there is no tile to place now: tiles are placed "
                                         "after the turn's actions"))
    if tile not in state.pending:
        raise RuleViolation("A-3.4", msg("{tile} is not among your tiles to place ({tiles})",
                                         tile=tile, tiles=", ".join(state.pending)))
    game_end = state.phase == "distribution"
    face, cards = KINDS[TILES[tile].kind].placement_face(
        move, state.faces.get(tile, 0), state.hands[seat], game_end)
    event: ev.TilePlaced = {"type": "tile_placed", "seat": seat, "tile": tile,
                            "to": cast(ev.PlaceTarget, move.to)}
    if cards:
        event["cards"] = cards
    if face is not None:
        event["face"] = face
    if move.at is not None:
        why = state.grids[seat].placement_error(tile, move.at)
        if why:
            raise RuleViolation(*why)
        event["at"] = list(move.at)
    elif move.to == "neutral":
        variant = state.variant
        if not state.has_neutral:
            raise RuleViolation(variant.neutral_rule, msg(
                "{neutral} plays only in a 2-player game",
                neutral=neutral_words(variant.neutral_name)))
        if game_end:
            raise RuleViolation(variant.neutral_rule, msg(
                "{neutral} never receives tiles in the game-end distribution",
                neutral=neutral_words(variant.neutral_name)))
    return event


def _redesign(state: State, seat: int, move: Move) -> ev.Redesigned:
    tile = str(move.tile)
    grid, reserve = state.grids[seat], state.reserves[seat]
    event: ev.Redesigned = {"type": "redesigned", "seat": seat, "tile": tile,
                            "to": cast(ev.RedesignTarget, move.to)}
    if move.at is not None:
        if tile not in reserve:
            raise RuleViolation("A-3.3", msg("{tile} is not in your reserve", tile=tile))
        why = grid.placement_error(tile, move.at)
        event["at"] = list(move.at)
    elif move.other is not None:
        if move.other not in reserve:
            raise RuleViolation("A-3.3", msg("{tile} is not in your reserve",
                                             tile=move.other))
        why = grid.swap_error(tile, move.other)
        event["other"] = move.other
    else:
        why = grid.removal_error(tile)
    if why:
        raise RuleViolation(*why)
    return event


def move_events(state: State, seat: int, move: Move, timeout: bool = False) -> list[Event]:
    """The events of ``move`` itself, checked but without the automatic steps that follow
    it (end of turn, refills, scorings): what a bot may look at without seeing the deck or
    the bags. The state is not changed."""
    events: list[Event] = []
    _move(state, seat, move, events.append, timeout)
    return events


def _move(state: State, seat: int, move: Move, emit: Emit, timeout: bool,
          bot: str | None = None) -> None:
    """Check one move and emit its events. The move's first event carries the move's
    notation (and ``timeout`` when the service played it, ``bot`` when a bot did)."""
    if state.phase == "over":
        raise RuleViolation("A-6", msg("the game is over"))
    if seat != state.current or state.phase == "setup":
        raise NotYourTurn(msg("it is {current}'s turn, not {seat}'s",
                              current=state.seats[state.current],
                              seat=state.seats[seat] if 0 <= seat < state.players else seat))
    event: ev.MoveEvent
    if move.action == "place":
        # Placing a bought tile after an exact purchase ends the actions.
        implicit_end = state.phase == "action"
        event = _place(state, seat, move)
    else:
        implicit_end = False
        _need_action(state)
        if move.action == "take":
            event = _take(state, seat, move)
        elif move.action == "buy":
            event = _buy(state, seat, move)
        elif move.action == "redesign":
            event = _redesign(state, seat, move)
        else:
            event = _end(state, seat, timeout)
    if implicit_end:
        emit({"type": "actions_ended", "seat": seat})
    event["move"] = format_move(move)
    if timeout:
        event["timeout"] = True
    if bot:
        event["bot"] = bot
    emit(event)


def _apply(state: State, seat: int, move: Move, emit: Emit, timeout: bool = False,
           bot: str | None = None) -> None:
    """Check and play one move, then the automatic steps that follow it."""
    _move(state, seat, move, emit, timeout, bot)
    _advance(state, emit)


class Decision(NamedTuple):
    """A submission's events and the state after them (folded once, as decided)."""

    events: list[Event]
    state: State


def decision(state: State, seat: int, moves: Move | list[Move], timeout: bool = False,
             bot: str | None = None) -> Decision:
    """The events that ``moves`` by ``seat`` cause, all of them legal, else a RuleViolation,
    with the state after them (``state`` itself is not changed).

    A list is one submission: applied in order, all or none. ``timeout`` marks moves the
    service plays for a seat whose time ran out (docs/rules.md Part S); when that has
    happened the game's number of turns in a row, a bot takes the seat over (S-2).
    ``bot`` marks moves a bot of that level chose.
    """
    moves = [moves] if isinstance(moves, Move) else list(moves)
    if not moves:
        raise RuleViolation("A-3", msg("no move given"))
    work = state.copy()
    events: list[Event] = []
    emit = emitter(work, events)
    for i, move in enumerate(moves):
        _check_next(work, seat, events, i, move)
        _apply(work, seat, move, emit, timeout, bot)
    if timeout and work.takeover_after and work.takeover_bot and seat not in work.bots \
            and work.phase != "over" and work.timeouts[seat] >= work.takeover_after:
        emit({"type": "seat_taken_over", "seat": seat, "bot": work.takeover_bot,
              "reason": "abandoned"})
    return Decision(events, work)


def decide(state: State, seat: int, moves: Move | list[Move], timeout: bool = False,
           bot: str | None = None) -> list[Event]:
    """The events of ``decision`` (the state after them not needed)."""
    return decision(state, seat, moves, timeout, bot).events


def take_over(state: State, seat: int, bot: str, reason: ev.TakeoverReason = "resigned"
              ) -> list[Event]:
    """S-2: the event by which a bot of level ``bot`` plays ``seat`` from now on (a seat
    that resigns, or whose time ran out too often). RuleViolation if the game is over or
    a bot plays the seat already."""
    if state.phase == "over":
        raise RuleViolation("A-6", msg("the game is over"))
    if not 0 <= seat < state.players:
        raise RuleViolation("S-2", msg("there is no seat {seat}", seat=seat))
    if seat in state.bots:
        raise RuleViolation("S-2", msg("{name}'s seat is played by a bot already",
                                       name=state.seats[seat]))
    return [{"type": "seat_taken_over", "seat": seat, "bot": bot, "reason": reason}]


def _turn_changed(events: list[Event]) -> bool:
    return any(e["type"] in ("turn_started", "game_over") for e in events)


def _check_next(work: State, seat: int, events: list[Event], i: int, move: Move) -> None:
    """Move ``i`` of a submission must come before the seat's turn ends."""
    if i and (work.current != seat or _turn_changed(events)):
        raise RuleViolation("A-3", msg("move {number} ({move}) comes after your turn ended",
                                       number=i + 1, move=str(move)))


#: Events that take from the money deck or a bag: what nobody may know before it is drawn.
DRAWS = frozenset({"card_drawn", "scoring_card_drawn", "deck_reshuffled", "market_refilled",
                   "marker_switched", "neutral_received", "tile_returned"})


class Preview(NamedTuple):
    """What a planned submission shows its seat: the events up to the first draw, whether
    its turn ends with them, and the state after those events."""

    shown: list[Event]
    turn_ends: bool
    state: State


def preview(state: State, seat: int, moves: Move | list[Move]) -> Preview:
    """What ``moves`` by ``seat`` would show it, with nothing drawn: the events ``decide``
    would give up to the first draw (the refill at the end of the turn, A-3.4 steps 2-3,
    and what follows it stay hidden), whether the seat's turn ends with them (it is no
    longer to act), and the state after the shown events. The same checks as
    ``decide``, the same RuleViolation; a move after a draw is refused, since what it
    may do could depend on what is drawn (the tiles received at the game end)."""
    moves = [moves] if isinstance(moves, Move) else list(moves)
    if not moves:
        raise RuleViolation("A-3", msg("no move given"))
    work = state.copy()
    events: list[Event] = []
    before_draw: list[State] = []  # the state as the first draw comes (copied once)

    def emit(event: Event) -> None:
        if not before_draw and event["type"] in DRAWS:
            before_draw.append(work.copy())
        events.append(event)
        evolve(work, event)

    for i, move in enumerate(moves):
        _check_next(work, seat, events, i, move)
        if before_draw:
            raise RuleViolation("A-3.4", msg("move {number} ({move}) comes after the market "
                                             "and the money display are refilled: send the "
                                             "turn first", number=i + 1, move=str(move)))
        _apply(work, seat, move, emit)
    if before_draw:
        shown = next(i for i, e in enumerate(events) if e["type"] in DRAWS)
        return Preview(events[:shown], True, before_draw[0])
    return Preview(events, work.current != seat or work.phase == "over", work)


def play(state: State, seat: int, move: Move, timeout: bool = False,
         bot: str | None = None) -> list[Event]:
    """Apply one move to ``state`` in place; on a RuleViolation the state is unchanged."""
    events: list[Event] = []
    _apply(state, seat, move, emitter(state, events), timeout, bot)
    return events


def default_moves(state: State, seat: int) -> list[Move]:
    """The moves played for ``seat`` when its time runs out (docs/rules.md Part S): before any
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
