// The player's game lists (the home page, "My games") follow their stream (ws/me/), as the unread
// badge does: when a notification about a game arrives, the page fetches itself again and puts the
// server's new lists in place of the old ones ([data-live-lists] elements, matched by value), so
// the lists never say "Waiting on you: none" under a badge that says otherwise.
//
// notifications.js owns the socket and hands every frame on as a "greycircle:me" event. One fetch
// at a time: frames that arrive meanwhile make one more fetch when it is done, never a queue of
// them. Nothing is fetched on a timer. Live games' running clocks tick in the lists (clocksTick).

import { clockText, localNow } from "greycircle/clock";
import { lastHello } from "greycircle/notifications";

/** @typedef {import("greycircle/notifications").StreamFrame} StreamFrame */

const lists = () => document.querySelectorAll(/** @type {"div"} */ ("[data-live-lists]"));

// Frames are missed while the socket is down: after a reconnect ("hello" again) the page catches
// up once. The first "hello" follows the page's own render, which is current unless something
// happened between the two: then the unread count it brings differs from the one rendered.
let helloSeen = false;
const renderedUnread = Number(document.getElementById("unread-badge")?.dataset.count) || 0;
let fetching = false;
let again = false;

/**
 * Where the keyboard was inside a list, so it can be put back after the lists are replaced.
 * @param {HTMLElement} container
 * @returns {{gameId: string | null, href: string | null, tag: string} | null}
 */
function focusWithin(container) {
  const active = document.activeElement;
  if (!active || !container.contains(active) || active === container) return null;
  const item = /** @type {HTMLElement | null} */ (active.closest("[data-game-id]"));
  return {
    gameId: item?.dataset.gameId ?? null,
    href: active.getAttribute("href"),
    tag: active.tagName,
  };
}

/**
 * @param {HTMLElement} container
 * @param {ReturnType<typeof focusWithin>} where
 */
function focusAgain(container, where) {
  if (!where) return;
  const scope = where.gameId
    ? container.querySelector(`[data-game-id="${CSS.escape(where.gameId)}"]`)
    : container;
  if (!scope) return;
  const candidates = [.../** @type {NodeListOf<HTMLElement>} */ (scope.querySelectorAll(where.tag))];
  const same = candidates.find((element) => element.getAttribute("href") === where.href);
  (same ?? candidates[0])?.focus();
}

// A live game's running clock in a list ticks from the time the server wrote in it, counted from
// when the list was put in the page (a list is a glance: the game page keeps the exact time).
const CLOCK_TICK_MS = 200;
let listedAt = localNow();

function clocksTick() {
  for (const clock of document.querySelectorAll(/** @type {"span"} */ ("[data-clock-running]"))) {
    const shown = clockText(Number(clock.dataset.clockMs) - (localNow() - listedAt));
    if (clock.textContent !== shown) clock.textContent = shown;
  }
}

/** @param {Document} fresh */
function replace(fresh) {
  for (const container of lists()) {
    const name = container.dataset.liveLists;
    const update = [...fresh.querySelectorAll(/** @type {"div"} */ ("[data-live-lists]"))].find(
      (element) => element.dataset.liveLists === name,
    );
    if (!update) continue;
    const where = focusWithin(container);
    container.replaceChildren(...[...update.childNodes].map((node) => document.importNode(node, true)));
    focusAgain(container, where);
  }
  listedAt = localNow();
}

async function refresh() {
  if (!lists().length) return; // a page whose lists do not follow the stream (Watch)
  if (fetching) {
    again = true;
    return;
  }
  fetching = true;
  try {
    const response = await fetch(location.href, {
      credentials: "same-origin",
      headers: { Accept: "text/html" },
    });
    // Signed out meanwhile (a redirect to the log-in page) or an error: keep what is shown.
    if (response.ok && !response.redirected) {
      replace(new DOMParser().parseFromString(await response.text(), "text/html"));
    }
  } catch (error) {
    console.warn("Could not refresh the game lists.", error);
  } finally {
    fetching = false;
    if (again) {
      again = false;
      refresh();
    }
  }
}

/**
 * The game an event is about; undefined for one about no game (a friend request).
 * @param {import("types/page").Schemas["NotificationEvent"]} event
 */
const gameOf = (event) => ("game" in event ? event.game : undefined);

/** @param {StreamFrame} message */
function onStream(message) {
  if (message.type === "hello") {
    if (helloSeen || message.unread_count !== renderedUnread) refresh();
    helloSeen = true;
    // The lists follow the stream from now on (tests wait for it before changing a game).
    for (const container of lists()) container.dataset.live = "true";
  } else if (message.type === "notification" && gameOf(message.notification) != null) {
    refresh();
  }
}

window.addEventListener("greycircle:me", (event) =>
  onStream(/** @type {CustomEvent<StreamFrame>} */ (event).detail),
);
// This module may load after the stream's first "hello" was handed on (notifications.js opens the
// socket first): start from it, as if it had just come.
const hello = lastHello();
if (hello) onStream(hello);

setInterval(clocksTick, CLOCK_TICK_MS);

// A page brought back from the browser's back-forward cache shows the lists of when it was left.
window.addEventListener("pageshow", (event) => {
  if (event.persisted) refresh();
});
