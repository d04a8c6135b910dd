"""Payments from a hand: checking one (A-3.2, G-3) and listing the minimal ones.

A hand is a ``Counter`` of money cards. A minimal payment reaches the price and no card of
it can be left out; ``legal_moves`` lists only those.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable

from .components import CURRENCIES, CURRENCY_CODES, card_currency, card_value
from .errors import RuleViolation

FLIP_PRICE = 3  # G-3: at least 3 in one currency to build a tile on its other face


def check_payment(hand: Counter[str], cards: Iterable[str], currency: str | None,
                  rule: str) -> int:
    """Check that ``hand`` holds ``cards``, all of ``currency`` if given, and return their
    sum; otherwise raise naming ``rule``."""
    cards = list(cards)
    if not cards:
        raise RuleViolation(rule, "a payment needs at least one card")
    for c in dict.fromkeys(cards):
        n, has = cards.count(c), hand.get(c, 0)
        if has < n:
            held_ = f"only {has}" if has else "none"
            raise RuleViolation(rule, f"you pay {n} x {c} but hold {held_}")
    if currency is not None:
        for c in cards:
            if card_currency(c) != currency:
                raise RuleViolation(rule, f"{c} is a {card_currency(c)} card; this payment "
                                    f"must be in {currency}")
    return sum(card_value(c) for c in cards)


def check_flip_payment(hand: Counter[str], cards: Iterable[str]) -> None:
    """G-3: a flip is paid from ``hand`` in one currency, at least 3, no change."""
    cards = list(cards)
    if len({card_currency(c) for c in cards}) > 1:
        raise RuleViolation("G-3", "a flip is paid in one currency only")
    total = check_payment(hand, cards, None, "G-3")
    if total < FLIP_PRICE:
        raise RuleViolation("G-3", f"a flip costs at least {FLIP_PRICE}; "
                            f"{','.join(cards)} total {total}")


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


def held(hand: Counter[str], currency: str) -> tuple[str, ...]:
    """The cards of one currency in ``hand``, sorted."""
    code = CURRENCY_CODES[currency]
    return tuple(sorted(c for c, n in hand.items() if c[:2] == code for _ in range(n)))


def flip_payments(hand: Counter[str]) -> list[tuple[str, ...]]:
    """Every minimal payment of at least 3 in one currency from ``hand`` (G-3)."""
    return [pay for currency in CURRENCIES
            for pay in minimal_payments(held(hand, currency), FLIP_PRICE)]
