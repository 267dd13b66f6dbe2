// The Circles rules page: each diagram is a position drawn by the game's own board renderer
// (circles/page.js), with the discs a move flipped ringed.

import { drawDiagrams } from "greycircle/rules-diagrams";
import { mount } from "circles/page";

const SVG = "http://www.w3.org/2000/svg";
const FILES = "abcdefgh";

/**
 * circles/rules_page.py: a position, with the discs a move flipped (`marks`) ringed.
 * @typedef {object} Diagram
 * @property {import("types/page").Schemas["CirclesGame"]} envelope
 * @property {boolean} helpers
 * @property {string[]} [marks]
 */

drawDiagrams((container, /** @type {Diagram} */ diagram, context) => {
  const renderer = mount(container, context);
  renderer.render(diagram.envelope, null);
  const board = /** @type {SVGSVGElement} */ (container.querySelector(".circles-board"));
  board.removeAttribute("tabindex");
  board.classList.add("circles-board--diagram");
  for (const square of diagram.marks ?? []) {
    const col = FILES.indexOf(square[0]);
    const row = Number(square.slice(1)) - 1;
    const ring = document.createElementNS(SVG, "circle");
    ring.setAttribute("cx", String(col + 0.5));
    ring.setAttribute("cy", String(row + 0.5));
    ring.setAttribute("r", "0.45");
    ring.setAttribute("class", "circles-board__mark");
    ring.dataset.square = square;
    board.append(ring);
  }
});
