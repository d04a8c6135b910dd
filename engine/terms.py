"""The game's words, once: building types, currencies, sides, directions, scorings.

Each is a ``Msg`` (``engine/words.py``): English here, other languages in the catalogs,
where the words of each language's rulebook are used (../shared/GLOSSARY.md; the choices
made where a book has no word are the catalogs' ``choice:`` comments). The web page's
words for the same things (service/web/js/strings.js) use the same message ids.
"""

from __future__ import annotations

from collections.abc import Iterable

from .components import CURRENCIES, card_currency
from .components import card_value as value_of
from .words import Msg, listing, msg, nmsg, pmsg, pmsg_id

#: The games (engine.VARIANTS) by name.
VARIANTS: dict[str, Msg] = {"alhambra": msg("Alhambra"), "granada": msg("Granada"),
                            "alhambra_granada": msg("Alhambra + Granada")}

#: A building type's name, alone (tables, tiles): "garden".
NAMES: dict[str, Msg] = {
    "start": pmsg("building", "start tile"),
    "pavilion": pmsg("building", "pavilion"), "seraglio": pmsg("building", "seraglio"),
    "arcades": pmsg("building", "arcades"), "chambers": pmsg("building", "chambers"),
    "garden": pmsg("building", "garden"), "tower": pmsg("building", "tower"),
    "arena": pmsg("building", "arena"), "bath_house": pmsg("building", "bath house"),
    "library": pmsg("building", "library"), "hostel": pmsg("building", "hostel"),
    "hospital": pmsg("building", "hospital"), "market": pmsg("building", "market"),
    "park": pmsg("building", "park"), "school": pmsg("building", "school"),
    "residential_area": pmsg("building", "residential area"),
}

#: A building in a cell of a city's text picture (workers/city.py): at most three letters
#: that read as that building to a player of the language (a cut word may read as another
#: word: Greek "στοέ"), a space before the value ("gar 10", never "torn11").
SHORT_NAMES: dict[str, Msg] = {
    "pavilion": pmsg("building, 3 letters", "pav"),
    "seraglio": pmsg("building, 3 letters", "ser"),
    "arcades": pmsg("building, 3 letters", "arc"),
    "chambers": pmsg("building, 3 letters", "cha"),
    "garden": pmsg("building, 3 letters", "gar"),
    "tower": pmsg("building, 3 letters", "tow"),
    "arena": pmsg("building, 3 letters", "arn"),
    "bath_house": pmsg("building, 3 letters", "bat"),
    "library": pmsg("building, 3 letters", "lib"),
    "hostel": pmsg("building, 3 letters", "hst"),
    "hospital": pmsg("building, 3 letters", "hsp"),
    "market": pmsg("building, 3 letters", "mkt"),
    "park": pmsg("building, 3 letters", "prk"),
    "school": pmsg("building, 3 letters", "sch"),
    "residential_area": pmsg("building, 3 letters", "res"),
}

#: Several of a building type, alone ("2nd scoring: Ann got 9 for pavilions").
PLURALS: dict[str, Msg] = {
    "pavilion": pmsg("buildings", "pavilions"), "seraglio": pmsg("buildings", "seraglios"),
    "arcades": pmsg("buildings", "arcades"), "chambers": pmsg("buildings", "chambers"),
    "garden": pmsg("buildings", "gardens"), "tower": pmsg("buildings", "towers"),
    "arena": pmsg("buildings", "arenas"), "bath_house": pmsg("buildings", "bath houses"),
    "library": pmsg("buildings", "libraries"), "hostel": pmsg("buildings", "hostels"),
    "hospital": pmsg("buildings", "hospitals"), "market": pmsg("buildings", "markets"),
    "park": pmsg("buildings", "parks"), "school": pmsg("buildings", "schools"),
    "residential_area": pmsg("buildings", "residential areas"),
}


def a_tile(type_: str, value: int) -> Msg:
    """One tile with its value, as a sentence names it: "a garden (8)"."""
    phrases = {
        "start": msg("the start tile"),
        "pavilion": msg("a pavilion ({value})", value=value),
        "seraglio": msg("a seraglio ({value})", value=value),
        "arcades": msg("arcades ({value})", value=value),
        "chambers": msg("chambers ({value})", value=value),
        "garden": msg("a garden ({value})", value=value),
        "tower": msg("a tower ({value})", value=value),
        "arena": msg("an arena ({value})", value=value),
        "bath_house": msg("a bath house ({value})", value=value),
        "library": msg("a library ({value})", value=value),
        "hostel": msg("a hostel ({value})", value=value),
        "hospital": msg("a hospital ({value})", value=value),
        "market": msg("a market ({value})", value=value),
        "park": msg("a park ({value})", value=value),
        "school": msg("a school ({value})", value=value),
        "residential_area": msg("a residential area ({value})", value=value),
    }
    return phrases[type_]


#: A currency's name, alone: "denar".
CURRENCY_NAMES: dict[str, Msg] = {
    "denar": pmsg("currency", "denar"), "dirham": pmsg("currency", "dirham"),
    "ducat": pmsg("currency", "ducat"), "florin": pmsg("currency", "florin"),
}


def amount(currency: str, n: int) -> Msg:
    """One card's worth: "9 ducats", "1 denar"."""
    if currency == "denar":
        return nmsg("{n} denar", "{n} denars", n)
    if currency == "dirham":
        return nmsg("{n} dirham", "{n} dirhams", n)
    if currency == "ducat":
        return nmsg("{n} ducat", "{n} ducats", n)
    return nmsg("{n} florin", "{n} florins", n)


def several(currency: str, values: Msg) -> Msg:
    """Several cards of one currency: "a 5 and a 3 denar" (``values``: "a 5 and a 3")."""
    if currency == "denar":
        return msg("{values} denar", values=values)
    if currency == "dirham":
        return msg("{values} dirham", values=values)
    if currency == "ducat":
        return msg("{values} ducat", values=values)
    return msg("{values} florin", values=values)


def card_value(value: int) -> Msg:
    """A card's value in a list of one currency's cards: "a 5", "an 8"."""
    return pmsg("card value", "an {n}", n=value) if value == 8 else \
        pmsg("card value", "a {n}", n=value)


#: The sides of a tile, by the view's keys.
SIDES: dict[str, Msg] = {"n": pmsg("side", "north"), "e": pmsg("side", "east"),
                         "s": pmsg("side", "south"), "w": pmsg("side", "west")}


def barriers(kind: str, sides: list[str]) -> Msg:
    """A tile's walls or moats: "walls north and east", "no walls", "a moat south"."""
    named = listing(SIDES[s] for s in sides)
    if kind == "wall":
        return nmsg("a wall {sides}", "walls {sides}", len(sides), sides=named) \
            if sides else msg("no walls")
    return nmsg("a moat {sides}", "moats {sides}", len(sides), sides=named) \
        if sides else msg("no moats")


#: The face a double-sided (Granada) tile shows.
FACES: dict[int, Msg] = {0: msg("front face up"), 1: msg("back face up")}

#: A cell next to the start tile, by (x, y) from it: the fountain, or Granada's start.
NEAR_FOUNTAIN: dict[tuple[int, int], Msg] = {
    (0, -1): msg("north of the fountain"), (1, -1): msg("north-east of the fountain"),
    (1, 0): msg("east of the fountain"), (1, 1): msg("south-east of the fountain"),
    (0, 1): msg("south of the fountain"), (-1, 1): msg("south-west of the fountain"),
    (-1, 0): msg("west of the fountain"), (-1, -1): msg("north-west of the fountain"),
}
NEAR_START: dict[tuple[int, int], Msg] = {
    (0, -1): msg("north of the start tile"), (1, -1): msg("north-east of the start tile"),
    (1, 0): msg("east of the start tile"), (1, 1): msg("south-east of the start tile"),
    (0, 1): msg("south of the start tile"), (-1, 1): msg("south-west of the start tile"),
    (-1, 0): msg("west of the start tile"), (-1, -1): msg("north-west of the start tile"),
}


def steps(x: int, y: int) -> list[Msg]:
    """How far east/west and north/south a cell is: ["2 east", "1 north"]."""
    out = []
    if x:
        out.append(nmsg("{n} east", "{n} east", x) if x > 0 else
                   nmsg("{n} west", "{n} west", -x))
    if y:
        out.append(nmsg("{n} south", "{n} south", y) if y > 0 else
                   nmsg("{n} north", "{n} north", -y))
    return out


#: A scoring by its number.
SCORINGS: dict[int, Msg] = {1: msg("1st scoring"), 2: msg("2nd scoring"),
                            3: msg("3rd scoring")}

#: What the longest line of a kind scores for.
LINES: dict[str, Msg] = {"wall": msg("the longest wall"), "moat": msg("the longest moat"),
                         "combined": msg("the longest line of walls and moats")}

#: The neutral collector of a two-player game (A-8, G-7), and the fallback.
NEUTRALS: dict[str, Msg] = {"Dirk": pmsg("neutral player", "Dirk"),
                            "Juan": pmsg("neutral player", "Juan")}
THE_NEUTRAL = msg("the neutral player")

#: The bots' levels (S-2).
BOTS: dict[str, Msg] = {"random": pmsg("bot level", "random"),
                        "greedy": pmsg("bot level", "greedy"),
                        "strong": pmsg("bot level", "strong")}


def neutral(name: str | None) -> Msg | str:
    """Dirk, Juan (in the reader's script), another name as it is, or the neutral player."""
    if not name:
        return THE_NEUTRAL
    return NEUTRALS.get(name, name)


def bot(level: str) -> Msg | str:
    return BOTS.get(level, level)


def money_words(cards: Iterable[str]) -> Msg:
    """Money cards as a player says them, by currency, highest first: "9 ducats" (one
    card), "a 5 and a 3 denar" (several of one currency), "2 ducats and 3 dirhams"."""
    groups: dict[str, list[int]] = {c: [] for c in CURRENCIES}
    for code in cards:
        groups[card_currency(code)].append(value_of(code))
    parts: list[Msg] = []
    for currency, values in groups.items():
        values.sort(reverse=True)
        if len(values) == 1:
            parts.append(amount(currency, values[0]))
        elif values:
            parts.append(several(currency, listing(card_value(v) for v in values)))
    return listing(parts)


#: A Granada game's words where they differ from the other games' (RULES.md G-1): its
#: start tile is no fountain (where a tile is: ``NEAR_START``), and the rulebooks'
#: languages call a player's city by the game's name (Альгамбра, Alhambra), which in
#: Granada is Гранада, Granada. While a
#: Granada game speaks (service/i18n.py ``speaking_of``) each message of these ids is
#: said as its entry, in the context "Granada" of the catalogs.
GRANADA_WORDS: dict[str, tuple[str, str]] = {
    "{seat} moved {tile} from the reserve into the city, {where}":
        pmsg_id("Granada", "{seat} moved {tile} from the reserve into the city, {where}"),
    "{tile} is not in your grid":
        pmsg_id("Granada", "{tile} is not in your grid"),
    "without {tile} at {cell}, the grid would fall apart in pieces":
        pmsg_id("Granada", "without {tile} at {cell}, the grid would fall apart in pieces"),
    "{tile} at {cell} is not joined side by side to the rest of the grid":
        pmsg_id("Granada", "{tile} at {cell} is not joined side by side to the rest of the grid"),
    "Skip to your city":
        pmsg_id("Granada", "Skip to your city"),
    "Your city, money and reserve":
        pmsg_id("Granada", "Your city, money and reserve"),
    "Your city · {name} · {points}":
        pmsg_id("Granada", "Your city · {name} · {points}"),
    "{name}'s city":
        pmsg_id("Granada", "{name}'s city"),
    "Act again: take money, buy another tile or redesign your city; your turn goes on.":
        pmsg_id("Granada", "Act again: take money, buy another tile or redesign your "
                        "city; your turn goes on."),
    "Build {tile} from your reserve: choose a highlighted free "
    "cell, or a marked tile of your city to swap it with.":
        pmsg_id("Granada", "Build {tile} from your reserve: choose a highlighted free "
                        "cell, or a marked tile of your city to swap it with."),
    "pick a reserve or city tile to redesign":
        pmsg_id("Granada", "pick a reserve or city tile to redesign"),
    "Place {tile}: choose a highlighted cell of your city, or:":
        pmsg_id("Granada", "Place {tile}: choose a highlighted cell of your city, or:"),
    "{tile} fits no free cell of your city:":
        pmsg_id("Granada", "{tile} fits no free cell of your city:"),
    "City":
        pmsg_id("Granada", "City"),
    "Majorities: buildings in each city":
        pmsg_id("Granada", "Majorities: buildings in each city"),
    "Cities":
        pmsg_id("Granada", "Cities"),
    "{name}: {points}, {cards}, {tiles} in the city, {reserve} in the reserve":
        pmsg_id("Granada", "{name}: {points}, {cards}, {tiles} in the city, {reserve} in "
                "the reserve"),
    "build a bought tile at a cell: x grows east, y south, the fountain is 0,0":
        pmsg_id("Granada", "build a bought tile at a cell: x grows east, y south, the "
                        "start tile is 0,0"),
    "Your city (%(points)s):":
        pmsg_id("Granada", "Your city (%(points)s):"),
    "%(name)s's city (%(points)s, %(cards)s):":
        pmsg_id("Granada", "%(name)s's city (%(points)s, %(cards)s):"),
    "take money, buy, or redesign":
        pmsg_id("Granada", "take money, buy, or redesign"),
    "{tile} at {cell} would close off an empty space inside the grid (a hole)":
        pmsg_id("Granada", "{tile} at {cell} would close off an empty space inside the grid "
                "(a hole)"),
    "move a reserve tile into your city":
        pmsg_id("Granada", "move a reserve tile into your city"),
    "move a tile of your city into the reserve":
        pmsg_id("Granada", "move a tile of your city into the reserve"),
}
