// The signed-in user's stream (ws/me/) on every page: the unread badge in the navigation, the count
// in the tab title ("(2) ..."), and the inbox list when it is the page shown. The server sends the
// count with every frame, so the page never counts by itself.
//
// Other modules import it by the import-map name "greycircle/notifications" (the same URL as the
// base template's <script>, so the same instance): the game page sets the title's status with
// setTitleStatus("Your turn").

/** @typedef {import("types/page").Schemas} Schemas */
/** @typedef {Schemas["MeSocketFrame"]} MeSocketFrame */
/** @typedef {Schemas["HelloFrame"] | Schemas["NotificationFrame"] | Schemas["UnreadFrame"]} StreamFrame */

const RECONNECT_DELAYS_MS = [500, 1000, 2000, 4000, 8000, 15000];
// Reconnecting cannot help after these: log in again (4401), not allowed (4403).
const FINAL_CLOSE_CODES = new Set([4401, 4403]);
const COUNT_PREFIX = /^\(\d+\)\s+/;

const badge = document.getElementById("unread-badge");
const messagesBadge = document.getElementById("messages-badge");
const gamePage = document.getElementById("game");
const gameId = gamePage ? Number(gamePage.dataset.gameId) : null;

let unread = badge ? Number(badge.dataset.count) || 0 : 0;
let titleStatus = "";
const baseTitle = document.title.replace(COUNT_PREFIX, "");
// Notifications about the game on this page that came while the page was hidden.
let unseenHere = false;

/** @param {string} name */
function cookie(name) {
  const match = document.cookie.match(new RegExp(`(?:^|; )${name}=([^;]*)`));
  return match ? decodeURIComponent(match[1]) : "";
}

function renderTitle() {
  const count = unread > 0 ? `(${unread}) ` : "";
  const status = titleStatus ? `${titleStatus} — ` : "";
  const title = `${count}${status}${baseTitle}`;
  if (document.title !== title) document.title = title;
}

/** @param {unknown} count */
function setUnread(count) {
  if (typeof count !== "number" || count < 0) return;
  unread = count;
  if (badge) {
    badge.dataset.count = String(count);
    badge.hidden = count === 0;
    const shown = document.getElementById("unread-count");
    if (shown) shown.textContent = String(count);
  }
  renderTitle();
}

/** @param {unknown} count */
function setMessagesUnread(count) {
  if (!messagesBadge || typeof count !== "number" || count < 0) return;
  messagesBadge.dataset.count = String(count);
  messagesBadge.hidden = count === 0;
  const shown = document.getElementById("messages-count");
  if (shown) shown.textContent = String(count);
}

/**
 * A few words before the page's title, e.g. "Your turn"; "" for none.
 * @param {string} status
 */
export function setTitleStatus(status) {
  titleStatus = status || "";
  renderTitle();
}

export function unreadCount() {
  return unread;
}

// --- The inbox page's list -------------------------------------------------------------------

const inboxList = document.getElementById("inbox-list");

/** @param {number} id */
function inboxItem(id) {
  return inboxList?.querySelector(`[data-notification-id="${id}"]`) ?? null;
}

/** @param {number[] | undefined} ids */
function inboxMarkRead(ids) {
  for (const id of ids ?? []) {
    const item = inboxItem(id);
    if (!item) continue;
    item.classList.remove("inbox__item--unread");
    item.querySelector(".inbox__unread")?.remove();
    item.querySelector("form")?.remove();
  }
}

/** @param {Schemas["NotificationFrame"]} message */
function inboxUpdate(message) {
  if (!inboxList) return;
  for (const id of message.removed ?? []) inboxItem(id)?.remove();
  inboxMarkRead(message.read);
  const notification = message.inbox;
  if (!notification) return;
  // A notification refreshed by a newer event about its game moves to the top.
  inboxItem(notification.id)?.remove();
  const item = document.createElement("li");
  item.className = "game-list__item inbox__item inbox__item--unread";
  item.dataset.notificationId = String(notification.id);
  const text = document.createElement("div");
  text.className = "inbox__text";
  const link = document.createElement(notification.link ? "a" : "span");
  if (link instanceof HTMLAnchorElement) link.href = notification.link;
  link.textContent = notification.text;
  const when = document.createElement("span");
  when.className = "muted inbox__when";
  when.textContent = "just now · ";
  const mark = document.createElement("span");
  mark.className = "inbox__unread";
  mark.textContent = "unread";
  when.append(mark);
  text.append(link, when);
  item.append(text);
  inboxList.prepend(item);
  document.getElementById("inbox-empty")?.setAttribute("hidden", "");
}

// --- The game on this page: its notifications are read while the page is seen -----------------

async function markGameRead() {
  unseenHere = false;
  try {
    await fetch("/api/v1/notifications/read-all/", {
      method: "POST",
      credentials: "same-origin",
      headers: {
        Accept: "application/json",
        "Content-Type": "application/json",
        "X-CSRFToken": cookie("csrftoken"),
      },
      body: JSON.stringify({ game: gameId }),
    });
  } catch (error) {
    console.warn("Could not mark this game's notifications read.", error);
  }
}

/** @param {Schemas["Notification"] | null | undefined} notification */
function aboutThisGame(notification) {
  return gameId !== null && notification && notification.game === gameId && !notification.read;
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && unseenHere) markGameRead();
});

// --- The stream --------------------------------------------------------------------------------

/** @type {Schemas["HelloFrame"] | null} */
let latestHello = null;

// The stream's latest "hello" (null before the first): a module that loads after it came (the
// page's own, fetched while this one's socket connected) starts from it rather than wait.
export function lastHello() {
  return latestHello;
}

/** @param {MeSocketFrame} message */
function received(message) {
  if (message.type === "hello") {
    // Both counts as they are now: after a reconnect, frames may have been missed.
    latestHello = message;
    setUnread(message.unread_count);
    setMessagesUnread(message.messages_unread_count);
  } else if (message.type === "notification") {
    setUnread(message.unread_count);
    inboxUpdate(message);
    if (aboutThisGame(message.inbox)) {
      if (document.visibilityState === "visible") markGameRead();
      else unseenHere = true;
    }
  } else if (message.type === "unread") {
    setUnread(message.unread_count);
    inboxMarkRead(message.read);
  } else if (message.type === "game_started") {
    // The lobby paired a seek. Its own page opens the game; elsewhere a live game opens at once
    // (its clock is about to run), unless it is the page shown already.
    const path = `/games/${message.game}/`;
    if (message.speed === "live" && !document.getElementById("lobby") && location.pathname !== path) {
      location.assign(path);
    }
  } else if (message.type === "messages_unread") {
    setMessagesUnread(message.count);
  } else if (message.type !== "direct_message" && message.type !== "direct_message_removed") {
    // (`direct_message`, `direct_message_removed`: only passed on, to the messages pages:
    // frontend/js/messages.js.)
    return;
  }
  window.dispatchEvent(new CustomEvent("greycircle:me", { detail: message }));
}

let attempt = 0;

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/me/`);
  socket.addEventListener("message", (event) => {
    /** @type {MeSocketFrame} */
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    if (message.type === "hello") attempt = 0;
    received(message);
  });
  socket.addEventListener("close", (event) => {
    if (FINAL_CLOSE_CODES.has(event.code)) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)];
    attempt += 1;
    setTimeout(connect, delay);
  });
}

renderTitle();
if (badge) connect();
