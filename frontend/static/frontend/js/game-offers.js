// What a game's page offers the other player to answer, right there: a takeback asked for in a
// casual game, a rematch of a game that is over. Each is said in a notice kept in the page (a
// live region, in the page while empty, so that screen readers announce it) beside its buttons
// (frontend/game.html). The server decides; the page shows what the envelope says.

/** @typedef {import("types/page").Schemas} Schemas */
/** @typedef {import("types/page").Envelope} Envelope */
/** @typedef {import("types/page").NoticeKind} NoticeKind */
/** @typedef {import("greycircle/game-client").GameClient} GameClient */
/** @typedef {Schemas["GameInvitation"]} GameInvitation */
/**
 * @typedef {object} OfferContext
 * @property {GameClient} client
 * @property {(message: string, kind?: NoticeKind) => void} notify
 * @property {(envelope: Envelope, seat: number) => string} playerName a seat's name as the kind words it
 */

/** An element of the game page's template, where it always is. */
const byId = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** What a refusal or a failure says, to show. */
const messageOf = (/** @type {unknown} */ error) => (error instanceof Error ? error.message : String(error));

/**
 * @param {HTMLElement} notice
 * @param {string} line "" to say nothing
 */
function say(notice, line) {
  if (notice.textContent !== line) notice.textContent = line;
  notice.classList.toggle("visually-hidden", !line);
}

/** A casual game's takebacks: the button to ask for one, and a request waiting for an answer. */
export class Takebacks {
  /** @param {OfferContext} context */
  constructor(context) {
    this.context = context;
    this.notice = byId("takeback-offer");
    this.ask = byId("takeback");
    this.accept = byId("takeback-accept");
    this.decline = byId("takeback-decline");
    this.ask.addEventListener("click", () => this.send("offer"));
    this.accept.addEventListener("click", () => this.send("accept"));
    this.decline.addEventListener("click", () => this.send("decline"));
  }

  /**
   * Whether there is a move of the viewer's to take back, the server knows, and says so if not.
   * @param {Envelope} envelope
   */
  render(envelope) {
    const seated = envelope.you !== null && envelope.status === "active";
    const offer = seated ? envelope.takeback : null;
    const mine = offer !== null && offer.seat === envelope.you;
    this.ask.hidden = !(seated && envelope.takebacks && envelope.move_count > 0 && offer === null);
    this.accept.hidden = !(offer && !mine);
    this.decline.hidden = !offer;
    const label = mine ? "Withdraw takeback" : "Decline takeback";
    if (this.decline.textContent !== label) this.decline.textContent = label;
    let line = "";
    if (offer) {
      const what = offer.moves === 1 ? "the last move" : `the last ${offer.moves} moves`;
      line = mine
        ? `You asked to take back ${what}: waiting for an answer.`
        : `${this.context.playerName(envelope, offer.seat)} asks to take back ${what}.`;
    }
    say(this.notice, line);
  }

  /** @param {Schemas["TakebackActionEnum"]} action */
  async send(action) {
    const { client, notify } = this.context;
    /** @type {Schemas["TakebackRequestRequest"]} */
    const body = { action };
    try {
      client.accept(await client.request("POST", `/api/v1/games/${client.id}/takeback/`, body));
    } catch (error) {
      notify(messageOf(error), "error");
    }
  }
}

/** A rematch another player asked for, waiting for the viewer's answer: said, and answered here.
 *  The envelope names the rematch; who asked and whom it waits for are its own. */
export class RematchOffer {
  /** @param {OfferContext} context */
  constructor(context) {
    this.context = context;
    this.notice = byId("rematch-offer");
    this.accept = byId("rematch-accept");
    this.decline = byId("rematch-decline");
    /** @type {number | null} the rematch last looked at (its id): each is fetched once */
    this.checked = null;
    /** @type {GameInvitation | null} the viewer's invitation to it, while it waits for them */
    this.invitation = null;
    this.accept.addEventListener("click", () => this.answer("accept"));
    this.decline.addEventListener("click", () => this.answer("decline"));
  }

  /** @param {Envelope} envelope */
  async render(envelope) {
    const id = envelope.rematch_id;
    if (!id || envelope.you === null || id === this.checked) return;
    this.checked = id;
    /** @type {Envelope} */
    let rematch;
    try {
      rematch = await this.context.client.request("GET", `/api/v1/games/${id}/`);
    } catch {
      return; // the Rematch button still leads to it
    }
    const mine = (rematch.invitations ?? []).find(
      (invitation) => invitation.status === "pending" && invitation.seat === rematch.you,
    );
    if (rematch.status !== "open" || rematch.you === null || !mine) return;
    this.invitation = mine;
    this.show(`${rematch.created_by ?? "Another player"} asks for a rematch.`);
  }

  /** @param {string} line */
  show(line) {
    say(this.notice, line);
    this.accept.hidden = this.invitation === null;
    this.decline.hidden = this.invitation === null;
  }

  /** @param {"accept" | "decline"} what */
  async answer(what) {
    const { client, notify } = this.context;
    if (!this.invitation) return;
    try {
      await client.request("POST", `/api/v1/invitations/${this.invitation.id}/${what}/`);
    } catch (error) {
      notify(messageOf(error), "error");
      return;
    }
    if (what === "accept") {
      window.location.assign(`/games/${this.checked}/`);
      return;
    }
    this.invitation = null;
    this.show("You declined the rematch.");
  }
}
