// The settings page's "Notify me on this device" (frontend/includes/push_device.html): this
// browser's Web Push subscription, made with the site's VAPID key and kept by the server
// (/api/v1/push/web/), which then pushes the player's notifications to it; the service worker
// (/sw.js) shows them. Shown only where the browser has the Push API and the player has not
// blocked the site's notifications.

/** @typedef {import("types/page").Schemas} Schemas */

const KEY_URL = "/api/v1/push/web/";
const SUBSCRIPTIONS_URL = "/api/v1/push/web/subscriptions/";
// Where the service worker (/sw.js) finds what renews the subscription when the browser's push
// service changes it: the endpoint registered, its renewal token and the site's key.
const PUSH_CACHE = "greycircle-push";
const RENEWAL_ENTRY = "/push-renewal.json";

const section = document.getElementById("push-device");
const subscribeButton = /** @type {HTMLButtonElement} */ (document.getElementById("push-subscribe"));
const unsubscribeButton = /** @type {HTMLButtonElement} */ (document.getElementById("push-unsubscribe"));
const statusLine = /** @type {HTMLElement} */ (document.getElementById("push-status"));

/** @param {string} name */
function cookie(name) {
  const match = document.cookie.match(new RegExp(`(?:^|; )${name}=([^;]*)`));
  return match ? decodeURIComponent(match[1]) : "";
}

/**
 * The answer's body (null for 204); a refusal throws with the API's `detail`.
 * @param {string} method
 * @param {string} url
 * @param {unknown} [body]
 * @returns {Promise<any>} as the schema describes the operation's answer
 */
async function api(method, url, body) {
  const response = await fetch(url, {
    method,
    credentials: "same-origin",
    headers: {
      Accept: "application/json",
      ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
      ...(method !== "GET" ? { "X-CSRFToken": cookie("csrftoken") } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : null,
  });
  if (response.status === 204) return null;
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.detail || `The server answered ${response.status}.`);
  return data;
}

/** @param {string} text base64url, as the API sends the key */
function base64urlBytes(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
  return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
}

/** @param {PushSubscription} subscription @returns {Schemas["WebPushSubscribeRequest"]} */
function subscriptionBody(subscription) {
  const json = subscription.toJSON();
  return {
    endpoint: subscription.endpoint,
    keys: { p256dh: json.keys?.["p256dh"] ?? "", auth: json.keys?.["auth"] ?? "" },
    expirationTime: subscription.expirationTime,
  };
}

/** @param {{endpoint: string, renewal_token: string, key: string} | null} renewal */
async function renewalKeep(renewal) {
  const cache = await caches.open(PUSH_CACHE);
  if (renewal === null) await cache.delete(RENEWAL_ENTRY);
  else await cache.put(RENEWAL_ENTRY, new Response(JSON.stringify(renewal)));
}

/** @param {string} text */
function say(text) {
  statusLine.textContent = text;
}

// Which button the page offers: the browser's own subscription says whether it is notified.
async function show() {
  if (!section) return;
  section.hidden = false;
  if (Notification.permission === "denied") {
    subscribeButton.hidden = unsubscribeButton.hidden = true;
    say("Notifications are blocked for this site: allow them in your browser's settings to be notified here.");
    return;
  }
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.getSubscription();
  subscribeButton.hidden = subscription !== null;
  unsubscribeButton.hidden = subscription === null;
}

async function subscribe() {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") {
    say("Notifications were not allowed, so this device is not notified.");
    return;
  }
  /** @type {Schemas["VapidKey"]} */
  const key = await api("GET", KEY_URL);
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: base64urlBytes(key.vapid_public_key),
  });
  /** @type {Schemas["WebPushSubscription"]} */
  let registered;
  try {
    registered = await api("POST", SUBSCRIPTIONS_URL, subscriptionBody(subscription));
  } catch (error) {
    // Not kept by the server, so not notified: the browser lets it go too.
    await subscription.unsubscribe();
    throw error;
  }
  await renewalKeep({
    endpoint: registered.endpoint,
    renewal_token: registered.renewal_token,
    key: key.vapid_public_key,
  });
  say("This device will be notified.");
}

async function unsubscribe() {
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.getSubscription();
  if (!subscription) return;
  // The server first: if it cannot be told, the device stays as it was, still offered to stop.
  await api("DELETE", `${SUBSCRIPTIONS_URL}?endpoint=${encodeURIComponent(subscription.endpoint)}`);
  await subscription.unsubscribe();
  await renewalKeep(null);
  say("This device will not be notified any more.");
}

/** @param {HTMLButtonElement} button @param {() => Promise<void>} action @param {string} failure */
function onClick(button, action, failure) {
  button.addEventListener("click", async () => {
    subscribeButton.disabled = unsubscribeButton.disabled = true;
    say("");
    try {
      await action();
    } catch (error) {
      console.warn(failure, error);
      say(`${failure} ${error instanceof Error ? error.message : ""}`.trim());
    } finally {
      subscribeButton.disabled = unsubscribeButton.disabled = false;
      await show();
    }
  });
}

if (section && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window) {
  onClick(subscribeButton, subscribe, "This device could not be set up for notifications.");
  onClick(unsubscribeButton, unsubscribe, "This device could not be stopped from being notified.");
  show();
}

// A module, not a script, for TypeScript too: its names stay its own.
export {};
