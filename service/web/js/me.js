// A player's page (/me): sign in by e-mail (a code, or the mail's link /me#code=…; a
// signed-in page asks before a link's code switches accounts), then every game with a
// seat the player claimed, "your turn" first, read again as the account's stream
// (/me/stream) tells of a change and polled besides, and the seats offered to its
// address, to claim (or /me#claim=<game>.<seat>.<code>, the link mailed to the seat's
// address); the count of games waiting for the player in the tab's title; preferences
// and notifications on this device (push.js); /me#open=<game> (a notice's link) opens
// that game with the player's seat; the invitations by handle sent and received, to
// accept, decline or cancel, polled with the games, each linking to its game once made,
// and a form to invite players by their handles (an account with a handle).
// Only the public API.

import { api, ApiError } from "./api.js";
import { applyStrings, fill, h } from "./dom.js";
import { lang, LANGUAGES, switcher } from "./i18n.js";
import * as push from "./push.js";
import { followAccount } from "./stream.js";
import { L, listing, M, VARIANT_NAMES } from "./strings.js";

const STORED = "alhambra-player-token";
// How often the list is read again (seconds; `?poll=` for a quicker page).
const POLL = Number(new URLSearchParams(location.search).get("poll")) || 20;
let timer = null;
let following = null;  // the account's stream (live())
// The game a notice's link (/me#open=<game>) asks to open once the games are read.
let opening = null;
// The signed-in account's handle (who is "you" in an invitation), and its games' tokens.
let myHandle = null;
let seatTokens = new Map();
// Closed invitations stay listed this long (ms), with their outcome.
const CLOSED_SHOWN = 7 * 24 * 3600 * 1000;
// The invitation form's times per move (seconds), its default the lobby's.
const INVITE_TIMES = [[43200, L.hours12], [86400, L.day1], [172800, L.days2],
                      [259200, L.days3], [604800, L.days7]];
const INVITE_TIME = 259200;

function token() {
  try {
    return localStorage.getItem(STORED);
  } catch {
    return null;
  }
}

function keep(value) {
  try {
    if (value) localStorage.setItem(STORED, value);
    else localStorage.removeItem(STORED);
  } catch {
    // no storage: the page forgets the session when closed
  }
}

function notice(err, kind = "error") {
  const el = fill("notice");
  el.className = err ? `notice ${kind}` : "notice";
  if (!err) return;
  const p = err instanceof ApiError ? err.problem : { detail: String(err) };
  el.append(p.detail || M.wrong);
}

function when(text) {
  return new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" })
    .format(new Date(text));
}

function state(g) {
  if (g.status === "over") return M.over;
  if (g.status === "open") return M.waitingForPlayers;
  if (g.your_turn) return M.yourTurn;
  return M.waitingFor(g.current_name || "…");
}

function gameItem(g) {
  const names = g.players.map((p) => p.name || M.open).join(", ");
  const href = `/play/${g.game_id}${g.token ? `#token=${g.token}` : ""}`;
  return h("li", { class: g.your_turn ? "my-game your-turn" : "my-game",
                   "data-game": g.game_id },
    h("a", { href, class: "game-link" }, M.gameLine(VARIANT_NAMES[g.variant] || g.variant,
                                                    names)),
    " ", h("strong", { class: "state" }, state(g)),
    g.deadline ? h("span", { class: "small deadline" }, ` · ${M.deadline(when(g.deadline))}`)
      : null);
}

async function loadGames() {
  const mine = await api("/me/games", { token: token() });
  const wanted = opening && mine.games.find((g) => g.game_id === opening);
  opening = null;
  if (wanted) {  // a notice's link (workers/push.py): the game, as the player's seat
    location.assign(`/play/${wanted.game_id}${wanted.token ? `#token=${wanted.token}` : ""}`);
    return;
  }
  seatTokens = new Map(mine.games.map((g) => [g.game_id, g.token]));
  const turns = mine.games.filter((g) => g.your_turn).length;
  fill("games", mine.games.length ? mine.games.map(gameItem)
    : h("li", { class: "muted" }, M.noGames));
  fill("turn-count", turns ? `· ${M.yourTurns(turns)}` : "");
  document.title = turns ? `(${turns}) ${M.pageTitle}` : M.pageTitle;
}

function offeredItem(g) {
  const names = g.players.map((p) => p.name || M.open).join(", ");
  const button = h("button", { type: "button", class: "claim" }, M.claim);
  button.addEventListener("click", async () => {
    try {
      const seat = await api(`/games/${g.game_id}/seats/${g.seat}/claim`, {
        method: "POST", body: {}, token: token() });
      location.assign(`/play/${seat.game_id}#token=${seat.token}`);
    } catch (err) {
      notice(err);
    }
  });
  return h("li", { class: "my-game offered", "data-game": g.game_id },
    M.gameLine(VARIANT_NAMES[g.variant] || g.variant, names), " ", button);
}

async function loadOffered() {
  const offered = await api("/me/invitations", { token: token() });
  document.getElementById("offered-box").hidden = !offered.games.length;
  fill("offered", offered.games.map(offeredItem));
}

/** A player of an invitation by name: "you", a bot account's, a deleted account's. */
function who(ref) {
  if (ref.handle === null) return M.deletedAccount;
  if (ref.handle === myHandle) return M.you;
  return ref.bot ? M.botAccount(ref.handle) : ref.handle;
}

function clockWords(settings) {
  const c = settings.time_control || {};
  if (c.bank != null) return L.bank(L.span(c.bank), L.span(c.increment), L.span(c.cap));
  return L.perMove(L.span(settings.time_per_move ?? 72 * 3600));
}

/** An invitation's game in words: variant, players in seat order (bots too), clock. */
function invitationGame(inv) {
  const names = [who(inv.inviter), ...inv.invitees.map(who), ...inv.bots.map(L.botLevel)];
  const variant = VARIANT_NAMES[inv.settings.variant] || inv.settings.variant;
  return `${L.gameLine(variant, inv.players, listing(names))} · ${clockWords(inv.settings)}`;
}

/** Call an invitation's operation from a button, then read the lists again. */
function act(label, path, method, describedBy) {
  const button = h("button", { type: "button", "aria-describedby": describedBy }, label);
  button.addEventListener("click", async () => {
    notice(null);
    button.disabled = true;
    try {
      await api(path, { method, body: method === "POST" ? {} : undefined, token: token() });
    } catch (err) {
      notice(err);
    }
    clearTimeout(timer);
    await poll();
  });
  return button;
}

function gameHref(gameId) {
  const seat = seatTokens.get(gameId);
  return `/play/${gameId}${seat ? `#token=${seat}` : ""}`;
}

function outcome(inv) {
  if (inv.status === "started" && inv.game_id) {
    return [M.gameMade, " ", h("a", { href: gameHref(inv.game_id), class: "game-link" },
                               M.openTheGame)];
  }
  if (inv.status === "declined") {
    const no = inv.invitees.find((n) => n.answer === "declined");
    return M.declinedBy(no ? who(no) : "…");
  }
  return inv.status === "cancelled" ? M.cancelledByInviter : M.expiredUnanswered;
}

function invitationItem(inv, sent) {
  const id = `inv-${inv.id}`;
  const others = inv.invitees.map(who);
  const open = inv.status === "open";
  let title;
  if (open) title = sent ? M.youInvite(listing(others)) : M.invitesYou(who(inv.inviter));
  else title = sent ? M.invitationTo(listing(others)) : M.invitationFrom(who(inv.inviter));
  const parts = [h("strong", { id }, title), h("br"), invitationGame(inv)];
  if (open) {
    const yes = inv.invitees.filter((n) => n.answer === "accepted").map(who);
    const waiting = inv.invitees.filter((n) => n.answer === null).map(who);
    parts.push(h("br"), h("span", { class: "small answers" },
      yes.length ? M.acceptedSoFar(listing(yes)) : M.nobodyAccepted,
      waiting.length ? ` · ${M.noAnswerYet(listing(waiting))}` : "",
      ` · ${M.answersUntil(when(inv.expires_at))}`));
    const mine = inv.invitees.find((n) => n.handle === myHandle);
    const acts = h("p", { class: "acts" });
    if (sent) {
      acts.append(act(M.cancelInvitation, `/invitations/${inv.id}`, "DELETE", id));
    } else if (mine && mine.answer === "accepted") {
      acts.append(M.youAccepted);
    } else {
      acts.append(act(M.accept, `/invitations/${inv.id}/accept`, "POST", id), " ",
                  act(M.decline, `/invitations/${inv.id}/decline`, "POST", id));
    }
    parts.push(acts);
  } else {
    parts.push(h("br"), h("span", { class: "outcome" }, outcome(inv)));
  }
  return h("li", { class: `my-game invitation ${inv.status}`, "data-invitation": inv.id },
    ...parts);
}

function showList(name, items) {
  document.getElementById(`inv-${name}-box`).hidden = !items.length;
  fill(`inv-${name}`, items);
}

async function loadInvitations() {
  const { invitations } = await api("/invitations?limit=500", { token: token() });
  const now = Date.now();
  const sent = (inv) => myHandle !== null && inv.inviter.handle === myHandle;
  const open = invitations.filter((inv) => inv.status === "open");
  const closed = invitations.filter((inv) => inv.status !== "open"
    && now - Date.parse(inv.closed_at || inv.expires_at) < CLOSED_SHOWN);
  showList("received", open.filter((inv) => !sent(inv))
    .map((inv) => invitationItem(inv, false)));
  showList("sent", open.filter(sent).map((inv) => invitationItem(inv, true)));
  showList("closed", closed.map((inv) => invitationItem(inv, sent(inv))));
  document.getElementById("invitations-box").hidden = !(open.length || closed.length
                                                        || myHandle);
}

/** The invitation form (an account with a handle): handles, variant, time per move. */
async function sendInvitation(event) {
  event.preventDefault();
  notice(null);
  const field = document.getElementById("invite-handles");
  const body = { invitees: field.value.split(/[\s,;]+/).filter(Boolean),
                 variant: document.getElementById("invite-variant").value,
                 time_per_move: Number(document.getElementById("invite-time").value) };
  try {
    await api("/invitations", { method: "POST", body, token: token() });
    field.value = "";
    notice(M.invitationSent, "ok");
  } catch (err) {
    notice(err);
    return;
  }
  clearTimeout(timer);
  await poll();
}

async function loadFinished() {
  const done = await api("/me/games?status=finished", { token: token() });
  fill("finished", done.games.length ? done.games.map(gameItem)
    : h("li", { class: "muted" }, M.noFinished));
}

async function poll() {
  try {
    await loadGames();
    await loadOffered();
    await loadInvitations();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      signedOut();
      return;
    }
    notice(err, "warn");
  }
  timer = setTimeout(poll, POLL * 1000);
}

/** Follow the account's stream: what it tells (a move, a turn, an invitation…) is read
 * again at once; the polling stays for what it does not tell. */
function live() {
  if (following) following.stop();
  let soon = null;
  following = followAccount({
    token: token(),
    onEvents: () => {
      clearTimeout(soon);
      soon = setTimeout(() => { clearTimeout(timer); poll(); }, 200);
    },
    onError: (err) => { if (err.status === 401) signedOut(); },
  });
}

function signedOut(err) {
  keep(null);
  clearTimeout(timer);
  if (following) following.stop();
  following = null;
  document.getElementById("signin").hidden = false;
  document.getElementById("mine").hidden = true;
  document.getElementById("prefs-box").hidden = true;
  document.getElementById("offered-box").hidden = true;
  document.getElementById("invitations-box").hidden = true;
  document.title = M.pageTitle;
  if (err) notice(err);
}

async function signedIn() {
  const me = await api("/me", { token: token() });
  document.getElementById("signin").hidden = true;
  document.getElementById("mine").hidden = false;
  document.getElementById("prefs-box").hidden = false;
  myHandle = me.handle;
  document.getElementById("invite-box").hidden = !myHandle;
  document.getElementById("invitations-box").hidden = !myHandle;
  fill("who", M.signedInAs(me.email));
  fill("ratings", me.ratings.length
    ? me.ratings.map((r) => h("li", { "data-variant": r.variant },
      M.rating(VARIANT_NAMES[r.variant] || r.variant, r.ordinal.toFixed(1), r.games)))
    : h("li", { class: "muted" }, M.noRatings));
  const select = document.getElementById("pref-language");
  select.replaceChildren(...Object.entries(LANGUAGES).map(([code, name]) => h("option", {
    value: code, lang: code, selected: code === (me.language || lang) }, name)));
  document.getElementById("pref-notify").value = me.notify;
  document.getElementById("pref-hour").value = me.digest_hour;
  push.show(token()).catch((err) => notice(err));
  clearTimeout(timer);
  await poll();
  live();
}

async function useCode(code) {
  const session = await api("/players/session", { method: "POST", body: { code } });
  keep(session.token);
  await signedIn();
}

function wire() {
  document.getElementById("ask").addEventListener("submit", async (event) => {
    event.preventDefault();
    notice(null);
    const email = document.getElementById("email").value.trim();
    try {
      await api("/players/sign-in", { method: "POST", body: { email, language: lang } });
      fill("sent", M.sent(email));
      document.getElementById("code").focus();
    } catch (err) {
      notice(err);
    }
  });
  document.getElementById("enter").addEventListener("submit", async (event) => {
    event.preventDefault();
    notice(null);
    try {
      await useCode(document.getElementById("code").value.trim());
    } catch (err) {
      notice(err);
    }
  });
  document.getElementById("prefs").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { language: document.getElementById("pref-language").value,
                   notify: document.getElementById("pref-notify").value,
                   digest_hour: Number(document.getElementById("pref-hour").value) };
    try {
      await api("/me", { method: "PATCH", body, token: token() });
      notice(M.saved, "ok");
    } catch (err) {
      notice(err);
    }
  });
  document.getElementById("sign-out").addEventListener("click", async () => {
    if (following) following.stop();  // before its token goes
    following = null;
    try {
      await api("/players/session", { method: "DELETE", token: token() });
    } catch {
      // signed out already: forget the token all the same
    }
    signedOut();
  });
  document.getElementById("push-on").addEventListener("click", () => {
    notice(null);
    push.turnOn(token()).catch((err) => notice(err));
  });
  document.getElementById("push-off").addEventListener("click", () => {
    notice(null);
    push.turnOff(token()).catch((err) => notice(err));
  });
  document.getElementById("invite").addEventListener("submit", sendInvitation);
  fill("invite-variant", Object.entries(VARIANT_NAMES).map(([value, name]) => h("option",
    { value }, name)));
  fill("invite-time", INVITE_TIMES.map(([value, name]) => h("option",
    { value, selected: value === INVITE_TIME }, name)));
  document.getElementById("finished-box").addEventListener("toggle", (event) => {
    if (event.target.open) loadFinished().catch((err) => notice(err));
  });
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && token()) {
      clearTimeout(timer);
      poll();
    }
  });
}

async function start() {
  push.register();  // the service worker: pushed notices, and "no connection" offline
  applyStrings(M);
  document.title = M.pageTitle;
  document.querySelector("header.top").append(switcher());
  wire();
  const fragment = new URLSearchParams(location.hash.slice(1));
  opening = fragment.get("open");
  const code = fragment.get("code");
  const claim = fragment.get("claim");
  if (code || claim || opening) history.replaceState(null, "", location.pathname + location.search);
  if (claim) {  // the link mailed to a seat's address: the seat becomes its holder's
    const [game, seat, secret] = claim.split(".");
    try {
      const got = await api(`/games/${game}/seats/${seat}/claim`, {
        method: "POST", body: { code: secret } });
      location.assign(`/play/${got.game_id}#token=${got.token}`);
      return;
    } catch (err) {
      notice(err);
    }
  }
  if (code) {
    const current = token() && await api("/me", { token: token() }).catch(() => null);
    if (current) {  // a link must not switch accounts behind the player's back
      document.getElementById("switch").hidden = false;
      fill("switch-text", M.switchAsk(current.email));
      document.getElementById("switch-no").addEventListener("click", async () => {
        document.getElementById("switch").hidden = true;
        await signedIn();
      });
      document.getElementById("switch-yes").addEventListener("click", async () => {
        document.getElementById("switch").hidden = true;
        try {
          await useCode(code);
        } catch (err) {
          notice(err);
          await signedIn();
        }
      });
      return;
    }
    try {
      await useCode(code);
    } catch (err) {
      signedOut(err);
    }
    return;
  }
  if (!token()) {
    signedOut();
    return;
  }
  try {
    await signedIn();
  } catch (err) {
    signedOut(err instanceof ApiError && err.status === 401 ? null : err);
  }
}

start();
