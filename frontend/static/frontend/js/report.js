// Reporting a player to the moderators: a dialog with the reasons and an optional comment,
// sent to POST /api/v1/reports/. The server decides what may be reported (a target the reporter
// cannot see is "not found" like one that does not exist); the dialog only tells its answer.
//
// Other modules open it with `reportOpen` (a chat message's or a direct message's Report
// button); buttons the templates render (a profile, the game page's opponents) carry
// `data-report` (the label, e.g. the player's name) and their target as
// `data-report-username`, `data-report-game`, `data-report-game-message` or
// `data-report-direct-message`, and this module opens the dialog for them.

import { element, textElement } from "greycircle/dom";

/** @typedef {import("types/page").Schemas} Schemas */
/** @typedef {Schemas["ReportReasonEnum"]} Reason */
/**
 * What is reported: a message (whose author is reported), a game (`username`: which of its
 * players, unless only one other person plays it), or a player's profile (`username` alone).
 * @typedef {{game_message?: number, direct_message?: number, game?: number, username?: string}} ReportTarget
 */

/** The reasons as players read them, in the order offered. @type {Record<Reason, string>} */
const REASONS = {
  abusive_chat: "Abusive chat",
  cheating: "Cheating",
  sandbagging: "Sandbagging or rating manipulation",
  stalling: "Stalling (letting the clock run)",
  offensive_username: "Offensive username",
  spam: "Spam",
  other: "Something else",
};

const COMMENT_MAX = 1000;
const THANKS = "Thank you; the moderators will look at it.";

let dialogs = 0;

/** @param {string} name */
function cookie(name) {
  const match = document.cookie.match(new RegExp(`(?:^|; )${name}=([^;]*)`));
  return match ? decodeURIComponent(match[1] ?? "") : "";
}

/**
 * Open the report dialog for `target` ("Report <label>"). Resolves when the dialog closes:
 * whether a report was filed.
 * @param {{target: ReportTarget, label: string}} options
 * @returns {Promise<boolean>}
 */
export function reportOpen({ target, label }) {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const id = `report-${++dialogs}`;
  const dialog = element("dialog", "report-dialog", { "aria-labelledby": `${id}-title` });
  const form = element("form", "report-dialog__form", { method: "dialog" });
  const title = textElement("h2", "report-dialog__title", `Report ${label}`);
  title.id = `${id}-title`;

  const reasons = element("fieldset", "report-dialog__reasons");
  reasons.append(textElement("legend", "", "Why?"));
  for (const [value, text] of Object.entries(REASONS)) {
    const choice = element("label", "report-dialog__reason");
    const radio = element("input", "", { type: "radio", name: "reason", value, required: true });
    choice.append(radio, ` ${text}`);
    reasons.append(choice);
  }

  const commentLabel = textElement("label", "report-dialog__label", "What happened (optional)");
  commentLabel.htmlFor = `${id}-comment`;
  const comment = element("textarea", "report-dialog__comment", {
    id: `${id}-comment`,
    name: "comment",
    rows: 3,
    maxlength: COMMENT_MAX,
  });
  const error = element("p", "report-dialog__error", { role: "alert", hidden: true });
  const send = textElement("button", "button button--primary", "Send");
  send.type = "submit";
  const cancel = textElement("button", "button", "Cancel");
  cancel.type = "button";
  const buttons = element("div", "button-row");
  buttons.append(send, cancel);
  form.append(title, reasons, commentLabel, comment, error, buttons);

  const done = element("div", "report-dialog__done", { hidden: true });
  const thanks = textElement("p", "", THANKS);
  thanks.setAttribute("role", "status");
  const close = textElement("button", "button button--primary", "Close");
  close.type = "button";
  done.append(thanks, close);
  dialog.append(form, done);
  document.body.append(dialog);

  let filed = false;
  cancel.addEventListener("click", () => dialog.close());
  close.addEventListener("click", () => dialog.close());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = form.querySelector('input[name="reason"]:checked');
    if (!(chosen instanceof HTMLInputElement)) return; // `required` says so already
    send.disabled = true;
    error.hidden = true;
    const problem = await reportSend({
      ...target,
      reason: /** @type {Reason} */ (chosen.value),
      comment: comment.value,
    });
    send.disabled = false;
    if (problem !== null) {
      error.textContent = problem;
      error.hidden = false;
      return;
    }
    filed = true;
    form.hidden = true;
    done.hidden = false;
    close.focus();
  });

  return new Promise((resolve) => {
    // Escape closes a modal dialog by itself ("cancel", then "close").
    dialog.addEventListener("close", () => {
      dialog.remove();
      opener?.focus();
      resolve(filed);
    });
    dialog.showModal();
    reasons.querySelector("input")?.focus();
  });
}

/**
 * POST the report; null once filed, else what to tell the reporter.
 * @param {Schemas["ReportCreateRequest"] & ReportTarget} body
 * @returns {Promise<string | null>}
 */
async function reportSend(body) {
  try {
    const response = await fetch("/api/v1/reports/", {
      method: "POST",
      credentials: "same-origin",
      headers: {
        Accept: "application/json",
        "Content-Type": "application/json",
        "X-CSRFToken": cookie("csrftoken"),
      },
      body: JSON.stringify(body),
    });
    if (response.ok) return null;
    /** @type {Partial<Schemas["Error"]>} */
    const refusal = await response.json().catch(() => ({}));
    return refusal.detail ?? "The report could not be sent; try again.";
  } catch {
    return "The report could not be sent: check your connection and try again.";
  }
}

/**
 * The target a template's Report button names in its `data-report-*` attributes.
 * @param {HTMLElement} button
 * @returns {ReportTarget}
 */
function targetOf(button) {
  const { reportUsername, reportGame, reportGameMessage, reportDirectMessage } = button.dataset;
  /** @type {ReportTarget} */
  const target = {};
  if (reportUsername) target.username = reportUsername;
  if (reportGame) target.game = Number(reportGame);
  if (reportGameMessage) target.game_message = Number(reportGameMessage);
  if (reportDirectMessage) target.direct_message = Number(reportDirectMessage);
  return target;
}

document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-report]") : null;
  if (!(button instanceof HTMLElement)) return;
  event.preventDefault();
  void reportOpen({ target: targetOf(button), label: button.dataset["report"] ?? "" });
});
