// The game at this table, as the shell sees it: the hooks of the game's client module, which lives in the
// game's own package (games/kinds/<game>/static/<game>/client.js) and which the server names in the page
// (<link id="game-module">, from the game's registry entry). The shell calls these hooks and never asks which
// game it is; what a game leaves out is done the plain way below, so a new game starts from a working table.
//
// The table part of a client module (../client.js) default-exports an object with any of the hooks below.

import { clientPart, withDefaults } from "../client.js";
import { t } from "./i18n.js";

const plain = () => null;

/** Every hook, with what a game that does not name it gets. `v` is the view of the last frame. */
const DEFAULTS = {
  /** Whether the hand chooses several cards at once (melds) or one (a card to play). */
  multiSelect: false,
  /** The melds of the hand's best arrangement as card codes, for the "Meldungen" order (the server's). */
  arrangement: () => [],
  /** How many rounds the match has, when it is a fixed number ("Runde 3 von 8"); null: not fixed. */
  roundsTotal: plain,
  /** Tags beside an opponent's fan: [{text, ok}]. */
  seatTags: () => [],
  /** What the player is asked to do once drawn (or when the shell knows no hint), in the game's own words
   * (text); null: the shell's hint. */
  turnHint: plain,
  /** A move of the game's own in a few words without the name ("klopft und wirft ♠10 ab"); null: the shell's. */
  describeMove: plain,
  /** The actions that put a card on the pile (the pile is a drop target while one is legal; the card flies
   * there). */
  pileActions: ["discard"],
  /** Moves a card of a move of the game's own (not a draw, not onto the pile) where the game's part of the
   * table shows it, after a render: `(move, {snap, mine, delay, from, seatRect})`, with ./motion.js. */
  animateMove: () => {},
  /** The game's own sounds by name, each `(ac, {tone, swish})`: it plays itself on the WebAudio context `ac`
   * with the shell's two instruments (./sound.js); one named as a shell's sound replaces it. moveSound and
   * roundEndSound may name these. */
  sounds: {},
  /** The sound of a move of the game's own, by name: one of its `sounds` or the shell's ("lay", "fanfare",
   * "draw", "discard"); null: the shell's for draw and discard. */
  moveSound: plain,
  /** The sound of a round's end (the view's last_round), when it is one worth a sound ("fanfare", or one of the
   * game's `sounds`); null: none. */
  roundEndSound: plain,
  /** Draws the game's part of the table's middle (melds, cards played) into `area`; false: it has none. */
  renderTable: () => false,
  /** Draws the numbers above the own hand (a meter, the points of a hand) into `box`. */
  renderNumbers: () => {},
  /** Adds the game's own buttons to the action bar `bar`, after the shell's (draw, pass, discard). */
  renderActions: () => {},
  /** One round of the score sheet (`round`: of view.scores.rounds): {kind: how it ended, as text, or null;
   * cells: one per seat, a text, a node or a list of them}. Plainly: a mark for the round's winner. */
  sheetRound: (v, round, seats) => ({ kind: null, cells: Array.from({ length: seats }, (_, seat) => (round.winner === seat ? "✓" : "")) }),
  /** The rows under the score sheet's rounds: [{label, values, title}], values one per seat as shown.
   * Plainly: the sheet's totals. */
  sheetTotals: (v, scores) => (Array.isArray(scores.totals) ? [{ label: t("totals"), values: scores.totals }] : []),
  /** Anything shown under the score sheet (a node) or null. */
  sheetAfter: plain,
  /** The headline of a round's end (text); null: the shell's ("X gewinnt die Runde – …!"). */
  roundHeadline: plain,
  /** One seat of a round's end: {tags: [{text, ok}], parts: [nodes], figures: [texts]}. */
  roundSeat: () => ({ tags: [], parts: [], figures: [] }),
  /** The columns of the match's final score: [[label, values]]; null: the final and nothing else. */
  finalColumns: plain,
  /** The standing after a round, one value per seat as shown; null: the score sheet's totals. */
  standing: plain,
};

export const game = { ...DEFAULTS };

/** Takes the hooks of the game's table part (before the first render). */
export async function loadGame() {
  Object.assign(game, withDefaults(DEFAULTS, await clientPart("table"), "table"));
  return game;
}
