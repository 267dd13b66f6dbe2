// The King's Corner rules page: each diagram is a table drawn by the game's own renderer
// (kingscorner/page.js). Piles a diagram names in "expanded" are shown open, every card.

import { drawDiagrams } from "greycircle/rules-diagrams";
import { mount } from "kingscorner/page";

/**
 * kingscorner/rules_page.py: a table, with the piles named in `expanded` shown open.
 * @typedef {object} Diagram
 * @property {import("types/page").Schemas["KingsCornerGame"]} envelope
 * @property {boolean} helpers
 * @property {string[]} [expanded]
 */

drawDiagrams((container, /** @type {Diagram} */ diagram, context) => {
  const renderer = mount(container, context);
  renderer.render(diagram.envelope, null);
  for (const pile of diagram.expanded ?? []) {
    // The pile's own "show every card" button, as a player would press it.
    container.querySelector(/** @type {"button"} */ (`[data-pile="${pile}"] .kc-pile__count`))?.click();
  }
});
