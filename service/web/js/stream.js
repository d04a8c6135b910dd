// Follow GET /games/{id}/stream and GET /me/stream with fetch() (so the token travels in
// the Authorization header, never in a URL) and reconnect from the last id when a stream
// ends or breaks; refused (429: too many open streams), it waits its Retry-After.

import { authHeaders } from "./api.js";
import { languageHeaders } from "./i18n.js";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Parse the complete messages at the start of `buffer`: [messages, rest]. */
export function parseMessages(buffer) {
  const messages = [];
  const text = buffer.replace(/\r\n?/g, "\n");
  let start = 0;
  for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n", start)) {
    const message = { id: null, event: null, data: [], retry: null };
    for (const line of text.slice(start, end).split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") message.id = value;
      else if (field === "event") message.event = value;
      else if (field === "data") message.data.push(value);
      else if (field === "retry" && /^\d+$/.test(value)) message.retry = Number(value);
    }
    messages.push(message);
    start = end + 2;
  }
  return [messages, text.slice(start)];
}

/**
 * Read the server-sent events of `request()` (a fetch() promise), again from where they
 * ended or broke: onMessages(messages) with each batch of parsed messages. Refused (429)
 * it waits the Retry-After; failures wait longer each time (onError hears of them).
 * Returns {stop()}.
 */
function reconnecting({ request, onMessages, onError, onConnect, finalStatuses = [] }) {
  let stopped = false;
  let controller = null;
  (async () => {
    let delay = 1000;
    let failures = 0;
    while (!stopped) {
      controller = new AbortController();
      let pause = 0;
      try {
        const resp = await request(controller.signal);
        if (!resp.ok) {
          const after = Number(resp.headers.get("Retry-After"));
          if (after > 0) pause = after * 1000;
          const error = new Error(`the live stream answered ${resp.status}`);
          error.status = resp.status;
          if (finalStatuses.includes(resp.status)) {  // no use asking again
            stopped = true;
            if (onError) onError(error);
            return;
          }
          throw error;
        }
        if (onConnect) onConnect();
        failures = 0;
        const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          let messages;
          [messages, buffer] = parseMessages(buffer + value);
          for (const m of messages) if (m.retry !== null) delay = m.retry;
          onMessages(messages);
        }
      } catch (err) {
        if (stopped) return;
        failures += 1;
        if (onError) onError(err);
      }
      await sleep(Math.max(pause, failures ? Math.min(15000, delay * 2 ** failures) : delay));
    }
  })();
  return {
    stop() {
      stopped = true;
      if (controller) controller.abort();
    },
  };
}

/**
 * Follow a game: calls onItems(items) with the event items after `since` as they come,
 * and onChat(messages) with the table talk (`event: chat`) written while it follows.
 * Returns {stop()}. onError(error) hears of failures (it keeps trying, with backoff).
 */
export function follow({ gameId, token, since, onItems, onError, onConnect, onChat }) {
  let last = since;
  return reconnecting({
    request: (signal) => fetch(`/games/${encodeURIComponent(gameId)}/stream?since=${last}`, {
      headers: { Accept: "text/event-stream", ...languageHeaders(), ...authHeaders(token) },
      cache: "no-store", signal }),
    onMessages: (messages) => {
      const items = [];
      const chat = [];
      for (const m of messages) {
        if (m.data.length && m.event === "chat") chat.push(JSON.parse(m.data.join("\n")));
        else if (m.data.length) items.push(JSON.parse(m.data.join("\n")));
        if (m.id !== null && /^\d+$/.test(m.id)) last = Number(m.id);
      }
      if (items.length) onItems(items);
      if (chat.length && onChat) onChat(chat);
    },
    onError, onConnect });
}

/**
 * Follow the account's /me/stream (all its games, invitations and tournaments): calls
 * onEvents(events) with each batch of `{event, data}` as they come, resuming after the
 * last id. Returns {stop()}. While it is open the account is not pushed (presence). A
 * token that is no longer valid (401) ends it: onError hears the error (its `status`).
 */
export function followAccount({ token, onEvents, onError }) {
  let last = null;
  return reconnecting({
    request: (signal) => fetch("/me/stream", {
      headers: { Accept: "text/event-stream", ...authHeaders(token),
                 ...(last ? { "Last-Event-ID": last } : {}) },
      cache: "no-store", signal }),
    onMessages: (messages) => {
      const events = [];
      for (const m of messages) {
        if (m.id !== null) last = m.id;
        if (m.event && m.data.length) {
          events.push({ event: m.event, data: JSON.parse(m.data.join("\n")) });
        }
      }
      if (events.length) onEvents(events);
    },
    onError, finalStatuses: [401] });
}
