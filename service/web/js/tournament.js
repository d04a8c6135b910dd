// A tournament's page (/tournament/<id>): its settings, entrants, the standings and the
// schedule (each round's tables, their players, games and scores, the byes), read again
// every little while. A signed-in account (the session of /me and the lobby) enters or
// withdraws, and the organiser starts it. Only the public API.

import { api, ApiError } from "./api.js";
import { applyStrings, fill, h } from "./dom.js";
import { lang, listing, switcher } from "./i18n.js";
import { L, points, T, VARIANT_NAMES } from "./strings.js";

const PLAYER_TOKEN = "alhambra-player-token";  // a signed-in player's (me.js)
// How often the tournament is read again (seconds; `?poll=` for a quicker page).
const POLL = Number(new URLSearchParams(location.search).get("poll")) || 30;
const ID = decodeURIComponent(location.pathname.split("/").pop());
const number = new Intl.NumberFormat(lang, { maximumFractionDigits: 2 });

let me = null;  // GET /me of the signed-in account, else null
let seats = new Map();  // game id -> the signed-in account's seat token there
let seen = "";  // the document last drawn (drawn again only when it changed)
let timer = null;

function token() {
  try {
    return localStorage.getItem(PLAYER_TOKEN);
  } catch {
    return null;
  }
}

function notice(err) {
  const el = fill("notice");
  el.className = err ? "notice error" : "notice";
  if (!err) return;
  const p = err instanceof ApiError ? err.problem : { detail: String(err) };
  el.append(p.detail || T.wrong);
}

function fact(term, ...value) {
  return [h("dt", {}, term), h("dd", {}, ...value)];
}

function roundWords(t) {
  if (!t.round) return T.notStarted;
  if (t.format === "league") return T.seasonRound(t.season || 1, t.round);
  return t.format === "swiss" ? T.roundOf(t.round, t.planned_rounds) : String(t.round);
}

function clockWords(s) {
  const c = s.time_control;
  if (c && c.bank != null) return L.bank(L.span(c.bank), L.span(c.increment), L.span(c.cap));
  return s.time_per_move ? L.perMove(L.span(s.time_per_move)) : null;
}

function drawFacts(t) {
  const s = t.settings;
  const clock = clockWords(s);
  const rated = s.min_rating != null || s.max_rating != null;
  fill("facts",
       fact(T.organiser, t.organiser || "…"),
       fact(T.gameField, VARIANT_NAMES[t.variant] || t.variant),
       fact(T.formatField, T.format(t.format)),
       fact(T.tablesField, T.tableSize(t.table_size, t.least_size)),
       fact(T.statusField, h("span", { class: `status ${t.status}` }, T.status(t.status))),
       fact(T.roundField, roundWords(t)),
       fact(T.entrantsField, T.entrantsCount(t.entrants, s.cap)),
       clock ? fact(T.clockField, clock) : null,
       rated ? fact(T.ratingField, T.ratingRange(s.min_rating, s.max_rating)) : null,
       s.invited ? fact(T.entryField, T.byInvitation(s.invited.join(", "))) : null);
}

function drawEntrants(t) {
  fill("entrants", t.entries.length ? t.entries.map((e) => h("li", {
    class: e.withdrawn || e.inactive ? "muted" : null, "data-handle": e.handle },
    me && e.handle === me.handle ? h("strong", {}, e.handle) : e.handle,
    e.handle === t.organiser ? ` (${T.organiserMark})` : "",
    e.withdrawn ? ` · ${T.withdrawn}` : e.inactive ? ` · ${T.inactive}` : ""))
    : h("li", { class: "muted" }, T.noEntrants));
}

/** The standings table, once a round is paired: its division column only when there
 * are groups or divisions. */
function drawStandings(t) {
  const divided = t.standings.some((s) => s.division > 0);
  const box = document.getElementById("standings-box");
  box.hidden = !t.rounds.length || !t.standings.length;
  const latest = t.rounds[t.rounds.length - 1];
  fill("standings-caption", latest && !latest.finished_at && t.status !== "finished"
    ? T.standingsDuring(t.round) : T.standingsAfter(t.round));
  const col = box.querySelector("th.division-col");
  col.hidden = !divided;
  col.textContent = t.format === "league" ? T.division : T.group;
  box.querySelector("tbody").replaceChildren(...t.standings.map((s) => h("tr", {
    "data-handle": s.handle, class: me && s.handle === me.handle ? "mine" : null },
    h("td", {}, s.rank),
    h("th", { scope: "row" }, s.handle || "…"),
    h("td", { hidden: !divided }, s.division + 1),
    h("td", {}, number.format(s.points)),
    h("td", {}, s.score),
    h("td", {}, number.format(s.opponents)),
    h("td", {}, s.played),
    h("td", {}, s.byes))));
}

function tableName(t, table) {
  const name = T.table(table.table);
  const divided = t.rounds.some((r) => r.tables.some((x) => x.division > 0));
  if (!divided) return name;
  return t.format === "league" ? T.inDivision(name, table.division + 1)
    : T.inGroup(name, table.division + 1);
}

function playerItem(table, handle, seat) {
  const score = table.scores ? table.scores[seat] : null;
  const left = table.left.includes(handle);
  return h("li", { "data-handle": handle },
    me && handle === me.handle ? h("strong", {}, handle || "…") : handle || "…",
    score !== null ? h("span", { class: "score" }, ` ${score}`) : null,
    left ? h("span", { class: "small muted" }, ` (${T.left})`) : null);
}

function tableRow(t, table) {
  const mine = Boolean(me && table.players.includes(me.handle));
  const seat = seats.get(table.game_id);  // the player's own table opens as their seat
  const game = table.game_id
    ? h("a", { href: `/play/${table.game_id}${seat ? `#token=${seat}` : ""}`,
               class: "game-link" }, T.tableGame(table.table))
    : h("span", { class: "muted" }, T.noGameYet);
  return h("tr", { "data-table": table.table, "data-game": table.game_id,
                   class: mine ? "mine" : null },
    h("th", { scope: "row" }, tableName(t, table),
      mine ? h("span", { class: "small" }, ` (${T.yourTable})`) : null),
    h("td", {}, h("ol", { class: "seats" },
      table.players.map((handle, seat) => playerItem(table, handle, seat)))),
    h("td", {}, game, " ",
      h("span", { class: "small muted" }, table.scores ? T.roundOver : T.roundPlaying)));
}

function drawRounds(t) {
  document.getElementById("schedule-box").hidden = false;
  const byePoints = t.settings.bye_points ?? 0.5;
  const rounds = [...t.rounds].reverse();  // the latest first
  fill("rounds", rounds.length ? rounds.map((r) => h("section", {
    class: "round", "data-round": r.round, "aria-labelledby": `round-${r.round}` },
    h("h3", { id: `round-${r.round}` }, T.round(r.round),
      t.format === "league" ? ` · ${T.seasonOf(r.season)}` : "",
      h("span", { class: "small muted" }, ` · ${r.finished_at ? T.roundOver : T.roundPlaying}`)),
    h("table", { class: "tables" },
      h("caption", { class: "sr-only" }, T.tablesCaption(r.round)),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, T.tableCol),
                       h("th", { scope: "col" }, T.playersCol),
                       h("th", { scope: "col" }, T.gameCol))),
      h("tbody", {}, r.tables.map((table) => tableRow(t, table)))),
    r.byes.length ? h("p", { class: "byes small" },
      T.byes(listing(r.byes.map((b) => b || "…")), points(byePoints))) : null))
    : h("p", { class: "muted" }, T.noRounds));
}

/** The buttons that apply: Enter (again) / Withdraw for a signed-in account, Start for
 * the organiser; a link to sign in for anyone else while entries are taken. */
function drawActs(t) {
  const invited = t.settings.invited;
  const taking = (t.status === "open" || (t.status === "running" && t.format === "league"))
    && (!invited || !me || invited.includes(me.handle));  // entry by invitation: theirs
  if (!me) {
    fill("acts", taking ? h("p", {}, `${T.signInToEnter} `,
                            h("a", { href: "/me" }, T.signInLink)) : null);
    return;
  }
  const entry = t.entries.find((e) => e.handle && e.handle === me.handle);
  const active = entry && !entry.withdrawn && !entry.inactive;
  const acts = [];
  if (entry && !entry.withdrawn && t.status !== "finished") {
    acts.push(h("button", { type: "button", id: "withdraw",
                            onclick: () => act("DELETE", `/tournaments/${t.id}/entries/me`) },
                T.withdraw));
  }
  if (!active && (taking || (entry && t.status === "running"))) {
    acts.push(h("button", { type: "button", id: "enter",
                            onclick: () => act("POST", `/tournaments/${t.id}/entries`) },
                entry ? T.enterAgain : T.enter));
  }
  if (t.status === "open" && me.handle && me.handle === t.organiser) {
    acts.push(h("button", { type: "button", id: "start",
                            onclick: () => act("POST", `/tournaments/${t.id}/start`) },
                T.start));
  }
  fill("acts", active ? h("p", {}, T.entered) : null, acts.length ? h("p", {}, acts) : null);
}

async function act(method, path) {
  notice(null);
  try {
    const t = await api(path, { method, body: method === "POST" ? {} : undefined,
                                token: token() });
    await readSeats(t);
    draw(t);
    const next = document.querySelector("#acts button");  // the focus stays in the acts
    if (next) next.focus();
  } catch (err) {
    notice(err);
  }
}

function draw(t) {
  const text = JSON.stringify(t);
  if (text === seen) return;
  seen = text;
  fill("title", t.name);
  document.title = T.pageTitle(t.name);
  fill("status", "");
  document.getElementById("about").hidden = false;
  drawFacts(t);
  drawActs(t);
  drawEntrants(t);
  drawStandings(t);
  drawRounds(t);
}

/** The seat tokens of the account's games in play, when one of them is a table of the
 * latest round (GET /me/games: the games the tournament made claimed its seats). */
async function readSeats(t) {
  const latest = t.rounds[t.rounds.length - 1];
  const playing = me && latest && latest.tables.some((table) => table.game_id
    && !table.scores && table.players.includes(me.handle) && !seats.has(table.game_id));
  if (!playing) return;
  const mine = await api("/me/games", { token: token() }).catch(() => null);
  if (mine) seats = new Map(mine.games.filter((g) => g.token).map((g) => [g.game_id, g.token]));
}

async function load() {
  clearTimeout(timer);
  try {
    const t = await api(`/tournaments/${encodeURIComponent(ID)}`);
    await readSeats(t);
    draw(t);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      fill("title", T.notFound);
      document.title = T.notFound;
      fill("status", err.problem.detail || T.notFound);
      return;  // nothing to read again
    }
    notice(err);
  }
  timer = setTimeout(load, POLL * 1000);
}

async function start() {
  applyStrings(T);
  document.title = T.tournament;
  document.querySelector("header.top").append(switcher());
  if (token()) {
    me = await api("/me", { token: token() }).catch(() => null);  // signed out: no buttons
  }
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) load();
  });
  await load();
}

start();
