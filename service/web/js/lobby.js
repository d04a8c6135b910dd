// The lobby (/): create a game, join an open one, watch one. Only the public API is used.

import { api, ApiError } from "./api.js";
import { applyStrings, fill, h } from "./dom.js";
import { lang, LANGUAGES, switcher } from "./i18n.js";
import { L, T, VARIANT_NAMES } from "./strings.js";

// Options that mean something only for some numbers of players (Dirk plays with two, A-8).
const OPTION_PLAYERS = { dirk_third_draw_cap: (n) => n === 2 };
let variants = [];

// The clock: the presets of GET /time-controls, each with or without weekends off, and
// the fast times per move the API takes as well (a game played in a sitting or two: no
// weekends off). An option's value is the seconds per move (as the form's plain list
// before the presets load) or, for a bank, the preset's id.
const FAST = [3600, 43200];
const DEFAULT_TIME = 3 * 86400;
const WEEKEND = ["sat", "sun"];
const choices = new Map();  // option value -> { preset, weekends (its preset or null) }

/** The browser's time zone, for the days off (UTC when the browser does not say). */
function timeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

function isWeekends(control) {
  const days = (control && control.days_off) || [];
  return days.length === WEEKEND.length && WEEKEND.every((d) => days.includes(d));
}

/** A preset without its days off, as a key: a preset and its weekends-off twin share it. */
function clockKey(p) {
  const { days_off: _off, timezone: _zone, ...rest } = p.time_control || {};
  return JSON.stringify([p.time_per_move ?? null,
                         Object.entries(rest).sort(([a], [b]) => a.localeCompare(b))]);
}

function presetWords(p) {
  const c = p.time_control || {};
  if (c.bank != null) return L.bank(L.span(c.bank), L.span(c.increment), L.span(c.cap));
  if (p.time_per_move != null) return L.perMove(L.span(p.time_per_move));
  return p.label;
}

/** The time control select, from the presets (the plain list stays if there are none). */
function drawClocks(presets) {
  const plain = presets.filter((p) => !(p.time_control && p.time_control.days_off));
  if (!plain.length) return;
  const twins = new Map(presets.filter((p) => isWeekends(p.time_control))
    .map((p) => [clockKey(p), p]));
  choices.clear();
  const perMove = new Set(plain.map((p) => p.time_per_move).filter((t) => t != null));
  const fast = FAST.filter((t) => !perMove.has(t))
    .map((t) => ({ id: `${t}s`, time_per_move: t, time_control: null, fast: true }));
  const ordered = [...fast, ...plain].sort((a, b) => (
    (a.time_per_move ?? Infinity) - (b.time_per_move ?? Infinity)));
  const select = document.getElementById("time");
  const options = ordered.map((p) => {
    const banked = p.time_control && p.time_control.bank != null;
    const value = banked || p.time_per_move == null ? p.id : String(p.time_per_move);
    choices.set(value, { preset: p, weekends: p.fast ? null : twins.get(clockKey(p)) || null });
    return h("option", { value, selected: !banked && p.time_per_move === DEFAULT_TIME },
             presetWords(p));
  });
  select.replaceChildren(...options);
  if (select.selectedIndex < 0) select.selectedIndex = 0;
  document.getElementById("weekends-label").textContent = L.weekendsOff(timeZone());
  document.getElementById("weekends-choice").hidden = !twins.size;
  select.addEventListener("change", settleWeekends);
  settleWeekends();
}

/** Weekends off is a choice only for a preset that has them. */
function settleWeekends() {
  const choice = choices.get(document.getElementById("time").value);
  document.getElementById("weekends").disabled = !(choice && choice.weekends);
}

/** The create request's clock fields: what the chosen preset gives, its days off in the
 * browser's time zone. */
function clockFields() {
  const value = document.getElementById("time").value;
  const choice = choices.get(value);
  if (!choice) return { time_per_move: Number(value) };  // the plain list
  const weekends = document.getElementById("weekends").checked && choice.weekends;
  const p = weekends || choice.preset;
  const out = {};
  if (p.time_per_move != null) out.time_per_move = p.time_per_move;
  if (p.time_control) {
    out.time_control = { ...p.time_control };
    if (out.time_control.days_off) out.time_control.timezone = timeZone();
  }
  return out;
}

function notice(err) {
  const el = fill("notice");
  el.className = err ? "notice error" : "notice";
  if (!err) return;
  const p = err instanceof ApiError ? err.problem : { detail: String(err) };
  el.append(p.detail || L.wrong);
  const fields = p.errors ? JSON.stringify(p.errors) : p.field ? `(${p.field})` : "";
  if (fields) el.append(" ", h("code", {}, fields));
}

function currentVariant() {
  const name = document.getElementById("variant").value;
  return variants.find((v) => v.name === name);
}

/** A seat's language: its mails and its page (the page's own language first). */
function languageField() {
  return h("label", {}, L.seatLanguage, h("select", { name: "language" },
    Object.entries(LANGUAGES).map(([code, name]) => h("option", {
      value: code, lang: code, selected: code === lang }, name))));
}

const BOT_LEVELS = ["random", "greedy", "strong"];
const PLAYER_TOKEN = "alhambra-player-token";  // a signed-in player's (me.js)

function playerToken() {
  try {
    return localStorage.getItem(PLAYER_TOKEN);
  } catch {
    return null;
  }
}

/** Who plays a seat: a person, or a bot of a level (its name, e-mail and language go). */
function playedBy(row) {
  const select = h("select", { name: "bot" }, h("option", { value: "" }, L.person),
    BOT_LEVELS.map((level) => h("option", { value: level }, L.botLevel(level))));
  select.addEventListener("change", () => {
    for (const name of ["email", "language", "open"]) {
      row.querySelector(`[name=${name}]`).closest("label").hidden = Boolean(select.value);
    }
  });
  return h("label", {}, L.seatPlayer, select);
}

function seatRow(i) {
  const row = h("div", { class: "seat", "data-seat": i },
    h("label", {}, L.seatName(i + 1), h("input", { name: "name", maxlength: 40,
                                                   autocomplete: "off" })),
    h("label", {}, L.email, h("input", { name: "email", type: "email" })),
    languageField(),
    h("label", { class: "check" }, h("input", { name: "open", type: "checkbox" }), L.openSeat));
  row.append(playedBy(row));
  return row;
}

/** The seat rows and options for the variant and number of players. Rows are added or
 * removed at the end only, so what was typed in them stays (and so does the focus). */
function drawSeats() {
  const v = currentVariant();
  const players = document.getElementById("players");
  players.min = v.min_players;
  players.max = v.max_players;
  const typed = Number(players.value);
  const n = Math.min(v.max_players, Math.max(v.min_players, typed || 3));
  const fieldset = document.getElementById("seats");
  fieldset.querySelector("legend").textContent = L.seatsLegend;
  let rows = fieldset.querySelectorAll(".seat");
  for (let i = rows.length; i < n; i += 1) fieldset.append(seatRow(i));
  rows = fieldset.querySelectorAll(".seat");
  for (let i = rows.length - 1; i >= n; i -= 1) rows[i].remove();
  const options = document.getElementById("options");
  const shown = Object.entries(v.options)
    .filter(([name]) => !OPTION_PLAYERS[name] || OPTION_PLAYERS[name](n));
  const names = shown.map(([name]) => name).join(",");
  if (options.dataset.names !== names) {  // redrawn only when the options change
    options.dataset.names = names;
    options.replaceChildren(h("legend", {}, L.optionsLegend));
    for (const [name, value] of shown) {
      options.append(h("label", { class: "check" },
        h("input", { type: "checkbox", name, checked: Boolean(value) }),
        ` ${L.options[name] || name}`));
    }
  }
  options.hidden = !shown.length;
}

/** The number typed, brought within the variant's limits once the field is left. */
function settlePlayers() {
  const v = currentVariant();
  const players = document.getElementById("players");
  players.value = Math.min(v.max_players, Math.max(v.min_players, Number(players.value) || 3));
  drawSeats();
}

async function create(event) {
  event.preventDefault();
  notice(null);
  const seats = [...document.querySelectorAll("#seats .seat")].map((row, i) => {
    const bot = row.querySelector("[name=bot]").value;
    const typed = row.querySelector("[name=name]").value.trim();
    if (bot) return typed ? { bot, name: typed } : { bot };
    if (row.querySelector("[name=open]").checked) return null;
    const name = typed || L.defaultName(i + 1);
    const email = row.querySelector("[name=email]").value.trim();
    const language = row.querySelector("[name=language]").value;
    return email ? { name, email, language } : { name, language };
  });
  const options = Object.fromEntries([...document.querySelectorAll("#options input")]
    .map((el) => [el.name, el.checked]));
  const body = { variant: document.getElementById("variant").value, players: seats.length,
                 seats, options, ...clockFields(),
                 public: document.getElementById("public").checked };
  try {
    const created = await api("/games", { method: "POST", body });
    showCreated(created);
    loadLists();
  } catch (err) {
    notice(err);
  }
}

function showCreated(c) {
  fill("created",
       h("h3", {}, L.created),
       h("p", {}, L.secretLinks),
       h("ul", { class: "links" }, c.seats.map((s) => h("li", { "data-seat": s.seat },
         `${s.name}: `, h("a", { href: s.join_url, class: "seat-link" }, s.join_url)))),
       c.invite_code ? h("p", {}, L.invite,
                         h("code", { class: "invite" }, c.invite_code)) : null,
       h("p", {}, L.watch, h("a", { href: `/play/${c.game_id}` }, `/play/${c.game_id}`)),
       h("details", {}, h("summary", {}, L.hostToken),
         h("code", {}, c.host_token)));
}

function gameLine(g) {
  const names = g.seats.map((s) => (s.joined ? s.name : L.open)).join(", ");
  return L.gameLine(VARIANT_NAMES[g.variant] || g.variant, g.players, names);
}

function joinForm(g) {
  const form = h("form", { class: "join", "data-game": g.game_id },
    g.public ? h("p", { class: "small muted" }, L.publicGame)
      : h("label", {}, L.inviteCode, h("input", { name: "invite_code", required: true,
                                                  autocomplete: "off" })),
    h("label", {}, L.yourName, h("input", { name: "name", required: true, maxlength: 40 })),
    h("label", {}, L.email, h("input", { name: "email", type: "email" })),
    languageField(),
    h("button", { type: "submit" }, L.join));
  const join = async (body, token) => {
    notice(null);
    try {
      const joined = await api(`/games/${g.game_id}/join`, { method: "POST", body, token });
      fill("joined", h("p", {}, L.joined(joined.seat + 1),
                       h("a", { href: joined.join_url, class: "seat-link" }, joined.join_url)));
      loadLists();
    } catch (err) {
      notice(err);
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = { name: data.get("name").trim(), language: data.get("language") };
    if (!g.public) body.invite_code = data.get("invite_code").trim();
    if (data.get("email").trim()) body.email = data.get("email").trim();
    join(body);
  });
  const token = playerToken();
  if (g.public && token) {  // a signed-in player joins with one click
    form.prepend(h("button", { type: "button", class: "join-signed-in",
                               onclick: () => join({}, token) }, L.joinSignedIn));
  }
  return form;
}

async function loadLists() {
  try {
    // Anyone sees the open games and the public games in play (private ones in play are
    // listed to their players only: /me).
    const open = await api("/games?status=open&limit=20");
    fill("open-games", open.games.length
      ? open.games.map((g) => h("li", {}, h("p", {}, gameLine(g)), joinForm(g)))
      : h("li", { class: "muted" }, L.noOpenGames));
    const playing = await api("/games?status=active&limit=20");
    fill("playing", playing.games.length
      ? playing.games.map((g) => h("li", { "data-game": g.game_id },
        h("a", { href: `/play/${g.game_id}` }, gameLine(g))))
      : h("li", { class: "muted" }, L.noGamesInPlay));
  } catch (err) {
    notice(err);
  }
}

function tournamentItem(t) {
  return h("li", { "data-tournament": t.id },
    h("a", { href: `/tournament/${t.id}`, class: "tournament-link" }, t.name), " · ",
    VARIANT_NAMES[t.variant] || t.variant,
    h("p", { class: "small" },
      T.tournamentLine(t.format, t.table_size, t.entrants, t.settings.cap, t.organiser)));
}

/** The open tournaments (taking entries) and those in play, each linking to its page. */
async function loadTournaments() {
  try {
    const open = await api("/tournaments?status=open&limit=20");
    fill("open-tournaments", open.tournaments.length ? open.tournaments.map(tournamentItem)
      : h("li", { class: "muted" }, T.noOpenTournaments));
    const running = await api("/tournaments?status=running&limit=20");
    fill("running-tournaments", running.tournaments.length
      ? running.tournaments.map(tournamentItem)
      : h("li", { class: "muted" }, T.noRunningTournaments));
  } catch (err) {
    notice(err);
  }
}

/** The new tournament form, for a signed-in account with a handle (an organiser needs
 * one): made, its page opens. */
async function offerOrganising() {
  const token = playerToken();
  const me = token && await api("/me", { token }).catch(() => null);
  if (!me || !me.handle) return;
  const form = document.getElementById("new-tournament");
  form.elements.variant.replaceChildren(...variants.map((v) => h("option", { value: v.name },
    L.variantOption(VARIANT_NAMES[v.name] || v.name, v.min_players, v.max_players))));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    notice(null);
    const data = new FormData(form);
    const body = { name: data.get("name").trim(), variant: data.get("variant"),
                   format: data.get("format"), table_size: Number(data.get("table_size")),
                   rounds: Number(data.get("rounds")),
                   time_per_move: Number(data.get("time_per_move")) };
    if (data.get("cap")) body.cap = Number(data.get("cap"));
    try {
      const made = await api("/tournaments", { method: "POST", body, token });
      location.assign(`/tournament/${made.id}`);
    } catch (err) {
      notice(err);
    }
  });
  document.getElementById("organise").hidden = false;
}

async function start() {
  applyStrings(L);
  applyStrings(T.lobby);
  document.title = L.pageTitle;
  document.querySelector("header.top").append(switcher());
  const clocks = api("/time-controls").catch(() => null);  // else the plain list stays
  try {
    variants = (await api("/variants")).variants;
  } catch (err) {
    notice(err);
    return;
  }
  const presets = await clocks;
  if (presets) drawClocks(presets.presets);
  const select = document.getElementById("variant");
  select.replaceChildren(...variants.map((v) => h("option", { value: v.name },
    L.variantOption(VARIANT_NAMES[v.name] || v.name, v.min_players, v.max_players))));
  select.addEventListener("change", settlePlayers);
  const players = document.getElementById("players");
  players.addEventListener("input", drawSeats);
  players.addEventListener("change", settlePlayers);
  document.getElementById("create").addEventListener("submit", create);
  settlePlayers();
  loadLists();
  loadTournaments();
  offerOrganising();
}

start();
