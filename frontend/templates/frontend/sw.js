// The site's service worker, served at /sw.js by frontend.pwa_views.service_worker (a Django
// template: the strings below hold the static URLs of this deploy). TypeScript checks it as a
// worker (tsconfig.sw.json): the template's placeholders sit inside string literals.
//
// It keeps one thing for when the network is gone: the offline page and the files it loads, kept
// at install. A page that cannot be fetched is answered with that page; nothing else is cached,
// ever: no API answer and no page drawn for a user. It also shows the Web Push notifications
// the server sends (greycircle.push) and opens their game on a click.

const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

/** @type {string[]} the offline page first, then its files */
const PRECACHE = JSON.parse("{{ precache|escapejs }}");
const OFFLINE_URL = "{{ offline_url|escapejs }}";
/**
 * The notifications' pictures. (No double braces in this file but the template's own.)
 * @typedef {object} Icons
 * @property {string} icon
 * @property {string} badge
 */
/** @type {Icons} */
const ICONS = JSON.parse("{{ icons|escapejs }}");
const CACHE_PREFIX = "greycircle-offline-";
const CACHE = `${CACHE_PREFIX}{{ version|escapejs }}`;

sw.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // Without cookies: what is kept must not belong to whoever was signed in.
      await cache.addAll(PRECACHE.map((url) => new Request(url, { credentials: "omit" })));
      await sw.skipWaiting();
    })(),
  );
});

sw.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(CACHE_PREFIX) && name !== CACHE) await caches.delete(name);
      }
      await sw.clients.claim();
    })(),
  );
});

/** @param {Request} request */
async function offlineAnswer(request) {
  const cache = await caches.open(CACHE);
  // Kept without the request's headers (WhiteNoise's `Vary: Accept-Encoding` must not miss).
  const kept = request.mode === "navigate" ? OFFLINE_URL : request;
  return (await cache.match(kept, { ignoreVary: true })) ?? Response.error();
}

sw.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  const kept = url.origin === sw.location.origin && PRECACHE.includes(url.pathname);
  // Everything else goes to the network as if there were no worker.
  if (request.mode !== "navigate" && !kept) return;
  // The network first, always: the cache only answers when the network cannot (an error page
  // from the server is still the server's answer).
  event.respondWith(fetch(request).catch(() => offlineAnswer(request)));
});

// --- Web Push ----------------------------------------------------------------------------------

/**
 * The server's payload: {"title", "body", "url", "tag", "notification"} (greycircle.push).
 * @typedef {object} PushPayload
 * @property {string} [title]
 * @property {string} [body]
 * @property {string} [url] the page to open, on this site
 * @property {string} [tag] one notification per tag: a newer one replaces it
 * @property {number} [notification] the inbox notification's id
 */

/** @param {PushEvent} event @returns {PushPayload} */
function payloadOf(event) {
  try {
    return event.data ? event.data.json() : {};
  } catch {
    return { body: event.data ? event.data.text() : "" };
  }
}

/** @param {unknown} url */
function sameSiteUrl(url) {
  try {
    const parsed = new URL(typeof url === "string" ? url : "/", sw.location.origin);
    return parsed.origin === sw.location.origin ? parsed.href : new URL("/", sw.location.origin).href;
  } catch {
    return new URL("/", sw.location.origin).href;
  }
}

sw.addEventListener("push", (event) => {
  const payload = payloadOf(event);
  /** @type {NotificationOptions} */
  const options = {
    body: payload.body ?? "",
    data: { url: sameSiteUrl(payload.url), notification: payload.notification ?? null },
    icon: ICONS.icon,
    badge: ICONS.badge,
  };
  if (payload.tag) options.tag = payload.tag;
  event.waitUntil(sw.registration.showNotification(payload.title || "Grey Circle Games", options));
});

sw.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = sameSiteUrl(event.notification.data?.url);
  event.waitUntil(
    (async () => {
      const windows = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
      const open = windows.find((client) => client.url === url);
      if (open) {
        await open.focus();
        return;
      }
      await sw.clients.openWindow(url);
    })(),
  );
});
