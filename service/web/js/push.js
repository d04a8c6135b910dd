// Notifications on this device (/me, issue 37): the service worker (/sw.js) registered
// on every visit; "turn on" asks the browser's permission, subscribes with the server's
// key (GET /push/key) and hands the subscription to POST /me/push; "turn off" removes it
// (DELETE /me/push/{id}) and unsubscribes. The account's devices are listed with their
// failures. Only the public API.

import { api } from "./api.js";
import { fill, h } from "./dom.js";
import { lang } from "./i18n.js";
import { M } from "./strings.js";

/** Whether this browser can receive pushed notices from this page. */
export function supported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** The service worker, registered (or null where there is none). */
export async function register() {
  if (!("serviceWorker" in navigator)) return null;
  try {
    return await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  } catch {
    return null;
  }
}

function bytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/")
    + "=".repeat((4 - (base64url.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

async function current() {
  if (!supported()) return null;
  const reg = await navigator.serviceWorker.getRegistration("/");
  return reg ? reg.pushManager.getSubscription() : null;
}

function when(text) {
  return new Intl.DateTimeFormat(lang, { dateStyle: "medium" }).format(new Date(text));
}

/** Show the state of this device and the account's devices. */
export async function show(token) {
  const on = document.getElementById("push-on");
  const off = document.getElementById("push-off");
  const listed = await api("/me/push", { token });
  const mine = await current();
  const active = mine && listed.subscriptions.some((s) => s.endpoint === mine.endpoint);
  on.hidden = Boolean(active);
  off.hidden = !active;
  on.disabled = !supported();
  fill("push-state", !supported() ? M.pushUnsupported : active ? M.pushIsOn : M.pushIsOff);
  fill("push-list", listed.subscriptions.map((s) => h("li", { "data-channel": s.id },
    M.pushChannel(when(s.created_at)),
    s.failures ? h("span", { class: "failing" }, ` · ${M.pushFailing(s.failures,
                                                                      s.last_error || "")}`)
      : null)));
}

/** Subscribe this device; throws the API's or the browser's error. */
export async function turnOn(token) {
  if ((await Notification.requestPermission()) !== "granted") throw new Error(M.pushDenied);
  const reg = (await register()) && await navigator.serviceWorker.ready;
  const { public_key: key } = await api("/push/key");
  const sub = await reg.pushManager.subscribe({ userVisibleOnly: true,
                                                applicationServerKey: bytes(key) });
  await api("/me/push", { method: "POST", body: sub.toJSON(), token });
  await show(token);
}

/** Unsubscribe this device. */
export async function turnOff(token) {
  const sub = await current();
  if (sub) {
    const listed = await api("/me/push", { token });
    const kept = listed.subscriptions.find((s) => s.endpoint === sub.endpoint);
    if (kept) await api(`/me/push/${kept.id}`, { method: "DELETE", token });
    await sub.unsubscribe();
  }
  await show(token);
}
