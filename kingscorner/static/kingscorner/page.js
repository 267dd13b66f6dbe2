// King's Corner table: the eight piles around the stock, the other players, your fanned hand.
// Everything drawn comes from the server's view; what is playable comes only from the server's
// legal moves. Play by dragging a card (or a foundation pile) onto a pile, or by clicking a card
// (or a foundation pile) and then a pile. The server answers with the new game or says why not.

import { element } from "greycircle/dom";

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_WORDS = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_WORDS = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
const PILE_WORDS = {
  N: "North", E: "East", S: "South", W: "West",
  NE: "North-east", SE: "South-east", SW: "South-west", NW: "North-west",
};
// The table, row by row; null is the stock in the middle.
const LAYOUT = ["NW", "N", "NE", "W", null, "E", "SW", "S", "SE"];
const CORNERS = new Set(["NE", "SE", "SW", "NW"]);
const TEXT_STYLE = "\uFE0E"; // keeps ♥ and ♦ from turning into emoji on phones
const DRAG_THRESHOLD_PX = 6;
// How a game of King's Corner is won (the status line: "Game over: You win by going out.").
const OUTCOMES = { went_out: "by going out", stalemate: "at a stalemate" };

const rankText = (card) => (card[0] === "T" ? "10" : card[0]);
const suitOf = (card) => card[1];
const isRed = (card) => card[1] === "D" || card[1] === "H";
/** "7♦", "10♣": how cards are written in the log and in labels. */
export const cardText = (card) => `${rankText(card)}${SUITS[suitOf(card)]}`;
const cardWords = (card) => `${RANK_WORDS[card[0]] ?? card[0]} of ${SUIT_WORDS[suitOf(card)]}`;
const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** A card face drawn with CSS: rank and suit in two corners, the suit (or J, Q, K) in the middle. */
function cardFace(card, { tag = "span", className = "", attributes = {} } = {}) {
  const colour = isRed(card) ? "kc-card--red" : "kc-card--black";
  const face = element(tag, `kc-card ${colour} ${className}`, { "data-card": card, ...attributes });
  const index = element("span", "kc-card__index", { "aria-hidden": "true" });
  index.append(element("span", "kc-card__rank"), element("span", "kc-card__suit"));
  index.firstChild.textContent = rankText(card);
  index.lastChild.textContent = SUITS[suitOf(card)] + TEXT_STYLE;
  const faceCard = "JQK".includes(card[0]);
  const pip = element("span", `kc-card__pip${faceCard ? " kc-card__pip--face" : ""}`, {
    "aria-hidden": "true",
  });
  pip.textContent = faceCard ? card[0] : SUITS[suitOf(card)] + TEXT_STYLE;
  const corner = index.cloneNode(true);
  corner.className = "kc-card__index kc-card__index--far";
  face.append(index, pip, corner);
  if (tag === "span") {
    face.setAttribute("role", "img");
    face.setAttribute("aria-label", cardWords(card));
  }
  return face;
}

function cardBack(className = "") {
  return element("span", `kc-card kc-card--back ${className}`, { "aria-hidden": "true" });
}

/** A seat's name; two computers at the same level are told apart by their seat numbers. */
function playerName(envelope, seat) {
  const name = envelope.seats[seat]?.name ?? `Seat ${seat + 1}`;
  const twins = envelope.seats.filter((other) => other.name === name).length > 1;
  return twins ? `${name} #${seat + 1}` : name;
}

export function mount(container, context) {
  const root = element("div", "kc");
  container.append(root);

  let current = null; // the newest envelope
  let selection = null; // {card} or {pile}: what a click on a pile would play
  let expanded = new Set(); // piles shown in full
  let drawn = new Set(); // cards that came into your hand since you last played one
  let changed = new Set(); // piles that changed in the newest envelope (they flash once)
  let press = null; // a pointer held down on a card or a pile: maybe the start of a drag
  let suppressClick = false; // the click that follows a drag is not a selection
  let drewNote = null; // "You drew 7♥.": shown again with "It's your turn.", so it stays until you play

  // --- what the server allows (only from legal_moves) ------------------------------------------

  const legal = () => current?.legal_moves ?? [];
  const playableCards = () =>
    new Set(legal().filter((m) => m.action === "play").map((m) => m.card));
  const sourcePiles = () =>
    new Set(legal().filter((m) => m.action === "move_pile").map((m) => m.from));
  const canEndTurn = () => legal().some((m) => m.action === "end_turn");

  function targetsOf(source) {
    if (!source) return new Set();
    return new Set(
      legal()
        .filter((m) =>
          source.card !== undefined
            ? m.action === "play" && m.card === source.card
            : m.action === "move_pile" && m.from === source.pile,
        )
        .map((m) => m.to),
    );
  }

  function moveFor(source, pile) {
    return source.card !== undefined
      ? { action: "play", card: source.card, to: pile }
      : { action: "move_pile", from: source.pile, to: pile };
  }

  function send(move) {
    selection = null;
    draw();
    context.play(move);
  }

  // --- clicks -----------------------------------------------------------------------------------

  function clickCard(card) {
    if (takeSuppressedClick()) return;
    selection = selection?.card === card ? null : { card };
    draw();
  }

  function clickPile(name) {
    if (takeSuppressedClick()) return;
    const pile = current.state.piles[name];
    if (selection) {
      if (selection.pile === name) {
        selection = null;
        draw();
      } else {
        send(moveFor(selection, name));
      }
    } else if (sourcePiles().has(name)) {
      selection = { pile: name };
      draw();
    } else if (pile.length) {
      toggle(name);
    }
  }

  function toggle(name) {
    if (expanded.has(name)) expanded.delete(name);
    else expanded.add(name);
    draw();
  }

  function takeSuppressedClick() {
    const suppressed = suppressClick;
    suppressClick = false;
    return suppressed;
  }

  // --- drag and drop (pointer events: mouse, pen and touch alike) -------------------------------

  function pileAt(x, y) {
    const hit = document.elementFromPoint(x, y);
    const pile = hit?.closest("[data-pile]");
    return pile && root.contains(pile) ? pile.dataset.pile : null;
  }

  function pressStart(event, source) {
    if (event.pointerType === "mouse" && event.button !== 0) return;
    suppressClick = false;
    const from = event.currentTarget;
    press = { source, from, id: event.pointerId, x: event.clientX, y: event.clientY };
    event.currentTarget.setPointerCapture?.(event.pointerId);
  }

  // While dragging, the pressed element stays in place (a redraw would lose the pointer): only
  // the highlights change.
  function markSelection() {
    const targets = context.showHelpers ? targetsOf(selection) : new Set();
    for (const pile of root.querySelectorAll("[data-pile]")) {
      pile.classList.toggle("kc-pile--target", targets.has(pile.dataset.pile));
      pile.classList.toggle("kc-pile--selected", selection?.pile === pile.dataset.pile);
      pile.classList.remove("kc-pile--movable");
    }
    for (const card of root.querySelectorAll(".kc-fan__card")) {
      card.classList.toggle("kc-card--selected", selection?.card === card.dataset.card);
    }
  }

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
    selection = press.source;
    markSelection();
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
      selection = null;
      draw();
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
    if (event.key === "Escape" && selection) {
      selection = null;
      draw();
    }
  });

  // --- drawing ----------------------------------------------------------------------------------

  function opponents() {
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

  function pileCell(name) {
    const cards = current.state.piles[name];
    const targets = context.showHelpers ? targetsOf(selection) : new Set();
    const source = sourcePiles().has(name);
    const open = expanded.has(name) && cards.length > 0;
    const classes = ["kc-pile", CORNERS.has(name) ? "kc-pile--corner" : "kc-pile--foundation"];
    if (!cards.length) classes.push("kc-pile--empty");
    if (targets.has(name)) classes.push("kc-pile--target");
    if (selection?.pile === name) classes.push("kc-pile--selected");
    if (source) classes.push("kc-pile--source");
    if (context.showHelpers && source && !selection) classes.push("kc-pile--movable");
    if (open) classes.push("kc-pile--expanded");
    if (changed.has(name)) classes.push("kc-pile--changed");
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
      count.addEventListener("click", () => toggle(name));
      head.append(count);
    }

    let description = `${PILE_WORDS[name]}: `;
    if (!cards.length) {
      description += "empty";
    } else if (cards.length === 1) {
      description += `1 card, ${cardText(cards[0])}`;
    } else {
      description += `${cards.length} cards, ${cardText(cards[0])} at the bottom, `;
      description += `${cardText(cards.at(-1))} on top`;
    }
    if (targets.has(name)) description += " — you can play here";
    const button = element("button", "kc-pile__cards", {
      type: "button",
      "aria-label": description,
      "aria-pressed": selection?.pile === name ? "true" : null,
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
      button.style.setProperty("--n", cards.length);
    } else {
      button.append(cardFace(cards[0], { className: "kc-pile__bottom" }));
      if (cards.length > 2) {
        const more = element("span", "kc-pile__more", { "aria-hidden": "true" });
        more.textContent = `+${cards.length - 2}`;
        button.append(more);
      }
      if (cards.length > 1) button.append(cardFace(cards.at(-1), { className: "kc-pile__top" }));
    }
    button.addEventListener("click", () => clickPile(name));
    if (source) button.addEventListener("pointerdown", (event) => pressStart(event, { pile: name }));
    cell.append(head, button);
    return cell;
  }

  function stockCell() {
    const count = current.state.stock;
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
    number.textContent = count;
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
    const cards = current.state.hand;
    const playable = context.showHelpers ? playableCards() : new Set();
    const myTurn = legal().length > 0;
    const section = element("section", `kc-hand${myTurn ? " kc-hand--active" : ""}`, {
      "aria-label": "Your hand",
    });
    const head = element("div", "kc-hand__head");
    const title = element("h2", "kc-hand__title");
    title.textContent = `Your hand · ${plural(cards.length, "card")}`;
    head.append(title);
    if (canEndTurn()) {
      const end = element("button", "button button--primary button--small kc-end-turn", {
        type: "button",
        "data-focus-key": "end-turn",
      });
      end.textContent = current.state.stock ? "End turn (draw)" : "End turn";
      end.addEventListener("click", () => send({ action: "end_turn" }));
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
      if (selection?.card === card) classes.push("kc-card--selected");
      if (drawn.has(card)) classes.push("kc-card--new");
      let label = cardWords(card);
      if (playable.has(card)) label += ", playable";
      if (drawn.has(card)) label += ", just drawn";
      const button = cardFace(card, {
        tag: "button",
        className: classes.join(" "),
        attributes: {
          type: "button",
          "aria-label": label,
          "aria-pressed": String(selection?.card === card),
          "data-focus-key": `card-${card}`,
          draggable: "false",
        },
      });
      button.addEventListener("click", () => clickCard(card));
      button.addEventListener("pointerdown", (event) => pressStart(event, { card }));
      slot.append(button);
      fan.append(slot);
    });
    if (!cards.length) {
      const none = element("li", "kc-fan__empty");
      none.textContent = "No cards left.";
      fan.append(none);
    }
    const hint = element("p", "kc-hint");
    if (selection?.card) {
      hint.textContent = `${cardText(selection.card)} selected: now choose a pile to play it on.`;
    } else if (selection?.pile) {
      hint.textContent = `${selection.pile} selected: now choose a pile to move it onto.`;
    } else if (myTurn) {
      hint.textContent = "Drag a card onto a pile, or choose a card and then a pile.";
    }
    section.append(head, fan, hint);
    return section;
  }

  function finalHands() {
    const { state, outcome } = current;
    const winners = new Set(outcome?.winners ?? []);
    const section = element("section", "kc-final", { "aria-labelledby": "kc-final-title" });
    const title = element("h2", "kc-final__title", { id: "kc-final-title" });
    title.textContent = "Final hands";
    const list = element("ul", "kc-final__list");
    state.final_hands.forEach((cards, seat) => {
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
      points.textContent = plural(state.penalties[seat], "penalty point");
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
    if (!current?.state) {
      const waiting = element("p", "kc-waiting");
      waiting.textContent = "The cards are dealt as soon as every seat is taken.";
      root.replaceChildren(waiting);
      return;
    }
    // The table is drawn anew each time: keep the keyboard focus on the same card or pile.
    const focused = root.contains(document.activeElement)
      ? document.activeElement.dataset.focusKey
      : null;
    const parts = [];
    if (current.state.final_hands) parts.push(finalHands());
    parts.push(opponents(), table());
    if (current.state.hand && !current.state.final_hands) parts.push(hand());
    root.replaceChildren(...parts);
    if (focused) root.querySelector(`[data-focus-key="${focused}"]`)?.focus();
    changed = new Set();
  }

  return {
    render(envelope, previous) {
      if (press?.dragging) {
        press.ghost.remove();
        root.classList.remove("kc--dragging");
      }
      press = null;
      current = envelope;
      const state = envelope.state;
      if (!state) {
        draw();
        return;
      }
      const before = previous?.state;
      const piles = Object.keys(state.piles);
      changed = new Set(
        before ? piles.filter((name) => state.piles[name].join() !== before.piles[name]?.join()) : [],
      );
      const handNow = state.hand ?? [];
      if (before?.hand) {
        const had = new Set(before.hand);
        const gained = handNow.filter((card) => !had.has(card));
        if (handNow.length < before.hand.length) drawn = new Set();
        if (gained.length) drawn = new Set(gained);
      }
      drawn = new Set([...drawn].filter((card) => handNow.includes(card)));
      if (selection?.card && !handNow.includes(selection.card)) selection = null;
      if (selection?.pile && !state.piles[selection.pile]?.length) selection = null;
      if (envelope.status !== "active") selection = null;
      expanded = new Set([...expanded].filter((name) => state.piles[name]?.length));
      draw();
    },
    seatMarker() {
      return cardBack("kc-card--mini kc-seat-marker");
    },
    playerName,
    seatScore(envelope, seat) {
      const state = envelope.state;
      if (!state) return null;
      if (state.penalties) return `${state.penalties[seat]} pts`;
      return plural(state.hand_sizes[seat], "card");
    },
    notices(envelope, previous) {
      const state = envelope.state;
      if (!state || !previous.state) return [];
      if (envelope.status === "finished" && previous.status !== "finished" && envelope.outcome) {
        const { winners, reason } = envelope.outcome;
        if (reason === "went_out") {
          if (winners[0] === envelope.you) return ["You played your last card and won!"];
          return [`${playerName(envelope, winners[0])} played their last card and won.`];
        }
        if (reason === "stalemate") {
          return ["Stalemate: nobody could play and the stock is empty. Fewest penalty points wins."];
        }
        return [];
      }
      const notes = [];
      const before = previous.state;
      if (
        envelope.you !== null &&
        before.to_move === envelope.you &&
        state.to_move !== envelope.you &&
        state.hand.length === before.hand.length + 1
      ) {
        const had = new Set(before.hand);
        const card = state.hand.find((c) => !had.has(c));
        if (card) {
          drewNote = `You drew ${cardText(card)}.`;
          notes.push(drewNote);
        }
      }
      const yours = envelope.you !== null && state.to_move === envelope.you;
      if (envelope.status === "active" && yours && previous.to_move !== envelope.you) {
        // The others' turns may take a second or a day: what you drew is still news.
        if (drewNote) notes.push(drewNote);
        drewNote = null;
        notes.push("It's your turn.");
      }
      return notes;
    },
    describeOutcome(outcome) {
      return OUTCOMES[outcome.reason];
    },
    describeMove(entry, envelope) {
      const you = entry.seat === envelope.you;
      const who = you ? "You" : playerName(envelope, entry.seat);
      switch (entry.action) {
        case "play":
          return `${who} played ${cardText(entry.card)} on ${entry.to}`;
        case "move_pile":
          return `${who} moved ${entry.from} onto ${entry.to}`;
        case "end_turn":
          if (!entry.drew) return `${who} ended the turn`;
          if (you && entry.card) return `You drew ${cardText(entry.card)}`;
          return `${who} drew a card`;
        default:
          return `${who}: ${entry.action}`;
      }
    },
  };
}
