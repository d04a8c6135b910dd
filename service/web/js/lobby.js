// The lobby (/): create a game, join an open one, watch one. Only the public API is used.

import { api, ApiError } from "./api.js";
import { fill, h } from "./dom.js";
import { VARIANT_NAMES } from "./names.js";

const OPTION_TEXT = {
  simple_scoring: "Simple scoring (Granada's fixed points per type, G-5)",
  dirk_third_draw_cap: "Dirk's draw after the second scoring is at most 6 tiles (A-8a)",
  both_money_decks: "Both money decks: 216 cards (C-1a)",
};
let variants = [];

function notice(err) {
  const el = fill("notice");
  el.className = err ? "notice error" : "notice";
  if (!err) return;
  const p = err instanceof ApiError ? err.problem : { detail: String(err) };
  el.append(p.detail || "something went wrong");
  const fields = p.errors ? JSON.stringify(p.errors) : p.field ? `(${p.field})` : "";
  if (fields) el.append(" ", h("code", {}, fields));
}

function currentVariant() {
  const name = document.getElementById("variant").value;
  return variants.find((v) => v.name === name);
}

function drawSeats() {
  const v = currentVariant();
  const players = document.getElementById("players");
  players.min = v.min_players;
  players.max = v.max_players;
  const n = Math.min(v.max_players, Math.max(v.min_players, Number(players.value) || 3));
  players.value = n;
  const fieldset = document.getElementById("seats");
  const old = [...fieldset.querySelectorAll(".seat")].map((row) => ({
    name: row.querySelector("[name=name]").value, email: row.querySelector("[name=email]").value,
    open: row.querySelector("[name=open]").checked }));
  fieldset.replaceChildren(h("legend", {}, "Seats (an open seat is filled with the invite code)"));
  for (let i = 0; i < n; i += 1) {
    const was = old[i] || { name: "", email: "", open: false };
    fieldset.append(h("div", { class: "seat", "data-seat": i },
      h("label", {}, `Seat ${i + 1} name `, h("input", { name: "name", value: was.name,
                                                        maxlength: 40, autocomplete: "off" })),
      h("label", {}, "e-mail (optional) ", h("input", { name: "email", type: "email",
                                                       value: was.email })),
      h("label", { class: "check" }, h("input", { name: "open", type: "checkbox",
                                                  checked: was.open }), " open seat")));
  }
  const options = document.getElementById("options");
  options.replaceChildren(h("legend", {}, "Options"));
  for (const [name, value] of Object.entries(v.options)) {
    options.append(h("label", { class: "check" },
      h("input", { type: "checkbox", name, checked: Boolean(value) }),
      ` ${OPTION_TEXT[name] || name}`));
  }
  options.hidden = !Object.keys(v.options).length;
}

async function create(event) {
  event.preventDefault();
  notice(null);
  const seats = [...document.querySelectorAll("#seats .seat")].map((row, i) => {
    if (row.querySelector("[name=open]").checked) return null;
    const name = row.querySelector("[name=name]").value.trim() || `Player ${i + 1}`;
    const email = row.querySelector("[name=email]").value.trim();
    return email ? { name, email } : { name };
  });
  const options = Object.fromEntries([...document.querySelectorAll("#options input")]
    .map((el) => [el.name, el.checked]));
  const body = { variant: document.getElementById("variant").value, players: seats.length,
                 seats, options, time_per_move: Number(document.getElementById("time").value) };
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
       h("h3", {}, "Game created"),
       h("p", {}, "Each player's link is secret: it holds their seat's key. Send each one "
                  + "their own link."),
       h("ul", { class: "links" }, c.seats.map((s) => h("li", { "data-seat": s.seat },
         `${s.name}: `, h("a", { href: s.join_url, class: "seat-link" }, s.join_url)))),
       c.invite_code ? h("p", {}, "Invite code for the open seats: ",
                         h("code", { class: "invite" }, c.invite_code)) : null,
       h("p", {}, "Watch: ", h("a", { href: `/play/${c.game_id}` }, `/play/${c.game_id}`)),
       h("details", {}, h("summary", {}, "Host token (lists your games, registers webhooks)"),
         h("code", {}, c.host_token)));
}

function gameLine(g) {
  const names = g.seats.map((s) => (s.joined ? s.name : "(open)")).join(", ");
  return `${VARIANT_NAMES[g.variant] || g.variant}, ${g.players} players: ${names}`;
}

function joinForm(g) {
  const form = h("form", { class: "join", "data-game": g.game_id },
    h("label", {}, "Invite code ", h("input", { name: "invite_code", required: true,
                                                autocomplete: "off" })),
    h("label", {}, "Your name ", h("input", { name: "name", required: true, maxlength: 40 })),
    h("label", {}, "e-mail (optional) ", h("input", { name: "email", type: "email" })),
    h("button", { type: "submit" }, "Join"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    notice(null);
    const data = new FormData(form);
    const body = { invite_code: data.get("invite_code").trim(), name: data.get("name").trim() };
    if (data.get("email").trim()) body.email = data.get("email").trim();
    try {
      const joined = await api(`/games/${g.game_id}/join`, { method: "POST", body });
      fill("joined", h("p", {}, `You have seat ${joined.seat + 1}. Your secret link: `,
                       h("a", { href: joined.join_url, class: "seat-link" }, joined.join_url)));
      loadLists();
    } catch (err) {
      notice(err);
    }
  });
  return form;
}

async function loadLists() {
  try {
    // Games in play are listed to their players only (their own links); anyone sees the
    // open ones.
    const open = await api("/games?status=open&limit=20");
    fill("open-games", open.games.length
      ? open.games.map((g) => h("li", {}, h("p", {}, gameLine(g)), joinForm(g)))
      : h("li", { class: "muted" }, "No open games."));
  } catch (err) {
    notice(err);
  }
}

async function start() {
  try {
    variants = (await api("/variants")).variants;
  } catch (err) {
    notice(err);
    return;
  }
  const select = document.getElementById("variant");
  select.replaceChildren(...variants.map((v) => h("option", { value: v.name },
    `${VARIANT_NAMES[v.name] || v.name} (${v.min_players}-${v.max_players} players)`)));
  select.addEventListener("change", drawSeats);
  document.getElementById("players").addEventListener("change", drawSeats);
  document.getElementById("create").addEventListener("submit", create);
  drawSeats();
  loadLists();
}

start();
