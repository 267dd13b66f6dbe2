// The pages of messages between friends (/messages/ and /messages/<username>/). The server renders
// them and their forms work without this module; with it, a thread sends through the API (Enter
// sends, Shift+Enter starts a new line), new messages arrive from ws/me/ (relayed by
// notifications.js as "greycircle:me" events), those the moderators hid leave, and what is seen
// is marked read. Every message is
// plain text: it is set with textContent, never as HTML; web addresses become links only while
// the two are friends (the server says so in data-links).

/** @typedef {import("types/page").Schemas} Schemas */
/** @typedef {Schemas["DirectMessage"]} DirectMessage */

// Web addresses made links (the same kinds Django's urlize finds for the server-rendered ones).
const LINK = /\b(?:https?:\/\/|www\.)[^\s<>"']+[^\s<>"'.,;:!?)\]]/gi;

/** @param {string} name */
function cookie(name) {
  const match = document.cookie.match(new RegExp(`(?:^|; )${name}=([^;]*)`));
  return match ? decodeURIComponent(match[1]) : "";
}

/**
 * A request to the API; the answer's JSON (or null), its status and Retry-After.
 * @param {string} path
 * @param {{method?: string, body?: unknown}} [options]
 */
async function api(path, options = {}) {
  /** @type {RequestInit} */
  const init = {
    method: options.method ?? "GET",
    credentials: "same-origin",
    headers: {
      Accept: "application/json",
      "Content-Type": "application/json",
      "X-CSRFToken": cookie("csrftoken"),
    },
  };
  if (options.body !== undefined) init.body = JSON.stringify(options.body);
  const response = await fetch(path, init);
  /** @type {any} */
  const data = await response.json().catch(() => null);
  return { ok: response.ok, status: response.status, data, retryAfter: response.headers.get("Retry-After") };
}

// --- A thread ------------------------------------------------------------------------------

const thread = document.getElementById("thread");

/**
 * `text` as nodes: text, and links for web addresses if `links` (exported for other pages that
 * show people's messages).
 * @param {string} text
 * @param {boolean} links
 */
export function bodyNodes(text, links) {
  if (!links) return [document.createTextNode(text)];
  /** @type {Node[]} */
  const nodes = [];
  let at = 0;
  for (const match of text.matchAll(LINK)) {
    const start = match.index ?? 0;
    if (start > at) nodes.push(document.createTextNode(text.slice(at, start)));
    const anchor = document.createElement("a");
    const address = match[0];
    anchor.href = address.toLowerCase().startsWith("www.") ? `http://${address}` : address;
    anchor.rel = "nofollow noopener";
    anchor.textContent = address;
    nodes.push(anchor);
    at = start + address.length;
  }
  if (at < text.length) nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}

/** @param {HTMLElement} threadElement */
function threadPage(threadElement) {
  const conversationId = Number(threadElement.dataset.conversationId);
  const me = threadElement.dataset.me ?? "";
  const links = threadElement.dataset.links === "true";
  const list = /** @type {HTMLOListElement} */ (document.getElementById("thread-messages"));
  const empty = document.getElementById("thread-empty");
  const form = /** @type {HTMLFormElement | null} */ (document.getElementById("thread-form"));
  const input = /** @type {HTMLTextAreaElement | null} */ (document.getElementById("thread-body"));
  const error = document.getElementById("thread-error");
  const base = `/api/v1/conversations/${conversationId}/`;
  let unseen = false;

  function lastId() {
    const items = list.querySelectorAll("[data-message-id]");
    const last = items[items.length - 1];
    return last instanceof HTMLElement ? Number(last.dataset.messageId) : 0;
  }

  /** @param {DirectMessage} message */
  function append(message) {
    if (list.querySelector(`[data-message-id="${message.id}"]`)) return;
    const mine = message.sender === me;
    const item = document.createElement("li");
    item.className = mine ? "thread__message thread__message--mine" : "thread__message";
    item.dataset.messageId = String(message.id);
    const who = document.createElement("span");
    who.className = "visually-hidden";
    who.textContent = `${mine ? "You" : message.sender}: `;
    const body = document.createElement("p");
    body.className = "thread__body";
    body.append(...bodyNodes(message.body, links));
    const when = document.createElement("time");
    when.className = "muted thread__when";
    when.dateTime = message.created;
    when.textContent = new Date(message.created).toLocaleString([], {
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
    });
    item.append(who, body, when);
    if (!mine) {
      // Opened by frontend/js/report.js, which the page loads, as the rendered ones are.
      const report = document.createElement("button");
      report.className = "button button--small thread__report";
      report.type = "button";
      report.textContent = "Report";
      report.dataset.report = `${message.sender}'s message`;
      report.dataset.reportDirectMessage = String(message.id);
      report.setAttribute("aria-label", "Report this message to the moderators");
      item.append(report);
    }
    list.append(item);
    empty?.setAttribute("hidden", "");
    item.scrollIntoView({ block: "nearest" });
  }

  async function markRead() {
    unseen = false;
    await api(`${base}read/`, { method: "POST", body: {} }).catch(() => null);
  }

  /** @param {string} text */
  function showError(text) {
    if (!error) return;
    error.textContent = text;
    error.hidden = !text;
  }

  async function send() {
    if (!input) return;
    const text = input.value;
    if (!text.trim()) return;
    showError("");
    const answer = await api(`${base}messages/`, { method: "POST", body: { body: text } });
    if (answer.ok) {
      input.value = "";
      append(answer.data);
    } else if (answer.status === 429 && answer.retryAfter) {
      showError(`Too many messages: wait ${answer.retryAfter} s.`);
    } else {
      showError(answer.data?.detail ?? "The message could not be sent.");
    }
    input.focus();
  }

  form?.addEventListener("submit", (event) => {
    event.preventDefault();
    send();
  });
  input?.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    }
  });

  /** @param {number} id a message the moderators hid from this reader: it goes */
  function remove(id) {
    list.querySelector(`[data-message-id="${id}"]`)?.remove();
    if (!list.querySelector("[data-message-id]")) empty?.removeAttribute("hidden");
  }

  window.addEventListener("greycircle:me", (event) => {
    const frame = /** @type {CustomEvent<Schemas["MeSocketFrame"]>} */ (event).detail;
    if (frame.type === "direct_message_removed" && frame.conversation_id === conversationId) {
      remove(frame.id);
      return;
    }
    if (frame.type !== "direct_message" || frame.conversation_id !== conversationId) return;
    append(frame.message);
    if (frame.message.sender === me) return;
    if (document.visibilityState === "visible") markRead();
    else unseen = true;
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && unseen) markRead();
  });

  // What came between the page's rendering and this module's listening.
  api(`${base}messages/?after=${lastId()}`).then((answer) => {
    if (!answer.ok || !answer.data) return;
    /** @type {DirectMessage[]} */
    const newer = answer.data.results;
    if (!newer.length) return;
    for (const message of newer.slice().reverse()) append(message);
    if (document.visibilityState === "visible") markRead();
  });
  list.lastElementChild?.scrollIntoView({ block: "nearest" });
}

// --- The list of conversations -------------------------------------------------------------

const conversationList = document.getElementById("conversation-list");

/** @param {HTMLElement} listElement */
function listPage(listElement) {
  /** @param {Schemas["Conversation"]} conversation */
  function item(conversation) {
    const entry = document.createElement("li");
    entry.className = "game-list__item messages__item";
    if (conversation.unread_count) entry.classList.add("messages__item--unread");
    entry.dataset.conversationId = String(conversation.id);
    const link = document.createElement("a");
    link.className = "messages__with";
    link.href = `/messages/${encodeURIComponent(conversation.with_user)}/`;
    link.textContent = conversation.with_user;
    entry.append(link);
    if (conversation.unread_count) {
      const badge = document.createElement("span");
      badge.className = "badge badge--unread";
      badge.textContent = String(conversation.unread_count);
      badge.setAttribute("aria-label", `${conversation.unread_count} unread`);
      entry.append(badge);
    }
    const last = document.createElement("p");
    last.className = "muted messages__last";
    const message = conversation.last_message;
    last.textContent = message
      ? `${message.sender === conversation.with_user ? "" : "You: "}${message.body.slice(0, 80)}`
      : "No messages yet.";
    entry.append(last);
    return entry;
  }

  async function refresh() {
    const answer = await api("/api/v1/conversations/?page_size=50");
    if (!answer.ok || !answer.data) return;
    /** @type {Schemas["Conversation"][]} */
    const conversations = answer.data.results;
    listElement.replaceChildren(...conversations.map(item));
    document.getElementById("conversations-empty")?.toggleAttribute("hidden", conversations.length > 0);
  }

  window.addEventListener("greycircle:me", (event) => {
    const frame = /** @type {CustomEvent<Schemas["MeSocketFrame"]>} */ (event).detail;
    if (["direct_message", "direct_message_removed", "messages_unread"].includes(frame.type)) refresh();
  });
}

if (thread) threadPage(thread);
if (conversationList) listPage(conversationList);
