// The replay page (/replay/{id}, with #token=… for a seat): a game stepped move by move,
// from the public API only: GET /games/{id} (the latest view: the tiles' faces) and
// GET /games/{id}/events (redacted for the caller). A finished game for anyone (unless
// its host keeps it private: the API refuses then), a running one from a seat's own
// link, in that seat's view. Keys: ← → a move, Home / End, PgUp / PgDn the scorings.

import { api } from "./api.js";
import { cityBoard, tileSvg } from "./board.js";
import { applyStrings, fill, h } from "./dom.js";
import { switcher } from "./i18n.js";
import { card, cardLabel, VARIANT_NAMES } from "./names.js";
import { cards, points, R, S } from "./strings.js";
import { seatView, tileInfo, timeline } from "./timeline.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
const fragment = new URLSearchParams(location.hash.slice(1));
const token = fragment.get("token");

const ui = { game: null, steps: [], catalog: null, at: 0, scorings: [] };

function status(text) {
  fill("status", text);
}

async function load() {
  const base = `/games/${encodeURIComponent(gameId)}`;
  let game;
  try {
    game = await api(base, { token });
  } catch (err) {
    status(R.cannot(err.message));
    return;
  }
  ui.game = game;
  document.getElementById("game-link").href =
    `/play/${encodeURIComponent(gameId)}${token ? `#token=${encodeURIComponent(token)}` : ""}`;
  const names = game.seats.map((s) => s.name).join(", ");
  fill("title", R.title2(VARIANT_NAMES[game.variant] || game.variant, names));
  if (!game.view) {
    status(R.notStarted);
    return;
  }
  if (game.status !== "over" && game.your_seat === null) {
    status(R.runningGame);
    return;
  }
  const { events } = await api(`${base}/events?since=0`, { token });
  const { steps, catalog } = timeline(events, game.view);
  ui.steps = steps;
  ui.catalog = catalog;
  ui.scorings = steps.map((s, i) => [s.scoring, i]).filter(([n]) => n);
  fill("scorings", ui.scorings.map(([n, i]) => h("button", {
    type: "button", "data-scoring": n, onclick: () => go(i),
  }, S.scoringTitle(n))));
  for (const el of document.querySelectorAll("#controls [data-go]")) {
    el.addEventListener("click", () => move(el.dataset.go));
  }
  document.addEventListener("keydown", onKey);
  document.getElementById("controls").hidden = false;
  document.getElementById("moment").hidden = false;
  document.querySelector("main").hidden = false;
  status(game.status === "over" ? R.overStep : R.soFar(game.seats[game.your_seat].name));
  const wanted = Number(fragment.get("step"));
  go(Number.isInteger(wanted) && wanted > 0 ? Math.min(wanted, steps.length - 1) : 0);
  document.body.dataset.ready = "true";
}

function onKey(e) {
  const typing = e.target instanceof Element && e.target.closest("input, textarea, select");
  if (e.altKey || e.ctrlKey || e.metaKey || typing) return;
  const action = { ArrowRight: "next", ArrowLeft: "prev", Home: "first", End: "last",
                   PageDown: "next-scoring", PageUp: "prev-scoring" }[e.key];
  if (!action) return;
  e.preventDefault();
  move(action);
}

function move(action) {
  const at = ui.at;
  const last = ui.steps.length - 1;
  const after = ui.scorings.find(([, i]) => i > at);
  const before = [...ui.scorings].reverse().find(([, i]) => i < at);
  const target = {
    first: 0, last, next: Math.min(last, at + 1), prev: Math.max(0, at - 1),
    "next-scoring": after ? after[1] : at, "prev-scoring": before ? before[1] : at,
  }[action];
  go(target);
}

/** Show step ``i``. */
function go(i) {
  ui.at = i;
  const step = ui.steps[i];
  const st = step.state;
  const count = ui.steps.length - 1;
  const el = fill("step", R.step(i, count));
  el.dataset.step = String(i);
  el.dataset.steps = String(count);
  el.dataset.version = String(st.version);
  for (const b of document.querySelectorAll("#scorings button")) {
    if (Number(b.dataset.scoring) === step.scoring) b.setAttribute("aria-current", "step");
    else b.removeAttribute("aria-current");
  }
  drawMoment(step);
  drawTable(st);
  drawCities(st);
}

function drawMoment(step) {
  const words = step.items.filter((it) => it.text && it !== step.move).map((it) => it.text);
  const head = step.move ? (step.move.text || step.move.event.move) : R.afterSetup;
  const el = fill("moment", h("p", { class: "move" }, head),
                  words.length ? h("ul", {}, words.map((w) => h("li", {}, w))) : null);
  el.dataset.scoring = step.scoring || "";
}

/** A money card as the play page draws it (site.css: .card); the play page's own
 * cardChip, which board.js does not offer. */
function cardChip(text) {
  const c = card(text);
  return h("span", { class: `card card-${c.code}`, title: cardLabel(text) },
           h("span", { class: "symbol", "aria-hidden": "true" }, c.symbol),
           h("span", { class: "sr-only" }, `${c.name} `),
           h("span", { class: "value" }, String(c.value)));
}

function tile(id, st, size = 44) {
  return tileSvg(tileInfo(ui.catalog, id, st.faces), size);
}

function drawTable(st) {
  const mine = ui.game.your_seat;
  const rows = st.seats.map((name, seat) => h("tr", {
    class: seat === st.current && st.phase !== "over" ? "current" : null, "data-seat": seat,
  }, h("td", {}, name, st.bots[seat] ? ` ${R.bot(st.bots[seat])}` : ""),
     h("td", { class: "score" }, String(st.scores[seat])),
     h("td", {}, seat === mine ? st.hands[seat].map(cardLabel).join(", ") || S.noMoney
                               : cards(st.hands[seat].length))));
  const neutral = ui.game.players === 2 && st.neutral.length
    ? h("p", {}, R.neutral(st.neutralScore, st.neutral.length)) : null;
  const due = st.scoringDue ? h("p", {}, R.scoringDue(st.scoringDue)) : null;
  fill("table",
       h("h2", {}, st.phase === "over" ? R.finalScores : R.turn(st.turn)),
       h("table", { class: "scores" },
         h("thead", {}, h("tr", {}, h("th", {}, R.player), h("th", {}, R.points),
                          h("th", {}, R.money))),
         h("tbody", {}, rows)),
       neutral, due,
       h("h3", {}, R.market),
       h("div", { class: "market-spaces" }, st.market.map((space, i) => h("div", {
         class: "rp-space", "data-space": i + 1 }, space.map((id) => tile(id, st))))),
       h("h3", {}, R.moneyOnTable),
       h("div", { class: "money cards", "data-display": st.display.join(",") },
         st.display.map(cardChip)),
       st.pending.length ? h("p", {}, R.toPlace, st.pending.map((id) => tile(id, st, 32)))
         : null);
}

/** Each seat's city and reserve; only those that changed since the step shown are drawn
 * again (a step changes one city at most). */
function drawCities(st) {
  const box = document.getElementById("cities");
  st.seats.forEach((name, seat) => {
    const city = seatView(st, ui.catalog, seat);
    const reserve = st.reserves[seat].map((id) => tileInfo(ui.catalog, id, st.faces));
    const key = JSON.stringify([name, st.scores[seat], city.city, reserve]);
    const shown = box.children[seat];
    if (shown && shown.dataset.key === key) return;
    const figure = h("figure", { "data-seat": seat },
      h("figcaption", {}, R.cityCaption(name, points(st.scores[seat]))),
      cityBoard(city),
      reserve.length
        ? h("div", { class: "reserve" }, R.reserve, reserve.map((t) => tileSvg(t, 32)))
        : null);
    figure.dataset.key = key;
    if (shown) shown.replaceWith(figure); else box.append(figure);
  });
}

applyStrings({ ...R, rules: S.rules });
document.title = R.pageTitle;
document.querySelector("header.top").append(switcher());
load().catch((err) => status(R.stopped(err.message)));
