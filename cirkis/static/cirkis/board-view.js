// CirKis drawing: the board's SVG layers, the piece tray, the score track and the hint bar, drawn
// from what the page knows (`ui`: the newest envelope, the chosen piece, the placement shown).
// Nothing here listens to the player: board-input.js does, and asks this view to draw again.

import { svg, textElement as html } from "greycircle/dom";

/** @typedef {import("types/page").Schemas} Schemas */
/** @typedef {Schemas["CirKisGame"]} CirKisGame */
/** @typedef {import("types/page").Shown<CirKisGame>} Shown */
/** @typedef {Shown & {state: Schemas["CirKisState"]}} Placing a game whose pieces are being placed */
/** @typedef {Schemas["CirKisPieceEnum"]} PieceKey */
/** @typedef {[number, number]} Point */
/**
 * The board's geometry: the kind's fixed data (cirkis/client.py `client_data`, "kind-data").
 * @typedef {object} BoardData
 * @property {Point[]} rim the decagon
 * @property {{kind: string, points: Point[], shape: string | null, ring: boolean}[]} fields by id
 * @property {Shape[]} shapes
 * @property {{fields: number[], outline: Point[]}} center_ring
 * @property {Piece[]} pieces
 */
/** @typedef {{label: string, kind: string, name: string, head: Point, fields: number[], outline: Point[]}} Shape */
/** @typedef {{key: PieceKey, name: string, per_set: number, icon: Point[][]}} Piece */
/** A legal placement, with the centre of its fields (the fit nearest the pointer is shown). */
/** @typedef {{piece: PieceKey, fields: number[], centre: Point}} Placement */
/**
 * The placement shown in place: `anchor` the field pointed at, fit `index` of `count` there.
 * @typedef {object} Preview
 * @property {Placement} move
 * @property {number} anchor
 * @property {number} index
 * @property {number} count
 * @property {Point | null | undefined} [at] where the pointer was (none: stepped to with the keyboard)
 * @property {boolean} [keyboard]
 */
/**
 * What the page knows (cirkis/page.js makes it), shared by the view (which reads it) and the
 * input (which changes it).
 * @typedef {object} BoardUi
 * @property {Shown | null} current the newest envelope
 * @property {PieceKey | null} chosen
 * @property {Preview | null} preview
 * @property {{all: Placement[], byPiece: Map<PieceKey, Placement[]>}} legal
 * @property {boolean} busy a placement is being sent
 * @property {"mouse" | "touch"} lastPointer
 * @property {number} cycle which of the fits under the pointer is shown
 * @property {() => number | null} mySeat
 * @property {() => boolean} myTurn
 */
/**
 * How the page words seats, shapes and completions (cirkis/page.js), as the log does.
 * @typedef {object} Words
 * @property {(seat: number, you?: boolean) => string} seatName
 * @property {(label: string) => string} shapeName
 * @property {(done: Schemas["CirKisCompletion"], you?: boolean) => string} completionText
 */
/** @typedef {ReturnType<typeof boardView>} BoardView */
/** A field's edge, and the fields it borders (one, or two: the field across). */
/** @typedef {{a: Point, b: Point, key: string, across: number[]}} Edge */

export const COLOURS = ["purple", "red", "green", "yellow"];

const pointsAttr = (/** @type {Point[]} */ points) => points.map(([x, y]) => `${x},${y}`).join(" ");
const segment = (/** @type {{a: Point, b: Point}} */ { a, b }) => `M${a[0]},${a[1]}L${b[0]},${b[1]}`;

/**
 * @param {Point[]} points
 * @returns {Point}
 */
export function centroid(points) {
  let x = 0;
  let y = 0;
  for (const [px, py] of points) {
    x += px;
    y += py;
  }
  return [x / points.length, y / points.length];
}

/**
 * An icon of a piece: its fields' polygons, in a viewBox around them (small pieces stay small).
 * @param {Piece} piece
 * @param {string} className
 */
function pieceIcon(piece, className) {
  const all = piece.icon.flat();
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  const half = Math.max(1.35, ...xs.map(Math.abs), ...ys.map(Math.abs)) + 0.12;
  const icon = svg("svg", {
    viewBox: `${-half} ${-half} ${2 * half} ${2 * half}`,
    class: className,
    "aria-hidden": "true",
    focusable: "false",
  });
  for (const polygon of piece.icon) icon.append(svg("polygon", { points: pointsAttr(polygon) }));
  return icon;
}

/**
 * A kite in the seat's colour, for the players list and the score track.
 * @param {number} seat
 */
export function marker(seat) {
  const icon = svg("svg", {
    viewBox: "-1 -1.1 2 2.2",
    class: `cirkis-marker cirkis-marker--p${seat}`,
    "aria-hidden": "true",
  });
  icon.append(svg("polygon", { points: "0,-1 0.95,-0.31 0,0.62 -0.95,-0.31" }));
  const wrap = html("span", "cirkis-marker-wrap");
  wrap.title = COLOURS[seat] ?? "";
  wrap.append(icon);
  return wrap;
}

/**
 * Builds the page in `container` and returns its parts and drawing functions. `ui` is the page's
 * shared state (read only here); `words` names seats, shapes and completions as the log does.
 * @param {HTMLElement} container
 * @param {{data: BoardData, ui: BoardUi, words: Words, showHelpers: boolean}} options
 */
export function boardView(container, { data, ui, words, showHelpers }) {
  const fields = data.fields;
  /** @type {Record<string, Piece>} */
  const pieces = Object.fromEntries(data.pieces.map((piece) => [piece.key, piece]));
  /** @type {Record<string, Shape>} */
  const shapes = Object.fromEntries(data.shapes.map((shape) => [shape.label, shape]));

  // Each field's edges and the field across each edge (the board is edge-to-edge).
  /** @type {Map<string, number[]>} */
  const edgeOwners = new Map();
  const edges = fields.map((field, id) =>
    field.points.map((a, k) => {
      const b = field.points[(k + 1) % field.points.length];
      const key = [a.join(","), b.join(",")].sort().join(" ");
      const owners = edgeOwners.get(key) ?? [];
      owners.push(id);
      edgeOwners.set(key, owners);
      return /** @type {Edge} */ ({ a, b, key }); // `across` below, once every field is seen
    }),
  );
  for (const list of edges) {
    for (const edge of list) edge.across = /** @type {number[]} */ (edgeOwners.get(edge.key));
  }
  const across = (/** @type {number} */ id, /** @type {Edge} */ edge) =>
    edge.across.find((other) => other !== id) ?? null;

  /**
   * An outline around a set of fields: every edge that does not lead to another field of the set.
   * @param {number[]} ids
   */
  function outlinePath(ids) {
    /** @type {Set<number | null>} */
    const inside = new Set(ids);
    let d = "";
    for (const id of ids) {
      for (const edge of edges[id]) {
        if (!inside.has(across(id, edge))) d += segment(edge);
      }
    }
    return d;
  }

  // --- the page structure -------------------------------------------------------------------
  const root = html("div", "cirkis");
  const scores = html("ol", "cirkis-scores");
  scores.setAttribute("aria-label", "Score track");
  const frame = html("div", "cirkis-frame");
  const board = svg("svg", {
    viewBox: "-8.45 -8.85 16.9 17.7",
    class: "cirkis-board",
    role: "group",
    tabindex: "0",
    "aria-label": "CirKis board. Choose a piece, then the arrow keys show its fits and Enter places it.",
  });
  const bar = html("div", "cirkis-bar");
  const hint = html("p", "cirkis-hint");
  hint.setAttribute("aria-live", "polite");
  const otherFit = html("button", "button button--small cirkis-bar__button", "Other fit");
  otherFit.type = "button";
  const placeButton = html("button", "button button--primary button--small cirkis-bar__button", "Place");
  placeButton.type = "button";
  bar.append(hint, otherFit, placeButton);
  const tray = html("section", "cirkis-tray");
  tray.setAttribute("aria-label", "Your pieces");
  const trayTitle = html("h2", "cirkis-tray__title", "Your pieces");
  const trayList = html("div", "cirkis-tray__list");
  trayList.setAttribute("role", "group");
  trayList.setAttribute("aria-label", "Choose a piece");
  tray.append(trayTitle, trayList);
  frame.append(board);
  root.append(scores, frame, bar, tray);
  container.append(root);

  // Board layers, bottom to top. Only the field polygons take pointer events.
  const defs = svg("defs");
  defs.innerHTML = `
    <radialGradient id="cirkis-table" cx="50%" cy="45%" r="60%">
      <stop offset="0%" stop-color="#fdfcf8"/><stop offset="100%" stop-color="#efe9dc"/>
    </radialGradient>`;
  board.append(defs);
  board.append(svg("polygon", { points: pointsAttr(data.rim), class: "cirkis-rim-back" }));
  const fieldLayer = svg("g", { class: "cirkis-fields" });
  const fieldEls = fields.map((field, id) => {
    const classes = ["cirkis-field", `cirkis-field--${field.kind}`];
    if (field.ring) classes.push("cirkis-field--ring");
    else if (field.shape) classes.push(`cirkis-field--${shapes[field.shape].kind}`);
    const polygon = svg("polygon", {
      points: pointsAttr(field.points),
      class: classes.join(" "),
      "data-field": id,
    });
    fieldLayer.append(polygon);
    return polygon;
  });
  const ringOutline = svg("polygon", {
    points: pointsAttr(data.center_ring.outline),
    class: "cirkis-ring",
  });
  const shapeLayer = svg("g", { class: "cirkis-shapes" });
  for (const shape of data.shapes) {
    const central = shape.label === "S0" ? " cirkis-shape--central" : "";
    shapeLayer.append(
      svg("polygon", {
        points: pointsAttr(shape.outline),
        class: `cirkis-shape cirkis-shape--${shape.kind}${central}`,
        "data-shape": shape.label,
      }),
    );
  }
  const pieceLayer = svg("g", { class: "cirkis-pieces" });
  const borders = svg("path", { class: "cirkis-borders", d: "" });
  const wonLayer = svg("g", { class: "cirkis-won" });
  const leaderHalo = svg("path", { class: "cirkis-leader-halo", d: "" });
  const leaderPath = svg("path", { class: "cirkis-leader", d: "" });
  const previewLayer = svg("g", { class: "cirkis-preview" });
  const rimLine = svg("polygon", { points: pointsAttr(data.rim), class: "cirkis-rim" });
  board.append(fieldLayer, ringOutline, shapeLayer, pieceLayer, borders);
  board.append(leaderHalo, leaderPath, wonLayer, previewLayer, rimLine);

  /** @type {Map<number, {number: number, seat: number}>} field -> the move that covered it (from the log) */
  const pieceOf = new Map();
  let bordersQueued = false;

  // --- drawing ------------------------------------------------------------------------------
  /**
   * @param {Placing} envelope
   * @param {Shown | null} previous
   */
  function drawPieces(envelope, previous) {
    const owners = envelope.state.owners;
    const before = previous?.state?.owners;
    /** @type {SVGPolygonElement[]} */
    const polygons = [];
    owners.forEach((owner, id) => {
      if (owner === null) return;
      const polygon = svg("polygon", {
        points: pointsAttr(fields[id].points),
        class: `cirkis-piece cirkis-piece--p${owner}`,
        "data-field": id,
      });
      if (before && before[id] === null) polygon.classList.add("cirkis-piece--new");
      polygons.push(polygon);
    });
    pieceLayer.replaceChildren(...polygons);
    drawBorders();
  }

  // Dark lines where one piece meets another (or the board); pieces are told apart by the move
  // that placed them, from the move log (fields of unknown pieces get their own outline).
  function drawBorders() {
    if (!ui.current?.state) return;
    const owners = ui.current.state.owners;
    const group = (/** @type {number} */ id) => {
      const piece = pieceOf.get(id);
      return piece && piece.seat === owners[id] ? piece.number : `f${id}`;
    };
    let d = "";
    owners.forEach((owner, id) => {
      if (owner === null) return;
      for (const edge of edges[id]) {
        const other = across(id, edge);
        const otherCovered = other !== null && owners[other] !== null;
        if (otherCovered && group(other) === group(id)) continue;
        if (otherCovered && /** @type {number} */ (other) < id) continue; // drawn from the other side
        d += segment(edge);
      }
    });
    borders.setAttribute("d", d);
  }

  function queueBorders() {
    if (bordersQueued) return;
    bordersQueued = true;
    queueMicrotask(() => {
      bordersQueued = false;
      drawBorders();
    });
  }

  /** @param {Placing} envelope */
  function drawCompleted(envelope) {
    const fresh = new Set(
      (envelope.state.last_events ?? []).flatMap((e) => (e.type === "completed" ? [e.shape] : [])),
    );
    const marks = [];
    for (const done of envelope.state.completed ?? []) {
      const shape = shapes[done.shape];
      if (!shape) continue; // the Center Ring (optional scoring) has no single outline here
      const owner = done.majority === null ? "tied" : `p${done.majority}`;
      const mark = svg("g", { class: `cirkis-won__shape cirkis-won__shape--${owner}`, "data-shape": done.shape });
      if (fresh.has(done.shape)) mark.classList.add("cirkis-won__shape--new");
      const [x, y] = shape.head;
      mark.append(
        svg("polygon", { points: pointsAttr(shape.outline), class: "cirkis-won__halo" }),
        svg("polygon", { points: pointsAttr(shape.outline), class: "cirkis-won__line" }),
        svg("circle", { cx: x, cy: y, r: 0.42, class: "cirkis-won__token" }),
      );
      const label = svg("text", { x, y: y + 0.01, class: "cirkis-won__label" });
      label.textContent = done.majority === null ? "=" : "10";
      const title = svg("title");
      title.textContent = `${words.shapeName(done.shape)}: ${words.completionText(done, false)}`;
      mark.append(label, title);
      marks.push(mark);
    }
    wonLayer.replaceChildren(...marks);
  }

  /** @param {Placing} envelope */
  function drawLeader(envelope) {
    const leader = envelope.state.leader;
    const d = leader ? outlinePath(leader.fields) : "";
    leaderHalo.setAttribute("d", d);
    leaderPath.setAttribute("d", d);
  }

  function drawLit() {
    const turn = ui.myTurn() && showHelpers !== false;
    /** @type {Set<number>} */
    const lit = new Set();
    if (turn) {
      const moves = ui.chosen ? ui.legal.byPiece.get(ui.chosen) ?? [] : ui.legal.all;
      for (const move of moves) for (const id of move.fields) lit.add(id);
    }
    board.classList.toggle("cirkis-board--choosing", turn);
    board.classList.toggle("cirkis-board--piece", turn && ui.chosen !== null);
    fieldEls.forEach((element, id) => element.classList.toggle("cirkis-field--lit", lit.has(id)));
  }

  function drawPreview() {
    previewLayer.replaceChildren();
    const preview = ui.preview;
    if (!preview) return;
    const seat = ui.mySeat();
    for (const id of preview.move.fields) {
      previewLayer.append(
        svg("polygon", {
          points: pointsAttr(fields[id].points),
          class: `cirkis-preview__field cirkis-piece--p${seat}`,
          "data-field": id,
        }),
      );
    }
    const outline = svg("path", { class: "cirkis-preview__outline", d: outlinePath(preview.move.fields) });
    previewLayer.append(outline);
  }

  // The tray's buttons carry their piece as data-piece: board-input.js listens to the tray.
  function drawTray() {
    const seat = ui.mySeat();
    const current = ui.current;
    if (seat === null || !current?.state) {
      tray.hidden = true;
      return;
    }
    tray.hidden = false;
    /** @type {Partial<Schemas["CirKisPieces"]>} */
    const left = current.state.pieces_left[seat] ?? {};
    const turn = ui.myTurn();
    tray.classList.toggle("cirkis-tray--active", turn);
    const total = Object.values(left).reduce((sum, n) => sum + (n ?? 0), 0);
    trayTitle.textContent = `Your pieces (${total} left)`;
    const buttons = data.pieces.map((piece) => {
      const count = left[piece.key] ?? 0;
      const fits = ui.legal.byPiece.get(piece.key)?.length ?? 0;
      const button = html("button", "cirkis-tray__piece");
      button.type = "button";
      button.dataset.piece = piece.key;
      button.setAttribute("aria-pressed", String(ui.chosen === piece.key));
      const none = turn && count && !fits ? ", no fit now" : "";
      button.setAttribute("aria-label", `${piece.name}, ${count} left${none}`);
      button.title = piece.name;
      button.disabled = !turn || count === 0 || (showHelpers !== false && fits === 0);
      button.classList.toggle("cirkis-tray__piece--none", count === 0);
      button.append(pieceIcon(piece, "cirkis-tray__icon"));
      button.append(html("span", "cirkis-tray__name", piece.name));
      button.append(html("span", "cirkis-tray__count", `×${count}`));
      return button;
    });
    trayList.replaceChildren(...buttons);
  }

  function drawScores() {
    const current = ui.current;
    const state = current?.state;
    if (!state) {
      scores.replaceChildren();
      return;
    }
    const target = state.target ?? 40;
    scores.style.setProperty("--tick", `${1000 / target}%`);
    scores.replaceChildren(
      ...state.scores.map((points, seat) => {
        const row = html("li", `cirkis-score cirkis-score--p${seat}`);
        row.append(marker(seat));
        const turn = seat === current.to_move && current.status === "active";
        row.classList.toggle("cirkis-score--to-move", turn);
        const name = html("span", "cirkis-score__name", current.seats[seat]?.name ?? `Seat ${seat + 1}`);
        const track = html("span", "cirkis-score__track");
        track.setAttribute("role", "meter");
        track.setAttribute("aria-valuemin", "0");
        track.setAttribute("aria-valuemax", String(target));
        track.setAttribute("aria-valuenow", String(points));
        track.setAttribute("aria-label", `${words.seatName(seat, false)}: ${points} of ${target} points`);
        const fill = html("span", "cirkis-score__fill");
        fill.style.width = `${Math.min(100, (100 * points) / target)}%`;
        track.append(fill);
        const left = Object.values(state.pieces_left[seat] ?? {}).reduce((sum, n) => sum + (n ?? 0), 0);
        const info = html("span", "cirkis-score__info", `${left} pcs`);
        info.title = `${left} pieces left`;
        const value = html("span", "cirkis-score__points", String(points));
        row.append(name, track, value, info);
        return row;
      }),
    );
  }

  /** @param {Schemas["CirKisLeader"]} leader */
  function leaderName(leader) {
    const whose = leader.seat === ui.mySeat() ? "Your" : `${words.seatName(leader.seat)}’s`;
    return `${whose} ${pieces[leader.piece]?.name ?? leader.piece}`;
  }

  function drawBar() {
    const turn = ui.myTurn();
    const { current, chosen, preview } = ui;
    let text = "";
    const state = current?.state;
    if (state && current.status === "active") {
      const leader = state.leader;
      if (turn) {
        const rule = !leader
          ? "The first piece must cover the Center Star or the Center Ring."
          : state.free_turn
            ? "Free turn: your piece may touch any piece on the board."
            : `It must touch the Leader, ${leaderName(leader).replace(/^Your/, "your")}.`;
        if (!chosen) text = `Choose a piece. ${rule}`;
        else if (preview) {
          const name = pieces[chosen].name;
          const how = preview.keyboard
            ? "Enter places it; arrow keys show the next fit."
            : ui.lastPointer === "touch"
              ? "Tap it again to place it."
              : "Click to place it.";
          const fits = preview.count > 1 ? ` (fit ${preview.index + 1} of ${preview.count} here)` : "";
          text = `${name} shown in place${fits}. ${how}`;
        } else {
          const how = ui.lastPointer === "touch" ? "Tap a lit field" : "Point at a lit field";
          text = `${pieces[chosen].name}: ${how} to see it there. ${rule}`;
        }
      } else if (leader) {
        text = `Leader: ${leaderName(leader)}.`;
      }
    }
    if (hint.textContent !== text) hint.textContent = text;
    otherFit.hidden = !(turn && preview && preview.count > 1);
    placeButton.hidden = !(turn && preview);
    placeButton.disabled = ui.busy;
    bar.hidden = !text && placeButton.hidden;
  }

  function redraw() {
    drawLit();
    drawPreview();
    drawTray();
    drawBar();
  }

  // A game waiting for players: the empty board only.
  function drawWaiting() {
    tray.hidden = true;
    bar.hidden = true;
    scores.replaceChildren();
  }

  /**
   * The whole page for a new envelope (`previous`: the one drawn before, if any).
   * @param {Placing} envelope
   * @param {Shown | null} previous
   */
  function drawEnvelope(envelope, previous) {
    root.classList.toggle("cirkis--over", envelope.status !== "active");
    if (ui.mySeat() !== null) root.style.setProperty("--seat", `var(--cirkis-p${ui.mySeat()})`);
    drawPieces(envelope, previous?.state ? previous : null);
    drawCompleted(envelope);
    drawLeader(envelope);
    drawScores();
    redraw();
  }

  /**
   * What the move log tells: which fields belong to one placed piece (the board outlines each).
   * @param {Schemas["CirKisMoveLogEntry"]} entry
   * @param {boolean} restart
   */
  function notePiece(entry, restart) {
    if (restart) pieceOf.clear();
    for (const id of entry.fields ?? []) pieceOf.set(id, { number: entry.number, seat: entry.seat });
    queueBorders();
  }

  return {
    board,
    hint,
    otherFit,
    placeButton,
    trayList,
    drawPreview,
    drawBar,
    redraw,
    drawWaiting,
    drawEnvelope,
    notePiece,
  };
}
