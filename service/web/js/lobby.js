// The lobby (/): create a game, join an open one, watch one. Only the public API is used.

import { api, ApiError } from "./api.js";
import { applyStrings, fill, h } from "./dom.js";
import { lang, LANGUAGES, switcher } from "./i18n.js";
import { L, VARIANT_NAMES } from "./strings.js";

// Options that mean something only for some numbers of players (Dirk plays with two, A-8).
const OPTION_PLAYERS = { dirk_third_draw_cap: (n) => n === 2 };
let variants = [];

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
                 seats, options, time_per_move: Number(document.getElementById("time").value),
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

async function start() {
  applyStrings(L);
  document.title = L.pageTitle;
  document.querySelector("header.top").append(switcher());
  try {
    variants = (await api("/variants")).variants;
  } catch (err) {
    notice(err);
    return;
  }
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
}

start();
