// The live connection to one game: the REST API for commands, the WebSocket for updates.
// It keeps the newest envelope the server sent and never decides anything about the rules.

const RECONNECT_DELAYS_MS = [500, 1000, 2000, 4000, 8000];

function cookie(name) {
  const match = document.cookie.match(new RegExp(`(?:^|; )${name}=([^;]*)`));
  return match ? decodeURIComponent(match[1]) : "";
}

function idempotencyKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body.detail || `Request failed (${status}).`);
    this.status = status;
    this.code = body.code || "error";
    this.body = body;
  }
}

export class GameClient {
  constructor(envelope, { onEnvelope, onMoves, onConnection } = {}) {
    this.envelope = envelope;
    this.id = envelope.id;
    this.moves = [];
    this.onEnvelope = onEnvelope || (() => {});
    this.onMoves = onMoves || (() => {});
    this.onConnection = onConnection || (() => {});
    this.attempt = 0;
    this.socket = null;
  }

  get version() {
    return this.envelope.version;
  }

  async request(method, path, body) {
    const response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: {
        Accept: "application/json",
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        ...(method !== "GET" ? { "X-CSRFToken": cookie("csrftoken") } : {}),
        ...(method === "POST" && path.endsWith("/moves/")
          ? { "Idempotency-Key": idempotencyKey() }
          : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    if (response.status === 204) return null;
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new ApiError(response.status, data);
    return data;
  }

  // Envelopes are whole: the newest version wins, older or repeated ones are dropped.
  accept(envelope) {
    if (envelope.id !== this.id || envelope.version <= this.envelope.version) return;
    const previous = this.envelope;
    this.envelope = envelope;
    this.onEnvelope(envelope, previous);
    if (envelope.move_count !== this.moves.length) this.loadMoves();
  }

  async refresh() {
    this.accept(await this.request("GET", `/api/v1/games/${this.id}/`));
  }

  async loadMoves() {
    const moves = await this.request("GET", `/api/v1/games/${this.id}/moves/`);
    this.moves = moves;
    this.onMoves(moves, this.envelope);
  }

  async play(move) {
    try {
      const envelope = await this.request("POST", `/api/v1/games/${this.id}/moves/`, {
        expected_version: this.version,
        move,
      });
      this.accept(envelope);
      return envelope;
    } catch (error) {
      if (error instanceof ApiError && error.code === "stale_version") await this.refresh();
      throw error;
    }
  }

  async command(name) {
    const envelope = await this.request("POST", `/api/v1/games/${this.id}/${name}/`);
    if (envelope && envelope.id === this.id) this.accept(envelope);
    return envelope;
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/games/${this.id}/`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.attempt = 0;
      this.onConnection("live");
    });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "game") this.accept(message.envelope);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      if (event.code === 4401 || event.code === 4404) {
        this.onConnection("closed");
        return;
      }
      this.onConnection("reconnecting");
      const delay = RECONNECT_DELAYS_MS[Math.min(this.attempt, RECONNECT_DELAYS_MS.length - 1)];
      this.attempt += 1;
      setTimeout(() => this.connect(), delay);
    });
  }
}
