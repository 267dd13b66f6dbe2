// The game page: seats, status, actions, notices and the move list around a kind's board renderer.
// Everything shown comes from the server's envelope; the page never judges a move itself.
//
// Each game app serves its page module as the static file `<kind>/page.js`, imported here by the
// import-map name "<kind>/page" (the base template maps every name to its hashed static URL, so
// one deploy's modules never mix with another's). The module exports mount(container, context),
// which returns the kind's renderer:
//   render(envelope, previous)          draw the board (required)
//   describeMove(entry, envelope)       one line of the move list
//   describeOutcome(outcome, envelope)  how the game was won, e.g. "by going out"; "" for nothing
//   seatMarker(seat), seatScore(envelope, seat), notices(envelope, previous), record(envelope)
//   playerName(envelope, seat)          a seat's name as the kind's log words it ("Computer (easy) #2")
// Everything but render is optional: the page has a plain wording for whatever a kind leaves out.

import { Clocks } from "greycircle/clock";
import { chatMount } from "greycircle/chat";
import { ApiError, GameClient } from "greycircle/game-client";
import { RematchOffer, Takebacks } from "greycircle/game-offers";
import { setTitleStatus } from "greycircle/notifications";

/** @typedef {import("types/page").Schemas} Schemas */
/** @typedef {import("types/page").Envelope} Envelope */
/** @typedef {import("types/page").Renderer} Renderer */
/** @typedef {import("types/page").PageModule} PageModule */
/** @typedef {import("types/page").PageContext} PageContext */
/** @typedef {import("types/page").NoticeKind} NoticeKind */
/** @typedef {Schemas["MoveLogEntry"]} MoveLogEntry */
/** @typedef {Schemas["GameInvitation"]} GameInvitation */
/** @typedef {import("greycircle/game-client").ConnectionState} ConnectionState */
/** The page's settings (frontend/views.py, "client-settings"). */
/** @typedef {{username: string, showHelpers: boolean, confirmMoves: boolean}} ClientSettings */
/** @typedef {Parameters<PageContext["play"]>[0]} Move */

// Ways any game can end, whatever its kind.
/** @type {Record<string, string>} */
const REASONS = {
  resignation: "by resignation",
  timeout: "on time",
};

/** An element of the page's template (frontend/game.html), where it always is. */
const byId = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
const root = byId("game");
/** @type {Envelope} */
const initial = JSON.parse(byId("initial-envelope").textContent ?? "");
/** @type {ClientSettings} */
const settings = JSON.parse(byId("client-settings").textContent ?? "");
const kindData = JSON.parse(byId("kind-data").textContent ?? "");
/** An element of the game's part of the template, where it always is. */
const $ = (/** @type {string} */ selector) => /** @type {HTMLElement} */ (root.querySelector(selector));
const button = (/** @type {string} */ selector) => /** @type {HTMLButtonElement} */ ($(selector));
const field = (/** @type {string} */ selector) => /** @type {HTMLInputElement} */ ($(selector));

/** What a refusal or a failure says, to show. */
const messageOf = (/** @type {unknown} */ error) => (error instanceof Error ? error.message : String(error));

/**
 * @param {Element} element
 * @param {string} value
 */
function text(element, value) {
  if (element.textContent !== value) element.textContent = value;
}

/**
 * @param {string} message
 * @param {NoticeKind} [kind]
 */
function notify(message, kind = "info") {
  const notice = $("#notice");
  notice.className = `game-notice game-notice--${kind}`;
  notice.setAttribute("role", kind === "error" ? "alert" : "status");
  notice.textContent = message;
  notice.hidden = !message;
}

// The kind's renderer, once mounted: it may word the seats' names (`playerName`).
/** @type {Partial<Renderer>} */
let kind = {};

/**
 * A seat's name as the kind words it (computers of one level told apart), else the server's.
 * @param {Envelope} envelope
 * @param {number} index
 * @returns {string}
 */
function playerName(envelope, index) {
  return kind.playerName?.(envelope, index) ?? envelope.seats[index].name;
}

/**
 * @param {Envelope} envelope
 * @param {number} index
 */
function seatName(envelope, index) {
  if (index === envelope.you) return "You";
  return playerName(envelope, index);
}

/**
 * How the game was won, in the kind's words if it has some, else the platform's.
 * @param {Envelope} envelope a finished game's
 * @param {Renderer} renderer
 */
function outcomeWords(envelope, renderer) {
  const outcome = /** @type {Schemas["Outcome"]} */ (envelope.outcome);
  const words = renderer.describeOutcome?.(outcome, envelope);
  if (words !== undefined && words !== null) return words;
  return REASONS[outcome.reason] ?? "";
}

/**
 * @param {MoveLogEntry} entry
 * @param {Envelope} envelope
 * @param {Renderer} renderer
 */
function describeMove(entry, envelope, renderer) {
  const line = renderer.describeMove?.(entry, envelope);
  if (line) return line;
  const who = entry.seat === null || entry.seat === undefined ? "" : ` ${seatName(envelope, entry.seat)}`;
  return `${entry.number}.${who} moved`;
}

/**
 * The invitations that wait for an answer (the envelope lists them while the game waits).
 * @param {Envelope} envelope
 */
function pendingInvitations(envelope) {
  return (envelope.invitations ?? []).filter((invitation) => invitation.status === "pending");
}

/**
 * The viewer's own invitation waiting for their answer, or undefined.
 * @param {Envelope} envelope
 */
function myInvitation(envelope) {
  if (envelope.you === null) return undefined;
  return pendingInvitations(envelope).find((invitation) => invitation.seat === envelope.you);
}

/**
 * Why the game was aborted, as its outcome tells: a player's first move did not come in time (a
 * live game), or the staff stopped it. Games aborted before the reason was kept have no outcome.
 * @param {Envelope} envelope
 */
function abortedLine(envelope) {
  const { outcome } = envelope;
  if (outcome && "seat" in outcome && outcome.seat !== undefined) {
    const who = outcome.seat === envelope.you ? "you" : playerName(envelope, outcome.seat);
    return `This game was aborted: ${who} did not make a first move in time. It counts for nobody.`;
  }
  if (outcome?.reason === "staff") return "This game was stopped by the staff.";
  return "This game was aborted: it counts for nobody.";
}

// Why an invitation that cancelled its game ended without an answer.
/** @type {Partial<Record<GameInvitation["status"], string>>} */
const UNANSWERED = { declined: "declined the invitation", expired: "did not answer in time" };

/**
 * @param {Envelope} envelope
 * @param {Renderer} renderer
 * @returns {string}
 */
function statusLine(envelope, renderer) {
  switch (envelope.status) {
    case "open": {
      if (myInvitation(envelope)) return `${envelope.created_by ?? "Someone"} invites you to play: accept or decline.`;
      const waiting = pendingInvitations(envelope).map((invitation) => invitation.user);
      if (waiting.length) return `Waiting for ${waiting.join(" and ")} to accept.`;
      return "Waiting for players to join.";
    }
    case "aborted":
      return abortedLine(envelope);
    case "cancelled": {
      const ended = (envelope.invitations ?? []).find((invitation) => invitation.status in UNANSWERED);
      if (ended) return `This game was cancelled: ${ended.user} ${UNANSWERED[ended.status]}.`;
      return envelope.created_by === settings.username
        ? "You withdrew this game before it started."
        : "This game was withdrawn before it started.";
    }
    case "finished": {
      const { winners } = /** @type {Schemas["Outcome"]} */ (envelope.outcome);
      if (winners.length === 0) return "Game over: a tie.";
      if (winners.length > 1) {
        return `Game over: ${winners.map((w) => seatName(envelope, w)).join(" and ")} share the win.`;
      }
      const winner = winners[0] === envelope.you ? "You win" : `${playerName(envelope, winners[0])} wins`;
      const how = outcomeWords(envelope, renderer);
      return how ? `Game over: ${winner} ${how}.` : `Game over: ${winner}.`;
    }
    default: {
      const toMove = /** @type {number} */ (envelope.to_move); // a game in play has a seat to act
      const seat = envelope.seats[toMove];
      const name = playerName(envelope, toMove);
      // A seat the computer took over is the computer's to play, even the viewer's own.
      if (seat.ai_level) return `${name} is thinking…`;
      if (envelope.to_move === envelope.you) return "Your turn.";
      return `${name}'s turn.`;
    }
  }
}

/**
 * `left` milliseconds in words, never more than there is: "2 days 5 hours left".
 * @param {number} left
 */
function timeLeftWords(left) {
  if (left <= 0) return "time is up";
  const minutes = Math.floor(left / 60000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const count = (/** @type {number} */ amount, /** @type {string} */ unit) =>
    `${amount} ${unit}${amount === 1 ? "" : "s"}`;
  if (days) return `${count(days, "day")}${hours ? ` ${count(hours, "hour")}` : ""} left`;
  if (hours) return `${count(hours, "hour")} left`;
  if (minutes) return `${count(minutes, "minute")} left`;
  return "less than a minute left";
}

/**
 * The line under the status about the time per move; "" when no time runs.
 * @param {Envelope} envelope
 */
function deadlineLine(envelope) {
  if (envelope.status !== "active" || !envelope.move_deadline) return "";
  const left = Date.parse(envelope.move_deadline) - Date.now();
  const yours = envelope.to_move === envelope.you;
  const who = yours ? "You" : envelope.seats[/** @type {number} */ (envelope.to_move)].name;
  if (left > 0) return `${yours ? "Your" : `${who}'s`} time to move: ${timeLeftWords(left)}.`;
  if (envelope.can_claim) return `${who} ran out of time: you may claim the win.`;
  return yours ? "Your time to move is up: move now." : `${who} ran out of time.`;
}

/** @param {Envelope} envelope */
function renderDeadline(envelope) {
  const line = deadlineLine(envelope);
  const element = $("#deadline");
  element.hidden = !line;
  text(element, line);
}

/**
 * Once the game is over, whether it counted: "Not rated: ...", or the player's new rating in
 * the game's speed (live and correspondence games are rated apart).
 * @param {Envelope} envelope
 */
function ratingLine(envelope) {
  const { outcome } = envelope;
  const rating = envelope.status === "finished" && outcome && "rating" in outcome ? outcome.rating : undefined;
  if (!rating) return "";
  if (!rating.rated) return rating.detail;
  const yours = rating.changes.find((change) => change.seat === envelope.you);
  return yours ? `Your ${envelope.speed} rating: ${yours.before} → ${yours.after}.` : "Rated.";
}

/** @param {Envelope} envelope */
function renderRating(envelope) {
  const line = ratingLine(envelope);
  const element = $("#rating");
  element.hidden = !line;
  text(element, line);
}

/**
 * @param {Envelope} envelope
 * @param {Renderer} renderer
 */
function renderSeats(envelope, renderer) {
  const list = $("#seats");
  list.replaceChildren(
    ...envelope.seats.map((seat) => {
      const item = document.createElement("li");
      item.className = "player";
      item.dataset.seat = String(seat.seat);
      if (seat.seat === envelope.to_move && envelope.status === "active") item.classList.add("player--to-move");
      if (seat.seat === envelope.you) item.classList.add("player--you");
      const marker = renderer.seatMarker?.(seat.seat);
      if (marker) item.append(marker);
      const name = document.createElement("span");
      name.className = "player__name";
      // A person's name leads to their profile; computers and deleted players have none.
      const shown = playerName(envelope, seat.seat);
      if (seat.user) {
        const link = document.createElement("a");
        link.className = "player__link";
        link.href = `/u/${encodeURIComponent(seat.user)}/`;
        link.textContent = shown;
        name.append(link);
      } else {
        name.textContent = shown;
      }
      if (seat.seat === envelope.you) name.append(" (you)");
      if (envelope.status === "open" && pendingInvitations(envelope).some((i) => i.seat === seat.seat)) {
        item.classList.add("player--invited");
        name.append(" (invited)");
      }
      item.append(name);
      const score = renderer.seatScore?.(envelope, seat.seat);
      if (score !== undefined && score !== null) {
        const badge = document.createElement("span");
        badge.className = "player__score";
        badge.textContent = String(score);
        item.append(badge);
      }
      return item;
    }),
  );
}

/**
 * The person the game waits for, when that is not the viewer nor a computer; else null.
 * @param {Envelope} envelope
 */
function personToRemind(envelope) {
  if (envelope.you === null || envelope.status !== "active" || envelope.to_move === null) return null;
  if (envelope.to_move === envelope.you) return null;
  const seat = envelope.seats[envelope.to_move];
  return seat.user && !seat.ai_level ? seat : null;
}

/** @param {Envelope} envelope */
function renderActions(envelope) {
  const seated = envelope.you !== null;
  const open = envelope.status === "open";
  // Anyone who opens the link of a table waiting for players may take a seat at it.
  $("#join-form").hidden = !(open && !seated);
  const invited = open && myInvitation(envelope) !== undefined;
  $("#accept").hidden = !invited;
  $("#decline").hidden = !invited;
  $("#withdraw").hidden = !(open && envelope.created_by === settings.username);
  $("#resign").hidden = !(seated && envelope.status === "active");
  // Shown whenever another person is to move: only the server knows the limits and blocks, and
  // says so when it refuses.
  const waitingFor = personToRemind(envelope);
  $("#remind").hidden = waitingFor === null;
  $("#remind").title = waitingFor ? `Remind ${waitingFor.name} that it is their turn` : "";
  $("#claim").hidden = !envelope.can_claim;
  const over = envelope.status === "finished" || envelope.status === "aborted";
  $("#rematch").hidden = !(seated && over);
  $("#rematch").textContent = envelope.rematch_id ? "Go to the rematch" : "Rematch";
  $("#replay-link").hidden = !(over && envelope.state);
}

/**
 * @param {MoveLogEntry[]} moves
 * @param {Envelope} envelope
 * @param {Renderer} renderer
 */
function renderMoves(moves, envelope, renderer) {
  // No empty log (nor an empty transcript) before the first move.
  $("#moves-section").hidden = moves.length === 0;
  const list = $("#moves");
  list.replaceChildren(
    ...moves.map((entry) => {
      const item = document.createElement("li");
      item.textContent = describeMove(entry, envelope, renderer);
      if (entry.imported) {
        // Replayed from a record: nobody made this move here.
        item.classList.add("move-list__item--imported");
        const tag = document.createElement("span");
        tag.className = "move-list__imported";
        tag.textContent = "imported";
        tag.title = "Replayed from an imported record: nobody made this move on this site.";
        item.append(" ", tag);
      }
      return item;
    }),
  );
  list.scrollTop = list.scrollHeight;
  const record = renderer.record?.(envelope);
  $("#record").hidden = record === undefined;
  if (record !== undefined) field("#record-text").value = record;
}

async function main() {
  /** @type {PageModule} */
  let module;
  try {
    module = await import(`${initial.kind}/page`);
  } catch (error) {
    notify("This game cannot be shown: its page failed to load. Reload the page to try again.", "error");
    throw error;
  }
  /** @type {GameClient} */
  let client; // made once the renderer is mounted: `play` is called only after that
  /** @param {Move} move */
  async function send(move) {
    // Cleared before sending, not after: notices from the move's own envelope must stay.
    notify("");
    try {
      await client.play(move);
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "The move could not be sent.", "error");
    }
  }
  // With the "Confirm moves" setting, the move chosen and the version it was chosen at, until it
  // is confirmed (Confirm, Enter, or choosing it again) or cancelled (Cancel, Escape, a new version).
  /** @type {{move: Move, version: number} | null} */
  let chosen = null;
  function cancelChosen() {
    if (!chosen) return;
    chosen = null;
    renderer.preview?.(null);
    $("#confirm-move").hidden = true;
  }
  function confirmChosen() {
    const move = chosen?.move;
    cancelChosen();
    if (move) send(move);
  }
  /** @type {PageContext} */
  const context = {
    showHelpers: settings.showHelpers,
    kindData,
    notify,
    async play(move) {
      if (!settings.confirmMoves) return send(move);
      if (chosen && chosen.version === client.version && JSON.stringify(chosen.move) === JSON.stringify(move)) {
        return confirmChosen();
      }
      chosen = { move, version: client.version };
      renderer.preview?.(move);
      $("#confirm-move").hidden = false;
      button("#confirm-play").scrollIntoView({ block: "nearest" });
    },
  };
  const renderer = module.mount($("#board"), context);
  kind = renderer;
  const clocks = new Clocks({
    seats: $("#seats"),
    announcer: $("#clock-announce"),
    settings: $("#clock-settings"),
    sound: field("#clock-sound"),
  });

  /**
   * @param {Envelope} envelope
   * @param {Envelope | null} previous
   */
  function render(envelope, previous) {
    // The game moved on: the move chosen may no longer be possible.
    if (chosen && chosen.version !== envelope.version) cancelChosen();
    renderer.render(envelope, previous);
    renderSeats(envelope, renderer);
    clocks.render(envelope, previous);
    renderActions(envelope);
    rematchOffer.render(envelope);
    takebacks.render(envelope);
    renderDeadline(envelope);
    renderRating(envelope);
    text($("#status"), statusLine(envelope, renderer));
    // The tab says so too: "(2) Your turn — Circles #12 · Grey Circle Games".
    const yourTurn =
      envelope.status === "active" &&
      envelope.you !== null &&
      envelope.to_move === envelope.you &&
      !envelope.seats[envelope.to_move].ai_level;
    setTitleStatus(yourTurn ? "Your turn" : "");
    const notices = previous ? renderer.notices?.(envelope, previous) ?? [] : [];
    if (notices.length) notify(notices.join(" "));
  }

  /** @type {import("greycircle/chat").ChatPanel | null} */
  let chat = null;
  client = new GameClient(initial, {
    onEnvelope: (envelope, previous) => {
      render(envelope, previous);
      chat?.update(envelope);
    },
    onFrame: (frame) => chat?.frame(frame),
    onMoves: (moves, envelope) => renderMoves(moves, envelope, renderer),
    onConnection: (/** @type {ConnectionState} */ state) => {
      root.dataset.connection = state;
      const label = { live: "Live", reconnecting: "Reconnecting…", offline: "Offline", closed: "Offline" };
      text($("#connection"), label[state]);
      // Up from the network's loss until a socket is back, whose first frame brings what was missed.
      const banner = $("#offline-banner");
      if (state === "offline" && banner.hidden) {
        banner.textContent = "Offline — moves will resume when you are back.";
        banner.hidden = false;
      } else if (state === "live" && !banner.hidden) {
        banner.hidden = true;
        banner.textContent = "";
        notify("Back online.");
      } else if (state === "closed") {
        banner.hidden = true;
      }
    },
  });
  const offerContext = { client, notify, playerName };
  const takebacks = new Takebacks(offerContext);
  const rematchOffer = new RematchOffer(offerContext);
  render(initial, null);
  chat = chatMount({ client, username: settings.username, envelope: initial });
  client.loadMoves();
  client.connect();
  // The time left counts down between envelopes; when it runs out the server's periodic check
  // sends a new envelope (with `can_claim`, or the computer that takes the seat over).
  setInterval(() => renderDeadline(client.envelope), 30_000);

  $("#confirm-play").addEventListener("click", confirmChosen);
  $("#confirm-cancel").addEventListener("click", cancelChosen);
  document.addEventListener("keydown", (event) => {
    if (!chosen) return;
    if (event.key === "Escape") cancelChosen();
    // Enter on a control (a button, the board) is that control's own.
    else if (event.key === "Enter" && !event.defaultPrevented && event.target === document.body) confirmChosen();
  });
  $("#resign").addEventListener("click", async () => {
    if (!window.confirm("Resign this game?")) return;
    try {
      await client.command("resign");
    } catch (error) {
      notify(messageOf(error), "error");
    }
  });
  $("#claim").addEventListener("click", async () => {
    if (!window.confirm("Claim the win? The game ends and you win on time.")) return;
    try {
      await client.command("claim");
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "The claim could not be sent.", "error");
    }
  });
  $("#remind").addEventListener("click", async () => {
    const remind = button("#remind");
    const seat = personToRemind(client.envelope);
    remind.disabled = true;
    try {
      await client.command("poke");
      notify(seat ? `Reminder sent to ${seat.name}.` : "Reminder sent.");
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "The reminder could not be sent.", "error");
    } finally {
      remind.disabled = false;
    }
  });
  /** @param {"accept" | "decline"} what */
  async function answer(what) {
    const invitation = myInvitation(client.envelope);
    if (!invitation) return;
    try {
      const envelope = await client.request("POST", `/api/v1/invitations/${invitation.id}/${what}/`);
      client.accept(envelope);
    } catch (error) {
      notify(error instanceof ApiError ? error.message : "Your answer could not be sent.", "error");
    }
  }
  $("#accept").addEventListener("click", () => answer("accept"));
  $("#decline").addEventListener("click", async () => {
    if (!window.confirm("Decline this invitation?")) return;
    await answer("decline");
  });
  $("#withdraw").addEventListener("click", async () => {
    if (!window.confirm("Withdraw this game? Nobody wins or loses it.")) return;
    try {
      await client.command("cancel");
    } catch (error) {
      notify(messageOf(error), "error");
    }
  });
  $("#rematch").addEventListener("click", async () => {
    try {
      const rematch = client.envelope.rematch_id
        ? { id: client.envelope.rematch_id }
        : await client.command("rematch");
      window.location.assign(`/games/${rematch.id}/`);
    } catch (error) {
      notify(messageOf(error), "error");
    }
  });
  $("#copy-record").addEventListener("click", async () => {
    const recordText = field("#record-text");
    try {
      await navigator.clipboard.writeText(recordText.value);
      notify("Transcript copied.");
    } catch {
      recordText.select();
      notify("Transcript selected: copy it with Ctrl+C.");
    }
  });
  window.greyCircleGame = client;
}

main();
