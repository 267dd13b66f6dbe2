// The King's Corner rules page: each diagram is a table drawn by the game's own renderer
// (kingscorner/page.js). Piles a diagram names in "expanded" are shown open, every card.

import { drawDiagrams } from "greycircle/rules-diagrams";
import { mount } from "kingscorner/page";

drawDiagrams((container, diagram, context) => {
  const renderer = mount(container, context);
  renderer.render(diagram.envelope, null);
  for (const pile of diagram.expanded ?? []) {
    // The pile's own "show every card" button, as a player would press it.
    container.querySelector(`[data-pile="${pile}"] .kc-pile__count`)?.click();
  }
});
