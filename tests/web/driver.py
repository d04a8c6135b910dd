"""A player who only looks at the page and clicks: what the tests use to play games."""

from __future__ import annotations

import random
from collections import deque

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

# Upper bounds, not delays: a wait ends as soon as the page is there. Generous, because
# CI runs the tests two at a time on two cores beside Chromium and the servers.
WAIT_MS = 30000


def version(page: Page) -> int:
    return int(page.get_attribute("#version", "data-version") or 0)


def my_turn(page: Page) -> bool:
    return page.locator("[data-your-turn]").count() > 0


def over(page: Page) -> bool:
    return page.locator("#final:not([hidden])").count() > 0


# The page is done with a click: a click while it is busy (a preview or a submission still
# on its way) is ignored, as a player's double click is.
IDLE = "!document.body.classList.contains('busy')"


#: What the page shows when a wait fails: for the failure's message.
STATE = """() => ({
  version: document.getElementById('version')?.dataset.version,
  busy: document.body.classList.contains('busy'),
  plan: document.querySelector('[data-plan]')?.dataset.plan ?? null,
  send: Boolean(document.querySelector('#actions [data-key=send-plan]')),
  notice: document.getElementById('notice')?.className + ': '
          + document.getElementById('notice')?.innerText,
  yourTurn: Boolean(document.querySelector('[data-your-turn]')),
  actions: document.getElementById('actions')?.innerText.slice(0, 400),
})"""


#: The driver's last clicks, each with the page's version and plan just before it: for
#: the message of a wait that fails (what led there).
TRAIL: deque[str] = deque(maxlen=12)


def trace(page: Page, what: str) -> None:
    state = page.evaluate(STATE)
    TRAIL.append(f"{page.url[-6:]} v{state['version']} plan={state['plan']} "
                 f"busy={state['busy']}: {what}")


def wait_for(page: Page, condition: str, arg: object, what: str) -> None:
    """``page.wait_for_function`` within WAIT_MS; on a timeout, fail saying what the
    page showed, and the driver's last clicks."""
    try:
        page.wait_for_function(condition, arg=arg, timeout=WAIT_MS)
    except PlaywrightTimeout:
        trail = "\n  ".join(TRAIL)
        raise AssertionError(f"{what}: not within {WAIT_MS} ms; the page shows "
                             f"{page.evaluate(STATE)}; the last clicks:\n  {trail}"
                             ) from None


def wait_version_after(page: Page, before: int) -> int:
    """Wait until the page shows a newer version and is idle again; fail with the page's
    notice if refused."""
    wait_for(page,
             "v => (Number(document.getElementById('version').dataset.version) > v"
             f" || document.querySelector('#notice.error, #notice.warn')) && {IDLE}",
             before, f"a version after {before}")
    notice = page.locator("#notice.error, #notice.warn")
    assert not notice.count(), notice.inner_text()
    return version(page)


def _pick(locator, rng: random.Random):
    return locator.nth(rng.randrange(locator.count()))


NEUTRAL = "#actions [data-move*=' dirk'], #actions [data-move*=' juan']"
OFFERS = """(neutral) => {
  const n = (sel) => document.querySelectorAll(sel).length;
  return {cells: n('#me [data-cell][data-move]'), flip: n('#actions [data-key=face-flip]'),
          toReserve: n("#actions [data-move$=' reserve']"), reserve: n('#me button[data-select]'),
          city: n('#me svg [data-select]'), neutral: n(neutral),
          market: n('#market [data-select]'), takes: n("#market [data-move^='take']"),
          end: n("#actions [data-move='end']")};
}"""


def choose(page: Page, rng: random.Random, *, redesign: float = 0.0, flip: float = 0.3,
           buy: float = 0.85) -> str:
    """Make one legal move by clicking, as a player would; returns its notation. The
    chances: ``redesign`` (a reserve tile into the city, or a city tile out to the reserve
    or swapped), ``flip`` a Granada tile, ``buy`` a market tile (else take money)."""
    me = page.locator("#me")
    offers = page.evaluate(OFFERS, NEUTRAL)
    if offers["flip"] and rng.random() < flip:
        page.click("#actions [data-key=face-flip]")
        pays = page.locator("#actions [data-key^='pay-']")
        if pays.count():
            _pick(pays, rng).click()
        offers = page.evaluate(OFFERS, NEUTRAL)
    if offers["cells"] or offers["toReserve"] or offers["neutral"]:
        # a tile to place is picked: build it, or now and then reserve it or give it away
        r = rng.random()
        if offers["neutral"] and r < 0.08:
            return _click_move(page.locator(NEUTRAL).first)
        if offers["cells"] and (r < 0.85 or not offers["toReserve"]):
            return _click_move(me.locator("[data-cell][data-move]").nth(
                rng.randrange(offers["cells"])))
        return _click_move(page.locator("#actions [data-move$=' reserve']").first)
    if offers["reserve"] and rng.random() < redesign:
        me.locator("button[data-select]").nth(rng.randrange(offers["reserve"])).click()
        targets = me.locator("[data-cell][data-move]")  # free cells, or tiles to swap with
        if targets.count():
            return _click_move(_pick(targets, rng))
        page.click("#actions [data-key=cancel]")
    if offers["city"] and rng.random() < redesign / 2:
        me.locator("svg [data-select]").nth(rng.randrange(offers["city"])).click()
        return _click_move(_pick(page.locator("#actions [data-move^='redesign'], "
                                              "#me button[data-move^='redesign swap']"), rng))
    if offers["market"] and (rng.random() < buy or not offers["takes"]):
        page.locator("#market [data-select]").nth(rng.randrange(offers["market"])).click()
        return _click_move(_pick(page.locator("#actions [data-move^='buy ']"), rng))
    if offers["takes"]:
        return _click_move(page.locator("#market [data-move^='take']").nth(
            rng.randrange(offers["takes"])))
    if offers["end"]:
        return _click_move(page.locator("#actions [data-move='end']").first)
    return _click_move(_pick(page.locator("#all-moves [data-move]"), rng))


def planned(page: Page) -> int:
    """How many moves the page's planned turn holds (0: none planned)."""
    return int(page.evaluate("document.querySelector('[data-plan]')?.dataset.plan || 0"))


def plan_move(locator) -> str:
    """Click a move: the page plans it (shows its result, sends nothing); its notation."""
    page = locator.page
    move = locator.get_attribute("data-move")
    steps = planned(page)
    trace(page, f"plan {move!r}")
    locator.click()
    wait_for(page,
             "n => (Number(document.querySelector('[data-plan]')?.dataset.plan || 0) > n"
             f" || document.querySelector('#notice.error, #notice.warn')) && {IDLE}",
             steps, f"{move!r} planned after {steps} planned moves")
    return move


def send_plan(page: Page) -> None:
    """Send the planned turn (a refused plan has no Send button: the notice says why)."""
    button = page.locator("#actions [data-key=send-plan]")
    if button.count():
        trace(page, "send")
        button.click()


def _click_move(locator) -> str:
    """Plan the move, then send it: one submission a click, as the tests' games play."""
    move = plan_move(locator)
    send_plan(locator.page)
    return move


SNAPSHOT = """() => ({
  version: Number(document.getElementById('version').dataset.version),
  current: document.querySelector('#overview tr.current')?.dataset.seat ?? null,
  yourTurn: Boolean(document.querySelector('[data-your-turn]')),
  over: Boolean(document.querySelector('#final:not([hidden])')),
})"""


def play_turns(pages: list[Page], rng: random.Random, until, max_moves: int = 2000,
               played: list[str] | None = None, **choices) -> int:
    """Click moves on the page of the seat whose turn it is until ``until()``; the other
    pages learn of each move by their live streams. Returns the number of moves made (and
    appends their notations to ``played``)."""
    moves = 0
    page = pages[0]
    while not until():
        shown = page.evaluate(SNAPSHOT)
        if shown["over"]:
            # every page must come to the end by its stream
            for other in pages:
                other.wait_for_selector("#final:not([hidden])", timeout=WAIT_MS)
            continue
        page = pages[int(shown["current"])]
        # the seat to act hears of its turn through its stream
        page.wait_for_selector("[data-your-turn]", timeout=WAIT_MS)
        before = version(page)
        move = choose(page, rng, **choices)
        wait_version_after(page, before)
        if played is not None:
            played.append(move)
        moves += 1
        assert moves < max_moves
    return moves
