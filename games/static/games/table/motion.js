// Short motion so that a card that moves shows where it went: from the stock or the pile into a hand, from a
// hand onto the pile or a meld, and the own cards sliding into a new order. Positions are read before a
// render and after it (FLIP); nothing moves for players who ask their system for reduced motion.

import { cardBack, cardElement } from "../cards.js";
import { root } from "./dom.js";
import { game } from "./game.js";
import { LANG } from "./i18n.js";

const DURATION = 260;
const EASING = "cubic-bezier(.2, .7, .2, 1)";
const reducedQuery = window.matchMedia("(prefers-reduced-motion: reduce)");
let running = 0;
let started = 0;

export function reduced() {
  return reducedQuery.matches;
}

/** How many card movements are playing (tests wait for none before they measure or take pictures). */
export function moving() {
  return running;
}

/** How many card movements have been started since the page loaded. */
export function flights() {
  return started;
}

export const rectOf = (node) => (node ? node.getBoundingClientRect() : null);

/** Where things are before a render: hand cards by key, stock, pile, seats, the melds of the table's middle
 * by number (a game's renderTable marks them data-meld). */
export function capture() {
  if (reduced()) return null;
  const snap = { hand: new Map(), melds: new Map(), seats: new Map() };
  for (const card of root.querySelectorAll("#hand .pcard")) snap.hand.set(card.dataset.key, rectOf(card));
  for (const meld of root.querySelectorAll("#melds .meld[data-meld]")) snap.melds.set(meld.dataset.meld, rectOf(meld));
  for (const seat of root.querySelectorAll("#opponents .seat")) snap.seats.set(Number(seat.dataset.seat), rectOf(seat.querySelector(".fan") || seat));
  snap.stock = rectOf(root.querySelector("#stock .pcard"));
  snap.pile = rectOf(root.querySelector("#pile .pcard"));
  snap.handArea = rectOf(root.querySelector("#hand"));
  return snap;
}

function track(animation) {
  running += 1;
  started += 1;
  const done = () => {
    running = Math.max(0, running - 1);
  };
  animation.finished.then(done, done);
  return animation;
}

/** Plays an element from where `from` was to where it is now (added to whatever transform CSS gives it). */
export function flyFrom(node, from, { delay = 0, scale = true } = {}) {
  if (!node || !from) return;
  const to = node.getBoundingClientRect();
  const dx = from.left - to.left;
  const dy = from.top - to.top;
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
  const sx = scale && to.width ? from.width / to.width : 1;
  const sy = scale && to.height ? from.height / to.height : 1;
  track(
    node.animate(
      [
        { transform: `translate(${dx}px, ${dy}px) scale(${sx}, ${sy})`, transformOrigin: "top left" },
        { transform: "none", transformOrigin: "top left" },
      ],
      { duration: DURATION, delay, easing: EASING, composite: "add", fill: "backwards" },
    ),
  );
}

/** A stand-in card that flies from one place to another (a hidden card to a seat, a card onto a meld). */
export function ghostFlight(face, from, to, { delay = 0 } = {}) {
  if (!from || !to) return;
  const ghost = face ? cardElement(face, { small: true, lang: LANG }) : cardBack({ small: true });
  ghost.classList.add("pcard--flying");
  ghost.style.left = `${from.left}px`;
  ghost.style.top = `${from.top}px`;
  document.body.append(ghost);
  const box = ghost.getBoundingClientRect();
  const dx = to.left + to.width / 2 - (from.left + box.width / 2);
  const dy = to.top + to.height / 2 - (from.top + box.height / 2);
  const animation = track(
    ghost.animate([{ transform: "none", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px)`, opacity: 0.6 }], {
      duration: DURATION + 60,
      delay,
      easing: EASING,
      fill: "both",
    }),
  );
  const remove = () => ghost.remove();
  animation.finished.then(remove, remove);
}

/** After a render: moves the cards that `before` → `after` moved (the new public moves of the same round). */
export function animate(snap, before, after) {
  if (!snap || !before || !after || !before.view || !after.view) return;
  const bv = before.view;
  const av = after.view;
  if (bv.round_number !== av.round_number) return; // a new deal: the cards are dealt, not flown
  const handNow = new Map([...root.querySelectorAll("#hand .pcard")].map((card) => [card.dataset.key, card]));
  // The own cards that stayed slide to their new places (a new order, a card taken out).
  for (const [key, card] of handNow) if (snap.hand.has(key)) flyFrom(card, snap.hand.get(key), { scale: false });
  const moves = (av.history || []).slice((bv.history || []).length);
  const me = Number.isInteger(av.seat) ? av.seat : null;
  const seatRect = (seat) => {
    const node = root.querySelector(`#opponents .seat[data-seat="${seat}"] .fan`);
    return rectOf(node) || snap.seats.get(seat) || null;
  };
  const removedKey = (code) => [...snap.hand.keys()].find((key) => key.startsWith(`${code}#`) && !handNow.has(key)) ||
    [...snap.hand.keys()].find((key) => key.startsWith(`${code}#`));
  moves.forEach((move, i) => {
    const delay = i * 140;
    const mine = move.seat === me;
    if (move.action === "draw") {
      const from = move.from === "discard" ? snap.pile : snap.stock;
      if (mine) {
        const code = av.taken || av.drawn || move.card;
        const fresh = [...handNow].find(([key]) => !snap.hand.has(key) && key.startsWith(`${code}#`));
        if (fresh) flyFrom(fresh[1], from, { delay });
      } else {
        ghostFlight(move.from === "discard" ? move.card : null, from, seatRect(move.seat), { delay });
      }
    } else if (game.pileActions.includes(move.action)) {
      const top = root.querySelector("#pile .pcard");
      const from = mine ? snap.hand.get(removedKey(move.card)) : seatRect(move.seat);
      flyFrom(top, from, { delay });
    } else {
      // The game's own moves (a meld laid, a card laid off) fly where its part of the table shows them.
      game.animateMove(move, { snap, mine, delay, from: mine ? snap.hand.get(removedKey(move.card)) : seatRect(move.seat), seatRect });
    }
  });
}
