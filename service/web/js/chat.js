// Table talk beside the board (issue 27): the messages of GET /games/{id}/messages, new
// ones from the game's stream (`event: chat`), a form to write to the table or to one
// seat (POST /games/{id}/messages), and the seat's private notes (GET/PUT …/notes).
// Text only: a message goes into the page as a text node (dom.js), never as HTML.
// Keyboard: Enter sends, Shift+Enter starts a new line; the list is focusable and read
// out as messages arrive; the unread count clears when the panel has the focus.

import { api } from "./api.js";
import { h } from "./dom.js";
import { C, lang } from "./strings.js";

/**
 * Mount the chat panel into #talk (and the notes into #notes). `game` is the game
 * document (seats, your_seat, spectators_read_chat). Returns {onChat(items), reload()}.
 */
export function mountChat({ gameId, token, game }) {
  const base = `/games/${encodeURIComponent(gameId)}`;
  const panel = document.getElementById("talk");
  const mine = token && game.your_seat !== null && game.your_seat !== undefined
    ? game.your_seat : null;
  if (mine === null && !game.spectators_read_chat) {
    panel.hidden = true;
    return { onChat() {}, reload() {} };
  }
  const names = new Map(game.seats.map((s) => [s.seat, s.name || C.seat(s.seat)]));
  const messages = new Map();  // id -> message item
  let unread = 0;

  const count = h("span", { id: "chat-unread", class: "unread" });
  const list = h("ol", { id: "chat-list", class: "chat-list", tabindex: "0",
                         "aria-label": C.messagesLabel, "aria-live": "polite" });
  const error = h("p", { id: "chat-error", class: "chat-error", role: "alert" });
  panel.replaceChildren(h("h2", {}, C.title, " ", count), list, error);
  panel.hidden = false;

  const focused = () => panel.contains(document.activeElement) && !document.hidden;
  const showUnread = () => {
    count.textContent = unread ? C.unread(unread) : "";
    count.dataset.count = String(unread);
  };
  panel.addEventListener("focusin", () => {
    unread = 0;
    showUnread();
  });

  function line(m) {
    const who = m.from === null ? C.host : (names.get(m.from) || C.seat(m.from));
    const when = new Date(m.created_at);
    const to = m.to === null ? null
      : (m.to === mine ? C.toYou : C.to(names.get(m.to) || C.seat(m.to)));
    const head = h("span", { class: "chat-head" },
                   h("strong", {}, who), to ? ` ${to}` : "", " ",
                   h("time", { datetime: m.created_at, class: "muted" },
                     when.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" })));
    const body = m.deleted ? h("em", { class: "muted" }, C.deleted)
      : h("span", { class: "chat-text" }, m.text);
    return h("li", { "data-id": String(m.id), class: m.to === null ? "chat" : "chat private" },
             head, h("br", {}), body);
  }

  function draw() {
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    list.replaceChildren(...[...messages.values()].sort((a, b) => a.id - b.id).map(line));
    if (!messages.size) list.append(h("li", { class: "muted empty" }, C.none));
    if (atBottom || focused()) list.scrollTop = list.scrollHeight;
  }

  function add(items, live) {
    for (const m of items) {
      const known = messages.has(m.id);
      messages.set(m.id, m);
      if (live && !known && m.from !== mine && !m.deleted && !focused()) unread += 1;
    }
    showUnread();
    draw();
  }

  async function reload() {
    try {
      const doc = await api(`${base}/messages`, { token });
      messages.clear();
      add(doc.messages, false);
    } catch (err) {
      error.textContent = err.message;
    }
  }

  if (mine !== null) panel.append(form(), settings());
  if (mine !== null) notes();
  reload();

  function form() {
    const to = h("select", { id: "chat-to", "aria-label": C.toLabel },
                 h("option", { value: "" }, C.table),
                 ...game.seats.filter((s) => s.seat !== mine && !s.bot)
                   .map((s) => h("option", { value: String(s.seat) }, names.get(s.seat))));
    const text = h("textarea", { id: "chat-text", rows: "2", maxlength: "1000",
                                 "aria-label": C.textLabel, placeholder: C.placeholder });
    const send = h("button", { id: "chat-send", type: "submit" }, C.send);
    const el = h("form", { class: "chat-form" }, to, text, send,
                 h("p", { class: "muted small" }, C.keys));
    text.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        el.requestSubmit();
      }
    });
    el.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (!text.value.trim() || send.disabled) return;
      send.disabled = true;
      error.textContent = "";
      try {
        const sent = await api(`${base}/messages`, {
          token, method: "POST",
          body: { text: text.value, to: to.value === "" ? null : Number(to.value) } });
        text.value = "";
        add([sent], false);
        list.scrollTop = list.scrollHeight;
      } catch (err) {
        error.textContent = err.message;
      } finally {
        send.disabled = false;
        text.focus();
      }
    });
    return el;
  }

  function settings() {
    const others = game.seats.filter((s) => s.seat !== mine && !s.bot);
    const mutes = others.map((s) => h("input", { type: "checkbox", id: `mute-${s.seat}`,
                                                 "data-seat": String(s.seat) }));
    const mail = h("select", { id: "chat-mail" },
                   h("option", { value: "with_next" }, C.withNext),
                   h("option", { value: "at_once" }, C.atOnce));
    const inMail = h("input", { type: "checkbox", id: "notes-in-mail" });
    const status = h("span", { class: "muted", role: "status" });
    const put = async (call) => {
      status.textContent = "";
      try {
        show(await call());
        status.textContent = C.settingsSaved;
      } catch (err) {
        status.textContent = err.message;
      }
    };
    const show = (doc) => {
      for (const box of mutes) box.checked = doc.muted.includes(Number(box.dataset.seat));
      mail.value = doc.mail_messages;
      inMail.checked = doc.notes_in_mail;
    };
    for (const box of mutes) {
      box.addEventListener("change", () => put(async () => {
        const doc = await api(`${base}/mutes/${box.dataset.seat}`,
                              { token, method: box.checked ? "PUT" : "DELETE" });
        reload();  // a muted seat's messages leave the list, an unmuted one's come back
        return doc;
      }));
    }
    mail.addEventListener("change", () => put(() => api(`${base}/talk`, {
      token, method: "PUT", body: { mail_messages: mail.value } })));
    inMail.addEventListener("change", () => put(() => api(`${base}/talk`, {
      token, method: "PUT", body: { notes_in_mail: inMail.checked } })));
    api(`${base}/talk`, { token }).then(show).catch((err) => {
      status.textContent = err.message;
    });
    return h("details", { class: "chat-settings" }, h("summary", {}, C.settings),
             ...others.map((s, i) => h("label", { class: "chat-option" }, mutes[i], " ",
                                       C.mute(names.get(s.seat)))),
             h("label", { class: "chat-option" }, `${C.byMail} `, mail),
             h("label", { class: "chat-option" }, inMail, " ", C.notesInMail), status);
  }

  function notes() {
    const box = document.getElementById("notes");
    const text = h("textarea", { id: "notes-text", rows: "4", maxlength: "10000",
                                 "aria-label": C.notesLabel });
    const saved = h("span", { id: "notes-saved", class: "muted", role: "status" });
    const save = h("button", { id: "notes-save", type: "submit" }, C.saveNotes);
    const el = h("form", { class: "notes-form" }, text, save, " ", saved);
    el.addEventListener("submit", async (e) => {
      e.preventDefault();
      saved.textContent = "";
      try {
        await api(`${base}/notes`, { token, method: "PUT", body: { text: text.value } });
        saved.textContent = C.notesSaved;
      } catch (err) {
        saved.textContent = err.message;
      }
    });
    box.replaceChildren(h("h2", {}, C.notesTitle), h("p", { class: "muted small" },
                                                     C.notesPrivate), el);
    box.hidden = false;
    api(`${base}/notes`, { token }).then((doc) => { text.value = doc.text; })
      .catch((err) => { saved.textContent = err.message; });
  }

  return { onChat(items) { add(items, true); }, reload };
}
