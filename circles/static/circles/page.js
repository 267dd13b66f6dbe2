// Circles board: an SVG that scales to any screen, drawn from the server's view and legal moves.
// Click a square (or move the cursor with the arrow keys and press Enter) to play it; the server
// answers with the new game or says why the move is not possible.

import { svg } from "greycircle/dom";

/** @typedef {import("types/page").Schemas["CirclesGame"]} CirclesGame */
/** @typedef {import("types/page").Shown<CirclesGame>} Shown */
/** @typedef {import("types/page").AnalysisPosition} AnalysisPosition */

const FILES = "abcdefgh";
const COLOURS = ["white", "black"];
// How a game of Circles is won (the status line: "Game over: You win on discs.").
/** @type {Record<string, string>} */
const OUTCOMES = { more_discs: "on discs", tie: "" };
/** @type {Record<string, string>} */
const CELL_WORDS = { W: "white", B: "black", ".": "empty" };

const squareName = (/** @type {number} */ col, /** @type {number} */ row) => `${FILES[col]}${row + 1}`;

/**
 * @param {HTMLElement} container
 * @param {import("types/page").PageContext<CirclesGame>} context
 * @returns {import("types/page").Renderer<CirclesGame>}
 */
export function mount(container, context) {
  const board = svg("svg", {
    viewBox: "-0.55 -0.55 8.6 8.6",
    class: "circles-board",
    role: "grid",
    tabindex: "0",
    "aria-label": "Circles board. Arrow keys move the cursor, Enter plays.",
  });
  /** @type {SVGRectElement[]} */
  const squares = [];
  /** @type {SVGCircleElement[]} */
  const discs = [];
  /** @type {SVGCircleElement[]} */
  const hints = [];
  for (let i = 0; i < 8; i += 1) {
    const file = svg("text", { x: i + 0.5, y: -0.18, class: "circles-board__label" });
    file.textContent = FILES[i];
    const rank = svg("text", { x: -0.3, y: i + 0.62, class: "circles-board__label" });
    rank.textContent = String(i + 1);
    board.append(file, rank);
  }
  for (let row = 0; row < 8; row += 1) {
    for (let col = 0; col < 8; col += 1) {
      const name = squareName(col, row);
      const square = svg("rect", {
        x: col, y: row, width: 1, height: 1, class: "circles-board__square", "data-square": name,
      });
      const hint = svg("circle", {
        cx: col + 0.5, cy: row + 0.5, r: 0.16, class: "circles-board__hint", "data-square": name,
      });
      // Empty until the server says otherwise: a game waiting for players has no discs yet.
      const disc = svg("circle", { cx: col + 0.5, cy: row + 0.5, r: 0.4, class: "disc disc--empty" });
      disc.style.transformOrigin = `${col + 0.5}px ${row + 0.5}px`;
      square.addEventListener("click", () => choose(name));
      board.append(square, hint, disc);
      squares.push(square);
      discs.push(disc);
      hints.push(hint);
    }
  }
  const cursor = svg("rect", { x: 0, y: 0, width: 1, height: 1, class: "circles-board__cursor" });
  board.append(cursor);
  const cursorLabel = document.createElement("p");
  cursorLabel.className = "visually-hidden";
  cursorLabel.setAttribute("aria-live", "polite");
  container.append(board, cursorLabel);

  let cursorAt = { col: 3, row: 3 };
  /** @type {Shown | null} */
  let current = null;

  /** @param {string} name */
  function choose(name) {
    context.play({ square: name });
  }

  /**
   * @param {number} col
   * @param {number} row
   */
  function placeCursor(col, row) {
    cursorAt = { col: (col + 8) % 8, row: (row + 8) % 8 };
    cursor.setAttribute("x", String(cursorAt.col));
    cursor.setAttribute("y", String(cursorAt.row));
    const name = squareName(cursorAt.col, cursorAt.row);
    const cell = current?.state ? current.state.board[cursorAt.row][cursorAt.col] : ".";
    cursorLabel.textContent = `${name}: ${CELL_WORDS[cell]}`;
  }

  board.addEventListener("keydown", (event) => {
    board.classList.add("circles-board--keyboard");
    /** @type {Record<string, [number, number]>} */
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (moves[event.key]) {
      event.preventDefault();
      placeCursor(cursorAt.col + moves[event.key][0], cursorAt.row + moves[event.key][1]);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      choose(squareName(cursorAt.col, cursorAt.row));
    }
  });
  // The cursor shows only while someone plays with the keyboard.
  board.addEventListener("pointerdown", () => board.classList.remove("circles-board--keyboard"));
  board.addEventListener("blur", () => board.classList.remove("circles-board--keyboard"));

  return {
    preview(move) {
      for (const square of squares) {
        square.classList.toggle("circles-board__square--chosen", square.dataset.square === move?.square);
      }
    },
    render(envelope, previous) {
      current = envelope;
      const state = envelope.state;
      board.classList.toggle("circles-board--waiting", !state);
      if (!state) {
        // Waiting for players: the board is drawn empty until the game starts.
        for (const disc of discs) {
          disc.classList.remove("disc--white", "disc--black", "disc--flipped");
          disc.classList.add("disc--empty");
        }
        for (const hint of hints) hint.classList.remove("circles-board__hint--legal");
        for (const square of squares) square.classList.remove("circles-board__square--last");
        return;
      }
      const before = previous?.state?.board;
      const legal = new Set(context.showHelpers ? envelope.legal_moves.map((m) => m.square) : []);
      for (let row = 0; row < 8; row += 1) {
        for (let col = 0; col < 8; col += 1) {
          const index = row * 8 + col;
          const cell = state.board[row][col];
          const name = squareName(col, row);
          const disc = discs[index];
          disc.classList.toggle("disc--white", cell === "W");
          disc.classList.toggle("disc--black", cell === "B");
          disc.classList.toggle("disc--empty", cell === ".");
          const flipped = before && before[row][col] !== "." && before[row][col] !== cell;
          if (flipped) {
            disc.classList.remove("disc--flipped");
            void disc.getBoundingClientRect();
            disc.classList.add("disc--flipped");
          }
          squares[index].classList.toggle("circles-board__square--last", state.last_move === name);
          hints[index].classList.toggle("circles-board__hint--legal", legal.has(name));
          squares[index].setAttribute(
            "aria-label",
            `${name} ${CELL_WORDS[cell]}${legal.has(name) ? ", legal move" : ""}`,
          );
        }
      }
      placeCursor(cursorAt.col, cursorAt.row);
    },
    seatMarker(seat) {
      const marker = document.createElement("span");
      marker.className = `disc-marker disc-marker--${COLOURS[seat]}`;
      marker.title = COLOURS[seat];
      return marker;
    },
    seatScore(envelope, seat) {
      return envelope.state ? envelope.state.discs[seat] : null;
    },
    notices(envelope) {
      const passed = envelope.state?.passed ?? [];
      return passed.map((seat) => {
        const who = seat === envelope.you ? "You" : envelope.seats[seat].name;
        return `${who} (${COLOURS[seat]}) had no legal move and passed.`;
      });
    },
    describeMove(entry) {
      const who = COLOURS[entry.seat][0].toUpperCase() + COLOURS[entry.seat].slice(1);
      const flips = entry.flipped?.length ?? 0;
      let line = `${entry.number}. ${who} ${entry.square} (${flips} flipped)`;
      for (const seat of entry.passed ?? []) line += ` — ${COLOURS[seat]} passes`;
      return line;
    },
    describeOutcome(outcome) {
      return OUTCOMES[outcome.reason];
    },
    record(envelope) {
      return envelope.state?.record ?? "";
    },
    // The engine's analysis, on the replay page (frontend/js/replay.js).
    describeAnalysis(position) {
      const who = COLOURS[position.seat][0].toUpperCase() + COLOURS[position.seat].slice(1);
      const played = `${position.number}. ${who} ${position.played}`;
      if (position.loss === 0) {
        if (position.forced) return `${played}: the only move (${margin(position, position.played_score)}).`;
        return `${played}: the best move (${margin(position, position.played_score)}).`;
      }
      const what = position.mark ? MARK_WORDS[position.mark] : "";
      return (
        `${played} lost ${discCount(position.loss)}${what} ` +
        `(${margin(position, position.played_score)}; ${position.best} kept ${margin(position, position.best_score)}).`
      );
    },
    describeBest(position) {
      const who = COLOURS[position.seat];
      return `Best move for ${who}: ${position.best} (${margin(position, position.best_score)}).`;
    },
    showAnalysis(position) {
      for (const square of squares) {
        square.classList.toggle("circles-board__square--best", square.dataset.square === position?.best);
      }
    },
  };
}

const MARK_WORDS = { mistake: ": a mistake", blunder: ": a blunder" };

const discCount = (/** @type {number} */ count) => `${count} disc${count === 1 ? "" : "s"}`;

/**
 * A final disc margin for the player who moved: "+4", "-2", "even"; "≈" where estimated.
 * @param {AnalysisPosition} position
 * @param {number} score
 */
function margin(position, score) {
  const value = score === 0 ? "even" : `${score > 0 ? "+" : "−"}${Math.abs(score)}`;
  return position.exact ? value : `≈${value}`;
}
