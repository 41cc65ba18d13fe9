// The own hand: its order (the server's melds first, by suit, or the player's own), choosing cards with a
// click, a tap or the keyboard, and dragging a card with mouse or finger onto the pile, a meld or another
// place in the hand. What a drop does is asked of the drop targets the games register.

import { cardElement, cardShort, cardSortKey } from "../cards.js";
import { $, el, root, toast } from "./dom.js";
import { LANG, t } from "./i18n.js";
import { game } from "./game.js";
import { config, legalOf, mySeat, rerender, sendAction, store, view } from "./store.js";

/** Keys that tell identical cards apart (a game may have two of each): "7H#0", "7H#1". */
export function handKeys(hand) {
  const seen = {};
  return hand.map((code) => {
    seen[code] = (seen[code] || 0) + 1;
    return `${code}#${seen[code] - 1}`;
  });
}

export const codeOf = (key) => key.split("#")[0];

export function selectedCodes() {
  return [...store.selected].map(codeOf);
}

// --- order ------------------------------------------------------------------------------------------------

const orderKey = `games:hand-order:${config.table_id}`;

function savedOrder() {
  try {
    return JSON.parse(localStorage.getItem(orderKey) || "[]");
  } catch {
    return [];
  }
}

function saveOwnOrder(keys) {
  localStorage.setItem(orderKey, JSON.stringify(keys.map(codeOf)));
}

/** The melds of the hand's best arrangement, as the server sent them (the game's arrangement hook). */
export function arrangementMelds(v) {
  const melds = game.arrangement(v);
  return Array.isArray(melds) ? melds : [];
}

/** The hand as groups of keys: melds first (server's best arrangement), by suit, or the player's own order. */
export function orderedHand(v) {
  const keys = handKeys(v.hand || []);
  if (store.order === "own") {
    const remaining = [...keys];
    const ordered = [];
    for (const code of savedOrder()) {
      const index = remaining.findIndex((key) => codeOf(key) === code);
      if (index >= 0) ordered.push(remaining.splice(index, 1)[0]);
    }
    return [[...ordered, ...remaining]];
  }
  const bySuit = (list) => [...list].sort((a, b) => cardSortKey(codeOf(a)) - cardSortKey(codeOf(b)));
  if (store.order === "suit") return [bySuit(keys)];
  const melds = arrangementMelds(v);
  if (!melds.length) return [bySuit(keys)];
  const remaining = [...keys];
  const groups = [];
  for (const meld of melds) {
    const group = [];
    for (const code of meld) {
      const index = remaining.findIndex((key) => codeOf(key) === code);
      if (index >= 0) group.push(remaining.splice(index, 1)[0]);
    }
    if (group.length) groups.push(group);
  }
  if (remaining.length) groups.push(bySuit(remaining));
  return groups;
}

const ORDERS = ["melds", "suit", "own"];

/** A click on a sort button: its order; on a phone only the chosen button shows, and a tap goes to the next. */
export function orderClicked(button) {
  const others = [...root.querySelectorAll("[data-order]")].filter((b) => b !== button);
  const compact = others.length && others.every((b) => getComputedStyle(b).display === "none");
  const mode = compact ? ORDERS[(ORDERS.indexOf(store.order) + 1) % ORDERS.length] : button.dataset.order;
  setOrder(mode);
  if (compact) root.querySelector(`[data-order="${mode}"]`)?.focus();
}

export function setOrder(mode) {
  if (mode === "own" && store.order !== "own") {
    // Start the own order from what the player sees now, so switching does not shuffle the cards.
    const v = view();
    if (v && v.hand && !savedOrder().length) saveOwnOrder(orderedHand(v).flat());
  }
  store.order = mode;
  localStorage.setItem("games:hand-order-mode", mode);
  rerender();
}

function moveInOwnOrder(key, targetKey, after) {
  const v = view();
  const keys = orderedHand(v).flat().filter((k) => k !== key);
  const at = keys.indexOf(targetKey);
  keys.splice(after ? at + 1 : at, 0, key);
  saveOwnOrder(keys);
  store.order = "own";
  localStorage.setItem("games:hand-order-mode", "own");
  focusKey = key;
  rerender();
}

// --- choosing and playing -------------------------------------------------------------------------------

export function toggleSelect(key) {
  if (store.selected.has(key)) store.selected.delete(key);
  else {
    // A game that plays one card at a time forgets the last choice; one that builds melds keeps several.
    if (!game.multiSelect) store.selected.clear();
    store.selected.add(key);
  }
  store.tip = null;
  store.tipAction = null;
  focusKey = key;
  rerender();
}

/** Whether a card may go on the pile now (a discard, or a move of the game's that ends on the pile). */
export function discardsAllowed() {
  return game.pileActions.some((kind) => legalOf(kind).length > 0);
}

/** Discards the card of `key` if the rules allow it now (else says why, when discarding is the phase). */
export function discardKey(key) {
  const code = codeOf(key);
  const discard = legalOf("discard").find((a) => a.card === code);
  if (discard) {
    sendAction(discard);
    return true;
  }
  if (discardsAllowed()) toast(t("cannot_discard", { card: cardShort(code, LANG) }));
  return false;
}

// --- drawing the hand -----------------------------------------------------------------------------------

let focusKey = null; // the card that is to have the keyboard focus after the next render
let rovingKey = null; // the hand's one Tab stop (roving tabindex): the card last walked to

export function renderHand(tb, v) {
  const area = $("#hand");
  const hadFocus = area.contains(document.activeElement);
  const focused = focusKey || (hadFocus ? document.activeElement.dataset.key : rovingKey);
  area.replaceChildren();
  const groups = orderedHand(v);
  const discardable = new Set(legalOf("discard").map((a) => a.card));
  const drawnCode = v.taken || v.drawn || null;
  // One card is marked as just drawn, even when the hand holds its twin (a game may have two of each).
  const drawn = drawnCode ? groups.flat().find((key) => codeOf(key) === drawnCode) : null;
  const melds = store.order === "melds" ? arrangementMelds(v).length : 0;
  const keys = groups.flat();
  const roving = keys.includes(focused) ? focused : keys[0];
  rovingKey = roving;
  for (const [index, group] of groups.entries()) {
    const isMeld = index < melds;
    const wrap = el("div", { class: `hand__group${isMeld ? ` hand__group--meld hand__group--${index % 2 ? "b" : "a"}` : ""}`, role: "group" });
    for (const key of group) {
      const code = codeOf(key);
      const card = cardElement(code, { tag: "button", lang: LANG });
      card.dataset.key = key;
      card.tabIndex = key === roving ? 0 : -1;
      card.classList.toggle("is-selected", store.selected.has(key));
      card.classList.toggle("is-tip", store.tip === code);
      card.classList.toggle("is-staged", store.staged.some((meld) => meld.includes(key)));
      card.classList.toggle("is-drawn", drawn === key);
      card.classList.toggle("is-discardable", discardable.has(code));
      card.setAttribute("aria-pressed", store.selected.has(key) ? "true" : "false");
      wrap.append(card);
    }
    area.append(wrap);
  }
  for (const orderButton of root.querySelectorAll("[data-order]")) {
    orderButton.setAttribute("aria-pressed", orderButton.dataset.order === store.order ? "true" : "false");
  }
  if (hadFocus || focusKey) {
    const again = area.querySelector(`[data-key="${CSS.escape(roving || "")}"]`);
    if (again && (hadFocus || document.activeElement === document.body)) again.focus({ preventScroll: true });
  }
  focusKey = null;
}

// --- keyboard ---------------------------------------------------------------------------------------------

root.addEventListener("keydown", (event) => {
  const card = event.target.closest && event.target.closest("#hand .pcard");
  if (!card) return;
  const cards = [...root.querySelectorAll("#hand .pcard")];
  const index = cards.indexOf(card);
  const go = (next) => {
    event.preventDefault();
    for (const other of cards) other.tabIndex = -1;
    next.tabIndex = 0;
    rovingKey = next.dataset.key;
    next.focus();
  };
  if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
    const next = cards[(index + (event.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length];
    if (event.altKey || event.shiftKey) {
      event.preventDefault();
      moveInOwnOrder(card.dataset.key, next.dataset.key, event.key === "ArrowRight");
    } else go(next);
  } else if (event.key === "Home") go(cards[0]);
  else if (event.key === "End") go(cards[cards.length - 1]);
  else if (event.key === "Delete" || event.key === "Backspace" || event.key === "d") {
    event.preventDefault();
    focusKey = cards[index + 1] ? cards[index + 1].dataset.key : null;
    discardKey(card.dataset.key);
  }
});

// --- dragging: one pointer path for mouse, pen and finger --------------------------------------------------

const dropTargets = [];

/** A place a hand card may be dropped: `selector` finds it, `drop(key, element)` acts (true if it did). */
export function addDropTarget(selector, drop, { active = () => true } = {}) {
  dropTargets.push({ selector, drop, active });
}

addDropTarget("#pile", (key) => discardKey(key), { active: discardsAllowed });
addDropTarget("#hand .pcard", (key, target, point) => {
  if (!target.dataset.key || target.dataset.key === key) return false;
  const rect = target.getBoundingClientRect();
  moveInOwnOrder(key, target.dataset.key, point.x > rect.left + rect.width / 2);
  return true;
});

function targetAt(x, y) {
  const under = document.elementFromPoint(x, y);
  if (!under) return null;
  for (const target of dropTargets) {
    const node = under.closest(target.selector);
    if (node && root.contains(node)) return { target, node };
  }
  return null;
}

let drag = null;
let suppressClick = false;
const DRAG_THRESHOLD = 8;

root.addEventListener("pointerdown", (event) => {
  const card = event.target.closest && event.target.closest("#hand .pcard");
  if (!card || (event.pointerType === "mouse" && event.button !== 0) || mySeat() === null) return;
  drag = { key: card.dataset.key, card, id: event.pointerId, x: event.clientX, y: event.clientY, started: false, ghost: null, over: null };
});

function startDrag(event) {
  drag.started = true;
  const rect = drag.card.getBoundingClientRect();
  drag.dx = drag.x - rect.left;
  drag.dy = drag.y - rect.top;
  const ghost = drag.card.cloneNode(true);
  ghost.removeAttribute("id");
  ghost.classList.add("pcard--ghost");
  ghost.classList.remove("is-selected");
  ghost.setAttribute("aria-hidden", "true");
  ghost.style.width = `${rect.width}px`;
  ghost.style.height = `${rect.height}px`;
  document.body.append(ghost);
  drag.ghost = ghost;
  drag.card.classList.add("is-lifted");
  root.classList.add("is-dragging");
  moveGhost(event);
}

function moveGhost(event) {
  drag.ghost.style.transform = `translate(${event.clientX - drag.dx}px, ${event.clientY - drag.dy}px) rotate(-4deg)`;
  const found = targetAt(event.clientX, event.clientY);
  const node = found && found.target.active() ? found.node : null;
  if (drag.over !== node) {
    drag.over?.classList.remove("is-over");
    node?.classList.add("is-over");
    drag.over = node;
  }
}

function endDrag() {
  if (!drag) return;
  drag.ghost?.remove();
  drag.over?.classList.remove("is-over");
  drag.card.classList.remove("is-lifted");
  root.classList.remove("is-dragging");
  drag = null;
}

window.addEventListener(
  "pointermove",
  (event) => {
    if (!drag || event.pointerId !== drag.id) return;
    if (!drag.started) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < DRAG_THRESHOLD) return;
      startDrag(event);
    }
    event.preventDefault();
    moveGhost(event);
  },
  { passive: false },
);

window.addEventListener("pointerup", (event) => {
  if (!drag || event.pointerId !== drag.id) return;
  if (!drag.started) {
    drag = null;
    return;
  }
  const { key } = drag;
  const found = targetAt(event.clientX, event.clientY);
  endDrag();
  // The click the browser may send right after this pointerup (same task) is not a choice of a card; the
  // next real click is.
  suppressClick = true;
  setTimeout(() => (suppressClick = false), 0);
  if (found && found.target.active()) found.target.drop(key, found.node, { x: event.clientX, y: event.clientY });
});

window.addEventListener("pointercancel", endDrag);

// A click that ends a drag is not a choice of a card.
root.addEventListener(
  "click",
  (event) => {
    if (suppressClick) {
      event.stopPropagation();
      event.preventDefault();
    }
  },
  true,
);
