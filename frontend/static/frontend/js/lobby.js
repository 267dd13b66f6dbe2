// The lobby's page (/lobby/): join a pool with one press, or make a custom seek; the pools'
// counts come live from ws/lobby/, and each change there has the seeks fetched again
// (GET /api/v1/seeks/). When the server pairs a seek it tells the player on ws/me/
// ({"type": "game_started"}, passed on by notifications.js as a "greycircle:me" event) and the
// page opens the game. Everything the lobby decides (who is paired, when) is the server's.

import { setTitleStatus } from "greycircle/notifications";

/** @typedef {import("types/page").Schemas} Schemas */
/** @typedef {Schemas["Seek"]} Seek */
/** @typedef {Schemas["SeekCreateRequest"]} SeekRequest */

const RECONNECT_DELAYS_MS = [500, 1000, 2000, 4000, 8000, 15000];
const FINAL_CLOSE_CODES = new Set([4401, 4403]);

const root = /** @type {HTMLElement} */ (document.getElementById("lobby"));
const statusBox = /** @type {HTMLElement} */ (document.getElementById("lobby-status"));
const statusText = /** @type {HTMLElement} */ (document.getElementById("lobby-status-text"));
const errorBox = /** @type {HTMLElement} */ (document.getElementById("lobby-error"));
const mySeeks = /** @type {HTMLUListElement} */ (document.getElementById("my-seeks"));
const openSeeks = /** @type {HTMLUListElement} */ (document.getElementById("open-seeks"));
const openEmpty = /** @type {HTMLElement} */ (document.getElementById("open-seeks-empty"));
const form = /** @type {HTMLFormElement} */ (document.getElementById("custom-seek"));
const rated = root.dataset.rated === "true";

/** @param {string} name */
function cookie(name) {
  const match = document.cookie.match(new RegExp(`(?:^|; )${name}=([^;]*)`));
  return match ? decodeURIComponent(match[1]) : "";
}

/**
 * A call of the seeks API; its JSON answer (null for 204). A refusal shows its `detail`.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
async function api(method, path, body) {
  /** @type {RequestInit} */
  const init = {
    method,
    credentials: "same-origin",
    headers: {
      Accept: "application/json",
      "Content-Type": "application/json",
      "X-CSRFToken": cookie("csrftoken"),
    },
  };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await fetch(path, init);
  if (response.status === 204) return null;
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.detail || `The server answered ${response.status}.`);
  return answer;
}

/** @param {string} message */
function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = !message;
}

/** @param {number} game */
function openGame(game) {
  location.assign(`/games/${game}/`);
}

/** @param {Seek} seek */
function describe(seek) {
  const timing = seek.time_control
    ? `${seek.time_control.minutes}+${seek.time_control.increment}`
    : `${seek.days_per_move} days per move`;
  const range = seek.rating_range
    ? `, opponents rated ${seek.rating_range.min}–${seek.rating_range.max}`
    : "";
  const option = document.querySelector(`#seek-kind option[value="${seek.kind}"]`);
  const title = option?.textContent ?? seek.kind;
  return `${title} ${timing}, ${seek.seats} players, ${seek.rated ? "rated" : "casual"}${range}`;
}

/**
 * @param {Seek} seek
 * @param {string} label
 * @param {() => void} action
 */
function seekItem(seek, label, action) {
  const item = document.createElement("li");
  item.className = "game-list__item lobby__seek";
  const text = document.createElement("span");
  text.textContent = seek.mine
    ? describe(seek)
    : `${seek.player} (${seek.rating}): ${describe(seek)}`;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "button button--small";
  button.textContent = label;
  button.addEventListener("click", action);
  item.append(text, button);
  return item;
}

/** My seeks waiting, as last fetched. @type {Seek[]} */
let mine = [];

/** @param {Seek[]} seeks */
function renderSeeks(seeks) {
  mine = seeks.filter((seek) => seek.mine);
  const others = seeks.filter((seek) => !seek.mine);
  mySeeks.replaceChildren(...mine.map((seek) => seekItem(seek, "Cancel", () => cancel(seek.id))));
  openSeeks.replaceChildren(...others.map((seek) => seekItem(seek, "Play", () => join(seek))));
  openEmpty.hidden = others.length > 0;
  statusBox.hidden = mine.length === 0;
  statusText.textContent = mine.length
    ? "Waiting for opponents… the game opens as soon as you are paired."
    : "";
  setTitleStatus(mine.length ? "Waiting" : "");
  const waitingIn = new Set(mine.map((seek) => seek.pool));
  for (const button of document.querySelectorAll("[data-pool]")) {
    const pressed = waitingIn.has(button.getAttribute("data-pool") ?? "");
    button.setAttribute("aria-pressed", String(pressed));
  }
}

async function refreshSeeks() {
  try {
    /** @type {Schemas["PaginatedSeekList"]} */
    const page = await api("GET", "/api/v1/seeks/");
    renderSeeks(page.results);
  } catch (error) {
    showError(error instanceof Error ? error.message : String(error));
  }
}

/** @param {SeekRequest} request */
async function seek(request) {
  showError("");
  try {
    /** @type {Seek} */
    const made = await api("POST", "/api/v1/seeks/", request);
    if (made.status === "matched" && made.game !== null) openGame(made.game);
    else await refreshSeeks();
  } catch (error) {
    showError(error instanceof Error ? error.message : String(error));
  }
}

/** @param {number} id */
async function cancel(id) {
  showError("");
  try {
    await api("DELETE", `/api/v1/seeks/${id}/`);
  } catch (error) {
    showError(error instanceof Error ? error.message : String(error));
  }
  await refreshSeeks();
}

/** Another player's seek: seek in the same pool (the server pairs if both ratings fit).
 * @param {Seek} other */
function join(other) {
  /** @type {SeekRequest} */
  const request = { kind: other.kind, seats: other.seats, rated: other.rated };
  if (other.time_control) request.time_control = other.time_control;
  else if (other.days_per_move !== null) {
    request.days_per_move = /** @type {1 | 3 | 7} */ (other.days_per_move);
  }
  seek(request);
}

/** @param {Schemas["Pool"][]} pools */
function renderCounts(pools) {
  const byName = new Map(pools.map((pool) => [pool.pool, pool]));
  for (const button of document.querySelectorAll("[data-pool]")) {
    const pool = byName.get(button.getAttribute("data-pool") ?? "");
    const waiting = button.querySelector("[data-waiting]");
    const playing = button.querySelector("[data-playing]");
    if (waiting) waiting.textContent = String(pool?.waiting ?? 0);
    if (playing) playing.textContent = String(pool?.playing ?? 0);
  }
}

for (const button of document.querySelectorAll("button[data-pool]")) {
  if (!(button instanceof HTMLButtonElement)) continue;
  button.addEventListener("click", () => {
    const { kind, seats, minutes, increment, pool } = button.dataset;
    // Pressed again: stop waiting in that pool.
    const waiting = mine.find((seek) => seek.pool === pool);
    if (waiting) {
      cancel(waiting.id);
      return;
    }
    seek({
      kind: /** @type {SeekRequest["kind"]} */ (kind),
      seats: Number(seats),
      time_control: { minutes: Number(minutes), increment: Number(increment) },
      rated,
    });
  });
}

// --- the custom seek's form ------------------------------------------------------------------

const speedParts = form.querySelectorAll("[data-speed-part]");
function showSpeed() {
  const checked = form.querySelector('input[name="speed"]:checked');
  const speed = checked instanceof HTMLInputElement ? checked.value : "live";
  for (const part of speedParts) {
    if (part instanceof HTMLElement) part.hidden = part.dataset.speedPart !== speed;
  }
}
form.addEventListener("change", showSpeed);
showSpeed();

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const data = new FormData(form);
  /** @type {SeekRequest} */
  const request = {
    kind: /** @type {SeekRequest["kind"]} */ (String(data.get("kind"))),
    seats: Number(data.get("seats")),
    rated: data.get("rated") === "on",
  };
  if (data.get("speed") === "live") {
    request.time_control = {
      minutes: Number(data.get("minutes")),
      increment: Number(data.get("increment")),
    };
  } else {
    request.days_per_move = /** @type {1 | 3 | 7} */ (Number(data.get("days_per_move")));
  }
  const low = String(data.get("rating_min") ?? "");
  const high = String(data.get("rating_max") ?? "");
  if (low !== "" || high !== "") {
    request.rating_range = { min: Number(low || 0), max: Number(high || 4000) };
  }
  seek(request);
});

// --- live: the pools' counts, and the game's start ------------------------------------------

window.addEventListener("greycircle:me", (event) => {
  const frame = /** @type {CustomEvent<Schemas["MeSocketFrame"]>} */ (event).detail;
  if (frame.type === "game_started") openGame(frame.game);
});

let attempt = 0;

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/lobby/`);
  socket.addEventListener("message", (event) => {
    /** @type {Schemas["LobbySocketFrame"]} */
    let frame;
    try {
      frame = JSON.parse(event.data);
    } catch {
      return;
    }
    if (frame.type !== "pools") return;
    attempt = 0;
    renderCounts(frame.pools);
    refreshSeeks();
  });
  socket.addEventListener("close", (event) => {
    if (FINAL_CLOSE_CODES.has(event.code)) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)];
    attempt += 1;
    setTimeout(connect, delay);
  });
}

connect();
