// King's Corner drawing: the other players, the eight piles around the stock, your fanned hand
// and, at the end, every hand; drawn anew from what the page knows (`ui`). Nothing here listens to
// the player: table-input.js does, on the table's root, and asks this view to draw again.

import { element } from "greycircle/dom";

/** @typedef {import("types/page").Schemas} Schemas */
/** @typedef {Schemas["KingsCornerGame"]} KingsCornerGame */
/** @typedef {import("types/page").Shown<KingsCornerGame>} Shown */
/** @typedef {Shown & {state: Schemas["KingsCornerState"]}} Dealt a game whose cards are dealt */
/** @typedef {Schemas["KingsCornerPileEnum"]} PileName */
/** What a click on a pile would play: a card of the hand, or a foundation pile. */
/** @typedef {{card: string, pile?: undefined} | {pile: PileName, card?: undefined}} Selection */
/**
 * What the page knows (kingscorner/page.js makes it), shared by the view (which reads it) and
 * the input (which changes it); what the server allows comes only from its legal moves.
 * @typedef {object} TableUi
 * @property {Shown | null} current the newest envelope
 * @property {Selection | null} selection
 * @property {Set<PileName>} expanded piles shown in full
 * @property {Set<string>} drawn cards that came into your hand since you last played one
 * @property {Set<PileName>} changed piles that changed in the newest envelope (they flash once)
 * @property {() => Schemas["KingsCornerMove"][]} legal
 * @property {() => Set<string>} playableCards
 * @property {() => Set<PileName>} sourcePiles
 * @property {() => boolean} canEndTurn
 * @property {(source: Selection | null) => Set<PileName>} targetsOf
 */
/** @typedef {ReturnType<typeof tableView>} TableView */

/** @type {Record<string, string>} */
const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
/** @type {Record<string, string>} */
const SUIT_WORDS = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
/** @type {Record<string, string>} */
const RANK_WORDS = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
/** @type {Record<PileName, string>} */
const PILE_WORDS = {
  N: "North", E: "East", S: "South", W: "West",
  NE: "North-east", SE: "South-east", SW: "South-west", NW: "North-west",
};
// The table, row by row; null is the stock in the middle.
/** @type {(PileName | null)[]} */
const LAYOUT = ["NW", "N", "NE", "W", null, "E", "SW", "S", "SE"];
/** @type {Set<PileName>} */
const CORNERS = new Set(["NE", "SE", "SW", "NW"]);
const TEXT_STYLE = "\uFE0E"; // keeps ♥ and ♦ from turning into emoji on phones

// A card is written "7D", "TC": its rank, then its suit.
const rankText = (/** @type {string} */ card) => (card[0] === "T" ? "10" : card[0]);
const suitOf = (/** @type {string} */ card) => card[1];
const isRed = (/** @type {string} */ card) => card[1] === "D" || card[1] === "H";
/** "7♦", "10♣": how cards are written in the log and in labels. */
export const cardText = (/** @type {string} */ card) => `${rankText(card)}${SUITS[suitOf(card)]}`;
export const cardWords = (/** @type {string} */ card) =>
  `${RANK_WORDS[card[0]] ?? card[0]} of ${SUIT_WORDS[suitOf(card)]}`;
export const plural = (/** @type {number} */ count, /** @type {string} */ word) =>
  `${count} ${word}${count === 1 ? "" : "s"}`;

/**
 * A card face drawn with CSS: rank and suit in two corners, the suit (or J, Q, K) in the middle.
 * @param {string} card
 * @param {{tag?: "span" | "button", className?: string, attributes?: Record<string, string>}} [options]
 */
function cardFace(card, { tag = "span", className = "", attributes = {} } = {}) {
  const colour = isRed(card) ? "kc-card--red" : "kc-card--black";
  const face = element(tag, `kc-card ${colour} ${className}`, { "data-card": card, ...attributes });
  const index = element("span", "kc-card__index", { "aria-hidden": "true" });
  const rank = element("span", "kc-card__rank");
  rank.textContent = rankText(card);
  const suit = element("span", "kc-card__suit");
  suit.textContent = SUITS[suitOf(card)] + TEXT_STYLE;
  index.append(rank, suit);
  const faceCard = "JQK".includes(card[0]);
  const pip = element("span", `kc-card__pip${faceCard ? " kc-card__pip--face" : ""}`, {
    "aria-hidden": "true",
  });
  pip.textContent = faceCard ? card[0] : SUITS[suitOf(card)] + TEXT_STYLE;
  const corner = /** @type {HTMLElement} */ (index.cloneNode(true));
  corner.className = "kc-card__index kc-card__index--far";
  face.append(index, pip, corner);
  if (tag === "span") {
    face.setAttribute("role", "img");
    face.setAttribute("aria-label", cardWords(card));
  }
  return face;
}

/** @param {string} [className] */
export function cardBack(className = "") {
  return element("span", `kc-card kc-card--back ${className}`, { "aria-hidden": "true" });
}

/**
 * A seat's name; two computers at the same level are told apart by their seat numbers.
 * @param {Shown} envelope
 * @param {number} seat
 */
export function playerName(envelope, seat) {
  const name = envelope.seats[seat]?.name ?? `Seat ${seat + 1}`;
  const twins = envelope.seats.filter((other) => other.name === name).length > 1;
  return twins ? `${name} #${seat + 1}` : name;
}

/**
 * The table's drawing in `root`. `ui` is the page's shared state, with what the server allows
 * (only from its legal moves); the view only reads it, but for `changed`, the piles that flash
 * once: drawn, they are forgotten. `showHelpers` lights what may be played.
 * @param {HTMLElement} root
 * @param {{ui: TableUi, showHelpers: boolean}} options
 */
export function tableView(root, { ui, showHelpers }) {
  // What is drawn below is drawn only once the cards are dealt (`draw` checks).
  const game = () => /** @type {Dealt} */ (ui.current);
  /** @param {Element} node */
  const pileName = (node) => /** @type {PileName} */ (/** @type {HTMLElement} */ (node).dataset.pile);
  // While dragging, the pressed element stays in place (a redraw would lose the pointer): only
  // the highlights change.
  function markSelection() {
    const targets = showHelpers ? ui.targetsOf(ui.selection) : new Set();
    for (const pile of root.querySelectorAll("[data-pile]")) {
      pile.classList.toggle("kc-pile--target", targets.has(pileName(pile)));
      pile.classList.toggle("kc-pile--selected", ui.selection?.pile === pileName(pile));
      pile.classList.remove("kc-pile--movable");
    }
    for (const card of root.querySelectorAll(/** @type {"button"} */ (".kc-fan__card"))) {
      card.classList.toggle("kc-card--selected", ui.selection?.card === card.dataset.card);
    }
  }

  function opponents() {
    const current = game();
    const { state } = current;
    const strip = element("ul", "kc-opponents", { "aria-label": "Other players" });
    current.seats.forEach((seat, index) => {
      if (index === current.you) return;
      const turn = state.to_move === index && current.status === "active";
      const item = element("li", `kc-opponent${turn ? " kc-opponent--to-move" : ""}`, {
        "data-seat": index,
      });
      const backs = element("span", "kc-opponent__backs", { "aria-hidden": "true" });
      const count = state.hand_sizes[index];
      for (let i = 0; i < Math.min(count, 5); i += 1) backs.append(cardBack("kc-card--mini"));
      const name = element("span", "kc-opponent__name");
      name.textContent = playerName(current, index);
      const cards = element("span", "kc-opponent__count");
      cards.textContent = plural(count, "card");
      item.append(backs, name, cards);
      if (turn) {
        const badge = element("span", "kc-opponent__turn");
        badge.textContent = seat.ai_level ? "thinking…" : "to play";
        item.append(badge);
      }
      strip.append(item);
    });
    return strip;
  }

  /** @param {PileName} name */
  function pileCell(name) {
    const cards = game().state.piles[name];
    const targets = showHelpers ? ui.targetsOf(ui.selection) : new Set();
    const source = ui.sourcePiles().has(name);
    const open = ui.expanded.has(name) && cards.length > 0;
    const classes = ["kc-pile", CORNERS.has(name) ? "kc-pile--corner" : "kc-pile--foundation"];
    if (!cards.length) classes.push("kc-pile--empty");
    if (targets.has(name)) classes.push("kc-pile--target");
    if (ui.selection?.pile === name) classes.push("kc-pile--selected");
    if (source) classes.push("kc-pile--source");
    if (showHelpers && source && !ui.selection) classes.push("kc-pile--movable");
    if (open) classes.push("kc-pile--expanded");
    if (ui.changed.has(name)) classes.push("kc-pile--changed");
    const cell = element("div", classes.join(" "), {
      "data-pile": name,
      style: `grid-area: ${name}`,
    });

    const head = element("div", "kc-pile__head");
    const label = element("span", "kc-pile__name", { title: PILE_WORDS[name] });
    label.textContent = name;
    head.append(label);
    if (cards.length) {
      const count = element("button", "kc-pile__count", {
        type: "button",
        "aria-expanded": String(open),
        "aria-label": `${open ? "Hide" : "Show"} every card of ${PILE_WORDS[name]}`,
        "data-focus-key": `count-${name}`,
      });
      count.textContent = `${cards.length} ${open ? "▴" : "▾"}`;
      head.append(count);
    }

    let description = `${PILE_WORDS[name]}: `;
    if (!cards.length) {
      description += "empty";
    } else if (cards.length === 1) {
      description += `1 card, ${cardText(cards[0])}`;
    } else {
      description += `${cards.length} cards, ${cardText(cards[0])} at the bottom, `;
      description += `${cardText(cards[cards.length - 1])} on top`;
    }
    if (targets.has(name)) description += " — you can play here";
    const button = element("button", "kc-pile__cards", {
      type: "button",
      "aria-label": description,
      "aria-pressed": ui.selection?.pile === name ? "true" : null,
      "data-focus-key": `pile-${name}`,
      draggable: "false",
    });
    if (!cards.length) {
      const slot = element("span", "kc-slot", { "aria-hidden": "true" });
      slot.textContent = CORNERS.has(name) ? "♔" : "";
      button.append(slot);
    } else if (open) {
      cards.forEach((card, i) => {
        const attributes = { style: `--i: ${i}` };
        button.append(cardFace(card, { className: "kc-card--stacked", attributes }));
      });
      button.style.setProperty("--n", String(cards.length));
    } else {
      button.append(cardFace(cards[0], { className: "kc-pile__bottom" }));
      if (cards.length > 2) {
        const more = element("span", "kc-pile__more", { "aria-hidden": "true" });
        more.textContent = `+${cards.length - 2}`;
        button.append(more);
      }
      if (cards.length > 1) button.append(cardFace(cards[cards.length - 1], { className: "kc-pile__top" }));
    }
    cell.append(head, button);
    return cell;
  }

  function stockCell() {
    const count = game().state.stock;
    const cell = element("div", "kc-stock", { style: "grid-area: stock" });
    const head = element("div", "kc-pile__head");
    const label = element("span", "kc-pile__name");
    label.textContent = "Stock";
    head.append(label);
    const pile = element("div", "kc-stock__pile", {
      role: "img",
      "aria-label": count ? `Stock: ${plural(count, "card")} face down` : "Stock: empty",
    });
    if (count) {
      if (count > 1) pile.append(cardBack("kc-stock__under"));
      pile.append(cardBack());
    } else {
      pile.append(element("span", "kc-slot"));
    }
    const number = element("span", "kc-stock__count", { "aria-hidden": "true" });
    number.textContent = String(count);
    pile.append(number);
    cell.append(head, pile);
    return cell;
  }

  function table() {
    const grid = element("div", "kc-table", { role: "group", "aria-label": "Table" });
    for (const name of LAYOUT) grid.append(name === null ? stockCell() : pileCell(name));
    return grid;
  }

  function hand() {
    const cards = game().state.hand ?? []; // drawn only for a player's seat, which has a hand
    const playable = showHelpers ? ui.playableCards() : new Set();
    const myTurn = ui.legal().length > 0;
    const section = element("section", `kc-hand${myTurn ? " kc-hand--active" : ""}`, {
      "aria-label": "Your hand",
    });
    const head = element("div", "kc-hand__head");
    const title = element("h2", "kc-hand__title");
    title.textContent = `Your hand · ${plural(cards.length, "card")}`;
    head.append(title);
    if (ui.canEndTurn()) {
      const end = element("button", "button button--primary button--small kc-end-turn", {
        type: "button",
        "data-focus-key": "end-turn",
      });
      end.textContent = game().state.stock ? "End turn (draw)" : "End turn";
      head.append(end);
    }
    const fan = element("ol", `kc-fan${cards.length > 12 ? " kc-fan--many" : ""}`);
    // The fan: at most 2.5° between cards and 14° from end to end.
    const middle = (cards.length - 1) / 2;
    const step = cards.length > 1 ? Math.min(2.5, 14 / (cards.length - 1)) : 0;
    cards.forEach((card, i) => {
      const slot = element("li", "kc-fan__slot");
      slot.style.setProperty("--rot", `${((i - middle) * step).toFixed(2)}deg`);
      const classes = ["kc-fan__card"];
      if (playable.has(card)) classes.push("kc-card--playable");
      if (ui.selection?.card === card) classes.push("kc-card--selected");
      if (ui.drawn.has(card)) classes.push("kc-card--new");
      let label = cardWords(card);
      if (playable.has(card)) label += ", playable";
      if (ui.drawn.has(card)) label += ", just drawn";
      const button = cardFace(card, {
        tag: "button",
        className: classes.join(" "),
        attributes: {
          type: "button",
          "aria-label": label,
          "aria-pressed": String(ui.selection?.card === card),
          "data-focus-key": `card-${card}`,
          draggable: "false",
        },
      });
      slot.append(button);
      fan.append(slot);
    });
    if (!cards.length) {
      const none = element("li", "kc-fan__empty");
      none.textContent = "No cards left.";
      fan.append(none);
    }
    const hint = element("p", "kc-hint");
    if (ui.selection?.card) {
      hint.textContent = `${cardText(ui.selection.card)} selected: now choose a pile to play it on.`;
    } else if (ui.selection?.pile) {
      hint.textContent = `${ui.selection.pile} selected: now choose a pile to move it onto.`;
    } else if (myTurn) {
      hint.textContent = "Drag a card onto a pile, or choose a card and then a pile.";
    }
    section.append(head, fan, hint);
    return section;
  }

  function finalHands() {
    const current = game();
    const { state, outcome } = current;
    const winners = new Set(outcome && "winners" in outcome ? outcome.winners : []);
    const section = element("section", "kc-final", { "aria-labelledby": "kc-final-title" });
    const title = element("h2", "kc-final__title", { id: "kc-final-title" });
    title.textContent = "Final hands";
    const list = element("ul", "kc-final__list");
    (state.final_hands ?? []).forEach((cards, seat) => {
      const winner = winners.has(seat);
      const item = element("li", `kc-final__seat${winner ? " kc-final__seat--winner" : ""}`, {
        "data-seat": seat,
      });
      const head = element("div", "kc-final__head");
      const name = element("span", "kc-final__name");
      name.textContent = playerName(current, seat) + (seat === current.you ? " (you)" : "");
      head.append(name);
      if (winner) {
        const badge = element("span", "kc-final__winner");
        badge.textContent = "Winner";
        head.append(badge);
      }
      const points = element("span", "kc-final__points");
      points.textContent = plural((state.penalties ?? [])[seat], "penalty point");
      head.append(points);
      const row = element("div", "kc-final__cards");
      for (const card of cards) row.append(cardFace(card, { className: "kc-card--small" }));
      if (!cards.length) {
        const out = element("span", "kc-final__out");
        out.textContent = "Went out: no cards left.";
        row.append(out);
      }
      item.append(head, row);
      list.append(item);
    });
    section.append(title, list);
    return section;
  }

  function draw() {
    if (!ui.current?.state) {
      const waiting = element("p", "kc-waiting");
      waiting.textContent = "The cards are dealt as soon as every seat is taken.";
      root.replaceChildren(waiting);
      return;
    }
    // The table is drawn anew each time: keep the keyboard focus on the same card or pile.
    const active = document.activeElement;
    const focused = active instanceof HTMLElement && root.contains(active) ? active.dataset.focusKey : null;
    const { state } = game();
    const parts = [];
    if (state.final_hands) parts.push(finalHands());
    parts.push(opponents(), table());
    if (state.hand && !state.final_hands) parts.push(hand());
    root.replaceChildren(...parts);
    if (focused) root.querySelector(/** @type {"button"} */ (`[data-focus-key="${focused}"]`))?.focus();
    ui.changed = new Set();
  }

  return { draw, markSelection };
}
