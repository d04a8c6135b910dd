// The service worker (served at /sw.js, scope /): shows the notices pushed to this
// browser (workers/push.py: {game_id, version, what, url, title, body}) and opens the
// game's link on a tap; a page opened without a connection gets "no connection"
// (/offline, kept at install). Only public resources: no token is ever stored here.

const CACHE = "alhambra-offline-v1";
const OFFLINE = "/offline";

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.add(OFFLINE))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  if (event.request.mode !== "navigate") return;  // the API and assets: the network's
  event.respondWith(fetch(event.request).catch(() => caches.match(OFFLINE)));
});

self.addEventListener("push", (event) => {
  let notice = {};
  try {
    notice = event.data ? event.data.json() : {};
  } catch {
    notice = { body: event.data ? event.data.text() : "" };
  }
  const title = notice.title || "alhambra-pbem";
  event.waitUntil(self.registration.showNotification(title, {
    body: notice.body || "",
    icon: "/assets/icon-192.png",
    tag: notice.game_id ? `${notice.game_id}:${notice.what}` : undefined,
    data: { url: notice.url || "/me" },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL((event.notification.data || {}).url || "/me", self.location.origin);
  const target = url.origin === self.location.origin ? url.href : "/me";
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true })
    .then((windows) => {
      for (const w of windows) {
        if (w.url === target && "focus" in w) return w.focus();
      }
      return self.clients.openWindow(target);
    }));
});
