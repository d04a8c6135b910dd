// The player's page (/play/{id}#token=…) and, without a token, the spectator's page.
// Everything shown comes from GET /games/{id} (its view), every offer from
// GET /games/{id}/legal-moves, the history from /events and /stream. No rules here.

import { api, ApiError } from "./api.js";
import { cityBoard, tileSvg } from "./board.js";
import { fill, h, s as svg } from "./dom.js";
import {
  VARIANT_NAMES, building, card, cardLabel, CURRENCIES, CURRENCY_CODES, tileWords, typesOf,
} from "./names.js";
import { follow } from "./stream.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
const token = new URLSearchParams(location.hash.slice(1)).get("token");
const narrow = window.matchMedia("(max-width: 760px)");

const ui = {
  game: null,  // GET /games/{id}
  legal: null,  // GET /games/{id}/legal-moves (seats only)
  shown: null,  // the game and legal moves drawn last, as JSON
  history: new Map(),  // version -> event item
  seen: 0,  // the highest version in history
  selected: null,  // a tile id the player picked
  picked: null,  // the version at which the page picked a tile to place by itself
  face: null,  // the face chosen for a placement (null: as it lies)
  pay: null,  // the cards chosen to pay for a flip ("DU3,DU1")
  busy: false,
  notice: null,  // {kind, text, rule}
  live: false,
  stream: null,
  open: new Map(),  // seat -> whether its <details> is open
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
        await show(game, { ...legal, your_turn: false, moves: [] });
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
  if (ui.game && ui.game.version !== game.version) {
    ui.selected = null;  // a choice made for another position of the game
    ui.face = null;
    ui.pay = null;
  }
  ui.game = game;
  ui.legal = legal;
  ui.shown = shown;
  if (game.version > ui.seen) await readEvents();
  render();
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
    onConnect() { setLive(true); },
    onError() { setLive(false); },
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
    el.textContent = live ? "live" : "offline";
    el.className = live ? "live on" : "live";
  }
}

// -- moves -------------------------------------------------------------------------------

/** A random key (crypto.randomUUID needs HTTPS; a server on a LAN may serve plain HTTP). */
function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function send(notation) {
  if (ui.busy) return;
  ui.busy = true;
  document.body.classList.add("busy");
  ui.notice = null;
  try {
    const answer = await api(`/games/${encodeURIComponent(gameId)}/moves`, {
      token, method: "POST", body: { version: ui.game.version, move: notation },
      headers: { "Idempotency-Key": randomKey() },
    });
    addHistory(answer.events);
    ui.selected = null;
    ui.face = null;
    ui.pay = null;
    ui.notice = { kind: "ok", text: `You played: ${notation}` };
  } catch (err) {
    ui.notice = refusal(err);
  } finally {
    ui.busy = false;
    document.body.classList.remove("busy");
  }
  await refresh();
  renderNotice();  // also when the game did not change (a refused move)
  if (document.activeElement === document.body) {  // the clicked control is gone
    document.getElementById("status").focus({ preventScroll: true });
  }
}

/** What to tell the player about a refused move. */
function refusal(err) {
  if (!(err instanceof ApiError)) return { kind: "error", text: String(err) };
  const p = err.problem;
  if (p.code === "version_conflict") {
    return { kind: "warn", text: `The game moved on while you were choosing (it is at version `
                                 + `${p.current_version} now): the page shows it again. Choose `
                                 + "again." };
  }
  return { kind: "error", text: p.detail || err.message, rule: p.rule };
}

function showError(err) {
  ui.notice = err instanceof ApiError ? { kind: "error", text: err.problem.detail || err.message,
                                          rule: err.problem.rule }
                                      : { kind: "error", text: String(err) };
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

function keepSelection(ix) {
  const known = (id) => ix.buy.has(id) || ix.place.has(id) || ix.toCity.has(id)
                        || ix.fromCity.has(id);
  if (ui.selected && !known(ui.selected)) {
    ui.selected = null;
  }
  if (!ui.selected && ix.place.size && ui.picked !== ui.game.version) {
    ui.selected = ix.place.keys().next().value;  // a tile to place: pick the first, once
    ui.picked = ui.game.version;
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

// -- drawing -----------------------------------------------------------------------------

function mySeat() {
  const g = ui.game;
  return g && g.your_seat !== null && g.your_seat !== undefined ? g.your_seat : null;
}

function nameOf(seat) {
  const v = ui.game.view;
  if (seat === "neutral") return v.neutral ? v.neutral.name : "neutral";
  return v.seats[seat] ? v.seats[seat].name : `seat ${seat}`;
}

function findTile(id) {
  const v = ui.game.view;
  const me = mySeat();
  const pools = [v.pending, ...v.market.map((m) => m.tiles)];
  if (me !== null) pools.push(v.seats[me].reserve, v.seats[me].city);
  for (const pool of pools) {
    const t = pool.find((x) => x.id === id);
    if (t) return t;
  }
  return { id, type: "?", value: "?" };
}

function moveButton(m, ...content) {
  return h("button", { type: "button", class: "move", "data-move": m.notation,
                       onclick: () => send(m.notation) }, ...content);
}

function tileButton(t, { selected = false, label, onclick, move }) {
  const attrs = { type: "button", class: `tile-button${selected ? " selected" : ""}`,
                  "aria-label": label, title: label, onclick };
  if (move) attrs["data-move"] = move;
  else attrs["aria-pressed"] = String(selected);
  if (!move) attrs["data-select"] = t.id;
  return h("button", attrs, tileSvg(t, 56));
}

function cardChip(text) {
  const c = card(text);
  return h("span", { class: `card card-${c.code}`, title: cardLabel(text) },
           h("span", { class: "symbol", "aria-hidden": "true" }, c.symbol),
           h("span", { class: "sr-only" }, `${c.name} `), String(c.value));
}

function deadlineText(iso) {
  if (!iso) return null;
  const when = new Date(iso);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const text = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric",
                                                    month: "short", hour: "2-digit",
                                                    minute: "2-digit" }).format(when);
  const hours = (when - Date.now()) / 3.6e6;
  const left = hours < 0 ? "passed" : hours < 1 ? `in ${Math.max(1, Math.round(hours * 60))} min`
    : hours < 48 ? `in ${Math.round(hours)} h` : `in ${Math.round(hours / 24)} days`;
  return `${text} (${zone}), ${left}`;
}

function render() {
  const g = ui.game;
  const focus = focusKey();
  const moves = ui.legal && ui.legal.your_turn ? ui.legal.moves : [];
  const ix = indexMoves(moves);
  document.body.classList.toggle("spectator", mySeat() === null);
  renderHeader();
  if (!g.view) {
    renderWaiting();
    renderNotice();
    return;
  }
  keepSelection(ix);
  renderStatus(ix);
  renderNotice();
  renderFinal();
  renderMe(ix);
  renderActions(ix);
  renderMarket(ix);
  renderOverview();
  renderOthers();
  renderHistory();
  renderAllMoves(ix);
  restoreFocus(focus);
}

function renderHeader() {
  const g = ui.game;
  const title = `${VARIANT_NAMES[g.variant] || g.variant} · game ${g.game_id.slice(0, 8)}`;
  document.title = `${title} · alhambra-pbem`;
  const version = document.getElementById("version");
  version.dataset.version = String(g.version);
  version.textContent = `version ${g.version}`;
  fill("title", title);
  fill("turn", g.view ? `turn ${g.view.turn}` : "");
}

function renderWaiting() {
  const g = ui.game;
  const open = g.seats.filter((s) => !s.joined).length;
  fill("status", `Waiting for ${open} more player${open === 1 ? "" : "s"} to join: the game `
                 + "starts when every seat is taken.");
  fill("others", h("h2", {}, "Seats"),
       h("ul", {}, g.seats.map((s) => h("li", { "data-seat": s.seat },
                                        s.joined ? s.name : "(open seat)"))));
}

function renderStatus(ix) {
  const g = ui.game;
  const v = g.view;
  const parts = [];
  if (v.phase === "over") {
    parts.push(h("strong", {}, "Game over."));
  } else if (v.current === mySeat() && ix.all.length) {
    const what = { action: "take money, buy, or redesign",
                   placement: "place the tiles you bought",
                   distribution: "place the tile you received" }[v.phase] || v.phase;
    parts.push(h("strong", { class: "your-turn", "data-your-turn": "true" },
                 `Your turn: ${what}.`));
  } else {
    parts.push(h("span", {}, `${nameOf(v.current)}'s turn.`));
  }
  const deadline = deadlineText(g.deadline);
  if (deadline && v.phase !== "over") {
    parts.push(h("span", { class: "deadline" }, ` Deadline: ${deadline}.`));
  }
  if (v.phase !== "over") {
    parts.push(h("span", { id: "live", class: ui.live ? "live on" : "live" },
                 ui.live ? "live" : "offline"));
  }
  fill("status", ...parts);
}

function renderNotice() {
  const n = ui.notice;
  const el = fill("notice");
  el.className = n ? `notice ${n.kind}` : "notice";
  if (!n) return;
  el.append(n.text);
  if (n.rule) {
    el.append(" (rule ", h("a", { href: `/rules#${encodeURIComponent(n.rule)}` }, n.rule), ")");
  }
}

function renderFinal() {
  const v = ui.game.view;
  const el = document.getElementById("final");
  el.hidden = v.phase !== "over";
  if (v.phase !== "over") return;
  const rows = v.seats.map((s) => ({ seat: s.seat, name: s.name, score: s.score,
                                     winner: v.winners.includes(s.seat) }));
  rows.sort((a, b) => b.score - a.score);
  const winners = v.winners.map((w) => nameOf(w)).join(" and ");
  fill("final", h("h2", {}, "Final scores"),
       h("p", {}, `Winner${v.winners.length > 1 ? "s" : ""}: ${winners}.`),
       h("table", { class: "scores" },
         h("thead", {}, h("tr", {}, h("th", {}, "Player"), h("th", {}, "Points"))),
         h("tbody", {},
           rows.map((r) => h("tr", { "data-seat": r.seat, class: r.winner ? "winner" : "" },
                             h("td", {}, r.name, r.winner ? " (winner)" : ""),
                             h("td", { "data-final-score": r.score }, String(r.score)))),
           v.neutral ? h("tr", { class: "neutral" }, h("td", {}, `${v.neutral.name} (neutral)`),
                         h("td", {}, String(v.neutral.score))) : null)),
       h("p", {}, h("a", { href: `/games/${encodeURIComponent(ui.game.game_id)}/record` },
                    "The game record"), " (JSON: every move in notation; import it to replay)."));
}

function boardOptions(ix) {
  const opts = { cellMoves: [], tileMoves: new Map(), selectable: new Map(), onMove: send,
                 onSelect: select };
  const sel = ui.selected;
  if (sel && ix.place.has(sel)) {
    for (const m of placeChoices(ix).usable) {
      if (m.move.to === "city") {
        opts.cellMoves.push({ x: m.move.at[0], y: m.move.at[1], move: m.notation,
                              label: m.notation });
      }
    }
  }
  if (sel && ix.toCity.has(sel)) {
    for (const m of ix.toCity.get(sel)) {
      if (m.move.to === "city") {
        opts.cellMoves.push({ x: m.move.at[0], y: m.move.at[1], move: m.notation,
                              label: m.notation });
      } else {
        opts.tileMoves.set(m.move.tile, { move: m.notation, label: m.notation });
      }
    }
  }
  for (const id of ix.fromCity.keys()) {
    opts.selectable.set(id, { selected: id === sel,
                              label: `pick ${tileWords(findTile(id))} to redesign` });
  }
  return opts;
}

function handView(hand) {
  const groups = Object.keys(CURRENCIES).map((code) => {
    const cards = hand.filter((c) => c.startsWith(code));
    return { code, cards };
  }).filter((g) => g.cards.length);
  if (!groups.length) return h("p", { class: "muted" }, "No money cards.");
  return h("ul", { class: "hand", "aria-label": "your money by currency" },
           groups.map((g) => h("li", {},
                               h("span", { class: `currency card-${g.code}` },
                                 `${CURRENCIES[g.code].symbol} ${CURRENCIES[g.code].name}`),
                               h("span", { class: "cards" }, g.cards.map(cardChip)),
                               h("span", { class: "sum" }, `= ${sum(g.cards)}`))));
}

function renderMe(ix) {
  const me = mySeat();
  const section = document.getElementById("me");
  section.hidden = me === null;
  if (me === null) return;
  const v = ui.game.view;
  const seat = v.seats[me];
  section.dataset.seat = String(me);
  const reserve = seat.reserve.map((t) => {
    const swap = ui.selected && (ix.fromCity.get(ui.selected) || [])
      .find((m) => m.move.to === "swap" && m.move.other === t.id);
    if (swap) {  // a city tile is picked: this reserve tile can take its place
      return tileButton(t, { move: swap.notation, label: swap.notation,
                             onclick: () => send(swap.notation) });
    }
    if (ix.toCity.has(t.id)) {
      return tileButton(t, { selected: ui.selected === t.id, onclick: () => select(t.id),
                             label: `pick reserve tile ${tileWords(t)} to build` });
    }
    return h("span", { class: "tile-static", title: tileWords(t) }, tileSvg(t, 56),
             h("span", { class: "sr-only" }, tileWords(t)));
  });
  const pending = v.current === me ? v.pending : [];
  fill("me",
       h("h2", {}, `Your city · ${seat.name} · ${seat.score} points`),
       h("div", { class: "board-wrap" }, cityBoard(seat, boardOptions(ix))),
       pending.length ? h("div", { class: "pending" }, h("h3", {}, "Tiles to place"),
                          h("div", { class: "tiles" }, pending.map((t) => (
                            ix.place.has(t.id)
                              ? tileButton(t, { selected: ui.selected === t.id,
                                                onclick: () => select(t.id),
                                                label: `pick ${tileWords(t)} to place` })
                              : tileSvg(t, 56))))) : null,
       h("h3", {}, `Your money (${seat.hand.length} cards)`),
       handView(seat.hand),
       h("h3", {}, `Your reserve (${seat.reserve.length})`),
       seat.reserve.length ? h("div", { class: "tiles" }, reserve)
                           : h("p", { class: "muted" }, "Empty."));
}

function paymentLine(cards, price) {
  const total = sum(cards);
  const exact = total === price;
  return [h("span", { class: "cards" }, cards.map(cardChip)), ` = ${total} `,
          h("span", { class: exact ? "exact" : "over" },
            exact ? "exact: you may act again" : `over-pays by ${total - price}`)];
}

function renderActions(ix) {
  const me = mySeat();
  const section = document.getElementById("actions");
  section.hidden = me === null || ui.game.view.phase === "over";
  if (section.hidden) return;
  const content = [h("h2", {}, "Your move")];
  const sel = ui.selected;
  if (!ix.all.length) {
    content.push(h("p", { class: "muted" }, `Waiting for ${nameOf(ui.game.view.current)}.`));
  } else if (sel && ix.buy.has(sel)) {
    const t = findTile(sel);
    const space = ui.game.view.market.find((m) => m.tiles.some((x) => x.id === sel));
    content.push(h("p", {}, `Buy ${tileWords(t)} from space ${space.space} with `
                            + `${space.currency}s. Pay with:`));
    const options = [...ix.buy.get(sel)].sort((a, b) => sum(a.move.cards) - sum(b.move.cards));
    content.push(h("ul", { class: "options" }, options.map((m) => h("li", {},
      moveButton(m, paymentLine(m.move.cards, t.value))))));
  } else if (sel && ix.place.has(sel)) {
    content.push(...placePanel(ix, findTile(sel)));
  } else if (sel && ix.toCity.has(sel)) {
    content.push(h("p", {}, `Build ${tileWords(findTile(sel))} from your reserve: choose a `
                            + "highlighted free cell, or a marked tile of your city to swap "
                            + "it with."));
  } else if (sel && ix.fromCity.has(sel)) {
    const t = findTile(sel);
    content.push(h("p", {}, `Redesign: ${tileWords(t)}.`));
    const out = ix.fromCity.get(sel).filter((m) => m.move.to === "reserve");
    content.push(...out.map((m) => moveButton(m, "Move it to your reserve")));
    if (ix.fromCity.get(sel).some((m) => m.move.to === "swap")) {
      content.push(h("p", {}, "Or swap it with a marked tile of your reserve."));
    }
  } else {
    content.push(h("p", {}, hint(ix)));
  }
  if (sel) {
    content.push(h("button", { type: "button", class: "secondary", "data-key": "cancel",
                               onclick: () => select(sel) }, "Choose something else"));
  }
  if (ix.end.length) {
    content.push(h("p", {}, moveButton(ix.end[0], ui.game.view.pending.length
      ? "End my actions (then place the tiles)" : "End my turn")));
  }
  fill("actions", ...content);
}

function hint(ix) {
  const bits = [];
  if (ix.take.length) bits.push("take money from the display");
  if (ix.buy.size) bits.push("pick a market tile to buy");
  if (ix.place.size) bits.push("pick a tile to place");
  if (ix.toCity.size || ix.fromCity.size) bits.push("pick a reserve or city tile to redesign");
  return bits.length ? `You may ${bits.join(", ")}.` : "Choose a move below.";
}

function placePanel(ix, t) {
  const out = [h("p", {}, `Place ${tileWords(t)}: choose a highlighted cell of your city, `
                          + "or:")];
  const { faces, payments, usable } = placeChoices(ix);
  if (faces.length > 1 && t.other_side) {
    const flipTo = faces.find((f) => f !== null);
    out.push(h("div", { class: "choice", role: "group", "aria-label": "face" },
      h("button", { type: "button", "aria-pressed": String(ui.face === null),
                    "data-key": "face-keep",
                    onclick: () => { ui.face = null; ui.pay = null; render(); } },
        `As it lies: ${building(t.type).name} ${t.value}`),
      h("button", { type: "button", "aria-pressed": String(ui.face === flipTo),
                    "data-key": "face-flip",
                    onclick: () => { ui.face = flipTo; ui.pay = null; render(); } },
        `Flip: ${building(t.other_side.type).name} ${t.other_side.value}`)));
  }
  if (payments.length) {
    out.push(h("p", {}, "Flipping costs at least 3 in one currency (free into the reserve). "
                        + "Pay with:"));
    out.push(h("div", { class: "choice", role: "group", "aria-label": "payment" },
      payments.map((p) => h("button", { type: "button", "aria-pressed": String(ui.pay === p),
                                        "data-key": `pay-${p}`,
                                        onclick: () => { ui.pay = p; render(); } },
        h("span", { class: "cards" }, p.split(",").map(cardChip)), ` = ${sum(p.split(","))}`))));
  }
  const others = usable.filter((m) => m.move.to !== "city");
  for (const m of others) {
    const flipped = m.move.face !== undefined && m.move.face !== null ? ", flipped," : "";
    const label = m.move.to === "reserve" ? `Put it${flipped} into your reserve`
      : `Give it${flipped} to ${ui.game.view.neutral ? ui.game.view.neutral.name
                                                     : "the neutral player"}`;
    out.push(moveButton(m, label));
  }
  return out;
}

function renderMarket(ix) {
  const v = ui.game.view;
  const spaces = v.market.map((m) => {
    const code = CURRENCY_CODES[m.currency];
    const tiles = m.tiles.map((t) => {
      if (!ix.buy.has(t.id)) {
        return h("span", { class: "tile-static", title: tileWords(t) }, tileSvg(t),
                 h("span", { class: "sr-only" }, tileWords(t)));
      }
      const exact = ix.buy.get(t.id).some((b) => sum(b.move.cards) === t.value);
      const button = tileButton(t, { selected: ui.selected === t.id, onclick: () => select(t.id),
                                     label: `buy ${tileWords(t)}` });
      return h("span", { class: "buyable" }, button,
               h("span", { class: exact ? "exact" : "over" }, exact ? "exact" : "over-pay"));
    });
    return h("li", { class: "space", "data-space": m.space },
             h("div", { class: `space-name card-${code}` },
               `${m.space} · ${CURRENCIES[code].symbol} ${m.currency}`),
             h("div", { class: "tiles" },
               tiles.length ? tiles : h("span", { class: "muted" }, "empty")));
  });
  const takeOne = new Map(ix.take.filter((m) => m.move.positions.length === 1)
    .map((m) => [m.move.positions[0], m]));
  const display = v.display.map((c, i) => {
    const m = takeOne.get(i + 1);
    const chip = cardChip(c);
    if (!m) return h("span", { class: "card-slot" }, chip);
    return h("button", { type: "button", class: "card-button", "data-move": m.notation,
                         "aria-label": `take ${cardLabel(c)}`, onclick: () => send(m.notation) },
             chip);
  });
  const combos = ix.take.filter((m) => m.move.positions.length > 1).map((m) => moveButton(m,
    `Take ${m.move.positions.map((p) => cardLabel(v.display[p - 1])).join(" + ")}`));
  const markerNote = v.marker ? ` New Granada tiles come up on their ${v.marker === "back"
    ? "back (odd)" : "front (even)"} side.` : "";
  fill("market",
       h("h2", {}, "Market"),
       h("ol", { class: "market" }, spaces),
       h("h3", {}, "Money display"),
       h("div", { class: "display" },
         display.length ? display : h("span", { class: "muted" }, "empty")),
       combos.length ? h("div", { class: "combos" },
                         h("p", {}, "Or several cards (at most 5 in all):"), combos) : null,
       h("p", { class: "muted small", "data-scorings-done": v.scorings_done },
         `Deck ${v.deck_size} cards, discard ${v.discard_size}; bag `
         + Object.entries(v.bag_sizes).map(([k, n]) => `${k} ${n}`).join(", ")
         + `; scorings done ${v.scorings_done} of 3.${markerNote}`));
}

function renderOverview() {
  const v = ui.game.view;
  const me = mySeat();
  const rows = v.seats.map((s) => h("tr", { "data-seat": s.seat,
                                            class: s.seat === v.current ? "current" : "" },
    h("td", {}, s.seat === v.current && v.phase !== "over" ? "▶ " : "", s.name,
      s.seat === me ? " (you)" : ""),
    h("td", { "data-score": s.score }, String(s.score)),
    h("td", {}, String(s.hand_size)),
    h("td", {}, String(s.city.length - 1)),
    h("td", {}, String(s.reserve.length))));
  if (v.neutral) {
    rows.push(h("tr", { class: "neutral" }, h("td", {}, `${v.neutral.name} (neutral)`),
                h("td", {}, String(v.neutral.score)), h("td", {}, "–"),
                h("td", {}, String(v.neutral.tiles.length)), h("td", {}, "–")));
  }
  fill("overview",
       h("h2", {}, "Players"),
       h("table", { class: "overview" },
         h("thead", {}, h("tr", {}, ["Player", "Points", "Cards", "City", "Reserve"]
           .map((x) => h("th", { scope: "col" }, x)))),
         h("tbody", {}, rows)),
       majorities(v),
       v.neutral && v.neutral.tiles.length ? h("details", { class: "neutral-tiles" },
         h("summary", {}, `${v.neutral.name}'s tiles (${v.neutral.tiles.length})`),
         h("div", { class: "tiles" }, v.neutral.tiles.map((t) => h("span", { title: tileWords(t) },
           tileSvg(t, 44), h("span", { class: "sr-only" }, tileWords(t)))))) : null);
}

/** Building counts per seat: who leads each type (points are the engine's business). */
function majorities(v) {
  const columns = v.seats.map((s) => ({ name: s.name, tiles: s.city }));
  if (v.neutral) columns.push({ name: v.neutral.name, tiles: v.neutral.tiles });
  const rows = typesOf(v.variant).map((type) => {
    const counts = columns.map((c) => c.tiles.filter((t) => t.type === type).length);
    const best = Math.max(...counts);
    const swatch = svg("svg", { width: 12, height: 12, class: "swatch", "aria-hidden": "true" },
                       svg("rect", { width: 12, height: 12, fill: building(type).fill }));
    return h("tr", {}, h("th", { scope: "row" }, swatch, " ", building(type).name),
      counts.map((n) => {
        const lead = n > 0 && n === best;
        return h("td", { class: lead ? "lead" : "" }, n ? String(n) : "·",
                 lead ? h("span", { class: "sr-only" }, " (most)") : null);
      }));
  });
  return h("details", { class: "majorities", open: !narrow.matches },
           h("summary", {}, "Majorities: buildings in each city"),
           h("table", {},
             h("thead", {}, h("tr", {}, h("th", {}, "Type"),
               columns.map((c) => h("th", { scope: "col" }, c.name)))),
             h("tbody", {}, rows)));
}

function renderOthers() {
  const v = ui.game.view;
  const me = mySeat();
  const others = v.seats.filter((s) => s.seat !== me);
  fill("others", h("h2", {}, me === null ? "Cities" : "Other players"),
       others.map((s) => {
         const open = ui.open.has(s.seat) ? ui.open.get(s.seat) : !narrow.matches;
         const details = h("details", { "data-seat": s.seat, open },
           h("summary", {}, `${s.name}: ${s.score} points, ${s.hand_size} cards, `
                            + `${s.city.length - 1} tiles in the city, ${s.reserve.length} in `
                            + "the reserve"),
           h("div", { class: "board-wrap" }, cityBoard(s)),
           s.reserve.length ? h("div", { class: "tiles", "aria-label": `${s.name}'s reserve` },
             h("span", { class: "muted" }, "Reserve: "),
             s.reserve.map((t) => h("span", { title: tileWords(t) }, tileSvg(t, 44),
                                    h("span", { class: "sr-only" }, tileWords(t))))) : null);
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
  fill("history", h("h2", {}, "History"),
       h("ul", { class: "history", "aria-label": "what happened, the latest first" },
         lines.slice(0, 300).map(([version, text]) => h("li", { "data-event": version }, text))));
}

function renderAllMoves(ix) {
  const el = document.getElementById("all-moves");
  el.hidden = !ix.all.length;
  if (!ix.all.length) return;
  const open = el.querySelector("details")?.open || false;
  fill("all-moves", h("details", { open },
    h("summary", {}, `All your legal moves as text (${ix.all.length})`),
    h("ul", { class: "all-moves" }, ix.all.map((m) => h("li", {}, moveButton(m, m.notation))))));
}

function focusKey() {
  const a = document.activeElement;
  if (!a || a === document.body) return null;
  for (const attr of ["data-move", "data-select", "data-key"]) {
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

async function start() {
  if (!/^[0-9a-f]{16}$/.test(gameId)) {
    fill("status", "This is not a game's address.");
    return;
  }
  const spectate = document.getElementById("spectate");
  spectate.href = `/play/${gameId}`;
  spectate.hidden = !token;
  try {
    await readEvents();
    await refresh();
  } catch (err) {
    showError(err);
    return;
  }
  if (!ui.game) return;
  startStream();
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) {
      stopStream();
    } else if (ui.game.status !== "over") {
      refresh().then(startStream);
    }
  });
}

start();
