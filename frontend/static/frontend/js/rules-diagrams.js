// The diagrams of a game's rules page, drawn by the game's own renderer.
//
// The page holds the positions as JSON (json_script "rules-diagrams": figure name -> diagram,
// each with the envelope the game page would get) and, for kinds that have it, the kind's fixed
// data ("kind-data"). A kind's rules module (`<kind>/rules.js`) calls drawDiagrams with a
// function that draws one diagram into an element with the kind's page module; this module finds
// every <figure data-diagram="name">, gives each a drawing area and a context in which nothing can
// be played, and marks the figure once drawn (data-drawn="true"). The drawings are inert: they
// illustrate the rules, the figure's caption says in words what they show.

/** @typedef {import("types/page").PageContext} PageContext */
/**
 * One figure's entry of the page's JSON (`<kind>/rules_page.py`): the envelope to draw, and
 * what the kind's rules module draws on it (Circles `marks`, King's Corner `expanded`, CirKis
 * `moves`, `focus`, `scores`).
 * @typedef {{envelope: import("types/page").Envelope, helpers?: boolean}} Diagram
 */

const noMove = async () => {};

/** @param {string} id */
function readJson(id) {
  const element = document.getElementById(id);
  return element ? JSON.parse(element.textContent ?? "") : null;
}

/**
 * Draw every figure of the page: `draw(container, diagram, context)` draws `diagram` (the
 * figure's entry of the page's JSON) into `container` with the kind's renderer.
 * @template {Diagram} D the kind's diagrams
 * @param {(container: HTMLElement, diagram: D, context: PageContext) => void} draw
 */
export function drawDiagrams(draw) {
  /** @type {Record<string, D>} */
  const diagrams = readJson("rules-diagrams") ?? {};
  const kindData = readJson("kind-data");
  for (const figure of document.querySelectorAll(/** @type {"figure"} */ ("figure[data-diagram]"))) {
    const name = /** @type {string} */ (figure.dataset.diagram);
    const diagram = diagrams[name];
    if (!diagram) {
      figure.dataset.drawn = "missing";
      console.error(`Rules page: no position for the diagram "${name}".`);
      continue;
    }
    const drawing = document.createElement("div");
    drawing.className = "rules-figure__drawing";
    figure.prepend(drawing);
    /** @type {PageContext} */
    const context = {
      showHelpers: Boolean(diagram.helpers),
      kindData,
      notify() {},
      play: noMove,
    };
    try {
      draw(drawing, diagram, context);
    } catch (error) {
      figure.dataset.drawn = "failed";
      console.error(`Rules page: the diagram "${name}" could not be drawn.`, error);
      continue;
    }
    drawing.inert = true;
    figure.dataset.drawn = "true";
  }
}
