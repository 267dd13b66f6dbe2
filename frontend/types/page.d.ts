// What the platform's pages (game-page.js, replay.js, rules-diagrams.js) and a kind's page module
// (`<kind>/page.js`, its `mount(container, context)`) share, for the modules' JSDoc types only:
// nothing here is served. The shapes themselves come from the OpenAPI schema (./api.d.ts).

import type { components } from "./api";

export type Schemas = components["schemas"];

/** A game as `GET /api/v1/games/{id}/` answers it: one shape per kind, told apart by `kind`. */
export type Envelope = Schemas["GameEnvelope"];
export type Kind = Envelope["kind"];

/** A kind's own schema shapes, by kind. */
interface KindShapes {
  circles: {
    entry: Schemas["CirclesMoveLogEntry"];
    move: Schemas["CirclesMoveRequest"];
  };
  cirkis: {
    entry: Schemas["CirKisMoveLogEntry"];
    move: Schemas["CirKisMoveRequest"];
  };
  kingscorner: {
    entry: Schemas["KingsCornerMoveLogEntry"];
    move: Schemas["KingsCornerMoveRequest"];
  };
}

/** One entry of the move log of `E`'s kind. */
export type EntryOf<E extends Envelope> = KindShapes[E["kind"]]["entry"];
/** A move (`POST .../moves/`'s `move`) of `E`'s kind. */
export type MoveOf<E extends Envelope> = KindShapes[E["kind"]]["move"];

/**
 * The members of an envelope that a renderer may read: the game page passes the whole envelope,
 * the replay page builds these from a replay step (replay.js `envelopeAt`). Per kind, so a
 * kind's `state` stays tied to its `kind`.
 */
export type Shown<E extends Envelope = Envelope> = E extends unknown
  ? Pick<
      E,
      | "id"
      | "kind"
      | "status"
      | "version"
      | "move_count"
      | "options"
      | "seats"
      | "you"
      | "to_move"
      | "state"
      | "legal_moves"
      | "outcome"
      | "invitations"
      | "rematch_id"
      | "created_by"
    >
  : never;

export type NoticeKind = "info" | "error";

/** What `mount` gets: the page's settings, the kind's fixed data, and how to act. */
export interface PageContext<E extends Envelope = Envelope, KindData = unknown> {
  /** Light what may be played (a player's setting). */
  showHelpers: boolean;
  /** The kind's fixed data ("kind-data" on the page; CirKis: the board), else null. */
  kindData: KindData;
  notify(message: string, kind?: NoticeKind): void;
  /** Sends a move; the answer comes back as a new envelope (render). */
  play(move: MoveOf<E>): Promise<void>;
}

export type AnalysisPosition = Schemas["CirclesAnalysisPosition"];

/** What a kind's `mount` returns: only `render` is required (game-page.js words the rest). */
export interface Renderer<E extends Envelope = Envelope> {
  render(envelope: Shown<E>, previous: Shown<E> | null): void;
  describeMove?(entry: EntryOf<E>, envelope: Shown<E>): string;
  /** How the game was won, e.g. "by going out"; "" (or nothing) for no words. */
  describeOutcome?(outcome: Schemas["Outcome"], envelope: Shown<E>): string | null | undefined;
  seatMarker?(seat: number): Element;
  seatScore?(envelope: Shown<E>, seat: number): string | number | null;
  notices?(envelope: Shown<E>, previous: Shown<E>): string[];
  record?(envelope: Shown<E>): string | undefined;
  playerName?(envelope: Shown<E>, seat: number): string;
  /** Show `move` as chosen but not played yet (the "Confirm moves" setting); null: none is. */
  preview?(move: MoveOf<E> | null): void;
  describeAnalysis?(position: AnalysisPosition, envelope: Shown<E>): string;
  describeBest?(position: AnalysisPosition, envelope: Shown<E>): string;
  showAnalysis?(position: AnalysisPosition | null): void;
}

/** A renderer whose optional members `K` are there (e.g. for a kind's rules page, which calls them). */
export type RendererWith<E extends Envelope, K extends keyof Renderer<E>> = Renderer<E> &
  Required<Pick<Renderer<E>, K>>;

/** A kind's page module, as the pages import it by its import-map name "<kind>/page". */
export interface PageModule<E extends Envelope = Envelope> {
  mount(container: HTMLElement, context: PageContext<E, any>): Renderer<E>;
}

declare global {
  interface Window {
    /** The game page's client (game-page.js), for the browser tests to read the envelope. */
    greyCircleGame?: import("greycircle/game-client").GameClient;
  }
}
