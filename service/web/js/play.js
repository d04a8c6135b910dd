// The player's page (/play/{id}#token=…) and, without a token, the spectator's page.
// Everything shown comes from GET /games/{id} (its view), every offer from
// GET /games/{id}/legal-moves, the history from /events and /stream. No rules here.
// A turn is planned before it is sent: each click is shown through
// POST /games/{id}/moves/preview (the seat's view after the planned moves), Undo steps
// back, Send turn submits the plan whole against the version it was planned on.

import { api, ApiError } from "./api.js";
import { cityBoard, tileSvg } from "./board.js";
import { applyStrings, fill, h, s as svg } from "./dom.js";
import {
  building, card, cardLabel, CURRENCIES, CURRENCY_CODES, flipped, tileName, tileWords,
  typesOf, VARIANT_NAMES,
} from "./names.js";
import { switcher } from "./i18n.js";
import { lang, listing, S } from "./strings.js";
import { follow } from "./stream.js";
import { mountChat } from "./chat.js";
import { timeWords } from "./clock.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
const token = new URLSearchParams(location.hash.slice(1)).get("token");
const narrow = window.matchMedia("(max-width: 760px)");

const ui = {
  real: null,  // {game, legal}: GET /games/{id} and /legal-moves (seats only) as read
  game: null,  // the game drawn: the real one, its view the plan's when a turn is planned
  legal: null,  // the legal moves drawn: the real ones, or those after the plan
  plan: null,  // {version, steps: [{notation, answer}], sending}: a turn planned, not sent
  readAt: 0,  // Date.now() when the game was read: its seats' time_left is of then
  shown: null,  // the game and legal moves read last, as JSON
  history: new Map(),  // version -> event item
  seen: 0,  // the highest version in history
  selected: null,  // a tile id the player picked
  picked: null,  // the position (version, planned moves) where the page picked a tile to place
  face: null,  // the face chosen for a placement (null: as it lies)
  pay: null,  // the cards chosen to pay for a flip ("DU3,DU1")
  busy: false,
  notice: null,  // {kind, text, rule}
  live: false,
  stream: null,
  chat: null,  // the chat panel (chat.js)
  open: new Map(),  // seat -> whether its <details> is open
  scoringOpen: new Map(),  // scoring number -> whether its <details> is open
};

// -- loading -----------------------------------------------------------------------------

let refreshing = null;
let again = false;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Read the game (and the legal moves) again and draw it; concurrent calls coalesce. */
function refresh() {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    let tries = 0;
    do {
      again = false;
      const base = `/games/${encodeURIComponent(gameId)}`;
      const [game, legal] = await Promise.all([
        api(base, { token }),
        token ? api(`${base}/legal-moves`, { token }) : null,
      ]);
      if (legal && legal.version !== game.version) {
        // a move landed between the two reads: show the game, offer nothing, read again
        await show(game, { ...legal, your_turn: false, moves: [], no_cell: [] });
        again = true;
        tries += 1;
        await sleep(Math.min(1000, 50 * tries));
      } else {
        await show(game, legal);
      }
    } while (again);
  })().catch(showError).finally(() => { refreshing = null; });
  return refreshing;
}

/** Draw this game and these legal moves, if they differ from what is drawn. */
async function show(game, legal) {
  const shown = JSON.stringify([game, legal]);
  if (shown === ui.shown) return;  // redraw only what changed: clicks and focus stay
  if (ui.real && ui.real.game.version !== game.version) clearChoice();
  ui.real = { game, legal };
  ui.readAt = Date.now();
  ui.shown = shown;
  if (game.version > ui.seen) await readEvents();
  if (ui.plan && !ui.plan.sending && ui.plan.version !== game.version) {
    overruled(ui.plan.version);  // (while it is sent, the new version may be its own)
  }
  drawPlan();
  render();
}

/** A choice made for another position of the game (or of the plan) is forgotten. */
function clearChoice() {
  ui.selected = null;
  ui.face = null;
  ui.pay = null;
}

async function readEvents() {
  const doc = await api(`/games/${encodeURIComponent(gameId)}/events?since=${ui.seen}`,
                        { token });
  addHistory(doc.events);
}

function addHistory(items) {
  for (const item of items) {
    ui.history.set(item.version, item);
    ui.seen = Math.max(ui.seen, item.version);
  }
}

function startStream() {
  if (ui.stream || !ui.game || ui.game.status === "over") return;
  ui.stream = follow({
    gameId, token, since: ui.seen,
    onItems(items) {
      const fresh = items.some((i) => i.version > (ui.game ? ui.game.version : 0));
      addHistory(items);
      if (fresh) refresh().then(() => { if (ui.game.status === "over") stopStream(); });
      else renderHistory();
    },
    onConnect() {
      setLive(true);
      if (ui.chat) ui.chat.reload();  // what was written while no stream was open
    },
    onError() { setLive(false); },
    onChat(items) { if (ui.chat) ui.chat.onChat(items); },
  });
}

function stopStream() {
  if (ui.stream) ui.stream.stop();
  ui.stream = null;
  setLive(false);
}

function setLive(live) {
  ui.live = live;
  const el = document.getElementById("live");
  if (el) {
    el.textContent = live ? S.live : S.offline;
    el.className = live ? "live on" : "live";
  }
}

// -- moves -------------------------------------------------------------------------------

/** A random key (crypto.randomUUID needs HTTPS; a server on a LAN may serve plain HTTP). */
function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// -- a planned turn ----------------------------------------------------------------------

/** What is drawn: the game as read, its view and legal moves those after the plan. */
function drawPlan() {
  const { game, legal } = ui.real;
  const top = ui.plan && ui.plan.version === game.version
    && ui.plan.steps[ui.plan.steps.length - 1];
  if (!top) {
    ui.game = game;
    ui.legal = legal;
    return;
  }
  const after = top.answer;
  ui.game = { ...game, view: after.view };
  ui.legal = { ...legal, your_turn: after.moves.length > 0, moves: after.moves,
               no_cell: after.no_cell };
}

const planned = () => (ui.plan ? ui.plan.steps.map((step) => step.notation) : []);

/** Wait for the server, the page marked busy (a click meanwhile does nothing). */
async function working(task) {
  if (ui.busy) return;
  ui.busy = true;
  document.body.classList.add("busy");
  try {
    await task();
  } finally {
    ui.busy = false;
    document.body.classList.remove("busy");
  }
}

/** A click: the move is added to the plan and its result shown (nothing is sent). */
function plan(notation) {
  return working(async () => {
    const version = ui.plan ? ui.plan.version : ui.real.game.version;
    ui.notice = null;
    try {
      const answer = await api(`/games/${encodeURIComponent(gameId)}/moves/preview`, {
        token, method: "POST", body: { version, move: [...planned(), notation].join("; ") },
      });
      if (!ui.plan) ui.plan = { version, steps: [] };
      ui.plan.steps.push({ notation, answer });
      clearChoice();
      if (ui.real.game.version !== version) overruled(version);  // heard meanwhile
    } catch (err) {
      await refused(err, version);  // a misclick costs nothing: the plan is as it was
      return;
    }
    afterPlanChange();
  });
}

/** Undo: the plan steps back one move (with none left, the game as it is). */
function undo() {
  if (ui.busy || !ui.plan) return;
  ui.plan.steps.pop();
  if (!ui.plan.steps.length) ui.plan = null;
  ui.notice = null;
  clearChoice();
  ui.picked = null;  // back at an earlier position: a tile to place is picked again
  afterPlanChange();
}

function afterPlanChange() {
  const focus = focusKey();
  drawPlan();
  render();
  if (!focus || !document.activeElement || document.activeElement === document.body) {
    const next = document.querySelector("#actions [data-key=send-plan]")
      || document.getElementById("status");
    next.focus({ preventScroll: !next.dataset.key });  // the clicked control is gone
  }
}

/** Send turn: the whole plan, one submission, against the version it was planned on. */
function sendPlan() {
  return working(async () => {
    if (!ui.plan) return;
    const { version } = ui.plan;
    const notation = planned().join("; ");
    ui.notice = null;
    ui.plan.sending = true;
    try {
      const answer = await api(`/games/${encodeURIComponent(gameId)}/moves`, {
        token, method: "POST", body: { version, move: notation },
        headers: { "Idempotency-Key": randomKey() },
      });
      addHistory(answer.events);
      ui.plan = null;
      clearChoice();
      const lines = answer.events.map((item) => item.text).filter(Boolean);
      ui.notice = { kind: "ok", text: S.done(lines.length ? lines : [notation]) };
    } catch (err) {
      if (ui.plan) ui.plan.sending = false;
      await refused(err, version);
      return;
    }
    await refresh();
    drawPlan();  // the game read again may be the one drawn already (the stream brought
    render();  // the move first): the plan, gone now, is not drawn over it
    if (document.activeElement === document.body) {  // the clicked control is gone
      document.getElementById("status").focus({ preventScroll: true });
    }
  });
}

/** A plan or a turn refused: a game that moved on overrules the plan (in words: what
 * changed); another refusal leaves the plan as it was, with the rule. */
async function refused(err, version) {
  const conflict = err instanceof ApiError && err.problem.code === "version_conflict";
  if (!conflict) ui.notice = refusal(err);
  await refresh();
  if (conflict) overruled(version);
  drawPlan();
  render();
}

/** The game moved on from ``version`` while a turn was planned: the plan is dropped, and
 * the notice says what happened meanwhile (from the history). */
function overruled(version) {
  ui.plan = null;
  clearChoice();
  const lines = [...ui.history.values()].filter((item) => item.version > version)
    .sort((a, b) => a.version - b.version).map(historyText).filter(Boolean);
  ui.notice = { kind: "warn", text: lines.length ? S.planOverruled(lines) : S.movedOn };
}

/** What to tell the player about a refused move. */
function refusal(err) {
  if (!(err instanceof ApiError)) return { kind: "error", text: String(err) };
  const p = err.problem;
  if (p.code === "version_conflict") return { kind: "warn", text: S.movedOn };
  if (p.code === "network") return { kind: "error", text: S.unreachable };
  return { kind: "error", text: p.detail || err.message, rule: p.rule };
}

function showError(err) {
  ui.notice = err instanceof ApiError ? refusal(err) : { kind: "error", text: String(err) };
  renderNotice();
}

// -- the legal moves, indexed for the board ----------------------------------------------

function indexMoves(moves) {
  const ix = { all: moves, take: [], end: [], buy: new Map(), place: new Map(),
               toCity: new Map(), fromCity: new Map() };
  const add = (map, key, move) => {
    if (!map.has(key)) map.set(key, []);
    map.get(key).push(move);
  };
  for (const m of moves) {
    const j = m.move;
    if (j.action === "take") ix.take.push(m);
    else if (j.action === "end") ix.end.push(m);
    else if (j.action === "buy") add(ix.buy, j.tile, m);
    else if (j.action === "place") add(ix.place, j.tile, m);
    else if (j.action === "redesign" && j.to === "city") add(ix.toCity, j.tile, m);
    else if (j.action === "redesign" && j.to === "reserve") add(ix.fromCity, j.tile, m);
    else if (j.action === "redesign" && j.to === "swap") {
      add(ix.fromCity, j.tile, m);
      add(ix.toCity, j.other, m);
    }
  }
  return ix;
}

const cardsKey = (j) => (j.cards || []).join(",");
const sum = (cards) => cards.reduce((total, c) => total + card(c).value, 0);

/** The place moves of the selected tile for the chosen face and payment. */
function placeChoices(ix) {
  const moves = ix.place.get(ui.selected) || [];
  const faces = [...new Set(moves.map((m) => m.move.face ?? null))];
  const forFace = moves.filter((m) => (m.move.face ?? null) === ui.face);
  const payments = [...new Set(forFace.filter((m) => m.move.cards).map((m) => cardsKey(m.move)))];
  const usable = forFace.filter((m) => !m.move.cards || cardsKey(m.move) === ui.pay);
  return { faces, payments, usable };
}

/** After an exact purchase: tiles wait to be placed, and the seat may still act (A-3c). */
function mayActAgain(ix) {
  const v = ui.game.view;
  return v.phase === "action" && v.current === mySeat() && v.pending.length > 0
         && ix.place.size > 0;
}

function keepSelection(ix) {
  const known = (id) => ix.buy.has(id) || ix.place.has(id) || ix.toCity.has(id)
                        || ix.fromCity.has(id);
  if (ui.selected && !known(ui.selected)) {
    ui.selected = null;
  }
  const at = `${ui.game.version}+${planned().length}`;
  if (!ui.selected && ix.place.size && !mayActAgain(ix) && ui.picked !== at) {
    ui.selected = ix.place.keys().next().value;  // a tile to place: pick the first, once
    ui.picked = at;
  }
  if (!ui.selected || !ix.place.has(ui.selected)) {
    ui.face = null;
    ui.pay = null;
  } else {
    if (!placeChoices(ix).faces.includes(ui.face)) ui.face = null;
    const { payments } = placeChoices(ix);  // for the face now chosen
    if (!payments.includes(ui.pay)) ui.pay = payments.length === 1 ? payments[0] : null;
  }
}

function select(id) {
  ui.selected = ui.selected === id ? null : id;
  ui.face = null;
  ui.pay = null;
  ui.notice = null;
  render();
}

// -- what the last turn did (from the events) --------------------------------------------

/** The events of the turn just played (or, once the seat to play has acted, of its turn
 * so far): who, the lines, the cells built, the tiles and cards new on the table. */
function lastTurn() {
  const items = [...ui.history.values()].sort((a, b) => a.version - b.version);
  const starts = items.map((item, i) => (item.event.type === "turn_started" ? i : -1))
    .filter((i) => i >= 0);
  const latest = starts.length ? starts[starts.length - 1] : -1;
  let from = latest + 1;
  let to = items.length;
  let current = true;
  if (!items.slice(from).some((item) => item.event.move)) {  // nothing yet: the turn before
    current = false;
    from = starts.length > 1 ? starts[starts.length - 2] + 1 : items.length;
    to = latest;
  }
  const window = items.slice(from, Math.max(from, to));
  const out = { seat: null, current, lines: [], placed: new Map(), fresh: new Set(),
                tiles: [], cards: [], since: window.length ? window[0].version : Infinity };
  for (const { event: e, text } of window) {
    if (e.move && out.seat === null) out.seat = e.seat;
    // (a scoring's points are in its table)
    if (text && e.type !== "turn_started" && e.type !== "points_awarded") out.lines.push(text);
    if ((e.type === "tile_placed" || e.type === "redesigned") && e.to === "city" && e.at) {
      if (!out.placed.has(e.seat)) out.placed.set(e.seat, new Set());
      out.placed.get(e.seat).add(`${e.at[0]},${e.at[1]}`);
    }
    if (e.type === "tile_bought" || e.type === "tile_awarded") out.tiles.push(e.tile);
    if (e.type === "money_taken") out.cards.push(...e.cards);
    if (e.type === "market_refilled") out.fresh.add(e.tile);
  }
  return out;
}

/** Every scoring so far: number -> {version, points: [{seat, building, kind, points}]}. */
function scorings() {
  const out = new Map();
  for (const { version, event: e } of [...ui.history.values()].sort((a, b) => a.version
                                                                           - b.version)) {
    if (e.type !== "points_awarded" && e.type !== "scoring_done") continue;
    if (!out.has(e.scoring)) out.set(e.scoring, { version, points: [] });
    const entry = out.get(e.scoring);
    entry.version = version;
    if (e.type === "points_awarded") entry.points.push(e);
  }
  return out;
}

// -- drawing -----------------------------------------------------------------------------

function mySeat() {
  const g = ui.game;
  return g && g.your_seat !== null && g.your_seat !== undefined ? g.your_seat : null;
}

function nameOf(seat) {
  const v = ui.game.view;
  if (seat === "neutral") return v.neutral ? S.neutralName(v.neutral.name) : S.theNeutral;
  return v.seats[seat] ? v.seats[seat].name : `seat ${seat}`;
}

function findTile(id) {
  const v = ui.game.view;
  const pools = [v.pending, ...v.market.map((m) => m.tiles),
                 ...v.seats.flatMap((s) => [s.reserve, s.city])];
  if (v.neutral) pools.push(v.neutral.tiles);
  for (const pool of pools) {
    const t = pool.find((x) => x.id === id);
    if (t) return t;
  }
  return null;
}

function moveButton(m, ...content) {
  return h("button", { type: "button", class: "move", "data-move": m.notation,
                       onclick: () => plan(m.notation) }, ...content);
}

function tileButton(t, { selected = false, label, onclick, move, size = 56, extra = {} }) {
  const attrs = { type: "button", class: `tile-button${selected ? " selected" : ""}`,
                  "aria-label": label, title: label, onclick, ...extra };
  if (move) attrs["data-move"] = move;
  else if (!extra["data-unaffordable"]) {
    attrs["aria-pressed"] = String(selected);
    attrs["data-select"] = t.id;
  }
  return h("button", attrs, tileSvg(t, size));
}

function staticTile(t, size = 56) {
  return h("span", { class: "tile-static", role: "img", "aria-label": tileWords(t) },
           tileSvg(t, size));
}

/** A money card drawn as a card in its currency's colour, its value large. */
function cardChip(text) {
  const c = card(text);
  return h("span", { class: `card card-${c.code}`, title: cardLabel(text) },
           h("span", { class: "symbol", "aria-hidden": "true" }, c.symbol),
           h("span", { class: "sr-only" }, `${c.name} `),
           h("span", { class: "value" }, String(c.value)));
}

function deadlineText(iso) {
  if (!iso) return null;
  const when = new Date(iso);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const text = new Intl.DateTimeFormat(lang, { weekday: "short", day: "numeric",
                                               month: "short", hour: "2-digit",
                                               minute: "2-digit" }).format(when);
  const hours = (when - Date.now()) / 3.6e6;
  const left = hours < 0 ? S.deadlinePassed
    : hours < 1 ? S.inMinutes(Math.max(1, Math.round(hours * 60)))
      : hours < 48 ? S.inHours(Math.round(hours)) : S.inDays(Math.round(hours / 24));
  return `${text} (${zone}), ${left}`;
}

function render() {
  const g = ui.game;
  const focus = focusKey();
  const moves = ui.legal && ui.legal.your_turn ? ui.legal.moves : [];
  const ix = indexMoves(moves);
  document.body.classList.toggle("spectator", mySeat() === null);
  if (mySeat() === null) {  // a spectator: the cities take the middle of the page
    document.querySelector(".col-centre").append(document.getElementById("others"));
  }
  renderHeader();
  renderMailFailing();
  if (!g.view) {
    renderWaiting();
    renderNotice();
    return;
  }
  keepSelection(ix);
  const last = lastTurn();
  renderStatus(ix);
  renderNotice();
  renderFinal();
  renderLast(last);
  renderScorings(last);
  renderMe(ix, last);
  renderActions(ix);
  renderMarket(ix, last);
  renderOverview();
  renderOthers(last);
  renderHistory();
  renderAllMoves(ix);
  tick();
  restoreFocus(focus);
}

function renderHeader() {
  const g = ui.game;
  const title = S.gameTitle(VARIANT_NAMES[g.variant] || g.variant, g.game_id.slice(0, 8));
  document.title = `${title} · alhambra-pbem`;
  document.getElementById("version").dataset.version = String(g.version);
  fill("title", title);
  // the round players count: every seat plays once a round
  fill("turn", g.view && g.view.turn ? S.round(Math.ceil(g.view.turn / g.view.seats.length))
                                     : "");
}

function renderWaiting() {
  const g = ui.game;
  const open = g.seats.filter((s) => !s.joined).length;
  fill("status", S.waitingPlayers(open));
  fill("others", h("h2", {}, S.seats),
       h("ul", {}, g.seats.map((s) => h("li", { "data-seat": s.seat },
                                        s.joined ? s.name : S.openSeat))));
}

function renderStatus(ix) {
  const g = ui.game;
  const v = g.view;
  const parts = [];
  if (ui.plan) {  // (a plan may end the game: it is not over until sent)
    parts.push(h("strong", { class: "your-turn", "data-your-turn": "true" },
                 S.turnPlanned(ui.plan.steps.length)));
  } else if (v.phase === "over") {
    parts.push(h("strong", {}, S.gameOver));
  } else if (v.current === mySeat() && ix.all.length) {
    parts.push(h("strong", { class: "your-turn", "data-your-turn": "true" },
                 S.yourTurn(S.yourTurnWhat[v.phase] || v.phase)));
  } else {
    parts.push(h("span", {}, S.theirTurn(nameOf(v.current))));
  }
  const deadline = deadlineText(g.deadline);
  if (deadline && v.phase !== "over") {
    parts.push(h("span", { class: "deadline" }, S.deadline(deadline)));
  }
  if (v.phase !== "over") {
    parts.push(h("span", { id: "live", class: ui.live ? "live on" : "live" },
                 ui.live ? S.live : S.offline));
  }
  fill("status", ...parts);
}

// -- clocks (each seat's time_left as read, run down since) -----------------------------

/** The day off running now (the clocks stand still until then), or null. */
function dayOffUntil() {
  const until = ui.real.game.day_off_until;
  return until && Date.now() < Date.parse(until) ? until : null;
}

/** The seconds ``seat`` has left now: the seat to act's clock runs, unless a day off. */
function secondsLeft(seat) {
  const g = ui.real.game;
  const entry = g.seats.find((x) => x.seat === seat);
  if (!entry || entry.time_left === undefined) return null;
  if (g.status !== "active" || g.current_seat !== seat) return entry.time_left;
  const until = g.day_off_until ? Date.parse(g.day_off_until) : 0;
  const away = entry.vacation_until ? Date.parse(entry.vacation_until) : 0;  // stopped
  const from = Math.max(ui.readAt, until, away);
  return Math.max(0, entry.time_left - Math.max(0, Date.now() - from) / 1000);
}

const banked = () => Boolean(ui.real.game.time_control && ui.real.game.time_control.bank);

/** The time the seat to act has left, in words; and a day off, if one runs. */
function clockLine() {
  const g = ui.real.game;
  if (g.status !== "active" || g.current_seat === null) return "";
  const left = secondsLeft(g.current_seat);
  if (left === null) return "";
  const words = timeWords(left);
  const mine = g.current_seat === mySeat();
  let text = !left ? S.noTimeLeft
    : mine ? (banked() ? S.leftInYourBank(words) : S.leftForYourMove(words))
      : (banked() ? S.leftInBank(nameOf(g.current_seat), words)
                  : S.leftForMove(nameOf(g.current_seat), words));
  const until = dayOffUntil();
  if (until) {
    const days = (g.time_control && g.time_control.days_off) || [];
    const weekend = days.length === 2 && days.includes("sat") && days.includes("sun");
    const when = new Intl.DateTimeFormat(lang, { weekday: "long", hour: "2-digit",
                                                 minute: "2-digit", hourCycle: "h23" })
      .format(new Date(until));
    text += ` ${(weekend ? S.weekendOff : S.dayOff)(when)}`;
  }
  for (const s of g.seats) {  // a player's vacation stops its seat's clock
    if (s.vacation_until && Date.now() < Date.parse(s.vacation_until)) {
      const when = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" })
        .format(new Date(s.vacation_until));
      text += ` ${S.onVacation(nameOf(s.seat), when)}`;
    }
  }
  return text;
}

/** Each second: the clocks' words on the page (outside the status, which is read out). */
function tick() {
  if (!ui.real || !ui.game.view) return;
  const line = clockLine();
  const el = document.getElementById("clock");
  el.hidden = !line;
  if (el.textContent !== line) el.textContent = line;
  for (const cell of document.querySelectorAll("[data-clock-seat]")) {
    const left = secondsLeft(Number(cell.dataset.clockSeat));
    const text = left === null ? "–" : banked() ? S.inTheBank(timeWords(left))
      : timeWords(left);
    if (cell.textContent !== text) cell.textContent = text;
  }
}

function ruleLink(rule) {
  return h("a", { href: `/rules#${encodeURIComponent(rule)}` }, rule);
}

/** The seat's own address, when mails to it fail (they stopped): why, and a button to
 * confirm it (POST /games/{id}/seats/{seat}/mail-address with no new address). */
function renderMailFailing() {
  const el = fill("mail-failing");
  const seat = mySeat();
  const entry = seat === null ? null : ui.game.seats.find((x) => x.seat === seat);
  if (!entry || !entry.mail_failing) return;
  el.append(S.mailFailing(entry.mail_failing), " ",
            h("button", { type: "button", onclick: confirmAddress }, S.confirmAddress));
}

async function confirmAddress() {
  try {
    await api(`/games/${gameId}/seats/${mySeat()}/mail-address`,
              { token, method: "POST", body: {} });
    await refresh();
  } catch (err) {
    showError(err);
  }
}

function renderNotice() {
  const n = ui.notice;
  const el = fill("notice");
  el.className = n ? `notice ${n.kind}` : "notice";
  if (!n) return;
  el.append(n.text);
  if (n.rule) el.append(` (${S.rule} `, ruleLink(n.rule), ")");
}

function renderFinal() {
  const v = ui.game.view;
  const el = document.getElementById("final");
  el.hidden = v.phase !== "over" || Boolean(ui.plan);
  if (el.hidden) return;
  const rows = v.seats.map((s) => ({ seat: s.seat, name: s.name, score: s.score,
                                     winner: v.winners.includes(s.seat) }));
  rows.sort((a, b) => b.score - a.score);
  const winners = listing(v.winners.map((w) => nameOf(w)));
  fill("final", h("h2", {}, S.finalScores),
       h("p", {}, S.winners(winners, v.winners.length)),
       h("table", { class: "scores" },
         h("thead", {}, h("tr", {}, h("th", { scope: "col" }, S.player),
                          h("th", { scope: "col" }, S.points))),
         h("tbody", {},
           rows.map((r) => h("tr", { "data-seat": r.seat, class: r.winner ? "winner" : "" },
                             h("td", {}, r.name, r.winner ? S.winner : ""),
                             h("td", { "data-final-score": r.score }, String(r.score)))),
           v.neutral ? h("tr", { class: "neutral" }, h("td", {}, S.neutral(S.neutralName(v.neutral.name))),
                         h("td", {}, String(v.neutral.score))) : null)),
       h("p", {}, h("a", { href: replayPath(), "data-replay": "" }, S.replay)),
       h("p", {}, h("a", { href: `/games/${encodeURIComponent(ui.game.game_id)}/record` },
                    S.record), S.recordNote));
}

/** The replay of this game (in this seat's view: a private game opens only so). */
function replayPath() {
  return `/replay/${encodeURIComponent(gameId)}${token ? `#token=${encodeURIComponent(token)}`
                                                      : ""}`;
}

/** The turn just played: its lines, the tile bought, the money taken. */
function renderLast(last) {
  const el = document.getElementById("last");
  el.hidden = !last.lines.length || ui.game.view.phase === "over";
  if (el.hidden) return;
  const who = last.seat === null ? null : nameOf(last.seat);
  const title = last.current && last.seat === mySeat() ? S.thisTurn
    : S.lastTurn(who || "");
  const tiles = last.tiles.map(findTile).filter(Boolean);
  fill("last", h("h2", {}, title),
       tiles.length || last.cards.length
         ? h("div", { class: "tiles last-things" }, tiles.map((t) => staticTile(t, 44)),
             last.cards.map(cardChip)) : null,
       h("ul", { class: "last-lines" }, last.lines.map((line) => h("li", {}, line))));
}

/** Each scoring's points per building type and line, per player; the latest open when it
 * has just happened. */
function renderScorings(last) {
  const v = ui.game.view;
  const all = [...scorings().entries()].sort((a, b) => b[0] - a[0]);
  const el = document.getElementById("scoring");
  el.hidden = !all.length;
  if (!all.length) return;
  const columns = v.seats.map((s) => ({ seat: s.seat, name: s.name }));
  if (v.neutral) columns.push({ seat: "neutral", name: S.neutralName(v.neutral.name) });
  const blocks = all.map(([n, { version, points }], i) => {
    const rows = [];
    for (const type of typesOf(v.variant)) {
      const got = points.filter((p) => p.building === type);
      if (got.length) rows.push({ label: building(type).plural, type, got });
    }
    for (const kind of ["wall", "moat", "combined"]) {
      const got = points.filter((p) => p.kind === kind);
      if (got.length) rows.push({ label: S.lines[kind], got });
    }
    const cell = (got, seat) => {
      const p = got.filter((x) => x.seat === seat).reduce((t, x) => t + x.points, 0);
      return h("td", { "data-seat": seat, "data-points": p }, p ? String(p) : "·");
    };
    const recent = i === 0 && version >= last.since;
    const open = ui.scoringOpen.has(n) ? ui.scoringOpen.get(n) : recent;
    const details = h("details", { "data-scoring": n, open, class: recent ? "recent" : "" },
      h("summary", {}, S.scoringTitle(n)),
      h("table", { class: "scoring" },
        h("caption", { class: "sr-only" }, S.scoringCaption(n)),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, S.scoringWhat),
                         columns.map((c) => h("th", { scope: "col" }, c.name)))),
        h("tbody", {}, rows.map((r) => h("tr", {},
          h("th", { scope: "row" }, r.type ? swatch(r.type) : null, r.type ? " " : null,
            r.label),
          columns.map((c) => cell(r.got, c.seat))))),
        h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, S.total),
                         columns.map((c) => cell(points, c.seat))))));
    details.addEventListener("toggle", () => ui.scoringOpen.set(n, details.open));
    return details;
  });
  fill("scoring", blocks);
}

function boardOptions(ix, shown) {
  const opts = { cellMoves: [], tileMoves: new Map(), selectable: new Map(), onMove: plan,
                 onSelect: select, fountain: ui.game.variant !== "granada" };
  const sel = ui.selected;
  const words = shown ? tileWords(shown) : "";
  if (sel && ix.place.has(sel)) {
    for (const m of placeChoices(ix).usable) {
      if (m.move.to === "city") {
        opts.cellMoves.push({ x: m.move.at[0], y: m.move.at[1], move: m.notation,
                              label: (where) => S.buildHere(words, where) });
      }
    }
  }
  if (sel && ix.toCity.has(sel)) {
    for (const m of ix.toCity.get(sel)) {
      if (m.move.to === "city") {
        opts.cellMoves.push({ x: m.move.at[0], y: m.move.at[1], move: m.notation,
                              label: (where) => S.buildHere(words, where) });
      } else {
        const out = findTile(m.move.tile);
        opts.tileMoves.set(m.move.tile, { move: m.notation,
                                          label: S.swapWith(tileWords(out), words) });
      }
    }
  }
  for (const id of ix.fromCity.keys()) {
    opts.selectable.set(id, { selected: id === sel,
                              label: S.pickRedesign(tileWords(findTile(id))) });
  }
  return opts;
}

function handView(hand) {
  const groups = Object.keys(CURRENCIES).map((code) => {
    const cards = hand.filter((c) => c.startsWith(code));
    return { code, cards };
  }).filter((g) => g.cards.length);
  if (!groups.length) return h("p", { class: "muted" }, S.noMoney);
  return h("ul", { class: "hand", "aria-label": S.moneyByCurrency },
           groups.map((g) => h("li", {},
                               h("span", { class: `currency ink-${g.code}` },
                                 `${CURRENCIES[g.code].symbol} ${CURRENCIES[g.code].name}`),
                               h("span", { class: "cards" }, g.cards.map(cardChip)),
                               h("span", { class: "sum" }, `= ${sum(g.cards)}`))));
}

/** The tile as it will be built: turned over when the player chose the other face. */
function shownTile(t) {
  return t && t.id === ui.selected && ui.face !== null && t.other_side ? flipped(t) : t;
}

function renderMe(ix, last) {
  const me = mySeat();
  const section = document.getElementById("me");
  section.hidden = me === null;
  if (me === null) return;
  const v = ui.game.view;
  const seat = v.seats[me];
  section.dataset.seat = String(me);
  const selectedTile = ui.selected ? shownTile(findTile(ui.selected)) : null;
  const reserve = seat.reserve.map((t) => {
    const swap = ui.selected && (ix.fromCity.get(ui.selected) || [])
      .find((m) => m.move.to === "swap" && m.move.other === t.id);
    if (swap) {  // a city tile is picked: this reserve tile can take its place
      return tileButton(t, { move: swap.notation, onclick: () => plan(swap.notation),
                             label: S.swapWith(tileWords(selectedTile), tileWords(t)) });
    }
    if (ix.toCity.has(t.id)) {
      return tileButton(t, { selected: ui.selected === t.id, onclick: () => select(t.id),
                             label: S.pickReserve(tileWords(t)) });
    }
    return staticTile(t);
  });
  const pending = v.current === me ? v.pending : [];
  const ends = mayActAgain(ix);
  fill("me",
       h("h2", {}, S.yourCity(seat.name, seat.score)),
       h("div", { class: "board-wrap" },
         cityBoard(seat, { ...boardOptions(ix, selectedTile), scale: 1.3,
                           last: last.placed.get(me) })),
       pending.length ? h("div", { class: "pending" }, h("h3", {}, S.tilesToPlace),
                          h("div", { class: "tiles" }, pending.map((t) => (
                            ix.place.has(t.id)
                              ? tileButton(shownTile(t), {
                                selected: ui.selected === t.id, onclick: () => select(t.id),
                                size: 64, label: (ends ? S.pickToPlaceEnds : S.pickToPlace)(
                                  tileWords(shownTile(t))) })
                              : staticTile(t, 64))))) : null,
       h("h3", {}, S.yourMoney(seat.hand.length)),
       handView(seat.hand),
       h("h3", {}, S.yourReserve(seat.reserve.length)),
       seat.reserve.length ? h("div", { class: "tiles" }, reserve)
                           : h("p", { class: "muted" }, S.empty));
}

function paymentLine(cards, price) {
  const total = sum(cards);
  const exact = total === price;
  return [h("span", { class: "cards" }, cards.map(cardChip)), ` = ${total} `,
          h("span", { class: exact ? "exact" : "over" },
            exact ? S.exactAgain : S.overPays(total - price))];
}

function renderActions(ix) {
  const me = mySeat();
  const section = document.getElementById("actions");
  section.hidden = me === null || (ui.game.view.phase === "over" && !ui.plan);
  if (section.hidden) return;
  const content = [h("h2", {}, S.yourMove)];
  if (ui.plan) content.push(planPanel());
  const sel = ui.selected;
  if (!ix.all.length && ui.plan) {
    content.push(h("p", {}, S.planComplete));
  } else if (!ix.all.length) {
    content.push(h("p", { class: "muted" }, S.waitingFor(nameOf(ui.game.view.current))));
  } else if (sel && ix.buy.has(sel)) {
    const t = findTile(sel);
    const space = ui.game.view.market.find((m) => m.tiles.some((x) => x.id === sel));
    content.push(h("p", {}, S.buyTile(tileWords(t), space.space,
                                      CURRENCIES[CURRENCY_CODES[space.currency]].plural)));
    const options = [...ix.buy.get(sel)].sort((a, b) => sum(a.move.cards) - sum(b.move.cards));
    content.push(h("ul", { class: "options" }, options.map((m) => h("li", {},
      moveButton(m, paymentLine(m.move.cards, t.value))))));
  } else if (sel && ix.place.has(sel)) {
    content.push(...placePanel(ix, findTile(sel)));
  } else if (sel && ix.toCity.has(sel)) {
    content.push(h("p", {}, S.buildFromReserve(tileWords(findTile(sel)))));
  } else if (sel && ix.fromCity.has(sel)) {
    const t = findTile(sel);
    content.push(h("p", {}, S.redesignTile(tileWords(t))));
    const out = ix.fromCity.get(sel).filter((m) => m.move.to === "reserve");
    content.push(...out.map((m) => moveButton(m, S.toReserve)));
    if (ix.fromCity.get(sel).some((m) => m.move.to === "swap")) {
      content.push(h("p", {}, S.orSwap));
    }
  } else if (mayActAgain(ix)) {
    content.push(exactChoice(ix));
  } else {
    content.push(h("p", {}, hint(ix)));
  }
  if (sel) {
    content.push(h("button", { type: "button", class: "secondary", "data-key": "cancel",
                               onclick: () => select(sel) }, S.chooseElse));
  }
  if (ix.end.length) {
    content.push(h("p", {}, moveButton(ix.end[0], ui.game.view.pending.length
      ? S.endActions : S.endTurn)));
  }
  fill("actions", ...content);
}

/** The turn planned so far, in words (as the history will say it), with Send and Undo. */
function planPanel() {
  const top = ui.plan.steps[ui.plan.steps.length - 1].answer;
  const lines = top.events.map((item) => item.text).filter(Boolean);
  return h("div", { class: "plan", "data-plan": ui.plan.steps.length, role: "group",
                    "aria-label": S.planLabel },
    h("h3", {}, S.planTitle),
    h("ol", { class: "plan-lines" }, lines.map((line) => h("li", { "data-planned": "" }, line))),
    h("p", { class: "small" }, top.turn_ends ? S.planEnds : S.planGoesOn),
    h("button", { type: "button", class: "move send", "data-key": "send-plan",
                  onclick: sendPlan }, top.turn_ends ? S.sendTurn : S.sendMoves),
    " ",
    h("button", { type: "button", class: "secondary", "data-key": "undo", onclick: undo },
      S.undo));
}

/** A-3c, plainly: act again (the turn goes on) or place now (the actions end). */
function exactChoice(ix) {
  const first = ix.place.keys().next().value;
  return h("div", { class: "exact-choice", "data-exact-choice": "true" },
    h("p", {}, h("strong", {}, S.exactTitle)),
    h("ul", {},
      h("li", {}, S.exactAct),
      h("li", {}, h("button", { type: "button", class: "move", "data-key": "place-now",
                                onclick: () => select(first) }, S.exactPlace),
        " ", S.exactPlaceNote, ` (${S.rule} `, ruleLink("A-3c"), ")")));
}

function hint(ix) {
  const bits = [];
  if (ix.take.length) bits.push(S.mayTake);
  if (ix.buy.size) bits.push(S.mayBuy);
  if (ix.place.size) bits.push(S.mayPlace);
  if (ix.toCity.size || ix.fromCity.size) bits.push(S.mayRedesign);
  return bits.length ? S.youMay(bits) : S.chooseBelow;
}

function placePanel(ix, t) {
  const shown = shownTile(t);
  const { faces, payments, usable } = placeChoices(ix);
  const noCell = (ui.legal.no_cell || []).find((n) => n.tile === t.id);
  const out = [];
  if (noCell) {  // say why, with the rule, and offer what is possible
    out.push(h("div", { class: "no-cell", "data-no-cell": t.id },
      h("p", {}, h("strong", {}, S.noCell(tileName(shown)))),
      h("p", {}, noCell.reason, ` (${S.rule} `, ruleLink(noCell.rule), ")."),
      h("p", {}, S.noCellOffer)));
  } else {
    out.push(h("p", {}, S.placeTile(tileWords(shown))));
  }
  if (faces.length > 1 && t.other_side) {
    const flipTo = faces.find((f) => f !== null);
    out.push(h("div", { class: "choice", role: "group", "aria-label": S.face },
      h("button", { type: "button", "aria-pressed": String(ui.face === null),
                    "data-key": "face-keep",
                    onclick: () => { ui.face = null; ui.pay = null; render(); } },
        S.asItLies(building(t.type).name, t.value)),
      h("button", { type: "button", "aria-pressed": String(ui.face === flipTo),
                    "data-key": "face-flip",
                    onclick: () => { ui.face = flipTo; ui.pay = null; render(); } },
        S.flipTo(building(t.other_side.type).name, t.other_side.value))));
  }
  if (payments.length) {
    out.push(h("p", {}, S.flipCost));
    out.push(h("div", { class: "choice", role: "group", "aria-label": S.payment },
      payments.map((p) => h("button", { type: "button", "aria-pressed": String(ui.pay === p),
                                        "data-key": `pay-${p}`,
                                        onclick: () => { ui.pay = p; render(); } },
        h("span", { class: "cards" }, p.split(",").map(cardChip)), ` = ${sum(p.split(","))}`))));
  }
  const others = usable.filter((m) => m.move.to !== "city");
  const neutral = ui.game.view.neutral ? S.neutralName(ui.game.view.neutral.name)
    : S.theNeutral;
  for (const m of others) {
    const turned = m.move.face !== undefined && m.move.face !== null;
    out.push(moveButton(m, m.move.to === "reserve" ? S.putReserve(turned)
                                                   : S.giveNeutral(turned, neutral)));
  }
  return out;
}

/** What to say when a market tile that cannot be bought is clicked. */
function cannotBuy(t, currency) {
  const v = ui.game.view;
  const code = CURRENCY_CODES[currency];
  const held = sum(v.seats[mySeat()].hand.filter((c) => c.startsWith(code)));
  ui.notice = { kind: "warn",
                text: S.cannotBuy(tileName(t), t.value, code, held) };
  renderNotice();
}

function renderMarket(ix, last) {
  const v = ui.game.view;
  const me = mySeat();
  const buying = me !== null && v.current === me && v.phase === "action" && ix.all.length;
  const spaces = v.market.map((m) => {
    const code = CURRENCY_CODES[m.currency];
    const tiles = m.tiles.map((t) => {
      const fresh = last.fresh.has(t.id);
      const badge = fresh ? h("span", { class: "fresh" }, S.newTile) : null;
      if (!ix.buy.has(t.id)) {
        if (!buying) return h("span", { class: "buyable" }, staticTile(t), badge);
        return h("span", { class: "buyable" }, tileButton(t, {
          label: S.unaffordable(tileWords(t)), onclick: () => cannotBuy(t, m.currency),
          extra: { class: "tile-button unaffordable", "data-unaffordable": t.id } }), badge);
      }
      const exact = ix.buy.get(t.id).some((b) => sum(b.move.cards) === t.value);
      const button = tileButton(t, { selected: ui.selected === t.id, onclick: () => select(t.id),
                                     label: S.buy(tileWords(t)) });
      return h("span", { class: "buyable" }, button,
               h("span", { class: exact ? "exact" : "over" }, exact ? S.exact : S.overPay),
               badge);
    });
    const held = me !== null
      ? sum(v.seats[me].hand.filter((c) => c.startsWith(code))) : null;
    return h("li", { class: `space space-${code}`, "data-space": m.space },
             h("div", { class: "space-name" },
               S.space(m.space, CURRENCIES[code].symbol, CURRENCIES[code].name),
               held !== null ? h("span", { class: "held" }, S.youHold(held)) : null),
             h("div", { class: "tiles" },
               tiles.length ? tiles : h("span", { class: "muted" }, S.empty)));
  });
  const takeOne = new Map(ix.take.filter((m) => m.move.positions.length === 1)
    .map((m) => [m.move.positions[0], m]));
  const display = v.display.map((c, i) => {
    const m = takeOne.get(i + 1);
    const chip = cardChip(c);
    if (!m) return h("span", { class: "card-slot" }, chip);
    return h("button", { type: "button", class: "card-button", "data-move": m.notation,
                         "aria-label": S.take(cardLabel(c)), onclick: () => plan(m.notation) },
             chip);
  });
  const combos = ix.take.filter((m) => m.move.positions.length > 1).map((m) => moveButton(m,
    S.takeSeveral(m.move.positions.map((p) => cardLabel(v.display[p - 1])))));
  fill("market",
       h("h2", {}, S.market),
       h("ol", { class: "market" }, spaces),
       h("h3", {}, S.moneyDisplay),
       h("div", { class: "display" },
         display.length ? display : h("span", { class: "muted" }, S.empty)),
       combos.length ? h("div", { class: "combos" }, h("p", {}, S.orSeveral), combos) : null,
       h("p", { class: "muted small", "data-scorings-done": v.scorings_done },
         S.stock(v.deck_size, v.discard_size,
                 Object.entries(v.bag_sizes).map(([k, n]) => `${VARIANT_NAMES[k] || k} ${n}`)
                   .join(", "),
                 v.scorings_done),
         v.marker ? S.marker(v.marker === "back") : ""));
}

function swatch(type) {
  return svg("svg", { width: 12, height: 12, class: "swatch", "aria-hidden": "true" },
             svg("rect", { width: 12, height: 12, fill: building(type).fill }));
}

function renderOverview() {
  const v = ui.game.view;
  const me = mySeat();
  const clocks = v.phase !== "over";
  const rows = v.seats.map((s) => h("tr", { "data-seat": s.seat,
                                            class: s.seat === v.current ? "current" : "" },
    h("td", {}, s.seat === v.current && v.phase !== "over" ? "▶ " : "", s.name,
      s.seat === me ? S.you : "",
      clocks ? h("span", { class: "seat-clock" }, h("span", { class: "sr-only" }, S.timeLeft),
                 h("span", { "data-clock-seat": s.seat })) : null),
    h("td", { "data-score": s.score }, String(s.score)),
    h("td", {}, String(s.hand_size)),
    h("td", {}, String(s.city.length - 1)),
    h("td", {}, String(s.reserve.length))));
  if (v.neutral) {
    rows.push(h("tr", { class: "neutral" }, h("td", {}, S.neutral(S.neutralName(v.neutral.name))),
                h("td", {}, String(v.neutral.score)), h("td", {}, "–"),
                h("td", {}, String(v.neutral.tiles.length)), h("td", {}, "–")));
  }
  fill("overview",
       h("h2", {}, S.players),
       h("table", { class: "overview" },
         h("thead", {}, h("tr", {}, [S.player, S.points, S.cardsCol, S.cityCol, S.reserveCol]
           .map((x) => h("th", { scope: "col" }, x)))),
         h("tbody", {}, rows)),
       majorities(v),
       v.neutral && v.neutral.tiles.length ? h("details", { class: "neutral-tiles" },
         h("summary", {}, S.neutralTiles(S.neutralName(v.neutral.name),
                                         v.neutral.tiles.length)),
         h("div", { class: "tiles" }, v.neutral.tiles.map((t) => staticTile(t, 44)))) : null);
}

/** Building counts per seat: who leads each type (points are the engine's business). */
function majorities(v) {
  const columns = v.seats.map((s) => ({ name: s.name, tiles: s.city }));
  if (v.neutral) columns.push({ name: S.neutralName(v.neutral.name), tiles: v.neutral.tiles });
  const rows = typesOf(v.variant).map((type) => {
    const counts = columns.map((c) => c.tiles.filter((t) => t.type === type).length);
    const best = Math.max(...counts);
    return h("tr", {}, h("th", { scope: "row" }, swatch(type), " ", building(type).name),
      counts.map((n) => {
        const lead = n > 0 && n === best;
        return h("td", { class: lead ? "lead" : "" }, n ? String(n) : "·",
                 lead ? h("span", { class: "sr-only" }, S.most) : null);
      }));
  });
  return h("details", { class: "majorities", open: !narrow.matches },
           h("summary", {}, S.majorities),
           h("table", {},
             h("thead", {}, h("tr", {}, h("th", { scope: "col" }, S.type),
               columns.map((c) => h("th", { scope: "col" }, c.name)))),
             h("tbody", {}, rows)));
}

function renderOthers(last) {
  const v = ui.game.view;
  const me = mySeat();
  const others = v.seats.filter((s) => s.seat !== me);
  const fountain = ui.game.variant !== "granada";
  fill("others", h("h2", {}, me === null ? S.cities : S.otherPlayers),
       others.map((s) => {
         const open = ui.open.has(s.seat) ? ui.open.get(s.seat) : !narrow.matches;
         const details = h("details", { "data-seat": s.seat, open },
           h("summary", {}, S.seatSummary(s)),
           h("div", { class: "board-wrap" },
             cityBoard(s, { last: last.placed.get(s.seat), fountain,
                            scale: me === null ? 1 : 0.75 })),
           s.reserve.length ? h("div", { class: "tiles", role: "group",
                                         "aria-label": S.reserveOf(s.name) },
             h("span", { class: "muted" }, S.reserve),
             s.reserve.map((t) => staticTile(t, 40))) : null);
         details.addEventListener("toggle", () => ui.open.set(s.seat, details.open));
         return details;
       }));
}

function historyText(item) {
  if (item.text !== undefined) return item.text;
  const e = item.event;  // an API without descriptions: say the moves at least
  return e.move ? `${nameOf(e.seat)}: ${e.move}` : null;
}

function renderHistory() {
  if (!ui.game || !ui.game.view) return;
  const lines = [...ui.history.values()].sort((a, b) => b.version - a.version)
    .map((item) => [item.version, historyText(item)]).filter(([, text]) => text);
  fill("history", h("h2", {}, S.history),
       h("ul", { class: "history", "aria-label": S.historyLabel, tabindex: "0" },
         lines.slice(0, 300).map(([version, text]) => h("li", { "data-event": version }, text))));
}

function renderAllMoves(ix) {
  const el = document.getElementById("all-moves");
  el.hidden = !ix.all.length;
  if (!ix.all.length) return;
  const open = el.querySelector("details")?.open || false;
  fill("all-moves", h("details", { open },
    h("summary", {}, S.allMoves(ix.all.length)),
    h("ul", { class: "all-moves" }, ix.all.map((m) => h("li", {}, moveButton(m, m.notation))))));
}

function focusKey() {
  const a = document.activeElement;
  if (!a || a === document.body) return null;
  for (const attr of ["data-move", "data-select", "data-key", "data-unaffordable"]) {
    if (a.hasAttribute(attr)) return [a.closest("section")?.id, attr, a.getAttribute(attr)];
  }
  return null;
}

function restoreFocus(key) {
  if (!key) return;
  const [section, attr, value] = key;
  const root = (section && document.getElementById(section)) || document;
  const el = [...root.querySelectorAll(`[${attr}]`)].find((e) => e.getAttribute(attr) === value);
  if (el) el.focus();
}

// -- start -------------------------------------------------------------------------------

/** A seat's page keeps the switcher's choice as the seat's language (its mails too). */
async function chooseLanguage(language) {
  const seat = mySeat();
  if (!token || seat === null) return;
  try {
    await api(`/games/${gameId}/seats/${seat}/language`,
              { token, method: "PUT", body: { language } });
  } catch (err) {
    showError(err);
  }
}

async function start() {
  applyStrings(S);
  document.querySelector("header.top").append(switcher(chooseLanguage));
  if (!/^[0-9a-f]{16}$/.test(gameId)) {
    fill("title", S.noGameTitle);
    fill("status", S.notAGame);
    return;
  }
  const spectate = document.getElementById("spectate");
  spectate.href = `/play/${gameId}`;
  spectate.hidden = !token;
  try {
    await readEvents();
    await refresh();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      document.title = `${S.noGameTitle} · alhambra-pbem`;
      fill("title", S.noGameTitle);
      fill("status", S.noGame);
      spectate.hidden = true;
    } else {
      fill("status");
      showError(err);
    }
    return;
  }
  if (!ui.game) return;
  ui.chat = mountChat({ gameId, token, game: ui.game });
  startStream();
  setInterval(tick, 1000);
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) {
      stopStream();
    } else if (ui.game.status !== "over") {
      refresh().then(startStream);
    }
  });
}

start();
