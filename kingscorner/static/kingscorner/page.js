// King's Corner table: the eight piles around the stock, the other players, your fanned hand.
// Everything drawn comes from the server's view; what is playable comes only from the server's
// legal moves. Play by dragging a card (or a foundation pile) onto a pile, or by clicking a card
// (or a foundation pile) and then a pile. The server answers with the new game or says why not.
//
// This module holds what the page knows and says (notices, the log's words); table-view.js draws
// and table-input.js listens to the player.

import { element } from "greycircle/dom";
import { tableInput } from "kingscorner/table-input";
import { cardBack, cardText, playerName, plural, tableView } from "kingscorner/table-view";

/** @typedef {import("types/page").Schemas["KingsCornerGame"]} KingsCornerGame */
/** @typedef {import("kingscorner/table-view").PileName} PileName */

// How a game of King's Corner is won (the status line: "Game over: You win by going out.").
/** @type {Record<string, string>} */
const OUTCOMES = { went_out: "by going out", stalemate: "at a stalemate" };

export { cardText };

/**
 * @param {HTMLElement} container
 * @param {import("types/page").PageContext<KingsCornerGame>} context
 * @returns {import("types/page").Renderer<KingsCornerGame>}
 */
export function mount(container, context) {
  const root = element("div", "kc");
  container.append(root);

  /** @type {string | null} "You drew 7♥.": shown again with "It's your turn.", so it stays until you play */
  let drewNote = null;

  // What the page knows, shared by the view (which reads it) and the input (which changes it),
  // and what the server allows: only from legal_moves.
  /** @type {import("kingscorner/table-view").TableUi} */
  const ui = {
    current: null, // the newest envelope
    selection: null, // {card} or {pile}: what a click on a pile would play
    expanded: new Set(), // piles shown in full
    drawn: new Set(), // cards that came into your hand since you last played one
    changed: new Set(), // piles that changed in the newest envelope (they flash once)
    legal: () => ui.current?.legal_moves ?? [],
    playableCards: () => new Set(ui.legal().flatMap((m) => (m.action === "play" ? [m.card] : []))),
    sourcePiles: () => new Set(ui.legal().flatMap((m) => (m.action === "move_pile" ? [m.from] : []))),
    canEndTurn: () => ui.legal().some((m) => m.action === "end_turn"),
    targetsOf(source) {
      if (!source) return new Set();
      return new Set(
        ui.legal().flatMap((m) => {
          if (source.card !== undefined) return m.action === "play" && m.card === source.card ? [m.to] : [];
          return m.action === "move_pile" && m.from === source.pile ? [m.to] : [];
        }),
      );
    },
  };

  const view = tableView(root, { ui, showHelpers: context.showHelpers });
  const input = tableInput(root, { ui, view, play: (move) => context.play(move) });

  return {
    render(envelope, previous) {
      input.cancelDrag();
      ui.current = envelope;
      const state = envelope.state;
      if (!state) {
        view.draw();
        return;
      }
      const before = previous?.state;
      const piles = /** @type {PileName[]} */ (Object.keys(state.piles));
      ui.changed = new Set(
        before ? piles.filter((name) => state.piles[name].join() !== before.piles[name]?.join()) : [],
      );
      const handNow = state.hand ?? [];
      if (before?.hand) {
        const had = new Set(before.hand);
        const gained = handNow.filter((card) => !had.has(card));
        if (handNow.length < before.hand.length) ui.drawn = new Set();
        if (gained.length) ui.drawn = new Set(gained);
      }
      ui.drawn = new Set([...ui.drawn].filter((card) => handNow.includes(card)));
      if (ui.selection?.card && !handNow.includes(ui.selection.card)) ui.selection = null;
      if (ui.selection?.pile && !state.piles[ui.selection.pile]?.length) ui.selection = null;
      if (envelope.status !== "active") ui.selection = null;
      ui.expanded = new Set([...ui.expanded].filter((name) => state.piles[name]?.length));
      view.draw();
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
      const { outcome } = envelope;
      if (envelope.status === "finished" && previous.status !== "finished" && outcome && "winners" in outcome) {
        const { winners, reason } = outcome;
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
      // A seat's view has its hand; a spectator's has none.
      const hand = state.hand ?? [];
      const handBefore = before.hand ?? [];
      if (
        envelope.you !== null &&
        before.to_move === envelope.you &&
        state.to_move !== envelope.you &&
        hand.length === handBefore.length + 1
      ) {
        const had = new Set(handBefore);
        const card = hand.find((c) => !had.has(c));
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
        default: // an action this page does not know yet
          return `${who}: ${/** @type {{action: string}} */ (entry).action}`;
      }
    },
  };
}
