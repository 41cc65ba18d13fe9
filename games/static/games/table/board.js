// The table around the hand: the bar (round, clock, fairness), the other players with their fans and what
// each did last, the stock and the pile, whose turn it is, and the note when the server played for you.

import { cardBack, cardElement, cardName, cardShort } from "../cards.js";
import { $, el } from "./dom.js";
import { LANG, listOf, t } from "./i18n.js";
import { game } from "./game.js";
import { discardsAllowed } from "./hand.js";
import { config, hasLeft, legal, legalOf, mySeat, ownSeat, plainName, playerName, store, table, view } from "./store.js";

const short = (code) => cardShort(code, LANG);

// --- the bar ------------------------------------------------------------------------------------------------

export function renderHeader(tb, v) {
  const info = $("#table-info");
  const parts = [];
  if (v) {
    const total = game.roundsTotal(v);
    parts.push(total ? t("round_n_of", { n: v.round_number, total }) : t("round_n", { n: v.round_number }));
  }
  if (tb.ranked) parts.push(t("ranked"));
  if (info) info.textContent = parts.join(" · ");
  const me = mySeat();
  const own = $("#me-name");
  if (own) own.textContent = me === null ? "" : t("you_are", { name: playerName(me) });
  renderFairness(tb);
}

/** The deal's hash when a round starts, and the last round's deal to check it against once it is over. */
let dealLink = { number: null, url: "" };
function renderFairness(tb) {
  const box = $("#fairness");
  if (!box) return;
  box.replaceChildren();
  if (tb.round) {
    box.append(el("p", { class: "gt-hash", title: tb.round.deal_hash, text: t("deal_hash", { n: tb.round.number, hash: tb.round.deal_hash.slice(0, 16) }) }));
  }
  if (tb.last_deal && tb.last_deal.deal) {
    const key = `${tb.match ? tb.match.id : ""}:${tb.last_deal.number}`;
    if (dealLink.number !== key) {
      // One download link per revealed deal (renders are frequent; the old link's memory is given back).
      if (dealLink.url) URL.revokeObjectURL(dealLink.url);
      const blob = new Blob([JSON.stringify(tb.last_deal, null, 1)], { type: "application/json" });
      dealLink = { number: key, url: URL.createObjectURL(blob) };
    }
    box.append(el("a", { href: dealLink.url, download: `deal-${config.table_id}-${tb.last_deal.number}.json`, text: t("deal_download", { n: tb.last_deal.number }) }));
  }
}

export function renderWaiting(tb, v) {
  const box = $("#waiting");
  if (!box) return;
  box.hidden = Boolean(v);
  if (v) return;
  const free = tb.seats.filter((s) => !s.taken).length;
  const line = box.querySelector("[data-role=free]");
  if (line) line.textContent = t("seats_free", { n: free });
}

// --- what the others did --------------------------------------------------------------------------------

/** One move in a few words, without the player's name ("zieht vom Stapel", "wirft ♠10 ab"). */
export function describeMove(move) {
  const own = game.describeMove(move);
  if (own) return own;
  switch (move.action) {
    case "pass":
      return t("mv_pass");
    case "draw":
      return move.from === "discard" && move.card ? t("mv_take", { card: short(move.card) }) : t("mv_draw");
    case "discard":
      return t("mv_discard", { card: short(move.card) });
    case "resign":
      return t("mv_resign");
    default:
      return move.action;
  }
}

/** Each seat's last turn in this round: the moves since another seat last moved. */
function lastTurns(history) {
  const turns = new Map();
  let current = null;
  for (const [index, move] of history.entries()) {
    if (move.action === "reshuffle") continue;
    if (!current || current.seat !== move.seat) {
      current = { seat: move.seat, moves: [], end: index };
      turns.set(move.seat, current);
    }
    current.moves.push(move);
    current.end = index;
  }
  return turns;
}

export function turnText(turn) {
  return t("turn_line", { name: playerName(turn.seat), moves: listOf(turn.moves.map(describeMove)) });
}

// --- the other players ----------------------------------------------------------------------------------

function seatBox(tb, v, seat, turn) {
  const info = tb.seats[seat] || {};
  const active = v.to_act === seat;
  const box = el("div", {
    class: `seat${active ? " seat--turn" : ""}${hasLeft(seat) ? " seat--left" : ""}`,
    dataset: { seat: String(seat) },
  });
  const head = el("div", { class: "seat__head" });
  // Computer players by number, their level beside it where there is room.
  const name = el("span", { class: "seat__name", title: playerName(seat), text: plainName(seat) });
  head.append(name);
  if (info.bot) head.append(el("span", { class: "seat__level", text: t(`level_${info.bot}`) }));
  if (hasLeft(seat)) head.append(el("span", { class: "tag tag--warn", text: t("left") }));
  else if (info.user_id && store.offline.has(info.user_id)) head.append(el("span", { class: "tag tag--warn", text: t("offline") }));
  if (info.timeouts) head.append(el("span", { class: "tag tag--warn", text: t("timeouts_n", { n: info.timeouts }) }));
  box.append(head);
  const count = (v.hand_counts && v.hand_counts[seat]) ?? 0;
  const fan = el("div", { class: "fan", role: "img", "aria-label": t("cards_in_hand", { n: count }) });
  for (let i = 0; i < Math.min(count, 15); i += 1) fan.append(cardBack({ small: true }));
  const hand = el("div", { class: "seat__hand" }, fan, el("span", { class: "seat__count", dataset: { role: "count" }, text: count }));
  for (const tag of game.seatTags(v, seat)) hand.append(el("span", { class: `tag ${tag.ok ? "tag--ok" : "tag--closed"}`, text: tag.text }));
  box.append(hand);
  box.append(el("p", { class: "seat__last", dataset: { role: "last" }, text: turn ? listOf(turn.moves.map(describeMove)) : "" }));
  return box;
}

export function renderOpponents(tb, v) {
  const area = $("#opponents");
  area.replaceChildren();
  const me = mySeat();
  const seats = v.seats ?? tb.seat_count;
  const turns = lastTurns(v.history || []);
  // Seats in play order starting after the own seat, so the next player is always first.
  const start = me === null ? (ownSeat() ?? -1) + 1 : me + 1;
  area.dataset.count = String(seats - (me === null ? 0 : 1));
  for (let i = 0; i < seats; i += 1) {
    const seat = (start + i) % seats;
    if (seat === me) continue;
    area.append(seatBox(tb, v, seat, turns.get(seat)));
  }
}

// --- stock, pile and whose turn ---------------------------------------------------------------------------

export function renderCenter(tb, v) {
  const stock = $("#stock");
  const pile = $("#pile");
  const drawStock = legal().find((a) => a.action === "draw" && a.from === "stock");
  const drawPile = legal().find((a) => a.action === "draw" && a.from === "discard");
  // A game without a stock or a pile (its view carries no stock_size, no discard_size) shows none.
  stock.hidden = v.stock_size === undefined;
  pile.hidden = v.discard_size === undefined;
  stock.replaceChildren(cardBack());
  stock.append(el("span", { class: "pile__count", dataset: { role: "stock-size" }, text: v.stock_size }));
  stock.classList.toggle("is-playable", Boolean(drawStock));
  stock.disabled = !drawStock;
  stock.setAttribute("aria-label", drawStock ? t("draw_stock_n", { n: v.stock_size }) : t("stock_n", { n: v.stock_size }));

  pile.replaceChildren();
  if (v.discard_top) pile.append(cardElement(v.discard_top, { lang: LANG }));
  else pile.append(el("div", { class: "pcard pcard--empty", text: t("empty") }));
  pile.append(el("span", { class: "pile__count", dataset: { role: "pile-size" }, text: v.discard_size ?? 0 }));
  pile.classList.toggle("is-playable", Boolean(drawPile));
  pile.classList.toggle("is-target", discardsAllowed());
  // Never `disabled`: a disabled button would swallow the pointer events of a card dropped on it.
  pile.setAttribute("aria-disabled", drawPile || (discardsAllowed() && store.selected.size === 1) ? "false" : "true");
  pile.setAttribute(
    "aria-label",
    (v.discard_top ? t("pile_top", { card: cardName(v.discard_top, LANG), n: v.discard_size }) : t("pile_empty")) +
      (drawPile ? ` – ${t("take_pile")}` : discardsAllowed() ? ` – ${t("drop_here")}` : ""),
  );

  const turn = $("#turn");
  const me = mySeat();
  if (v.over) turn.textContent = t("match_over");
  else if (v.to_act === null || v.to_act === undefined) turn.textContent = t("round_over");
  else if (v.to_act === me) turn.textContent = phaseHint(v);
  else turn.textContent = t("turn_of", { name: playerName(v.to_act) });
  turn.classList.toggle("turn--mine", v.to_act === me && me !== null);
  renderLastMove(v);
}

function phaseHint(v) {
  if (legalOf("pass").length) return t("hint_first_turn");
  if (legalOf("draw").length) return t("hint_draw");
  if (legalOf("discard").length) return game.turnHint(v) || t("hint_discard");
  return game.turnHint(v) || t("your_turn");
}

/** The latest turn of another player, every move of it ("Computer 3 zieht vom Stapel, legt an und wirft ♠10 ab"). */
function renderLastMove(v) {
  const line = $("#last-move");
  const history = v.history || [];
  const me = mySeat();
  const turns = [...lastTurns(history).values()].filter((turn) => turn.seat !== me).sort((a, b) => b.end - a.end);
  const latest = turns[0];
  if (!latest) {
    line.textContent = "";
    return;
  }
  const text = turnText(latest);
  if (line.textContent === text) return;
  line.textContent = text;
  line.classList.remove("is-new");
  void line.offsetWidth;
  line.classList.add("is-new");
}

// --- the server played for you ---------------------------------------------------------------------------

// A move of the own seat that this page did not send was the server's when the seat's timeouts rose; else
// another tab of the same player sent it (and, if it ended the match, this tab says so, not "Zeit abgelaufen").
let ownMoves = null;
export function noticeTimeout(v) {
  const me = mySeat();
  if (me === null || !v) return;
  const tb = table();
  const history = v.history || [];
  const key = `${v.round_number}`;
  const mine = history.filter((move) => move.seat === me);
  const timeouts = (tb && tb.seats && tb.seats[me] && tb.seats[me].timeouts) || 0;
  if (ownMoves && ownMoves.key === key && mine.length > ownMoves.count && store.sentAt === undefined) {
    const line = $("#timeout-note");
    const over = Boolean(v.over || (tb && tb.status === "finished"));
    let text = null;
    if (timeouts > ownMoves.timeouts) text = t("timeout_played", { moves: listOf(mine.slice(ownMoves.count).map(describeMove)) });
    else if (over) text = t("match_over_elsewhere");
    if (line && text) {
      line.textContent = text;
      line.hidden = false;
      clearTimeout(noticeTimeout.timer);
      noticeTimeout.timer = setTimeout(() => (line.hidden = true), 8000);
    }
  }
  ownMoves = { key, count: mine.length, timeouts };
  store.sentAt = undefined;
}

// --- countdown --------------------------------------------------------------------------------------------

export function tick() {
  const clock = $("#clock");
  const tb = table();
  const v = view();
  if (!clock || !tb) return;
  const deadline = tb.turn_deadline ? Date.parse(tb.turn_deadline) : null;
  if (!deadline || !v || v.over) {
    clock.hidden = true;
    return;
  }
  // The deadline is the server's clock; if frames ever carry the server's time, a wrong local clock is
  // corrected by the difference (until then the local clock is trusted).
  const skew = store.frame.server_time ? Date.parse(store.frame.server_time) - store.receivedAt : 0;
  const left = Math.max(0, Math.ceil((deadline - (Date.now() + (skew || 0))) / 1000));
  clock.hidden = false;
  clock.dataset.seconds = String(left);
  const text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  if (clock.textContent !== text) clock.textContent = text;
  clock.classList.toggle("clock--urgent", left <= 10 && v.to_act === mySeat());
  clock.classList.toggle("clock--mine", v.to_act === mySeat() && mySeat() !== null);
}
