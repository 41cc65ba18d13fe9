// Draws playing cards as plain DOM + CSS: suit symbols and the rank letters of the page's language
// (German B, D, K, A; English J, Q, K, A).

export const SUIT_SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RANK_LABELS = {
  de: { A: "A", T: "10", J: "B", Q: "D", K: "K" },
  en: { A: "A", T: "10", J: "J", Q: "Q", K: "K" },
};
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

const language = (lang) => (String(lang).startsWith("en") ? "en" : "de");

export function isJoker(code) {
  return code === "JK";
}

export function rankLabel(code, lang = "de") {
  if (isJoker(code)) return "★";
  return RANK_LABELS[language(lang)][code[0]] || code[0];
}

export function suitSymbol(code) {
  return isJoker(code) ? "" : SUIT_SYMBOLS[code[1]];
}

/** A spoken name for screen readers and titles, e.g. "Herz Dame" / "queen of hearts". */
export function cardName(code, lang = "de") {
  const l = language(lang);
  if (isJoker(code)) return "Joker";
  const rank = RANK_NAMES[l][code[0]] || code[0];
  const suit = SUIT_NAMES[l][code[1]];
  return l === "de" ? `${suit} ${rank}` : `${rank} of ${suit}`;
}

/** Short text form for move lines and buttons: "♥D" / "♥Q", "♣10", "Joker". */
export function cardShort(code, lang = "de") {
  if (isJoker(code)) return "Joker";
  return `${SUIT_SYMBOLS[code[1]]}${rankLabel(code, lang)}`;
}

export function cardSortKey(code) {
  if (isJoker(code)) return 99;
  return SUIT_ORDER[code[1]] * 20 + RANK_ORDER.indexOf(code[0]);
}

function colourClass(code) {
  if (isJoker(code)) return "pcard--joker";
  return code[1] === "H" || code[1] === "D" ? "pcard--red" : "pcard--black";
}

function span(className, text) {
  const node = document.createElement("span");
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function corner(rank, suit, end = false) {
  const box = span(`pcard__corner${end ? " pcard__corner--end" : ""}`);
  box.setAttribute("aria-hidden", "true");
  box.append(span("pcard__rank", rank));
  if (suit) box.append(span("pcard__suit", suit));
  return box;
}

/**
 * A face-up card. `tag` "button" makes it focusable and clickable (the own hand); anything else is a
 * plain picture. `small` draws the compact size used in melds and the round summary.
 */
export function cardElement(code, { tag = "div", small = false, lang = "de" } = {}) {
  const node = document.createElement(tag);
  node.className = `pcard ${colourClass(code)}${small ? " pcard--small" : ""}`;
  node.dataset.card = code;
  if (tag === "button") node.type = "button";
  node.setAttribute("aria-label", cardName(code, lang));
  node.title = cardName(code, lang);
  const rank = rankLabel(code, lang);
  const suit = suitSymbol(code);
  const pip = span(`pcard__pip${isJoker(code) ? " pcard__pip--joker" : ""}`, isJoker(code) ? "★" : suit);
  pip.setAttribute("aria-hidden", "true");
  if (isJoker(code)) pip.append(span("pcard__joker", "Joker"));
  node.append(corner(rank, suit), pip, corner(rank, suit, true));
  return node;
}

/** A face-down card (the stock, an opponent's hand). */
export function cardBack({ small = false, label = "" } = {}) {
  const node = document.createElement("div");
  node.className = `pcard pcard--back${small ? " pcard--small" : ""}`;
  if (label) node.setAttribute("aria-label", label);
  else node.setAttribute("aria-hidden", "true");
  return node;
}
