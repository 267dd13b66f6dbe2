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

// --- A subscription the push service changed -----------------------------------------------------
//
// When the browser's push service rotates (or drops) the subscription, the worker registers the
// new one in place of the old: the server replaces the subscription whose endpoint and renewal
// token it is given (greycircle.push.services). The settings page keeps both, with the site's
// key, in the cache below (push-device.js); the cookie is not sent: the token is the credential.

const RENEW_URL = "/api/v1/push/web/subscriptions/renew/";
const PUSH_CACHE = "greycircle-push";
const RENEWAL_ENTRY = "/push-renewal.json";

/**
 * What the page keeps for the worker (frontend/static/frontend/js/push-device.js).
 * @typedef {object} Renewal
 * @property {string} endpoint the subscription the server has
 * @property {string} renewal_token its renewal token
 * @property {string} key the site's VAPID key, base64url, to subscribe again with
 */

/** @returns {Promise<Renewal | null>} */
async function renewalKept() {
  const kept = await (await caches.open(PUSH_CACHE)).match(RENEWAL_ENTRY);
  return kept ? kept.json() : null;
}

/** @param {Renewal | null} renewal */
async function renewalKeep(renewal) {
  const cache = await caches.open(PUSH_CACHE);
  if (renewal === null) await cache.delete(RENEWAL_ENTRY);
  else await cache.put(RENEWAL_ENTRY, new Response(JSON.stringify(renewal)));
}

/** @param {string} text base64url */
function base64urlBytes(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
  return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
}

/** @param {PushSubscriptionChangeEvent} event */
async function subscriptionRenew(event) {
  const kept = await renewalKept();
  if (kept === null) return; // not registered from this browser (or from before renewal)
  // Some browsers give no new subscription (Chromium gives neither): subscribe again ourselves.
  let fresh = event.newSubscription;
  if (!fresh) {
    fresh = await sw.registration.pushManager
      .subscribe({ userVisibleOnly: true, applicationServerKey: base64urlBytes(kept.key) })
      .catch(() => null);
  }
  const response = await fetch(RENEW_URL, {
    method: "POST",
    credentials: "omit",
    headers: { Accept: "application/json", "Content-Type": "application/json" },
    body: JSON.stringify({
      old_endpoint: kept.endpoint,
      renewal_token: kept.renewal_token,
      subscription: fresh ? fresh.toJSON() : null, // null: none any more, remove the old
    }),
  });
  if (response.status === 200) {
    /** @type {Pick<Renewal, "endpoint" | "renewal_token">} */
    const renewed = await response.json();
    await renewalKeep({ endpoint: renewed.endpoint, renewal_token: renewed.renewal_token, key: kept.key });
  } else if (response.status === 204 || response.status === 403) {
    // Removed, or the server no longer has it: nothing left to renew.
    await renewalKeep(null);
  }
}

sw.addEventListener("pushsubscriptionchange", (event) => {
  event.waitUntil(subscriptionRenew(event));
});
