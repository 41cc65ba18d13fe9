// Draws playing cards as plain DOM + CSS: suit symbols and German rank labels (B, D, K, A, 10).

export const SUIT_SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const RANK_LABELS = { A: "A", T: "10", J: "B", Q: "D", K: "K" };
const SUIT_NAMES = {
  de: { C: "Kreuz", D: "Karo", H: "Herz", S: "Pik" },
  en: { C: "clubs", D: "diamonds", H: "hearts", S: "spades" },
};
const RANK_NAMES = {
  de: { A: "Ass", T: "10", J: "Bube", Q: "Dame", K: "König" },
  en: { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" },
};
// Kreuz, Pik, Herz, Karo: the order German players sort by (romme.md).
export const SUIT_ORDER = { C: 0, S: 1, H: 2, D: 3 };
export const RANK_ORDER = "A23456789TJQK";

export function isJoker(code) {
  return code === "JK";
}

export function rankLabel(code) {
  if (isJoker(code)) return "★";
  return RANK_LABELS[code[0]] || code[0];
}

export function suitSymbol(code) {
  return isJoker(code) ? "" : SUIT_SYMBOLS[code[1]];
}

/** A spoken name for screen readers and titles, e.g. "Herz Dame" / "queen of hearts". */
export function cardName(code, lang = "de") {
  const l = lang.startsWith("en") ? "en" : "de";
  if (isJoker(code)) return "Joker";
  const rank = RANK_NAMES[l][code[0]] || code[0];
  const suit = SUIT_NAMES[l][code[1]];
  return l === "de" ? `${suit} ${rank}` : `${rank} of ${suit}`;
}

/** Short text form for move lines: "♥D", "♣10", "Joker". */
export function cardShort(code) {
  if (isJoker(code)) return "Joker";
  return `${SUIT_SYMBOLS[code[1]]}${rankLabel(code)}`;
}

export function cardSortKey(code) {
  if (isJoker(code)) return 99;
  return SUIT_ORDER[code[1]] * 20 + RANK_ORDER.indexOf(code[0]);
}

function colourClass(code) {
  if (isJoker(code)) return "pcard--joker";
  return code[1] === "H" || code[1] === "D" ? "pcard--red" : "pcard--black";
}

/**
 * A face-up card. `tag` "button" makes it focusable and clickable (the own hand); anything else is a
 * plain picture. `small` draws the compact size used in meld rows and the round summary.
 */
export function cardElement(code, { tag = "div", small = false, lang = "de" } = {}) {
  const el = document.createElement(tag);
  el.className = `pcard ${colourClass(code)}${small ? " pcard--small" : ""}`;
  el.dataset.card = code;
  if (tag === "button") el.type = "button";
  el.setAttribute("aria-label", cardName(code, lang));
  el.title = cardName(code, lang);
  const rank = rankLabel(code);
  const suit = suitSymbol(code);
  if (isJoker(code)) {
    el.innerHTML =
      '<span class="pcard__corner" aria-hidden="true"><span class="pcard__rank">★</span></span>' +
      '<span class="pcard__pip pcard__pip--joker" aria-hidden="true">★<small>Joker</small></span>' +
      '<span class="pcard__corner pcard__corner--end" aria-hidden="true"><span class="pcard__rank">★</span></span>';
    return el;
  }
  el.innerHTML =
    `<span class="pcard__corner" aria-hidden="true"><span class="pcard__rank">${rank}</span>` +
    `<span class="pcard__suit">${suit}</span></span>` +
    `<span class="pcard__pip" aria-hidden="true">${suit}</span>` +
    `<span class="pcard__corner pcard__corner--end" aria-hidden="true"><span class="pcard__rank">${rank}</span>` +
    `<span class="pcard__suit">${suit}</span></span>`;
  return el;
}

/** A face-down card (the stock, an opponent's hand). */
export function cardBack({ small = false, label = "" } = {}) {
  const el = document.createElement("div");
  el.className = `pcard pcard--back${small ? " pcard--small" : ""}`;
  if (label) el.setAttribute("aria-label", label);
  else el.setAttribute("aria-hidden", "true");
  return el;
}
