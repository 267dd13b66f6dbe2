// CirKis board: the decagonal Penrose board in SVG, your piece tray and the score track.
// The board's geometry is the kind's fixed data (context.kindData, from cirkis/client.py); what is
// on it comes from the server's view. Where a piece may go comes only from envelope.legal_moves:
// the page lights the fields of the legal placements and never works out a fit itself.
//
// Playing: choose a piece in the tray, then point at a lit field to see the piece in place and
// click to place it (the fit nearest the pointer; scroll or "Other fit" for another one). On a
// touch screen the first tap shows the piece and a second tap on it places it. With the keyboard:
// choose a piece, focus the board, arrow keys step through the fits, Enter places.
//
// This module holds what the page knows and says (the log's words); board-view.js draws and
// board-input.js listens to the player.

import { boardInput } from "cirkis/board-input";
import { boardView, centroid, COLOURS, marker } from "cirkis/board-view";

/** @typedef {import("types/page").Schemas} Schemas */
/** @typedef {Schemas["CirKisGame"]} CirKisGame */
/** @typedef {import("types/page").Shown<CirKisGame>} Shown */
/** @typedef {import("cirkis/board-view").BoardData} BoardData */
/** @typedef {import("cirkis/board-view").BoardUi} BoardUi */
/** @typedef {import("cirkis/board-view").Placing} Placing */
/** @typedef {import("cirkis/board-view").Piece} Piece */
/** @typedef {import("cirkis/board-view").PieceKey} PieceKey */
/** @typedef {import("cirkis/board-view").Placement} Placement */

/** @type {Record<string, string>} */
const FREE_TURN_REASONS = {
  filled: "filled a hole",
  center_star: "completed the Center Star",
  first_sliver: "first Sliver",
};
// How a game of CirKis is won (the status line: "Game over: You win by reaching the target.").
/** @type {Record<string, string>} */
const OUTCOMES = {
  target: "by reaching the target",
  went_out: "by going out",
  blocked: "when nobody could play",
};
// How the game ended, when a tie on points was broken by the pieces left (see tieBreakWords).
/** @type {Record<string, string>} */
const ENDED = {
  target: "when the target was reached",
  went_out: "when a player went out",
  blocked: "when nobody could play",
};
// Why a round ended (the move list and notices).
/** @type {Record<string, string>} */
const FINISHED = {
  target: "reached the target",
  went_out: "went out",
  blocked: "nobody could place a piece",
};

const piecesWord = (/** @type {number} */ count) => `${count} piece${count === 1 ? "" : "s"}`;

// A win that the rules' tie-break gave (equal points: the most unplayed pieces wins), in words:
// "at 0–0 when nobody could play, on the tie-break: 3 pieces left against 1"; null otherwise.
/**
 * @param {Schemas["Outcome"]} outcome
 * @param {Shown | undefined} envelope
 */
function tieBreakWords(outcome, envelope) {
  const { scores, winners } = outcome;
  const piecesLeft = envelope?.state?.pieces_left;
  if (!piecesLeft || winners.length === 0) return null;
  const best = scores[winners[0]];
  const beaten = scores.flatMap((score, seat) => (score === best && !winners.includes(seat) ? [seat] : []));
  if (beaten.length === 0) return null;
  const left = (/** @type {number} */ seat) =>
    Object.values(piecesLeft[seat] ?? {}).reduce((sum, count) => sum + count, 0);
  const against = beaten.map(left).join(" and ");
  const ended = ENDED[outcome.reason] ? ` ${ENDED[outcome.reason]}` : "";
  return `at ${best}–${best}${ended}, on the tie-break: ${piecesWord(left(winners[0]))} left against ${against}`;
}

const capitalised = (/** @type {string} */ text) => `${text[0].toUpperCase()}${text.slice(1)}`;
const article = (/** @type {string} */ name) => (/^[AEIOU]/.test(name) ? "an" : "a");

/**
 * @param {HTMLElement} container
 * @param {import("types/page").PageContext<CirKisGame, BoardData>} context
 * @returns {import("types/page").RendererWith<CirKisGame, "describeMove">} (cirkis/rules.js calls it)
 */
export function mount(container, context) {
  const data = context.kindData;
  /** @type {Record<string, Piece>} */
  const pieces = Object.fromEntries(data.pieces.map((piece) => [piece.key, piece]));
  /** @type {Record<string, import("cirkis/board-view").Shape>} */
  const shapes = Object.fromEntries(data.shapes.map((shape) => [shape.label, shape]));
  const centres = data.fields.map((field) => centroid(field.points));

  // What the page knows, shared by the view (which reads it) and the input (which changes it).
  /** @type {BoardUi} */
  const ui = {
    current: null, // the newest envelope
    chosen: null, // the chosen piece key
    preview: null, // {move, anchor, index, count}: the placement shown in place
    legal: { all: [], byPiece: new Map() },
    busy: false,
    lastPointer: "mouse",
    cycle: 0,
    mySeat: () => ui.current?.you ?? null,
    myTurn: () => ui.current?.status === "active" && ui.mySeat() !== null && ui.current.to_move === ui.mySeat(),
  };
  let logSeen = 0;

  /**
   * "You" for the viewer (unless `you` is false); two players of one name get their colour too.
   * @param {number} seat
   * @param {boolean} [you]
   * @param {Shown | null} [envelope]
   */
  function seatName(seat, you = true, envelope = ui.current) {
    if (you && seat === (envelope?.you ?? null)) return "You";
    const seats = envelope?.seats ?? [];
    const name = seats[seat]?.name ?? `Seat ${seat + 1}`;
    const twins = seats.filter((other) => other.name === name).length > 1;
    return twins && COLOURS[seat] ? `${capitalised(COLOURS[seat])} ${name}` : name;
  }

  /**
   * @param {Shown} envelope
   * @returns {BoardUi["legal"]}
   */
  function indexLegal(envelope) {
    /** @type {Placement[]} */
    const all = (envelope.legal_moves ?? []).map((move) => {
      const points = move.fields.map((id) => centres[id]);
      return { piece: move.piece, fields: move.fields, centre: centroid(points) };
    });
    /** @type {Map<PieceKey, Placement[]>} */
    const byPiece = new Map();
    for (const move of all) {
      const moves = byPiece.get(move.piece) ?? [];
      moves.push(move);
      byPiece.set(move.piece, moves);
    }
    return { all, byPiece };
  }

  // --- words ----------------------------------------------------------------------------------
  /** @param {string} label */
  function shapeName(label) {
    if (label === "R") return "the Center Ring";
    return shapes[label]?.name ?? label;
  }

  /**
   * @param {Schemas["CirKisCompletion"]} done
   * @param {boolean} [you]
   * @param {Shown | null} [envelope]
   */
  function completionText(done, you = true, envelope = ui.current) {
    const awards = Object.entries(done.scores ?? {})
      .map(([seat, points]) => /** @type {[number, number]} */ ([Number(seat), points]))
      .sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const name = shapeName(done.shape);
    if (!awards.length) return `${name} completed: nobody scores.`;
    const [first, ...rest] = awards;
    const to = (/** @type {number} */ seat) => (you && seat === envelope?.you ? "you" : seatName(seat, you, envelope));
    let text = `+${first[1]} ${name} to ${to(first[0])}`;
    for (const [seat, points] of rest) text += `, +${points} to ${to(seat)}`;
    if (done.majority === null) text += " (tied for the most)";
    return text;
  }

  /**
   * @param {Schemas["CirKisEvent"][]} events
   * @param {boolean} you
   * @param {Shown | null} [envelope]
   */
  function eventTexts(events, you, envelope = ui.current) {
    const texts = [];
    for (const event of events ?? []) {
      const seat = "seat" in event ? event.seat : undefined;
      const who = seat !== undefined ? seatName(seat, you, envelope) : "";
      const isYou = you && seat === envelope?.you;
      switch (event.type) {
        case "completed":
          texts.push(completionText(event, you, envelope));
          break;
        case "free_turn":
          texts.push(
            `${who} ${isYou ? "get" : "gets"} a free turn (${FREE_TURN_REASONS[event.reason] ?? event.reason})`,
          );
          break;
        case "free_turn_unused":
          texts.push(`${who} cannot use the free turn`);
          break;
        case "lost_turn":
          texts.push(`${who} lost a turn`);
          break;
        case "went_out":
          texts.push(`${who} went out: +${event.points}`);
          break;
        case "round_over":
          texts.push(`round ${event.round + 1} is over (${FINISHED[event.reason] ?? event.reason})`);
          break;
        default:
          break;
      }
    }
    return texts;
  }

  const view = boardView(container, {
    data,
    ui,
    words: { seatName, shapeName, completionText },
    showHelpers: context.showHelpers,
  });
  boardInput({ view, ui, pieces, centres, play: (move) => context.play(move) });

  return {
    render(envelope, previous) {
      ui.current = envelope;
      if (!envelope.state) {
        view.drawWaiting();
        return;
      }
      ui.legal = indexLegal(envelope);
      // A new placement (anybody's) starts the choice afresh.
      if (!ui.myTurn() || previous?.move_count !== envelope.move_count) ui.chosen = null;
      if (!previous || previous.version !== envelope.version) ui.preview = null;
      view.drawEnvelope(/** @type {Placing} */ (envelope), previous);
    },
    seatMarker: marker,
    // The players list names seats as the log does: two of one name get their colours.
    playerName(envelope, seat) {
      return seatName(seat, false, envelope);
    },
    seatScore(envelope, seat) {
      return envelope.state ? envelope.state.scores[seat] : null;
    },
    notices(envelope, previous) {
      if (!envelope.state || envelope.move_count === previous.move_count) return [];
      const texts = eventTexts(envelope.state.last_events, true);
      if (!texts.length) return [];
      return [`${capitalised(texts.join("; "))}.`];
    },
    describeOutcome(outcome, envelope) {
      return tieBreakWords(outcome, envelope) ?? OUTCOMES[outcome.reason];
    },
    describeMove(entry, envelope) {
      // The log also tells which fields belong to one piece: the board outlines pieces with it.
      view.notePiece(entry, entry.number <= logSeen);
      logSeen = entry.number;
      // "You" for the viewer's own moves, as the other games' logs say.
      const name = seatName(entry.seat, true, envelope);
      const piece = pieces[entry.piece]?.name ?? entry.piece;
      const texts = eventTexts(entry.events, true, envelope);
      return [`${entry.number}. ${name} placed ${article(piece)} ${piece}`, ...texts].join("; ");
    },
  };
}
