// The small DOM builders every game page uses, so each page module draws its own game and not
// its own copy of these.

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * An SVG element (`svg`, `polygon`, `g`, ...) with the given attributes.
 * @template {keyof SVGElementTagNameMap} T
 * @param {T} tag
 * @param {Record<string, string | number>} [attributes]
 * @returns {SVGElementTagNameMap[T]}
 */
export function svg(tag, attributes = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

/**
 * An HTML element with a class and attributes: `true` sets an empty attribute, and `false`,
 * `null` or `undefined` leaves it out (so `"aria-pressed": selected ? "true" : null` reads well).
 * @template {keyof HTMLElementTagNameMap} T
 * @param {T} tag
 * @param {string} [className]
 * @param {Record<string, string | number | boolean | null | undefined>} [attributes]
 * @returns {HTMLElementTagNameMap[T]}
 */
export function element(tag, className, attributes = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) node.setAttribute(name, "");
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(name, String(value));
  }
  return node;
}

/**
 * An HTML element with a class and, when given, its text.
 * @template {keyof HTMLElementTagNameMap} T
 * @param {T} tag
 * @param {string} [className]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[T]}
 */
export function textElement(tag, className, text) {
  const node = element(tag, className);
  if (text !== undefined) node.textContent = text;
  return node;
}
