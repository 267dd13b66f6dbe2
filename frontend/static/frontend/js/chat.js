// The game page's chat panel (greycircle/chat/templates/chat/game_panel.html): the rooms the
// viewer may read, live over the game's socket (`chat` frames out, `chat_message` in, and
// `chat_message_removed` for one the moderators hid) and read over REST on load and after every
// reconnect (`GET /api/v1/games/{id}/chat/?after=`).
//
// Every message is text: it is put in the page with textContent, never as markup. Its web
// addresses become links only when the server says so (`links`: the author is the viewer or
// their friend); a stranger's stay plain text. The server decides who reads which room; the panel
// only offers the rooms the viewer's seat and the game's status allow.

import { element, textElement } from "greycircle/dom";
import { reportOpen } from "greycircle/report";

/** @typedef {import("types/page").Schemas} Schemas */
/** @typedef {import("types/page").Envelope} Envelope */
/** @typedef {Schemas["GameMessage"]} GameMessage */
/** @typedef {Schemas["GameChat"]} GameChat */
/** @typedef {Schemas["GameSocketFrame"]} GameSocketFrame */
/** @typedef {"players" | "spectators"} Room */
/**
 * What the panel needs of the page: its game client's requests and socket.
 * @typedef {object} ChatClient
 * @property {number} id
 * @property {(method: string, path: string, body?: unknown) => Promise<any>} request
 * @property {(frame: object) => boolean} sendFrame
 * @property {(path: string) => string} withLinkKey
 */

// A message sent on the socket waits this long for its answer, then goes over HTTP with the same
// id: the message's idempotency key, so a late answer never means the message is posted twice.
const ANSWER_WAIT_MS = 4000;
const LINK = /\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]}]/g;
// What the panel says of a refusal that needs more than the server's detail.
/** @type {Record<string, string>} */
const HINTS = {
  chat_off: "Chat is off: turn it on to write.",
};

/**
 * `body` as text nodes and, where `links` allows, links (opened in a new tab, no referrer).
 * @param {HTMLElement} into
 * @param {string} body
 * @param {boolean} links
 */
export function messageBody(into, body, links) {
  if (!links) {
    into.textContent = body;
    return;
  }
  let at = 0;
  for (const match of body.matchAll(LINK)) {
    const start = match.index ?? 0;
    if (start > at) into.append(document.createTextNode(body.slice(at, start)));
    const link = element("a", "chat__link", { href: match[0], target: "_blank", rel: "noopener noreferrer nofollow ugc" });
    link.textContent = match[0];
    into.append(link);
    at = start + match[0].length;
  }
  if (at < body.length) into.append(document.createTextNode(body.slice(at)));
}

export class ChatPanel {
  /**
   * @param {HTMLElement} panel
   * @param {{client: ChatClient, username: string, envelope: Envelope}} context
   */
  constructor(panel, { client, username, envelope }) {
    this.panel = panel;
    this.client = client;
    this.username = username;
    /** @type {Map<Room, Map<number, GameMessage>>} the messages shown, by room and id */
    this.messages = new Map([["players", new Map()], ["spectators", new Map()]]);
    /** @type {Room} */
    this.room = envelope.you !== null ? "players" : "spectators";
    this.envelope = envelope;
    this.chatOn = true;
    /** @type {Map<string, (frame: any) => void>} messages sent on the socket, by frame id */
    this.awaited = new Map();
    this.list = /** @type {HTMLOListElement} */ (panel.querySelector(".chat__messages"));
    this.form = /** @type {HTMLFormElement} */ (panel.querySelector(".chat__form"));
    this.input = /** @type {HTMLInputElement} */ (panel.querySelector(".chat__input"));
    this.error = /** @type {HTMLElement} */ (panel.querySelector(".chat__error"));
    this.switch = /** @type {HTMLInputElement} */ (panel.querySelector(".chat__switch-box"));
    this.tabs = /** @type {HTMLButtonElement[]} */ ([...panel.querySelectorAll(".chat__room")]);
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send();
    });
    this.switch.addEventListener("change", () => this.turn(this.switch.checked));
    for (const tab of this.tabs) {
      tab.addEventListener("click", () => this.show(/** @type {Room} */ (tab.dataset.room)));
      tab.addEventListener("keydown", (event) => this.tabKey(event));
    }
    this.renderRooms();
    this.load();
  }

  /** The rooms the viewer may read now: players their own and, once it is over, the spectators'. */
  rooms() {
    /** @type {Room[]} */
    const rooms = [];
    if (this.envelope.you !== null) rooms.push("players");
    const over = ["finished", "aborted", "cancelled"].includes(this.envelope.status);
    if (this.envelope.you === null || over) rooms.push("spectators");
    return rooms;
  }

  /** @param {Envelope} envelope a newer envelope: the game may be over, the seat taken */
  update(envelope) {
    const before = this.rooms().join();
    this.envelope = envelope;
    if (this.rooms().join() !== before) {
      this.renderRooms();
      this.load();
    }
  }

  renderRooms() {
    const rooms = this.rooms();
    if (!rooms.includes(this.room)) this.room = rooms[0] ?? "spectators";
    for (const tab of this.tabs) {
      const room = /** @type {Room} */ (tab.dataset.room);
      tab.hidden = rooms.length < 2 || !rooms.includes(room);
      const selected = room === this.room;
      tab.setAttribute("aria-selected", String(selected));
      tab.tabIndex = selected ? 0 : -1;
    }
    // Players read the spectators' room once the game is over, but never write in it.
    this.form.hidden = this.room === "spectators" && this.envelope.you !== null;
    this.renderList();
  }

  /** @param {Room} room */
  show(room) {
    this.room = room;
    this.renderRooms();
  }

  // Arrow keys move between the room tabs (the tablist pattern).
  /** @param {KeyboardEvent} event */
  tabKey(event) {
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    const visible = this.tabs.filter((tab) => !tab.hidden);
    const at = visible.findIndex((tab) => tab.dataset.room === this.room);
    const next = visible[(at + (event.key === "ArrowRight" ? 1 : visible.length - 1)) % visible.length];
    if (!next) return;
    event.preventDefault();
    this.show(/** @type {Room} */ (next.dataset.room));
    next.focus();
  }

  /** @param {Room} room */
  path(room, after = 0) {
    const query = new URLSearchParams({ room });
    if (after) query.set("after", String(after));
    return `/api/v1/games/${this.client.id}/chat/?${query}`;
  }

  // Every room the viewer may read, from the last message the panel has: on load, and after a
  // reconnect (whose first frame it is told of), so nothing sent meanwhile is missed.
  async load() {
    for (const room of this.rooms()) {
      const known = [...(this.messages.get(room)?.keys() ?? [])];
      try {
        /** @type {GameChat} */
        const chat = await this.client.request("GET", this.path(room, known.length ? Math.max(...known) : 0));
        this.setChatOn(chat.chat_on_here, chat.chat_on);
        for (const message of chat.messages) this.add(message);
      } catch {
        // The socket brings new messages meanwhile; the next reconnect reads again.
      }
    }
  }

  /** @param {GameSocketFrame} frame a frame of the game's socket */
  frame(frame) {
    if (frame.type === "chat_message") this.add(frame.message);
    else if (frame.type === "chat_message_removed") this.remove(frame.room, frame.id);
    else if (frame.type === "chat_ack" || frame.type === "chat_error") this.awaited.get(frame.id ?? "")?.(frame);
    // The first frame of a new socket (or a resent one): read what came while it was away.
    else if (frame.type === "game" && !frame.moves) this.load();
  }

  /** @param {GameMessage} message */
  add(message) {
    const room = this.messages.get(/** @type {Room} */ (message.room));
    if (!room || room.has(message.id)) return;
    room.set(message.id, message);
    if (message.room === this.room) this.renderList();
  }

  /**
   * A message the moderators hid (they acted on a report of it): it leaves the room.
   * @param {Room} room
   * @param {number} id
   */
  remove(room, id) {
    if (this.messages.get(room)?.delete(id) && room === this.room) this.renderList();
  }

  renderList() {
    const shown = [...(this.messages.get(this.room)?.values() ?? [])].sort((a, b) => a.id - b.id);
    const atEnd = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 24;
    const items = shown.map((message) => {
      const mine = message.author.username === this.username;
      const item = element("li", mine ? "chat__message chat__message--mine" : "chat__message", {
        "data-message-id": message.id,
      });
      item.append(textElement("span", "chat__author", message.author.username));
      const body = element("span", "chat__body");
      messageBody(body, message.body, message.links);
      item.append(" ", body);
      if (message.hidden) {
        item.append(" ", textElement("span", "chat__hidden muted", "(only you and the moderators see this)"));
      }
      if (!mine) {
        // The moderators see the message in its context; the author is who is reported.
        const report = textElement("button", "chat__report button button--small", "Report");
        report.type = "button";
        report.setAttribute("aria-label", `Report the message of ${message.author.username}`);
        report.addEventListener("click", () =>
          reportOpen({ target: { game_message: message.id }, label: `${message.author.username}'s message` }),
        );
        item.append(" ", report);
      }
      return item;
    });
    if (!this.chatOn) items.push(textElement("li", "chat__empty muted", "Chat is off in this game."));
    else if (!items.length) items.push(textElement("li", "chat__empty muted", "No messages yet."));
    this.list.replaceChildren(...items);
    if (atEnd) this.list.scrollTop = this.list.scrollHeight;
  }

  /**
   * @param {boolean} here the game's own switch
   * @param {boolean} [on] on at all (the settings' `chat_enabled` too)
   */
  setChatOn(here, on = here) {
    this.switch.checked = here;
    this.chatOn = on;
    this.input.disabled = !on;
    this.renderList();
  }

  /** @param {boolean} on */
  async turn(on) {
    try {
      const answer = await this.client.request("PUT", this.client.withLinkKey(`/api/v1/games/${this.client.id}/chat/switch/`), { on });
      this.messages.forEach((room) => room.clear());
      this.setChatOn(answer.on);
      this.say("");
      if (answer.on) this.load();
    } catch (error) {
      this.switch.checked = !on;
      this.say(error instanceof Error ? error.message : "The switch could not be moved.");
    }
  }

  /** @param {string} text a refusal or failure to show ("" hides it) */
  say(text) {
    this.error.textContent = text;
    this.error.hidden = !text;
  }

  async send() {
    const body = this.input.value;
    if (!body.trim()) return;
    const room = this.room;
    const id = messageId();
    try {
      const message =
        (await this.onSocket(id, room, body)) ??
        (await this.client.request("POST", this.client.withLinkKey(`/api/v1/games/${this.client.id}/chat/`), { id, room, body }));
      // Shown once: its chat_message may have come first (add skips an id it has).
      this.add(message);
      this.input.value = "";
      this.say("");
    } catch (error) {
      const code = /** @type {{code?: string}} */ (error).code ?? "";
      this.say(HINTS[code] ?? (error instanceof Error ? error.message : "The message could not be sent."));
    }
    this.input.focus();
  }

  /**
   * The message posted on the live socket, or null to post it over HTTP (no live socket, no
   * answer in time, or the server failed); a refusal throws, as over HTTP.
   * @param {string} id
   * @param {Room} room
   * @param {string} body
   * @returns {Promise<GameMessage | null>}
   */
  onSocket(id, room, body) {
    return new Promise((resolve, reject) => {
      /** @param {any} frame its chat_ack or chat_error, or null for none */
      const answered = (frame) => {
        clearTimeout(timer);
        this.awaited.delete(id);
        if (!frame || (frame.type === "chat_error" && frame.code === "server_error")) resolve(null);
        else if (frame.type === "chat_error") reject(refusal(frame));
        else resolve(frame.message);
      };
      const timer = setTimeout(() => answered(null), ANSWER_WAIT_MS);
      this.awaited.set(id, answered);
      if (!this.client.sendFrame({ type: "chat", id, room, body })) answered(null);
    });
  }
}

/**
 * A new id for a message, unique among the viewer's (in every tab and device): 16 random bytes.
 * @returns {string}
 */
function messageId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `chat-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** @param {{code: string, detail: string}} frame a chat_error: an Error that says it */
function refusal(frame) {
  return Object.assign(new Error(frame.detail), { code: frame.code });
}

/**
 * Mount the chat panel of the game page, if the page has one.
 * @param {{client: ChatClient, username: string, envelope: Envelope}} context
 * @returns {ChatPanel | null}
 */
export function chatMount(context) {
  const panel = document.getElementById("chat");
  return panel ? new ChatPanel(panel, context) : null;
}
