// The CirKis rules page: each diagram is a position drawn by the game's own board renderer
// (cirkis/page.js), zoomed in on the fields the diagram is about ("focus"). The log entries that
// came with it ("moves") tell the renderer which fields make one piece, as on the game page.

import { drawDiagrams } from "greycircle/rules-diagrams";
import { mount } from "cirkis/page";

const MARGIN = 0.35;
// A zoomed view is at most this much wider than high, or higher than wide.
const MAX_ASPECT = 4 / 3;

/** The board's viewBox around `focus` (field ids), or null for the whole board. */
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

drawDiagrams((container, diagram, context) => {
  const renderer = mount(container, context);
  for (const entry of diagram.moves ?? []) renderer.describeMove(entry, diagram.envelope);
  renderer.render(diagram.envelope, null);
  const root = container.querySelector(".cirkis");
  root.querySelector(".cirkis-scores").hidden = !diagram.scores;
  root.querySelector(".cirkis-tray").hidden = true;
  root.querySelector(".cirkis-bar").hidden = true;
  const board = root.querySelector(".cirkis-board");
  board.removeAttribute("tabindex");
  const box = viewBoxAround(diagram.focus ?? [], context.kindData.fields);
  if (box) {
    board.setAttribute("viewBox", box);
    board.classList.add("cirkis-board--zoomed");
  }
});
