// The replay page: a game that is over, step by step, drawn by the kind's own renderer.
//
// The page holds the replay (GET /api/v1/games/{id}/replay/: every step as this viewer could see
// it then). Each step becomes an envelope like the game page's, with no legal moves, and goes to
// the renderer's render(envelope, previous); the board is inert. Step with the buttons, the
// keyboard (← → Home End) or the slider; the move list jumps to a move.
//
// Kinds with an analysis (Circles): the page reads it (GET .../analysis/); the game's players
// and staff (`may_analyse`) may ask for it with a button (POST, within their limits); while it is
// computed the page reads it every ANALYSIS_POLL_MS, showing what has been analysed so far. The move list
// marks mistakes and blunders; for the step shown, the renderer's optional
//   describeAnalysis(position, envelope)  one line about the move played to reach the step
//   describeBest(position, envelope)      one line about the best move from the step
//   showAnalysis(position | null)         mark the board (Circles: the best move's square)
// say what the engine thinks (`position`: one entry of the analysis's `positions`).

/** @typedef {import("types/page").Schemas} Schemas */
/** @typedef {import("types/page").Shown} Shown */
/** @typedef {import("types/page").Renderer} Renderer */
/** @typedef {import("types/page").PageModule} PageModule */
/** @typedef {import("types/page").AnalysisPosition} AnalysisPosition */
/** @typedef {Schemas["GameReplay"]} Replay */
/** @typedef {Schemas["MoveLogEntry"]} MoveLogEntry */
/** @typedef {Schemas["GameAnalysis"]} Analysis */
/** The page's settings (frontend/replay_views.py, "replay-settings"). */
/** @typedef {{analysis: boolean, may_analyse: boolean, records: boolean}} ReplaySettings */

const ANALYSIS_POLL_MS = 2000;
/** @type {Record<string, string>} */
const MARK_SIGNS = { mistake: "?", blunder: "??" };
/** @type {Record<string, string>} */
const MARK_WORDS = { mistake: "a mistake", blunder: "a blunder" };

/** An element of the page's template (frontend/replay.html), where it always is. */
const byId = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const root = byId("replay");
/** @type {Replay} */
const replay = JSON.parse(byId("replay-data").textContent ?? "");
/** @type {ReplaySettings} */
const settings = JSON.parse(byId("replay-settings").textContent ?? "");
const kindData = JSON.parse(byId("kind-data").textContent ?? "");
/** An element of the replay's part of the template; `#study-record` and `#record-text` only when
 *  the kind has records: those are looked for with `find`. */
const $ = (/** @type {string} */ selector) => /** @type {HTMLElement} */ (root.querySelector(selector));
const find = (/** @type {string} */ selector) => /** @type {HTMLInputElement | null} */ (root.querySelector(selector));
const button = (/** @type {string} */ selector) => /** @type {HTMLButtonElement} */ ($(selector));
const last = replay.steps.length - 1;

/** @param {string} path */
function withLinkKey(path) {
  if (!LINK_KEY) return path;
  const url = new URL(path, location.origin);
  url.searchParams.set("key", LINK_KEY);
  return url.pathname + url.search;
}

/** @param {string} name */
function cookie(name) {
  const match = document.cookie.match(new RegExp(`(?:^|; )${name}=([^;]*)`));
  return match ? decodeURIComponent(match[1]) : "";
}

// An unlisted game's page is opened with its link key (`?key=`); every read of it sends it on.
const LINK_KEY = new URLSearchParams(location.search).get("key");

/**
 * @param {string} method
 * @param {string} path
 * @returns {Promise<Analysis>} the analysis (its only use)
 */
async function api(method, path) {
  const response = await fetch(withLinkKey(path), {
    method,
    credentials: "same-origin",
    headers: {
      Accept: "application/json",
      ...(method !== "GET" ? { "X-CSRFToken": cookie("csrftoken") } : {}),
    },
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.detail || `Request failed (${response.status}).`);
  return data;
}

/**
 * Step `index` as the envelope the renderer knows from the game page.
 * @param {number} index
 * @returns {Shown}
 */
function envelopeAt(index) {
  const step = replay.steps[index];
  const end = index === last;
  // One kind's replay gives that kind's steps: TypeScript does not follow `kind` that far.
  return /** @type {Shown} */ ({
    id: replay.id,
    kind: replay.kind,
    status: end ? replay.status : "active",
    version: step.number,
    move_count: step.number,
    options: replay.options,
    seats: replay.seats,
    you: replay.you,
    to_move: end && replay.status !== "active" ? null : step.to_move,
    state: step.state,
    legal_moves: [],
    outcome: end ? replay.outcome : null,
    invitations: [],
    rematch_id: null,
    created_by: null,
  });
}

/** @param {number} index */
function seatName(index) {
  if (index === replay.you) return "You";
  return replay.seats[index]?.name ?? `Seat ${index + 1}`;
}

/**
 * @param {Renderer} renderer
 * @param {MoveLogEntry} entry
 * @param {Shown} envelope
 */
function moveLine(renderer, entry, envelope) {
  const line = renderer.describeMove?.(entry, envelope);
  return line || `${entry.number}. ${seatName(entry.seat)} moved`;
}

/**
 * @param {Renderer} renderer
 * @param {Shown} envelope
 */
function outcomeLine(renderer, envelope) {
  const { outcome } = replay;
  if (replay.status === "aborted") {
    // Why, as the outcome tells (games aborted before the reason was kept have none).
    if (outcome && "seat" in outcome && outcome.seat !== undefined) {
      const who = outcome.seat === replay.you ? "you" : replay.seats[outcome.seat].name;
      return `The game was aborted: ${who} did not make a first move in time.`;
    }
    return outcome?.reason === "staff" ? "The game was stopped by the staff." : "The game was aborted.";
  }
  if (!outcome || !("winners" in outcome)) return "Game over.";
  if (outcome.winners.length === 0) return "Game over: a tie.";
  const names = outcome.winners.map((seat) => (seat === replay.you ? "You" : replay.seats[seat].name));
  if (names.length > 1) return `Game over: ${names.join(" and ")} share the win.`;
  // How it was won, in the kind's words as on the game page (CirKis: a tie-break explained).
  const how = renderer.describeOutcome?.(outcome, envelope);
  return `Game over: ${names[0]} ${names[0] === "You" ? "win" : "wins"}${how ? ` ${how}` : ""}.`;
}

async function main() {
  /** @type {PageModule} */
  const module = await import(`${replay.kind}/page`);
  const board = $("#board");
  const renderer = module.mount(board, {
    showHelpers: false,
    kindData,
    notify() {},
    async play() {},
  });
  // A replay is looked at, not played: no clicks, no focus on the board.
  board.inert = true;

  // Every step but the start has the move that led to it.
  const entries = replay.steps.slice(1).map((step) => /** @type {MoveLogEntry} */ (step.move));
  const finalEnvelope = envelopeAt(last);
  const lines = entries.map((entry) => moveLine(renderer, entry, finalEnvelope));
  /** @type {Map<number, AnalysisPosition>} move number -> the analysis of that move */
  let analysed = new Map();
  /** @type {number | null} the step shown */
  let current = null;

  const list = $("#moves");
  const items = entries.map((entry, index) => {
    const item = document.createElement("li");
    item.className = "replay__move-item";
    item.dataset.number = String(entry.number);
    const jump = document.createElement("button");
    jump.type = "button";
    jump.className = "replay__move-button";
    jump.textContent = lines[index];
    jump.addEventListener("click", () => show(index + 1));
    item.append(jump);
    if (entry.imported) item.classList.add("move-list__item--imported");
    return item;
  });
  list.replaceChildren(...items);

  /** @param {Shown} envelope */
  function renderSeats(envelope) {
    $("#seats").replaceChildren(
      ...replay.seats.map((seat) => {
        const item = document.createElement("li");
        item.className = "player";
        item.dataset.seat = String(seat.seat);
        if (seat.seat === envelope.to_move && envelope.status === "active") item.classList.add("player--to-move");
        if (seat.seat === replay.you) item.classList.add("player--you");
        const marker = renderer.seatMarker?.(seat.seat);
        if (marker) item.append(marker);
        const name = document.createElement("span");
        name.className = "player__name";
        name.textContent = seat.seat === replay.you ? `${seat.name} (you)` : seat.name;
        item.append(name);
        const score = renderer.seatScore?.(envelope, seat.seat);
        if (score !== undefined && score !== null) {
          const badge = document.createElement("span");
          badge.className = "player__score";
          badge.textContent = String(score);
          item.append(badge);
        }
        return item;
      }),
    );
  }

  /**
   * @param {number} index
   * @param {Shown} envelope
   */
  function statusLine(index, envelope) {
    if (index === last) return outcomeLine(renderer, envelope);
    if (index === 0) return "The start.";
    const seat = envelope.to_move;
    if (seat === null || seat === undefined) return "";
    return seat === replay.you ? "Your move." : `${seatName(seat)} to move.`;
  }

  /**
   * @param {number} index
   * @param {Shown} envelope
   */
  function renderAnalysis(index, envelope) {
    if (!settings.analysis) return;
    // The move that led here, and the best move from here (the next move's analysis).
    const played = analysed.get(index);
    const next = analysed.get(index + 1);
    const here = $("#analysis-here");
    const move = $("#analysis-move");
    const describe = (/** @type {AnalysisPosition} */ position) =>
      renderer.describeAnalysis?.(position, envelope) ?? `Move ${position.number} lost ${position.loss}.`;
    move.hidden = !played;
    move.textContent = played ? describe(played) : "";
    move.dataset.mark = played?.mark ?? "";
    here.hidden = !next;
    here.textContent = next ? renderer.describeBest?.(next, envelope) ?? "" : "";
    if (!here.textContent) here.hidden = true;
    renderer.showAnalysis?.(next ?? null);
  }

  /** @param {number} index */
  function show(index) {
    index = Math.max(0, Math.min(last, index));
    if (index === current) return;
    const envelope = envelopeAt(index);
    // One step from the last: the renderer may show what changed (Circles flips the discs).
    const previous = current === null || Math.abs(index - current) !== 1 ? null : envelopeAt(current);
    current = index;
    renderer.render(envelope, previous);
    // Renderers that learn from the log (CirKis outlines the pieces) see it up to this step.
    if (renderer.describeMove) for (const entry of entries.slice(0, index)) renderer.describeMove(entry, envelope);
    renderSeats(envelope);
    root.dataset.step = String(index);
    /** @type {HTMLInputElement} */ ($("#slider")).value = String(index);
    $("#step-number").textContent = String(index);
    $("#status").textContent = statusLine(index, envelope);
    $("#move-text").textContent = index === 0 ? "Before the first move." : lines[index - 1];
    for (const [position, item] of items.entries()) {
      const active = position === index - 1;
      item.classList.toggle("replay__move-item--current", active);
      if (active) item.setAttribute("aria-current", "step");
      else item.removeAttribute("aria-current");
    }
    items[index - 1]?.scrollIntoView({ block: "nearest" });
    button("#first").disabled = index === 0;
    button("#back").disabled = index === 0;
    button("#forward").disabled = index === last;
    button("#last").disabled = index === last;
    const record = renderer.record?.(envelope);
    const studyRecord = find("#study-record");
    if (studyRecord) studyRecord.value = record ?? "";
    renderAnalysis(index, envelope);
    history.replaceState(null, "", `#move-${index}`);
  }

  // Shown from here on: `current` is a step.
  const shown = () => /** @type {number} */ (current);
  $("#first").addEventListener("click", () => show(0));
  $("#back").addEventListener("click", () => show(shown() - 1));
  $("#forward").addEventListener("click", () => show(shown() + 1));
  $("#last").addEventListener("click", () => show(last));
  const slider = /** @type {HTMLInputElement} */ ($("#slider"));
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    // The slider steps itself; text boxes and lists keep their keys.
    if (target instanceof HTMLElement && target.closest("input, textarea, select, [contenteditable]")) return;
    /** @type {Record<string, number>} */
    const moves = { ArrowLeft: shown() - 1, ArrowRight: shown() + 1, Home: 0, End: last };
    if (!(event.key in moves)) return;
    event.preventDefault();
    show(moves[event.key]);
  });

  // The record: the whole game's, to copy; each step's goes with "Study from here".
  const recordField = find("#record-text");
  if (recordField) {
    const record = renderer.record?.(finalEnvelope);
    if (record === undefined) $("#record").hidden = true;
    else recordField.value = record;
    $("#copy-record").addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(recordField.value);
        $("#copy-record").textContent = "Copied";
      } catch {
        recordField.select();
        $("#copy-record").textContent = "Selected: press Ctrl+C";
      }
    });
  }

  const start = Number(/^#move-(\d+)$/.exec(window.location.hash)?.[1] ?? 0);
  show(Number.isFinite(start) ? start : 0);
  root.dataset.ready = "true";

  if (settings.analysis) await followAnalysis();

  /** @param {Analysis} analysis */
  function applyAnalysis(analysis) {
    analysed = new Map(analysis.positions.map((position) => [position.number, position]));
    for (const item of items) {
      const position = analysed.get(Number(item.dataset.number));
      item.querySelector(".replay__mark")?.remove();
      item.classList.remove("replay__move-item--mistake", "replay__move-item--blunder");
      if (!position?.mark) continue;
      item.classList.add(`replay__move-item--${position.mark}`);
      const tag = document.createElement("span");
      tag.className = "replay__mark";
      tag.textContent = `${MARK_SIGNS[position.mark]} −${position.loss}`;
      tag.title = `${MARK_WORDS[position.mark]}: lost ${position.loss}`;
      item.append(tag);
    }
    // The totals come with the whole game analysed (`seats` is null before): "0 mistakes" after
    // 3 moves of 60 would say what is not known yet.
    const summary = $("#analysis-summary");
    summary.hidden = !analysis.seats;
    summary.replaceChildren(
      ...(analysis.seats ?? []).map((seat) => {
        const item = document.createElement("li");
        item.textContent =
          `${seatName(seat.seat)}: ${seat.mistakes} mistake${seat.mistakes === 1 ? "" : "s"}, ` +
          `${seat.blunders} blunder${seat.blunders === 1 ? "" : "s"}, ` +
          `${seat.average_loss} lost per move on average`;
        return item;
      }),
    );
    const status = $("#analysis-status");
    const request = $("#analysis-request");
    root.dataset.analysis = analysis.status;
    if (analysis.status === "ready") status.textContent = "By the hard computer player.";
    else if (analysis.status === "failed") status.textContent = `The analysis failed. ${analysis.progress}`;
    else if (analysis.status === "not_requested")
      status.textContent = settings.may_analyse ? "Not analysed yet." : "Not analysed yet: the game's players may ask for it.";
    else status.textContent = analysis.progress; // "Analysed 3 of 60 moves so far."
    request.hidden = !settings.may_analyse || !["not_requested", "failed"].includes(analysis.status);
    request.textContent = analysis.status === "failed" ? "Try again" : "Analyse the game";
    const index = shown();
    current = null; // draw the step again, with what is known now
    show(index);
  }

  async function followAnalysis() {
    $("#analysis").hidden = false;
    $("#analysis-status").textContent = "Loading the analysis…";
    const path = `/api/v1/games/${replay.id}/analysis/`;
    const request = $("#analysis-request");
    request.addEventListener("click", () => {
      request.hidden = true;
      $("#analysis-status").textContent = "Asking for the analysis…";
      follow(api("POST", path));
    });
    await follow(api("GET", path));

    /** @param {Promise<Analysis>} answer */
    async function follow(answer) {
      try {
        let analysis = await answer;
        applyAnalysis(analysis);
        while (analysis.status === "pending") {
          await new Promise((resolve) => setTimeout(resolve, ANALYSIS_POLL_MS));
          analysis = await api("GET", path);
          applyAnalysis(analysis);
        }
      } catch (error) {
        // A refusal (e.g. too many analyses asked for today) says why; the button stays.
        const why = error instanceof Error ? error.message : String(error);
        $("#analysis-status").textContent = `The analysis is not available: ${why}`;
        request.hidden = !settings.may_analyse;
      }
    }
  }
}

main();
