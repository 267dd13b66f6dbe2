// The game page: seats, status, actions, notices and the move list around a kind's board renderer.
// Everything shown comes from the server's envelope; the page never judges a move itself.

import { ApiError, GameClient } from "./game-client.js";

const RENDERERS = {
  circles: () => import("./games/circles.js"),
  cirkis: () => import("./games/cirkis.js"),
  kingscorner: () => import("./games/kingscorner.js"),
};

const REASONS = {
  resignation: "by resignation",
  more_discs: "on discs",
  tie: "",
  went_out: "by going out",
  stalemate: "at a stalemate",
  target: "by reaching the target",
  blocked: "when nobody could play",
};

const root = document.getElementById("game");
const initial = JSON.parse(document.getElementById("initial-envelope").textContent);
const settings = JSON.parse(document.getElementById("client-settings").textContent);
const kindData = JSON.parse(document.getElementById("kind-data").textContent);
const $ = (selector) => root.querySelector(selector);

function text(element, value) {
  if (element.textContent !== value) element.textContent = value;
}

function notify(message, kind = "info") {
  const notice = $("#notice");
  notice.className = `game-notice game-notice--${kind}`;
  notice.setAttribute("role", kind === "error" ? "alert" : "status");
  notice.textContent = message;
  notice.hidden = !message;
}

function seatName(envelope, index) {
  if (index === envelope.you) return "You";
  return envelope.seats[index].name;
}

function statusLine(envelope) {
  switch (envelope.status) {
    case "open":
      return "Waiting for players to join.";
    case "aborted":
      return "This game was stopped by the staff.";
    case "finished": {
      const { winners, reason } = envelope.outcome;
      const how = REASONS[reason] ?? reason;
      if (winners.length === 0) return "Game over: a tie.";
      if (winners.length > 1) {
        return `Game over: ${winners.map((w) => seatName(envelope, w)).join(" and ")} share the win.`;
      }
      const winner = winners[0] === envelope.you ? "You win" : `${envelope.seats[winners[0]].name} wins`;
      return `Game over: ${winner} ${how}.`.replace(" .", ".");
    }
    default: {
      if (envelope.to_move === envelope.you) return "Your turn.";
      const seat = envelope.seats[envelope.to_move];
      return seat.ai_level ? `${seat.name} is thinking…` : `${seat.name}'s turn.`;
    }
  }
}

function renderSeats(envelope, renderer) {
  const list = $("#seats");
  list.replaceChildren(
    ...envelope.seats.map((seat) => {
      const item = document.createElement("li");
      item.className = "player";
      item.dataset.seat = seat.seat;
      if (seat.seat === envelope.to_move && envelope.status === "active") item.classList.add("player--to-move");
      if (seat.seat === envelope.you) item.classList.add("player--you");
      const marker = renderer.seatMarker?.(seat.seat);
      if (marker) item.append(marker);
      const name = document.createElement("span");
      name.className = "player__name";
      name.textContent = seat.seat === envelope.you ? `${seat.name} (you)` : seat.name;
      item.append(name);
      const score = renderer.seatScore?.(envelope, seat.seat);
      if (score !== undefined && score !== null) {
        const badge = document.createElement("span");
        badge.className = "player__score";
        badge.textContent = score;
        item.append(badge);
      }
      return item;
    }),
  );
}

function renderActions(envelope) {
  const seated = envelope.you !== null;
  $("#resign").hidden = !(seated && envelope.status === "active");
  const over = envelope.status === "finished" || envelope.status === "aborted";
  $("#rematch").hidden = !(seated && over);
  $("#rematch").textContent = envelope.rematch_id ? "Go to the rematch" : "Rematch";
}

function renderMoves(moves, envelope, renderer) {
  const list = $("#moves");
  list.replaceChildren(
    ...moves.map((entry) => {
      const item = document.createElement("li");
      item.textContent = renderer.describeMove(entry, envelope);
      return item;
    }),
  );
  list.scrollTop = list.scrollHeight;
  const record = renderer.record?.(envelope);
  $("#record").hidden = record === undefined;
  if (record !== undefined) $("#record-text").value = record;
}

async function main() {
  const module = await RENDERERS[initial.kind]();
  let client;
  const context = {
    showHelpers: settings.showHelpers,
    kindData,
    notify,
    async play(move) {
      // Cleared before sending, not after: notices from the move's own envelope must stay.
      notify("");
      try {
        await client.play(move);
      } catch (error) {
        notify(error instanceof ApiError ? error.message : "The move could not be sent.", "error");
      }
    },
  };
  const renderer = module.mount($("#board"), context);

  function render(envelope, previous) {
    renderer.render(envelope, previous);
    renderSeats(envelope, renderer);
    renderActions(envelope);
    text($("#status"), statusLine(envelope));
    const notices = previous ? renderer.notices?.(envelope, previous) ?? [] : [];
    if (notices.length) notify(notices.join(" "));
  }

  client = new GameClient(initial, {
    onEnvelope: render,
    onMoves: (moves, envelope) => renderMoves(moves, envelope, renderer),
    onConnection: (state) => {
      root.dataset.connection = state;
      text($("#connection"), { live: "Live", reconnecting: "Reconnecting…", closed: "Offline" }[state]);
    },
  });
  render(initial, null);
  client.loadMoves();
  client.connect();

  $("#resign").addEventListener("click", async () => {
    if (!window.confirm("Resign this game?")) return;
    try {
      await client.command("resign");
    } catch (error) {
      notify(error.message, "error");
    }
  });
  $("#rematch").addEventListener("click", async () => {
    try {
      const rematch = client.envelope.rematch_id
        ? { id: client.envelope.rematch_id }
        : await client.command("rematch");
      window.location.assign(`/games/${rematch.id}/`);
    } catch (error) {
      notify(error.message, "error");
    }
  });
  $("#copy-record").addEventListener("click", async () => {
    const field = $("#record-text");
    try {
      await navigator.clipboard.writeText(field.value);
      notify("Transcript copied.");
    } catch {
      field.select();
      notify("Transcript selected: copy it with Ctrl+C.");
    }
  });
  window.greyCircleGame = client;
}

main();
