// The CirKis rules page: each diagram is a position drawn by the game's own board renderer
// (cirkis/page.js), zoomed in on the fields the diagram is about ("focus"). The log entries that
// came with it ("moves") tell the renderer which fields make one piece, as on the game page.

import { drawDiagrams } from "greycircle/rules-diagrams";
import { mount } from "cirkis/page";

/** @typedef {import("types/page").Schemas} Schemas */
/** @typedef {import("cirkis/board-view").BoardData} BoardData */
/**
 * cirkis/rules_page.py: a position, the log entries that made it, the fields to zoom in on.
 * @typedef {object} Diagram
 * @property {Schemas["CirKisGame"]} envelope
 * @property {boolean} helpers
 * @property {Schemas["CirKisMoveLogEntry"][]} [moves]
 * @property {number[]} [focus]
 * @property {boolean} [scores] the score track is shown
 */

const MARGIN = 0.35;
// A zoomed view is at most this much wider than high, or higher than wide.
const MAX_ASPECT = 4 / 3;

/**
 * The board's viewBox around `focus` (field ids), or null for the whole board.
 * @param {number[]} focus
 * @param {import("cirkis/board-view").BoardData["fields"]} fields
 */
function viewBoxAround(focus, fields) {
  const points = focus.flatMap((id) => fields[id].points);
  if (!points.length) return null;
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const width = Math.max(...xs) - Math.min(...xs) + 2 * MARGIN;
  const height = Math.max(...ys) - Math.min(...ys) + 2 * MARGIN;
  const w = Math.max(width, height / MAX_ASPECT);
  const h = Math.max(height, width / MAX_ASPECT);
  const x0 = (Math.min(...xs) + Math.max(...xs) - w) / 2;
  const y0 = (Math.min(...ys) + Math.max(...ys) - h) / 2;
  return [x0, y0, w, h].map((n) => n.toFixed(3)).join(" ");
}

drawDiagrams((container, /** @type {Diagram} */ diagram, context) => {
  // The rules page of CirKis has the board's data as its kind data, as the game page does.
  const boardContext = /** @type {import("types/page").PageContext<Schemas["CirKisGame"], BoardData>} */ (context);
  const renderer = mount(container, boardContext);
  for (const entry of diagram.moves ?? []) renderer.describeMove(entry, diagram.envelope);
  renderer.render(diagram.envelope, null);
  // The parts mount drew, by their classes.
  const root = /** @type {HTMLElement} */ (container.querySelector(".cirkis"));
  const part = (/** @type {string} */ selector) => /** @type {HTMLElement} */ (root.querySelector(selector));
  part(".cirkis-scores").hidden = !diagram.scores;
  part(".cirkis-tray").hidden = true;
  part(".cirkis-bar").hidden = true;
  const board = part(".cirkis-board");
  board.removeAttribute("tabindex");
  const box = viewBoxAround(diagram.focus ?? [], boardContext.kindData.fields);
  if (box) {
    board.setAttribute("viewBox", box);
    board.classList.add("cirkis-board--zoomed");
  }
});
