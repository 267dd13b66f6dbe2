// The live connection to one game: the REST API for commands, the WebSocket for updates.
// It keeps the newest envelope the server sent and never decides anything about the rules.

const RECONNECT_DELAYS_MS = [500, 1000, 2000, 4000, 8000];
// Close codes after which reconnecting cannot help: log in again (4401), no such game (4404),
// not allowed to watch it (4403).
const FINAL_CLOSE_CODES = new Set([4401, 4403, 4404]);
// A move log still shorter than the newest envelope's move_count after this many fetches in a row
// is left until the next envelope (the server commits a move before it announces it, so this
// only happens when something is wrong; it must not become a busy loop).
const MAX_BEHIND_FETCHES = 3;
// How long a log behind its envelope waits for the socket frame that carries its entries.
const FRAME_WAIT_MS = 1500;
// Socket frames carry the log entries their change added; the log is fetched only to fill a gap
// (`?after=` the entries it has), e.g. after a reconnect.
// A move sent on the socket waits this long for its answer, then goes over HTTP with the same
// idempotency key: played once, whichever of the two arrives.
const MOVE_ANSWER_WAIT_MS = 4000;

/** @typedef {import("types/page").Schemas} Schemas */
/** @typedef {import("types/page").Envelope} Envelope */
/** @typedef {Schemas["MoveLogEntry"]} MoveLogEntry */
/** @typedef {Schemas["MoveRequestRequest"]["move"]} Move */
/** @typedef {Schemas["GameSocketFrame"]} GameSocketFrame */
/** @typedef {Schemas["MoveAckFrame"] | Schemas["MoveErrorFrame"]} MoveAnswer */
// "offline": the browser has no network (navigator.onLine); it reconnects as soon as it has.
/** @typedef {"live" | "reconnecting" | "offline" | "closed"} ConnectionState */
/**
 * @typedef {object} GameClientCallbacks
 * @property {(envelope: Envelope, previous: Envelope) => void} [onEnvelope] a newer envelope came
 * @property {(moves: MoveLogEntry[], envelope: Envelope) => void} [onMoves] the log grew
 * @property {(state: ConnectionState) => void} [onConnection]
 * @property {(frame: GameSocketFrame) => void} [onFrame] every frame the socket brings, before the
 *   client takes it (the chat panel's frames, which the client leaves alone)
 */

/** @param {string} name */
function cookie(name) {
  const match = document.cookie.match(new RegExp(`(?:^|; )${name}=([^;]*)`));
  return match ? decodeURIComponent(match[1]) : "";
}

function newIdempotencyKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A refusal in the API's error shape (`{"code": ..., "detail": ...}`). */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {Partial<Schemas["Error"]>} body
   */
  constructor(status, body) {
    super(body.detail || `Request failed (${status}).`);
    this.status = status;
    this.code = body.code || "error";
    this.body = body;
  }
}

export class GameClient {
  /**
   * @param {Envelope} envelope
   * @param {GameClientCallbacks} [callbacks]
   */
  constructor(envelope, { onEnvelope, onMoves, onConnection, onFrame } = {}) {
    this.envelope = envelope;
    this.id = envelope.id;
    /** @type {MoveLogEntry[]} */
    this.moves = [];
    /** @type {Promise<void> | null} the fetch of the move log in flight, if any */
    this.movesLoading = null;
    this.movesWanted = false; // an envelope arrived while it was in flight: fetch again after it
    /** @type {string | null} the ETag of `envelope` as fetched, for `refresh` to ask "changed?" */
    this.etag = null;
    this.onEnvelope = onEnvelope || (() => {});
    this.onMoves = onMoves || (() => {});
    this.onConnection = onConnection || (() => {});
    this.onFrame = onFrame || (() => {});
    this.attempt = 0;
    /** @type {WebSocket | null} */
    this.socket = null;
    this.live = false; // a socket is open and delivering frames
    /** @type {ReturnType<typeof setTimeout> | null} the reconnect waiting for its turn, if any */
    this.reconnectTimer = null;
    this.watchingNetwork = false;
    this.linkKey = new URLSearchParams(location.search).get("key");
    /** @type {Map<string, (answer: MoveAnswer | null) => void>} moves sent on the socket, by id */
    this.movesAwaited = new Map();
  }

  // An unlisted game is seen by someone not seated in it only with its link key (`?key=`, as the
  // page was opened): every read of it and its socket send it on.
  /** @param {string} path */
  withLinkKey(path) {
    if (!this.linkKey) return path;
    const url = new URL(path, location.origin);
    url.searchParams.set("key", this.linkKey);
    return url.pathname + url.search;
  }

  get version() {
    return this.envelope.version;
  }

  /**
   * The answer's body (null for 204).
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body]
   * @returns {Promise<any>} as the schema describes the operation's answer
   */
  async request(method, path, body) {
    return (await this.send(method, path, body)).data;
  }

  // The answer's body (null for 204 and 304) and its ETag. `etag`: answer 304 if unchanged.
  /**
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body]
   * @param {{etag?: string | null, idempotencyKey?: string}} [options]
   * @returns {Promise<{data: any, etag: string | null}>}
   */
  async send(method, path, body, { etag = null, idempotencyKey = "" } = {}) {
    const response = await fetch(method === "GET" ? this.withLinkKey(path) : path, {
      method,
      credentials: "same-origin",
      headers: {
        Accept: "application/json",
        ...(etag ? { "If-None-Match": etag } : {}),
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...(method !== "GET" ? { "X-CSRFToken": cookie("csrftoken") } : {}),
        ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : null,
    });
    /** @type {{data: any, etag: string | null}} */
    const answer = { data: null, etag: response.headers.get("ETag") };
    if (response.status === 204 || response.status === 304) return answer;
    answer.data = await response.json().catch(() => ({}));
    if (!response.ok) throw new ApiError(response.status, answer.data);
    return answer;
  }

  // Envelopes are whole: the newest version wins, older or repeated ones are dropped.
  // `entries`: the log entries a change added (a socket frame's `moves`), appended whenever they
  // follow on from the log as it is, whether or not their envelope is news (the answer to our own
  // move may have brought it first). A log still behind the envelope is fetched (`?after=`): at
  // once for the first frame of a new socket (`catchUp`: frames were missed) or without a live
  // socket, else after a moment, so the frame that carries the entries can arrive first.
  /**
   * @param {Envelope} envelope
   * @param {{catchUp?: boolean, entries?: MoveLogEntry[]}} [options]
   */
  accept(envelope, { catchUp = false, entries = [] } = {}) {
    if (envelope.id !== this.id) return;
    if (envelope.version > this.envelope.version) {
      const previous = this.envelope;
      this.envelope = envelope;
      this.etag = null;
      // A takeback undid moves: the log loses them too.
      if (envelope.move_count < this.moves.length) {
        this.moves = this.moves.slice(0, envelope.move_count);
        this.onMoves(this.moves, envelope);
      }
      this.onEnvelope(envelope, previous);
    } else if (envelope.version < this.envelope.version && !catchUp) {
      return;
    }
    this.extendMoves(entries);
    if (this.envelope.move_count === this.moves.length) return;
    if (catchUp || !this.live) this.loadMoves();
    else setTimeout(() => this.moves.length < this.envelope.move_count && this.loadMoves(), FRAME_WAIT_MS);
  }

  /** @param {MoveLogEntry[]} entries */
  extendMoves(entries) {
    if (this.movesLoading || !entries.length) return;
    if (entries[0].number !== this.moves.length + 1) return;
    this.moves = this.moves.concat(entries);
    this.onMoves(this.moves, this.envelope);
  }

  // Asks whether the game changed (If-None-Match): an unchanged game costs the server no envelope.
  async refresh() {
    /** @type {{data: Envelope | null, etag: string | null}} */
    const { data: envelope, etag } = await this.send("GET", `/api/v1/games/${this.id}/`, undefined, {
      etag: this.etag,
    });
    if (!envelope) return;
    this.accept(envelope);
    if (envelope.version === this.envelope.version) this.etag = etag;
  }

  // The move log is fetched whole, one request at a time, so an older (shorter) answer can never
  // arrive after a newer one and overwrite it. An envelope that comes in meanwhile asks for one
  // more fetch after the current one; so does a log still behind the newest envelope.
  /** @returns {Promise<void>} */
  loadMoves() {
    if (this.movesLoading) {
      this.movesWanted = true;
      return this.movesLoading;
    }
    this.movesLoading = this.fetchMovesUntilCurrent().finally(() => {
      this.movesLoading = null;
    });
    return this.movesLoading;
  }

  async fetchMovesUntilCurrent() {
    let behind = 0;
    for (;;) {
      this.movesWanted = false;
      /** @type {MoveLogEntry[]} */
      let moves;
      try {
        moves = await this.fetchMoves();
      } catch (error) {
        // Left as it is; the next envelope (or reconnect) fetches the log again.
        console.warn("The move list could not be loaded.", error);
        return;
      }
      // The log only grows: only entries that follow on from it are added.
      if (moves.length && moves[0].number === this.moves.length + 1) {
        this.moves = this.moves.concat(moves);
        this.onMoves(this.moves, this.envelope);
      }
      behind = this.moves.length >= this.envelope.move_count ? 0 : behind + 1;
      if (!this.movesWanted && (behind === 0 || behind >= MAX_BEHIND_FETCHES)) return;
    }
  }

  /** @returns {Promise<MoveLogEntry[]>} */
  fetchMoves() {
    const after = this.moves.length;
    return this.request("GET", `/api/v1/games/${this.id}/moves/${after ? `?after=${after}` : ""}`);
  }

  // On the live socket if there is one, else (or if it gives no answer in time) over HTTP.
  /** @param {Move} move */
  async play(move) {
    const key = newIdempotencyKey();
    /** @type {Schemas["MoveRequestRequest"]} */
    const body = { expected_version: this.version, move };
    try {
      const version = await this.playOnSocket(key, body);
      if (version !== null) {
        // Its envelope follows on the socket; fetched if it has not come after a moment.
        setTimeout(() => this.version < version && this.refresh().catch(() => {}), FRAME_WAIT_MS);
        return;
      }
      /** @type {{data: Envelope, etag: string | null}} */
      const { data: envelope, etag } = await this.send("POST", `/api/v1/games/${this.id}/moves/`, body, {
        idempotencyKey: key,
      });
      this.accept(envelope);
      if (envelope.version === this.envelope.version) this.etag = etag;
    } catch (error) {
      if (error instanceof ApiError && error.code === "stale_version") await this.refresh();
      throw error;
    }
  }

  /**
   * The move sent on the live socket as `id`: the game's version once it is played, or null if
   * there is no live socket, no answer came in time or the server failed (send it over HTTP then,
   * with `id` as its idempotency key). A refusal rejects, as over HTTP.
   * @param {string} id
   * @param {Schemas["MoveRequestRequest"]} body
   * @returns {Promise<number | null>}
   */
  playOnSocket(id, body) {
    const socket = this.socket;
    if (!this.live || !socket || socket.readyState !== WebSocket.OPEN) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      /** @param {MoveAnswer | null} answer */
      const answered = (answer) => {
        clearTimeout(timer);
        this.movesAwaited.delete(id);
        if (!answer || (answer.type === "move_error" && answer.code === "server_error")) resolve(null);
        // No HTTP status: answered on the socket.
        else if (answer.type === "move_error") reject(new ApiError(0, answer));
        else resolve(answer.version);
      };
      const timer = setTimeout(() => answered(null), MOVE_ANSWER_WAIT_MS);
      this.movesAwaited.set(id, answered);
      /** @type {Schemas["MoveFrame"]} */
      const frame = { type: "move", id, ...body };
      socket.send(JSON.stringify(frame));
    });
  }

  /**
   * Send `frame` on the live socket; false if there is none (send it over HTTP then).
   * @param {object} frame
   */
  sendFrame(frame) {
    if (!this.live || !this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }

  /**
   * A command on the game (`resign`, `claim`, `poke`, `cancel`, `rematch`): its answer.
   * @param {string} name
   * @returns {Promise<any>}
   */
  async command(name) {
    const envelope = await this.request("POST", `/api/v1/games/${this.id}/${name}/`);
    if (envelope && envelope.id === this.id) this.accept(envelope);
    return envelope;
  }

  // The browser's word on the network: gone, the socket is closed (it would fail, or hang on a
  // connection that is no longer there) and the page says so; back, it reconnects at once rather
  // than at the end of its back-off, and the new socket's first frame catches up.
  watchNetwork() {
    if (this.watchingNetwork) return;
    this.watchingNetwork = true;
    window.addEventListener("offline", () => {
      this.onConnection("offline");
      this.socket?.close();
    });
    window.addEventListener("online", () => {
      if (this.reconnectTimer === null) return; // connected, or connecting now
      clearTimeout(this.reconnectTimer);
      this.attempt = 0;
      this.connect();
    });
  }

  connect() {
    this.watchNetwork();
    this.reconnectTimer = null;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(
      `${scheme}://${location.host}${this.withLinkKey(`/ws/games/${this.id}/`)}`,
    );
    this.socket = socket;
    let first = true;
    socket.addEventListener("open", () => {
      this.live = true;
      this.onConnection("live");
    });
    socket.addEventListener("message", (event) => {
      /** @type {GameSocketFrame} */
      const message = JSON.parse(event.data);
      this.onFrame(message);
      if (message.type === "move_ack" || message.type === "move_error") {
        if (message.id !== null) this.movesAwaited.get(message.id)?.(message);
        return;
      }
      if (message.type !== "game") return;
      // Only a socket that delivers the game counts as back: one refused after opening (4503
      // while the server has no live updates) keeps backing off.
      this.attempt = 0;
      // A new socket's first frame is the newest envelope: catch up on what was missed.
      this.accept(message.envelope, { catchUp: first, entries: message.moves || [] });
      first = false;
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.live = false;
      // Moves still awaiting their answer go over HTTP (played once, by their key).
      for (const answered of [...this.movesAwaited.values()]) answered(null);
      if (FINAL_CLOSE_CODES.has(event.code)) {
        this.onConnection("closed");
        return;
      }
      const offline = !navigator.onLine;
      this.onConnection(offline ? "offline" : "reconnecting");
      // Meanwhile the REST API may still answer (e.g. 4503: the server lost its channel layer).
      if (!offline) this.refresh().catch(() => {});
      const delay = RECONNECT_DELAYS_MS[Math.min(this.attempt, RECONNECT_DELAYS_MS.length - 1)];
      this.attempt += 1;
      this.reconnectTimer = setTimeout(() => this.connect(), delay);
    });
  }
}
