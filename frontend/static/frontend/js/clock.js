// Live games' clocks on the game page: each seat's time, ticking, from the envelope's `clock`
// (greycircle.games.clocks). The server keeps the time and ends the game when it is up; the page
// only shows it. Every tick computes the times again from the envelope (`remaining_ms` as of
// `running_since`) and the server's clock, never by counting down, so a page that was asleep, a
// slow tick or a busy machine shows the right time at its next tick.
//
// The server's clock is the page's own plus an offset measured from each envelope (`server_time`
// less when it arrived). An envelope always takes some time to arrive, so each measure is at most
// the true offset: the largest one seen is kept. The page's own clock is `performance` time, which
// a change of the computer's wall clock does not move.

/** @typedef {import("types/page").Schemas["GameClock"]} GameClock */
/** @typedef {import("types/page").Envelope} Envelope */

// How often a running clock is shown again: tenths of a second show under TENTHS_BELOW_MS.
const TICK_MS = 100;
const TENTHS_BELOW_MS = 10_000;
// A clock is low under a tenth of the starting time, but never under 10 s nor over a minute.
const LOW_MIN_MS = 10_000;
const LOW_MAX_MS = 60_000;
// Whether the page beeps when it becomes the player's turn in a live game (the toggle's state).
const SOUND_KEY = "greycircle.clock.sound";

/** The page's own clock, in ms since the epoch (monotonic). */
export const localNow = () => performance.timeOrigin + performance.now();

/**
 * When the page's own envelope (written into the page as its response was made) arrived: the
 * response's first byte, else now.
 * @returns {number}
 */
function pageArrivedAt() {
  const [navigation] = /** @type {PerformanceNavigationTiming[]} */ (performance.getEntriesByType("navigation"));
  return navigation && navigation.responseStart > 0 ? performance.timeOrigin + navigation.responseStart : localNow();
}

/**
 * The server's clock less the page's, as an envelope written at `server_time` that arrived at
 * `arrivedAt` (the page's clock) measures it: never more than the true offset.
 * @param {GameClock} clock
 * @param {number} arrivedAt
 */
export function offsetOf(clock, arrivedAt) {
  return Date.parse(clock.server_time) - arrivedAt;
}

/**
 * Each seat's time left at `serverNow` (ms on the server's clock), and the time left for the
 * running seat's first move when it is in its first turn (its clock does not run then).
 * @param {GameClock} clock
 * @param {number} serverNow
 * @returns {{remaining: number[], firstMoveLeft: number | null}}
 */
export function clockAt(clock, serverNow) {
  const remaining = [...clock.remaining_ms];
  let firstMoveLeft = null;
  const running = clock.running;
  if (running !== null && clock.first_move_deadline) {
    firstMoveLeft = Math.max(0, Date.parse(clock.first_move_deadline) - serverNow);
  } else if (running !== null && clock.running_since) {
    const elapsed = Math.max(0, serverNow - Date.parse(clock.running_since));
    remaining[running] = Math.max(0, (remaining[running] ?? 0) - elapsed);
  }
  return { remaining, firstMoveLeft };
}

/**
 * A clock's time as players read it: "4:05", "1:02:03" past an hour, "0:09.4" under ten seconds.
 * @param {number} ms
 */
export function clockText(ms) {
  const left = Math.max(0, ms);
  if (left < TENTHS_BELOW_MS) return `0:0${(Math.floor(left / 100) / 10).toFixed(1)}`;
  const seconds = Math.floor(left / 1000);
  const ss = String(seconds % 60).padStart(2, "0");
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}:${ss}`;
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, "0")}:${ss}`;
}

/**
 * Under this much time a clock is shown as low and its player is told once.
 * @param {GameClock} clock
 */
export function lowTimeMs(clock) {
  return Math.min(LOW_MAX_MS, Math.max(LOW_MIN_MS, clock.initial_ms / 10));
}

/** @param {number} ms */
const secondsWords = (ms) => {
  const seconds = Math.ceil(ms / 1000);
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
};

/**
 * @param {Element} element
 * @param {string} value
 */
function text(element, value) {
  if (element.textContent !== value) element.textContent = value;
}

/** A short beep made by the browser (no sound file). */
class Beeper {
  constructor() {
    /** @type {AudioContext | null} */
    this.context = null;
  }

  // Made, or woken, from the player's own click on the toggle: browsers let a page play sound
  // only after one.
  wake() {
    try {
      this.context ??= new AudioContext();
      if (this.context.state === "suspended") this.context.resume().catch(() => {});
    } catch {
      this.context = null; // no Web Audio: the page stays silent
    }
  }

  beep() {
    this.wake();
    const context = this.context;
    if (!context) return;
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.frequency.value = 880;
    gain.gain.setValueAtTime(0.0001, context.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.2, context.currentTime + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, context.currentTime + 0.18);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start();
    oscillator.stop(context.currentTime + 0.2);
  }
}

/**
 * The clocks of a live game in the page's list of players: one per seat (`[data-seat]` items),
 * the running one ticking, low ones marked, and the viewer told (in `announcer`, a live region)
 * once when their first move is due and once each time their clock gets low; a beep on the
 * viewer's turn if they chose it (`sound`, a checkbox kept in localStorage).
 */
export class Clocks {
  /**
   * @param {{seats: HTMLElement, announcer: HTMLElement, settings: HTMLElement, sound: HTMLInputElement}} parts
   */
  constructor({ seats, announcer, settings, sound }) {
    this.seats = seats;
    this.announcer = announcer;
    this.settings = settings;
    this.sound = sound;
    this.offset = -Infinity;
    /** @type {Envelope | null} */
    this.envelope = null;
    /** @type {ReturnType<typeof setInterval> | null} */
    this.timer = null;
    // What the viewer was told, so that each is said once: "first:<seat>", "low:<seat>".
    /** @type {Set<string>} */
    this.told = new Set();
    this.beeper = new Beeper();
    this.sound.checked = localStorage.getItem(SOUND_KEY) === "on";
    this.sound.addEventListener("change", () => {
      localStorage.setItem(SOUND_KEY, this.sound.checked ? "on" : "off");
      if (this.sound.checked) this.beeper.wake();
    });
  }

  /**
   * Show the clocks of a newer envelope, in the players' list just rendered for it. The page's
   * first envelope (`previous` null) arrived with the page itself.
   * @param {Envelope} envelope
   * @param {Envelope | null} previous
   */
  render(envelope, previous) {
    const clock = envelope.clock;
    this.envelope = envelope;
    const seated = envelope.you !== null && envelope.you !== undefined;
    this.settings.hidden = !(clock && seated && envelope.status === "active");
    if (!clock) {
      this.stop();
      return;
    }
    this.offset = Math.max(this.offset, offsetOf(clock, previous ? localNow() : pageArrivedAt()));
    for (const item of this.seats.querySelectorAll(/** @type {"li"} */ ("[data-seat]"))) {
      const time = document.createElement("span");
      time.className = "player__clock";
      time.setAttribute("role", "timer"); // not announced as it ticks (a timer is not live)
      const first = document.createElement("span");
      first.className = "player__first-move";
      first.hidden = true;
      item.append(time, first);
    }
    const yourTurn = seated && envelope.status === "active" && clock.running === envelope.you;
    const wasYourTurn = previous !== null && previous.status === "active" && previous.to_move === envelope.you;
    if (yourTurn && previous !== null && !wasYourTurn && this.sound.checked) this.beeper.beep();
    this.tick();
    if (clock.running !== null && envelope.status === "active") this.start();
    else this.stop();
  }

  start() {
    this.timer ??= setInterval(() => this.tick(), TICK_MS);
  }

  stop() {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  tick() {
    const envelope = this.envelope;
    const clock = envelope?.clock;
    if (!envelope || !clock) return;
    const { remaining, firstMoveLeft } = clockAt(clock, localNow() + this.offset);
    const low = lowTimeMs(clock);
    for (const item of this.seats.querySelectorAll(/** @type {"li"} */ ("[data-seat]"))) {
      const seat = Number(item.dataset.seat);
      const time = item.querySelector(".player__clock");
      const first = /** @type {HTMLElement | null} */ (item.querySelector(".player__first-move"));
      if (!time || !first) continue;
      const left = remaining[seat] ?? 0;
      const running = clock.running === seat;
      text(time, clockText(left));
      time.classList.toggle("player__clock--running", running && firstMoveLeft === null);
      time.classList.toggle("player__clock--low", left < low && left > 0);
      time.classList.toggle("player__clock--out", left <= 0);
      const firstMove = running && firstMoveLeft !== null;
      first.hidden = !firstMove;
      if (firstMove) text(first, `First move within ${secondsWords(firstMoveLeft)}`);
      if (seat === envelope.you) this.tell(seat, left, low, firstMove ? firstMoveLeft : null, clock);
    }
  }

  /**
   * Tell the viewer, once each: their first move is due, their clock is low (again, after an
   * increment took it back over).
   * @param {number} seat
   * @param {number} left
   * @param {number} low
   * @param {number | null} firstMoveLeft
   * @param {GameClock} clock
   */
  tell(seat, left, low, firstMoveLeft, clock) {
    if (firstMoveLeft !== null && !this.told.has(`first:${seat}`)) {
      this.told.add(`first:${seat}`);
      this.say(`Your first move: within ${secondsWords(firstMoveLeft)}, or the game is aborted.`);
    }
    const key = `low:${seat}`;
    if (left >= low) this.told.delete(key);
    else if (left > 0 && clock.running === seat && firstMoveLeft === null && !this.told.has(key)) {
      this.told.add(key);
      this.say(`Low time: ${secondsWords(left)} left on your clock.`);
    }
  }

  /** @param {string} message */
  say(message) {
    this.announcer.textContent = message;
  }
}
