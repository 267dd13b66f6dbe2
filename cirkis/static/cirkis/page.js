// CirKis board: the decagonal Penrose board in SVG, your piece tray and the score track.
// The board's geometry is the kind's fixed data (context.kindData, from cirkis/client.py); what is
// on it comes from the server's view. Where a piece may go comes only from envelope.legal_moves:
// the page lights the fields of the legal placements and never works out a fit itself.
//
// Playing: choose a piece in the tray, then point at a lit field to see the piece in place and
// click to place it (the fit nearest the pointer; scroll or "Other fit" for another one). On a
// touch screen the first tap shows the piece and a second tap on it places it. With the keyboard:
// choose a piece, focus the board, arrow keys step through the fits, Enter places.

import { svg, textElement as html } from "greycircle/dom";

const COLOURS = ["purple", "red", "green", "yellow"];
const FREE_TURN_REASONS = {
  filled: "filled a hole",
  center_star: "completed the Center Star",
  first_sliver: "first Sliver",
};
// How a game of CirKis is won (the status line: "Game over: You win by reaching the target.").
const OUTCOMES = {
  target: "by reaching the target",
  went_out: "by going out",
  blocked: "when nobody could play",
};
// How the game ended, when a tie on points was broken by the pieces left (see tieBreakWords).
const ENDED = {
  target: "when the target was reached",
  went_out: "when a player went out",
  blocked: "when nobody could play",
};
// Why a round ended (the move list and notices).
const FINISHED = {
  target: "reached the target",
  went_out: "went out",
  blocked: "nobody could place a piece",
};

const piecesWord = (count) => `${count} piece${count === 1 ? "" : "s"}`;

// A win that the rules' tie-break gave (equal points: the most unplayed pieces wins), in words:
// "at 0–0 when nobody could play, on the tie-break: 3 pieces left against 1"; null otherwise.
function tieBreakWords(outcome, envelope) {
  const { scores, winners } = outcome;
  const piecesLeft = envelope?.state?.pieces_left;
  if (!piecesLeft || winners.length === 0) return null;
  const best = scores[winners[0]];
  const beaten = scores.flatMap((score, seat) => (score === best && !winners.includes(seat) ? [seat] : []));
  if (beaten.length === 0) return null;
  const left = (seat) => Object.values(piecesLeft[seat] ?? {}).reduce((sum, count) => sum + count, 0);
  const against = beaten.map(left).join(" and ");
  const ended = ENDED[outcome.reason] ? ` ${ENDED[outcome.reason]}` : "";
  return `at ${best}–${best}${ended}, on the tie-break: ${piecesWord(left(winners[0]))} left against ${against}`;
}

const pointsAttr = (points) => points.map(([x, y]) => `${x},${y}`).join(" ");
const segment = ({ a, b }) => `M${a[0]},${a[1]}L${b[0]},${b[1]}`;
const capitalised = (text) => `${text[0].toUpperCase()}${text.slice(1)}`;
const article = (name) => (/^[AEIOU]/.test(name) ? "an" : "a");

function centroid(points) {
  let x = 0;
  let y = 0;
  for (const [px, py] of points) {
    x += px;
    y += py;
  }
  return [x / points.length, y / points.length];
}

// An icon of a piece: its fields' polygons, in a viewBox around them (small pieces stay small).
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

export function mount(container, context) {
  const data = context.kindData;
  const fields = data.fields;
  const pieces = Object.fromEntries(data.pieces.map((piece) => [piece.key, piece]));
  const shapes = Object.fromEntries(data.shapes.map((shape) => [shape.label, shape]));
  const centres = fields.map((field) => centroid(field.points));

  // Each field's edges and the field across each edge (the board is edge-to-edge).
  const edgeOwners = new Map();
  const edges = fields.map((field, id) =>
    field.points.map((a, k) => {
      const b = field.points[(k + 1) % field.points.length];
      const key = [a.join(","), b.join(",")].sort().join(" ");
      if (!edgeOwners.has(key)) edgeOwners.set(key, []);
      edgeOwners.get(key).push(id);
      return { a, b, key };
    }),
  );
  for (const list of edges) {
    for (const edge of list) edge.across = edgeOwners.get(edge.key);
  }
  const across = (id, edge) => edge.across.find((other) => other !== id) ?? null;

  // An outline around a set of fields: every edge that does not lead to another field of the set.
  function outlinePath(ids) {
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

  // --- what the renderer knows --------------------------------------------------------------
  let current = null; // the newest envelope
  let chosen = null; // the chosen piece key
  let preview = null; // {move, anchor, index, count}: the placement shown in place
  let legal = { all: [], byPiece: new Map() };
  let busy = false;
  let lastPointer = "mouse";
  let cycle = 0;
  const pieceOf = new Map(); // field -> number of the move that covered it (from the log)
  let logSeen = 0;
  let bordersQueued = false;

  const mySeat = () => current?.you ?? null;
  const myTurn = () => current?.status === "active" && mySeat() !== null && current.to_move === mySeat();
  // "You" for the viewer (unless `you` is false); two players of one name get their colour too.
  function seatName(seat, you = true, envelope = current) {
    if (you && seat === (envelope?.you ?? null)) return "You";
    const seats = envelope?.seats ?? [];
    const name = seats[seat]?.name ?? `Seat ${seat + 1}`;
    const twins = seats.filter((other) => other.name === name).length > 1;
    return twins && COLOURS[seat] ? `${capitalised(COLOURS[seat])} ${name}` : name;
  }

  function indexLegal(envelope) {
    const all = (envelope.legal_moves ?? []).map((move) => {
      const points = move.fields.map((id) => centres[id]);
      return { piece: move.piece, fields: move.fields, centre: centroid(points) };
    });
    const byPiece = new Map();
    for (const move of all) {
      if (!byPiece.has(move.piece)) byPiece.set(move.piece, []);
      byPiece.get(move.piece).push(move);
    }
    return { all, byPiece };
  }

  // The fits of the chosen piece covering `id`, nearest (to `at`) first.
  function fitsAt(id, at) {
    const moves = (legal.byPiece.get(chosen) ?? []).filter((move) => move.fields.includes(id));
    const [x, y] = at ?? centres[id];
    const distance = (move) => (move.centre[0] - x) ** 2 + (move.centre[1] - y) ** 2;
    return moves.sort((a, b) => distance(a) - distance(b));
  }

  function boardPoint(event) {
    const matrix = board.getScreenCTM();
    if (!matrix) return null;
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    return [point.x, point.y];
  }

  function fieldOf(event) {
    const id = event.target?.dataset?.field;
    return id === undefined ? null : Number(id);
  }

  // --- drawing ------------------------------------------------------------------------------
  function drawPieces(envelope, previous) {
    const owners = envelope.state.owners;
    const before = previous?.state?.owners;
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
    if (!current?.state) return;
    const owners = current.state.owners;
    const group = (id) => {
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
        if (otherCovered && other < id) continue; // drawn from the other side
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

  function drawCompleted(envelope) {
    const fresh = new Set(
      (envelope.state.last_events ?? []).filter((e) => e.type === "completed").map((e) => e.shape),
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
      title.textContent = `${shapeName(done.shape)}: ${completionText(done, false)}`;
      mark.append(label, title);
      marks.push(mark);
    }
    wonLayer.replaceChildren(...marks);
  }

  function drawLeader(envelope) {
    const leader = envelope.state.leader;
    const d = leader ? outlinePath(leader.fields) : "";
    leaderHalo.setAttribute("d", d);
    leaderPath.setAttribute("d", d);
  }

  function drawLit() {
    const turn = myTurn() && context.showHelpers !== false;
    const lit = new Set();
    if (turn) {
      const moves = chosen ? legal.byPiece.get(chosen) ?? [] : legal.all;
      for (const move of moves) for (const id of move.fields) lit.add(id);
    }
    board.classList.toggle("cirkis-board--choosing", turn);
    board.classList.toggle("cirkis-board--piece", turn && chosen !== null);
    fieldEls.forEach((element, id) => element.classList.toggle("cirkis-field--lit", lit.has(id)));
  }

  function drawPreview() {
    previewLayer.replaceChildren();
    if (!preview) return;
    const seat = mySeat();
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

  function drawTray() {
    const seat = mySeat();
    tray.hidden = seat === null || !current?.state;
    if (tray.hidden) return;
    const left = current.state.pieces_left[seat] ?? {};
    const turn = myTurn();
    tray.classList.toggle("cirkis-tray--active", turn);
    const total = Object.values(left).reduce((sum, n) => sum + n, 0);
    trayTitle.textContent = `Your pieces (${total} left)`;
    const buttons = data.pieces.map((piece) => {
      const count = left[piece.key] ?? 0;
      const fits = legal.byPiece.get(piece.key)?.length ?? 0;
      const button = html("button", "cirkis-tray__piece");
      button.type = "button";
      button.dataset.piece = piece.key;
      button.setAttribute("aria-pressed", String(chosen === piece.key));
      const none = turn && count && !fits ? ", no fit now" : "";
      button.setAttribute("aria-label", `${piece.name}, ${count} left${none}`);
      button.title = piece.name;
      button.disabled = !turn || count === 0 || (context.showHelpers !== false && fits === 0);
      button.classList.toggle("cirkis-tray__piece--none", count === 0);
      button.append(pieceIcon(piece, "cirkis-tray__icon"));
      button.append(html("span", "cirkis-tray__name", piece.name));
      button.append(html("span", "cirkis-tray__count", `×${count}`));
      button.addEventListener("click", () => choose(piece.key));
      return button;
    });
    trayList.replaceChildren(...buttons);
  }

  function drawScores() {
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
        track.setAttribute("aria-label", `${seatName(seat, false)}: ${points} of ${target} points`);
        const fill = html("span", "cirkis-score__fill");
        fill.style.width = `${Math.min(100, (100 * points) / target)}%`;
        track.append(fill);
        const left = Object.values(state.pieces_left[seat] ?? {}).reduce((sum, n) => sum + n, 0);
        const info = html("span", "cirkis-score__info", `${left} pcs`);
        info.title = `${left} pieces left`;
        const value = html("span", "cirkis-score__points", String(points));
        row.append(name, track, value, info);
        return row;
      }),
    );
  }

  function leaderName(leader) {
    const whose = leader.seat === mySeat() ? "Your" : `${seatName(leader.seat)}’s`;
    return `${whose} ${pieces[leader.piece]?.name ?? leader.piece}`;
  }

  function drawBar() {
    const turn = myTurn();
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
            : lastPointer === "touch"
              ? "Tap it again to place it."
              : "Click to place it.";
          const fits = preview.count > 1 ? ` (fit ${preview.index + 1} of ${preview.count} here)` : "";
          text = `${name} shown in place${fits}. ${how}`;
        } else {
          const how = lastPointer === "touch" ? "Tap a lit field" : "Point at a lit field";
          text = `${pieces[chosen].name}: ${how} to see it there. ${rule}`;
        }
      } else if (leader) {
        text = `Leader: ${leaderName(leader)}.`;
      }
    }
    if (hint.textContent !== text) hint.textContent = text;
    otherFit.hidden = !(turn && preview && preview.count > 1);
    placeButton.hidden = !(turn && preview);
    placeButton.disabled = busy;
    bar.hidden = !text && placeButton.hidden;
  }

  function redraw() {
    drawLit();
    drawPreview();
    drawTray();
    drawBar();
  }

  // A kite in the seat's colour, for the players list and the score track.
  function marker(seat) {
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

  // --- choosing and placing -----------------------------------------------------------------
  function choose(key) {
    if (!myTurn()) return;
    chosen = chosen === key ? null : key;
    preview = null;
    cycle = 0;
    redraw();
  }

  function showFit(id, at, step = 0) {
    const fits = fitsAt(id, at);
    if (!fits.length) {
      preview = null;
    } else {
      const from = preview?.anchor === id ? cycle : 0;
      const index = (((from + step) % fits.length) + fits.length) % fits.length;
      cycle = index;
      preview = { move: fits[index], anchor: id, index, count: fits.length, at };
    }
    drawPreview();
    drawBar();
  }

  async function place(move) {
    if (busy || !myTurn()) return;
    busy = true;
    drawBar();
    try {
      await context.play({ piece: move.piece, fields: move.fields });
    } finally {
      busy = false;
      drawBar();
    }
  }

  board.addEventListener("pointerdown", (event) => {
    lastPointer = event.pointerType === "touch" || event.pointerType === "pen" ? "touch" : "mouse";
  });

  board.addEventListener("pointermove", (event) => {
    if (event.pointerType !== "mouse" || !myTurn() || !chosen || busy) return;
    lastPointer = "mouse";
    const id = fieldOf(event);
    if (id === null || preview?.move.fields.includes(id)) return; // still over the piece shown
    showFit(id, boardPoint(event));
  });

  board.addEventListener("click", (event) => {
    const id = fieldOf(event);
    if (id === null || !myTurn()) return;
    if (!chosen) {
      if (current.state.owners[id] === null) hint.textContent = "Choose a piece in your tray first.";
      return;
    }
    if (preview && preview.move.fields.includes(id)) {
      place(preview.move); // a click (or a second tap) on the piece shown places it
      return;
    }
    showFit(id, boardPoint(event));
    if (!preview) {
      hint.textContent = `The ${pieces[chosen].name} does not fit there.`;
      return;
    }
    if (lastPointer !== "touch") place(preview.move);
  });

  board.addEventListener(
    "wheel",
    (event) => {
      if (!preview || preview.count < 2 || !myTurn()) return;
      event.preventDefault();
      showFit(preview.anchor, preview.at, event.deltaY > 0 ? 1 : -1);
    },
    { passive: false },
  );

  board.addEventListener("keydown", (event) => {
    if (!myTurn() || !chosen) return;
    const moves = legal.byPiece.get(chosen) ?? [];
    if (!moves.length) return;
    const steps = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    if (steps[event.key]) {
      event.preventDefault();
      const at = preview ? moves.indexOf(preview.move) : -1;
      const next = at < 0 ? 0 : (at + steps[event.key] + moves.length) % moves.length;
      const move = moves[next];
      preview = { move, anchor: move.fields[0], index: next, count: 1, keyboard: true };
      drawPreview();
      drawBar();
    } else if ((event.key === "Enter" || event.key === " ") && preview) {
      event.preventDefault();
      place(preview.move);
    } else if (event.key === "Escape") {
      preview = null;
      drawPreview();
      drawBar();
    }
  });

  otherFit.addEventListener("click", () => {
    if (preview) showFit(preview.anchor, preview.at, 1);
  });
  placeButton.addEventListener("click", () => {
    if (preview) place(preview.move);
  });

  // --- words ----------------------------------------------------------------------------------
  function shapeName(label) {
    if (label === "R") return "the Center Ring";
    return shapes[label]?.name ?? label;
  }

  function completionText(done, you = true, envelope = current) {
    const awards = Object.entries(done.scores ?? {})
      .map(([seat, points]) => [Number(seat), points])
      .sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const name = shapeName(done.shape);
    if (!awards.length) return `${name} completed: nobody scores.`;
    const [first, ...rest] = awards;
    const to = (seat) => (you && seat === envelope?.you ? "you" : seatName(seat, you, envelope));
    let text = `+${first[1]} ${name} to ${to(first[0])}`;
    for (const [seat, points] of rest) text += `, +${points} to ${to(seat)}`;
    if (done.majority === null) text += " (tied for the most)";
    return text;
  }

  function eventTexts(events, you, envelope = current) {
    const texts = [];
    for (const event of events ?? []) {
      const who = event.seat !== undefined ? seatName(event.seat, you, envelope) : "";
      const isYou = you && event.seat === envelope?.you;
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

  return {
    render(envelope, previous) {
      current = envelope;
      const state = envelope.state;
      if (!state) {
        // A game waiting for players: the empty board only.
        tray.hidden = true;
        bar.hidden = true;
        scores.replaceChildren();
        return;
      }
      legal = indexLegal(envelope);
      // A new placement (anybody's) starts the choice afresh.
      if (!myTurn() || previous?.move_count !== envelope.move_count) chosen = null;
      if (!previous || previous.version !== envelope.version) preview = null;
      root.classList.toggle("cirkis--over", envelope.status !== "active");
      if (mySeat() !== null) root.style.setProperty("--seat", `var(--cirkis-p${mySeat()})`);
      drawPieces(envelope, previous?.state ? previous : null);
      drawCompleted(envelope);
      drawLeader(envelope);
      drawScores();
      redraw();
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
      if (entry.number <= logSeen) pieceOf.clear();
      logSeen = entry.number;
      for (const id of entry.fields ?? []) pieceOf.set(id, { number: entry.number, seat: entry.seat });
      queueBorders();
      // "You" for the viewer's own moves, as the other games' logs say.
      const name = seatName(entry.seat, true, envelope);
      const piece = pieces[entry.piece]?.name ?? entry.piece;
      const texts = eventTexts(entry.events, true, envelope);
      return [`${entry.number}. ${name} placed ${article(piece)} ${piece}`, ...texts].join("; ");
    },
  };
}
