// Rommé arithmetic for the meld builder: the points of a meld and the order a run is written in (lowest
// first, jokers where they stand). Only arranging and adding up: whether a meld is valid is the server's call.

import { isJoker } from "./cards.js";

const RANKS = "A23456789TJQK";

function positionValue(position) {
  // Positions 0..13: ace low, 2..10, J, Q, K, ace high.
  if (position === 0) return 1;
  if (position === 13) return 11;
  return position >= 9 ? 10 : position + 1;
}

/** The points of a meld laid in the given order (a set, or a run lowest first with its jokers in place). */
export function pointsInOrder(codes) {
  const naturals = codes.filter((c) => !isJoker(c));
  if (!naturals.length) return 0;
  const ranks = naturals.map((c) => RANKS.indexOf(c[0]));
  if (new Set(ranks).size === 1) return codes.length * (ranks[0] === 0 ? 11 : positionValue(ranks[0]));
  const anchor = codes.findIndex((c) => !isJoker(c) && c[0] !== "A");
  const base = RANKS.indexOf(codes[anchor][0]) - anchor;
  return codes.reduce((sum, _, i) => sum + positionValue(Math.max(0, Math.min(13, base + i))), 0);
}

/** Cards chosen in any order, arranged as a run is written (or a set: naturals, then jokers). */
export function arrangeMeld(codes) {
  const naturals = codes.filter((c) => !isJoker(c));
  let spare = codes.length - naturals.length;
  const ranks = naturals.map((c) => RANKS.indexOf(c[0]));
  if (!naturals.length || new Set(ranks).size === 1) return [...naturals, ...codes.filter(isJoker)];
  const aceHigh = ranks.includes(0) && ranks.some((r) => r >= 9) && !ranks.includes(1);
  const placed = naturals
    .map((c) => [c[0] === "A" && aceHigh ? 13 : RANKS.indexOf(c[0]), c])
    .sort((x, y) => x[0] - y[0]);
  const low = placed[0][0];
  const high = placed[placed.length - 1][0];
  if (high - low + 1 - naturals.length > spare) return placed.map(([, c]) => c).concat(codes.filter(isJoker));
  const cards = [];
  for (let position = low; position <= high; position += 1) {
    const natural = placed.find(([p]) => p === position);
    if (natural) cards.push(natural[1]);
    else {
      cards.push("JK");
      spare -= 1;
    }
  }
  // Jokers left over extend the run, up first and then down, turn about, so two never lie side by side.
  let top = high;
  let bottom = low;
  for (let up = true; spare > 0; up = !up) {
    if (up && top < 13) {
      cards.push("JK");
      top += 1;
      spare -= 1;
    } else if (!up && bottom > 0) {
      cards.unshift("JK");
      bottom -= 1;
      spare -= 1;
    } else if (top >= 13 && bottom <= 0) break;
  }
  return cards;
}
