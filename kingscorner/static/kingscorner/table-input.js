// King's Corner input: play by dragging a card (or a foundation pile) onto a pile, or by clicking
// a card (or a foundation pile) and then a pile; Escape drops the choice. The listeners sit on the
// table's root (the view draws the table anew on each render), and they change the page's shared
// state (`ui`) and ask the view (table-view.js) to draw.

const DRAG_THRESHOLD_PX = 6;

/** Listens on `root`; `play` sends a move to the server. Returns `cancelDrag` for a new render. */
export function tableInput(root, { ui, view, play }) {
  let press = null; // a pointer held down on a card or a pile: maybe the start of a drag
  let suppressClick = false; // the click that follows a drag is not a selection

  function moveFor(source, pile) {
    return source.card !== undefined
      ? { action: "play", card: source.card, to: pile }
      : { action: "move_pile", from: source.pile, to: pile };
  }

  function send(move) {
    ui.selection = null;
    view.draw();
    play(move);
  }

  // --- clicks -----------------------------------------------------------------------------------

  function clickCard(card) {
    if (takeSuppressedClick()) return;
    ui.selection = ui.selection?.card === card ? null : { card };
    view.draw();
  }

  function clickPile(name) {
    if (takeSuppressedClick()) return;
    const pile = ui.current.state.piles[name];
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

  const pileOf = (node) => node.closest("[data-pile]").dataset.pile;

  root.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button || !root.contains(button)) return;
    if (button.classList.contains("kc-pile__count")) toggle(pileOf(button));
    else if (button.classList.contains("kc-pile__cards")) clickPile(pileOf(button));
    else if (button.classList.contains("kc-fan__card")) clickCard(button.dataset.card);
    else if (button.classList.contains("kc-end-turn")) send({ action: "end_turn" });
  });

  // --- drag and drop (pointer events: mouse, pen and touch alike) -------------------------------

  function pileAt(x, y) {
    const hit = document.elementFromPoint(x, y);
    const pile = hit?.closest("[data-pile]");
    return pile && root.contains(pile) ? pile.dataset.pile : null;
  }

  function pressStart(event, from, source) {
    if (event.pointerType === "mouse" && event.button !== 0) return;
    suppressClick = false;
    press = { source, from, id: event.pointerId, x: event.clientX, y: event.clientY };
    from.setPointerCapture?.(event.pointerId);
  }

  // A card of the hand, or a foundation pile the server lets move, may be dragged.
  root.addEventListener("pointerdown", (event) => {
    const card = event.target.closest(".kc-fan__card");
    if (card) {
      pressStart(event, card, { card: card.dataset.card });
      return;
    }
    const pile = event.target.closest(".kc-pile__cards");
    if (pile && ui.sourcePiles().has(pileOf(pile))) pressStart(event, pile, { pile: pileOf(pile) });
  });

  // The ghost lives inside the table's root (its CSS sizes come from there), placed in the
  // root's coordinates: the root is the containing block of what it positions.
  function dragStart(event) {
    const from = press.from;
    const box = from.getBoundingClientRect();
    const ghost = from.cloneNode(true);
    ghost.classList.add("kc-ghost");
    ghost.removeAttribute("data-focus-key");
    ghost.setAttribute("aria-hidden", "true");
    ghost.style.width = `${from.offsetWidth}px`;
    ghost.style.height = `${from.offsetHeight}px`;
    press.dragging = true;
    press.dx = press.x - box.left;
    press.dy = press.y - box.top;
    press.over = null;
    ui.selection = press.source;
    view.markSelection();
    root.append(ghost);
    press.ghost = ghost;
    root.classList.add("kc--dragging");
    dragMove(event);
  }

  function dragMove(event) {
    const origin = root.getBoundingClientRect();
    const x = event.clientX - press.dx - origin.left;
    const y = event.clientY - press.dy - origin.top;
    press.ghost.style.transform = `translate(${x}px, ${y}px) rotate(4deg)`;
    const over = pileAt(event.clientX, event.clientY);
    if (over !== press.over) {
      root.querySelector(".kc-pile--over")?.classList.remove("kc-pile--over");
      if (over) root.querySelector(`[data-pile="${over}"]`)?.classList.add("kc-pile--over");
      press.over = over;
    }
  }

  function pressEnd(event, dropped) {
    const ended = press;
    press = null;
    if (!ended.dragging) return;
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
      press.ghost.remove();
      root.classList.remove("kc--dragging");
    }
    press = null;
  }

  return { cancelDrag };
}
