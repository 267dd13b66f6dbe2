// King's Corner input: play by dragging a card (or a foundation pile) onto a pile, or by clicking
// a card (or a foundation pile) and then a pile; Escape drops the choice. The listeners sit on the
// table's root (the view draws the table anew on each render), and they change the page's shared
// state (`ui`) and ask the view (table-view.js) to draw.

/** @typedef {import("kingscorner/table-view").TableUi} TableUi */
/** @typedef {import("kingscorner/table-view").TableView} TableView */
/** @typedef {import("kingscorner/table-view").Selection} Selection */
/** @typedef {import("kingscorner/table-view").PileName} PileName */
/** @typedef {import("types/page").Schemas["KingsCornerMoveRequest"]} Move */
/**
 * A pointer held down on a card or a pile; once it moved far enough, a drag with its ghost.
 * @typedef {object} Press
 * @property {Selection} source
 * @property {HTMLElement} from
 * @property {number} id
 * @property {number} x
 * @property {number} y
 * @property {boolean} [dragging]
 * @property {number} [dx]
 * @property {number} [dy]
 * @property {PileName | null} [over]
 * @property {HTMLElement} [ghost]
 */
/** @typedef {Press & {dragging: true, dx: number, dy: number, ghost: HTMLElement}} Drag */

const DRAG_THRESHOLD_PX = 6;

/**
 * Listens on `root`; `play` sends a move to the server. Returns `cancelDrag` for a new render.
 * @param {HTMLElement} root
 * @param {{ui: TableUi, view: TableView, play: (move: Move) => void}} parts
 */
export function tableInput(root, { ui, view, play }) {
  /** @type {Press | null} maybe the start of a drag */
  let press = null;
  let suppressClick = false; // the click that follows a drag is not a selection
  // Only while a drag is under way (`press.dragging`).
  const drag = () => /** @type {Drag} */ (press);

  /**
   * @param {Selection} source
   * @param {PileName} pile
   * @returns {Move}
   */
  function moveFor(source, pile) {
    return source.card !== undefined
      ? { action: "play", card: source.card, to: pile }
      : { action: "move_pile", from: source.pile, to: pile };
  }

  /** @param {Move} move */
  function send(move) {
    ui.selection = null;
    view.draw();
    play(move);
  }

  // --- clicks -----------------------------------------------------------------------------------

  /** @param {string} card */
  function clickCard(card) {
    if (takeSuppressedClick()) return;
    ui.selection = ui.selection?.card === card ? null : { card };
    view.draw();
  }

  /** @param {PileName} name */
  function clickPile(name) {
    if (takeSuppressedClick()) return;
    // The table (and so a pile to click) is drawn only once the cards are dealt.
    const pile = /** @type {import("kingscorner/table-view").Dealt} */ (ui.current).state.piles[name];
    if (ui.selection) {
      if (ui.selection.pile === name) {
        ui.selection = null;
        view.draw();
      } else {
        send(moveFor(ui.selection, name));
      }
    } else if (ui.sourcePiles().has(name)) {
      ui.selection = { pile: name };
      view.draw();
    } else if (pile.length) {
      toggle(name);
    }
  }

  /** @param {PileName} name */
  function toggle(name) {
    if (ui.expanded.has(name)) ui.expanded.delete(name);
    else ui.expanded.add(name);
    view.draw();
  }

  function takeSuppressedClick() {
    const suppressed = suppressClick;
    suppressClick = false;
    return suppressed;
  }

  const pileOf = (/** @type {Element} */ node) =>
    /** @type {PileName} */ (/** @type {HTMLElement} */ (node.closest("[data-pile]")).dataset.pile);
  /** The element an event happened on, in the table's HTML. */
  const targetOf = (/** @type {Event} */ event) => /** @type {Element} */ (event.target);

  root.addEventListener("click", (event) => {
    const button = targetOf(event).closest("button");
    if (!button || !root.contains(button)) return;
    if (button.classList.contains("kc-pile__count")) toggle(pileOf(button));
    else if (button.classList.contains("kc-pile__cards")) clickPile(pileOf(button));
    else if (button.classList.contains("kc-fan__card")) clickCard(/** @type {string} */ (button.dataset.card));
    else if (button.classList.contains("kc-end-turn")) send({ action: "end_turn" });
  });

  // --- drag and drop (pointer events: mouse, pen and touch alike) -------------------------------

  /**
   * @param {number} x
   * @param {number} y
   * @returns {PileName | null}
   */
  function pileAt(x, y) {
    const hit = document.elementFromPoint(x, y);
    const pile = hit?.closest("[data-pile]");
    return pile && root.contains(pile) ? pileOf(pile) : null;
  }

  /**
   * @param {PointerEvent} event
   * @param {HTMLElement} from
   * @param {Selection} source
   */
  function pressStart(event, from, source) {
    if (event.pointerType === "mouse" && event.button !== 0) return;
    suppressClick = false;
    press = { source, from, id: event.pointerId, x: event.clientX, y: event.clientY };
    from.setPointerCapture?.(event.pointerId);
  }

  // A card of the hand, or a foundation pile the server lets move, may be dragged.
  root.addEventListener("pointerdown", (event) => {
    const card = targetOf(event).closest(/** @type {"button"} */ (".kc-fan__card"));
    if (card) {
      pressStart(event, card, { card: /** @type {string} */ (card.dataset.card) });
      return;
    }
    const pile = targetOf(event).closest(/** @type {"button"} */ (".kc-pile__cards"));
    if (pile && ui.sourcePiles().has(pileOf(pile))) pressStart(event, pile, { pile: pileOf(pile) });
  });

  // The ghost lives inside the table's root (its CSS sizes come from there), placed in the
  // root's coordinates: the root is the containing block of what it positions.
  /** @param {PointerEvent} event */
  function dragStart(event) {
    const started = /** @type {Press} */ (press);
    const from = started.from;
    const box = from.getBoundingClientRect();
    const ghost = /** @type {HTMLElement} */ (from.cloneNode(true));
    ghost.classList.add("kc-ghost");
    ghost.removeAttribute("data-focus-key");
    ghost.setAttribute("aria-hidden", "true");
    ghost.style.width = `${from.offsetWidth}px`;
    ghost.style.height = `${from.offsetHeight}px`;
    started.dragging = true;
    started.dx = started.x - box.left;
    started.dy = started.y - box.top;
    started.over = null;
    ui.selection = started.source;
    view.markSelection();
    root.append(ghost);
    started.ghost = ghost;
    root.classList.add("kc--dragging");
    dragMove(event);
  }

  /** @param {PointerEvent} event */
  function dragMove(event) {
    const dragged = drag();
    const origin = root.getBoundingClientRect();
    const x = event.clientX - dragged.dx - origin.left;
    const y = event.clientY - dragged.dy - origin.top;
    dragged.ghost.style.transform = `translate(${x}px, ${y}px) rotate(4deg)`;
    const over = pileAt(event.clientX, event.clientY);
    if (over !== dragged.over) {
      root.querySelector(".kc-pile--over")?.classList.remove("kc-pile--over");
      if (over) root.querySelector(`[data-pile="${over}"]`)?.classList.add("kc-pile--over");
      dragged.over = over;
    }
  }

  /**
   * @param {PointerEvent} event
   * @param {boolean} dropped
   */
  function pressEnd(event, dropped) {
    const ended = /** @type {Press} */ (press);
    press = null;
    if (!ended.dragging || !ended.ghost) return;
    ended.ghost.remove();
    root.classList.remove("kc--dragging");
    suppressClick = true;
    setTimeout(() => {
      suppressClick = false;
    }, 0);
    const target = dropped ? pileAt(event.clientX, event.clientY) : null;
    if (target && target !== ended.source.pile) {
      send(moveFor(ended.source, target));
    } else {
      ui.selection = null;
      view.draw();
    }
  }

  // On the window: a drag may leave the table (and the pointer may be released anywhere).
  window.addEventListener("pointermove", (event) => {
    if (!press || event.pointerId !== press.id) return;
    if (press.dragging) {
      event.preventDefault();
      dragMove(event);
    } else if (Math.hypot(event.clientX - press.x, event.clientY - press.y) >= DRAG_THRESHOLD_PX) {
      dragStart(event);
    }
  });
  window.addEventListener("pointerup", (event) => {
    if (press && event.pointerId === press.id) pressEnd(event, true);
  });
  window.addEventListener("pointercancel", (event) => {
    if (press && event.pointerId === press.id) pressEnd(event, false);
  });
  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && ui.selection) {
      ui.selection = null;
      view.draw();
    }
  });

  // A new envelope redraws the table: a drag in progress ends without a move.
  function cancelDrag() {
    if (press?.dragging) {
      drag().ghost.remove();
      root.classList.remove("kc--dragging");
    }
    press = null;
  }

  return { cancelDrag };
}
