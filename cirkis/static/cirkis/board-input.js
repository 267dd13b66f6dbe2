// CirKis input: choosing a piece in the tray, showing its fits under the pointer (or stepping
// through them with the arrow keys) and placing one. It changes the page's shared state (`ui`)
// and asks the view (board-view.js) to draw; where a piece may go comes only from ui.legal.

/** @typedef {import("cirkis/board-view").Placement} Placement */
/** @typedef {import("cirkis/board-view").Point} Point */
/** @typedef {import("cirkis/board-view").PieceKey} PieceKey */

/** @type {Record<string, number>} */
const STEPS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

/**
 * Listens to the view's board, tray and bar buttons; `play` sends a placement to the server.
 * @param {object} parts
 * @param {import("cirkis/board-view").BoardView} parts.view
 * @param {import("cirkis/board-view").BoardUi} parts.ui
 * @param {Record<string, import("cirkis/board-view").Piece>} parts.pieces by key
 * @param {Point[]} parts.centres of the fields, by id
 * @param {(move: import("types/page").Schemas["CirKisMoveRequest"]) => Promise<void>} parts.play
 */
export function boardInput({ view, ui, pieces, centres, play }) {
  const { board, hint, otherFit, placeButton, trayList } = view;

  /**
   * The fits of the chosen piece covering `id`, nearest (to `at`) first.
   * @param {number} id
   * @param {Point | null | undefined} at
   */
  function fitsAt(id, at) {
    const chosen = /** @type {PieceKey} */ (ui.chosen); // only asked for with a piece chosen
    const moves = (ui.legal.byPiece.get(chosen) ?? []).filter((move) => move.fields.includes(id));
    const [x, y] = at ?? centres[id];
    const distance = (/** @type {Placement} */ move) => (move.centre[0] - x) ** 2 + (move.centre[1] - y) ** 2;
    return moves.sort((a, b) => distance(a) - distance(b));
  }

  /**
   * Where the pointer is, in the board's coordinates.
   * @param {MouseEvent} event
   * @returns {Point | null}
   */
  function boardPoint(event) {
    const matrix = board.getScreenCTM();
    if (!matrix) return null;
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    return [point.x, point.y];
  }

  /** @param {Event} event */
  function fieldOf(event) {
    const id = /** @type {SVGElement | null} */ (event.target)?.dataset?.field;
    return id === undefined ? null : Number(id);
  }

  /** @param {PieceKey} key */
  function choose(key) {
    if (!ui.myTurn()) return;
    ui.chosen = ui.chosen === key ? null : key;
    ui.preview = null;
    ui.cycle = 0;
    view.redraw();
  }

  /**
   * @param {number} id
   * @param {Point | null | undefined} at
   * @param {number} [step]
   */
  function showFit(id, at, step = 0) {
    const fits = fitsAt(id, at);
    if (!fits.length) {
      ui.preview = null;
    } else {
      const from = ui.preview?.anchor === id ? ui.cycle : 0;
      const index = (((from + step) % fits.length) + fits.length) % fits.length;
      ui.cycle = index;
      ui.preview = { move: fits[index], anchor: id, index, count: fits.length, at };
    }
    view.drawPreview();
    view.drawBar();
  }

  /** @param {Placement} move */
  async function place(move) {
    if (ui.busy || !ui.myTurn()) return;
    ui.busy = true;
    view.drawBar();
    try {
      await play({ piece: move.piece, fields: move.fields });
    } finally {
      ui.busy = false;
      view.drawBar();
    }
  }

  // The tray is drawn anew on each render: one listener on it serves every piece button.
  trayList.addEventListener("click", (event) => {
    const button = /** @type {Element} */ (event.target).closest(/** @type {"button"} */ ("[data-piece]"));
    if (button && !button.disabled) choose(/** @type {PieceKey} */ (button.dataset.piece));
  });

  board.addEventListener("pointerdown", (event) => {
    ui.lastPointer = event.pointerType === "touch" || event.pointerType === "pen" ? "touch" : "mouse";
  });

  board.addEventListener("pointermove", (event) => {
    if (event.pointerType !== "mouse" || !ui.myTurn() || !ui.chosen || ui.busy) return;
    ui.lastPointer = "mouse";
    const id = fieldOf(event);
    if (id === null || ui.preview?.move.fields.includes(id)) return; // still over the piece shown
    showFit(id, boardPoint(event));
  });

  board.addEventListener("click", (event) => {
    const id = fieldOf(event);
    if (id === null || !ui.myTurn()) return;
    if (!ui.chosen) {
      // Only a game in play is anyone's turn: it has a state.
      const state = /** @type {import("cirkis/board-view").Placing} */ (ui.current).state;
      if (state.owners[id] === null) hint.textContent = "Choose a piece in your tray first.";
      return;
    }
    if (ui.preview && ui.preview.move.fields.includes(id)) {
      place(ui.preview.move); // a click (or a second tap) on the piece shown places it
      return;
    }
    showFit(id, boardPoint(event));
    if (!ui.preview) {
      hint.textContent = `The ${pieces[ui.chosen].name} does not fit there.`;
      return;
    }
    if (ui.lastPointer !== "touch") place(ui.preview.move);
  });

  board.addEventListener(
    "wheel",
    (event) => {
      const preview = ui.preview;
      if (!preview || preview.count < 2 || !ui.myTurn()) return;
      event.preventDefault();
      showFit(preview.anchor, preview.at, event.deltaY > 0 ? 1 : -1);
    },
    { passive: false },
  );

  board.addEventListener("keydown", (event) => {
    if (!ui.myTurn() || !ui.chosen) return;
    const moves = ui.legal.byPiece.get(ui.chosen) ?? [];
    if (!moves.length) return;
    if (STEPS[event.key]) {
      event.preventDefault();
      const at = ui.preview ? moves.indexOf(ui.preview.move) : -1;
      const next = at < 0 ? 0 : (at + STEPS[event.key] + moves.length) % moves.length;
      const move = moves[next];
      ui.preview = { move, anchor: move.fields[0], index: next, count: 1, keyboard: true };
      view.drawPreview();
      view.drawBar();
    } else if ((event.key === "Enter" || event.key === " ") && ui.preview) {
      event.preventDefault();
      place(ui.preview.move);
    } else if (event.key === "Escape") {
      ui.preview = null;
      view.drawPreview();
      view.drawBar();
    }
  });

  otherFit.addEventListener("click", () => {
    if (ui.preview) showFit(ui.preview.anchor, ui.preview.at, 1);
  });
  placeButton.addEventListener("click", () => {
    if (ui.preview) place(ui.preview.move);
  });
}
