"""Payments from a hand: checking one (A-3.2, G-3) and listing the minimal ones.

A hand is a ``Counter`` of money cards. A minimal payment reaches the price and no card of
it can be left out; ``legal_moves`` lists only those.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable

from .components import CODE_CURRENCY, CURRENCIES, CURRENCY_CODES, card_currency, card_value
from .errors import RuleViolation
from .terms import CURRENCY_NAMES, money_words
from .words import msg

FLIP_PRICE = 3  # G-3: at least 3 in one currency to build a tile on its other face


def check_payment(hand: Counter[str], cards: Iterable[str], currency: str | None,
                  rule: str) -> int:
    """Check that ``hand`` holds ``cards``, all of ``currency`` if given, and return their
    sum; otherwise raise naming ``rule``."""
    cards = list(cards)
    if not cards:
        raise RuleViolation(rule, msg("a payment needs at least one card"))
    for c in dict.fromkeys(cards):
        n, has = cards.count(c), hand.get(c, 0)
        if has < n:
            card = money_words([c])
            raise RuleViolation(rule, msg("you pay {n} x {card} but hold only {held}", n=n,
                                          card=card, held=has) if has else
                                msg("you pay {n} x {card} but hold none", n=n, card=card))
    if currency is not None:
        for c in cards:
            if card_currency(c) != currency:
                raise RuleViolation(rule, msg("{card} is a {currency} card; this payment "
                                              "must be in {wanted}", card=money_words([c]),
                                              currency=CURRENCY_NAMES[card_currency(c)],
                                              wanted=CURRENCY_NAMES[currency]))
    return sum(card_value(c) for c in cards)


def check_flip_payment(hand: Counter[str], cards: Iterable[str]) -> None:
    """G-3: a flip is paid from ``hand`` in one currency, at least 3, no change."""
    cards = list(cards)
    if len({card_currency(c) for c in cards}) > 1:
        raise RuleViolation("G-3", msg("a flip is paid in one currency only"))
    total = check_payment(hand, cards, None, "G-3")
    if total < FLIP_PRICE:
        raise RuleViolation("G-3", msg("a flip costs at least {price}; {cards} total {total}",
                                       price=FLIP_PRICE, cards=money_words(cards), total=total))


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


def holdings(hand: Counter[str]) -> dict[str, tuple[str, ...]]:
    """``held`` for every currency at once: its cards in ``hand``, sorted."""
    by_code: dict[str, list[str]] = {code: [] for code in CODE_CURRENCY}
    for c in sorted(hand):
        cards = by_code.get(c[:2])
        if cards is not None:
            cards += [c] * hand[c]
    return {CODE_CURRENCY[code]: tuple(cards) for code, cards in by_code.items()}


def flip_payments(hand: Counter[str]) -> list[tuple[str, ...]]:
    """Every minimal payment of at least 3 in one currency from ``hand`` (G-3)."""
    cards = holdings(hand)
    return [pay for currency in CURRENCIES
            for pay in minimal_payments(cards[currency], FLIP_PRICE)]
