// The small DOM builders every game page uses, so each page module draws its own game and not
// its own copy of these.

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element (`svg`, `polygon`, `g`, ...) with the given attributes. */
export function svg(tag, attributes = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

/**
 * An HTML element with a class and attributes: `true` sets an empty attribute, and `false`,
 * `null` or `undefined` leaves it out (so `"aria-pressed": selected ? "true" : null` reads well).
 */
export function element(tag, className, attributes = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) node.setAttribute(name, "");
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(name, value);
  }
  return node;
}

/** An HTML element with a class and, when given, its text. */
export function textElement(tag, className, text) {
  const node = element(tag, className);
  if (text !== undefined) node.textContent = text;
  return node;
}
