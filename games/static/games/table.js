// The live table: keeps one WebSocket to the server, renders every `state` frame it sends, and turns
// clicks, drags and keys into the legal actions that frame lists. It knows no rules of its own.

import { cardBack, cardElement, cardName, cardShort, cardSortKey } from "./cards.js";
import { arrangeMeld, pointsInOrder } from "./melds.js";

const config = JSON.parse(document.getElementById("table-config").textContent);
const STR = config.strings || {};
const LANG = document.documentElement.lang || "de";
const root = document.getElementById("table-app");

/** The name of how a round ended ("Klopfen", "Hand-Rommé", …); an unknown kind is shown as it came. */
function resultName(kind) {
  return STR[`result_${kind}`] ?? kind;
}

/** A translated string from the page's catalogue, with {name} placeholders filled in. */
function t(key, vars = {}) {
  const text = STR[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const $ = (selector) => root.querySelector(selector);

// --- state ------------------------------------------------------------------------------------------------

const store = {
  frame: config.state || null, // the last `state` frame
  version: config.state ? config.state.version : -1,
  selected: new Set(), // keys of selected hand cards ("7H#0")
  staged: [], // Rommé: melds being built, each a list of keys
  fixedMelds: new Set(), // staged melds taken from the server's suggestion, sent in its order
  tip: null, // gin: the card the Tipp button highlights
  pending: false, // an action is on its way; buttons wait for the answer
  lastMoveKey: "",
  order: localStorage.getItem("games:hand-order-mode") || "melds",
};
const orderKey = `games:hand-order:${config.table_id}`;

function view() {
  return store.frame ? store.frame.view : null;
}
function table() {
  return store.frame ? store.frame.table : null;
}
function mySeat() {
  const v = view();
  if (v && Number.isInteger(v.seat)) return v.seat;
  const tb = table();
  return tb && Number.isInteger(tb.you) ? tb.you : null;
}
function legal() {
  const v = view();
  return (v && Array.isArray(v.legal_actions) && v.legal_actions) || [];
}
function legalOf(kind) {
  return legal().filter((a) => a.action === kind);
}
function playerName(seat) {
  const tb = table();
  const v = view();
  const info = tb && tb.seats && tb.seats[seat];
  // Computer players are named here, in the page's language, with their level.
  if (info && info.bot) return t("computer_name", { n: seat + 1, level: t(`level_${info.bot}`) });
  const fromTable = tb && tb.seats && tb.seats[seat] && tb.seats[seat].name;
  const fromView = v && v.players && v.players[seat];
  return fromTable || fromView || t("seat_n", { n: seat + 1 });
}

// --- the socket -------------------------------------------------------------------------------------------

let socket = null;
let attempts = 0;
let everConnected = false;
let reconnectTimer = null;

function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}${config.ws_path}`;
}

function setConnection(status) {
  const banner = document.getElementById("connection");
  if (!banner) return;
  banner.dataset.status = status;
  banner.textContent = status === "online" ? t("conn_back") : status === "offline" ? t("conn_reconnecting") : t("conn_connecting");
  banner.hidden = status === "online" && !everConnected;
  if (status === "online") {
    clearTimeout(setConnection.hideTimer);
    setConnection.hideTimer = setTimeout(() => (banner.hidden = true), 2500);
  } else {
    banner.hidden = false;
  }
}

function connect() {
  clearTimeout(reconnectTimer);
  socket = new WebSocket(socketUrl());
  socket.addEventListener("open", () => {
    const wasDown = attempts > 0 || everConnected;
    attempts = 0;
    if (wasDown) setConnection("online");
    everConnected = true;
    root.dataset.connected = "1";
    // The server sends the full current state on every (re)connect: whatever happened meanwhile is in it.
  });
  socket.addEventListener("message", (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    receive(message);
  });
  socket.addEventListener("close", () => {
    root.dataset.connected = "0";
    store.pending = false;
    setConnection("offline");
    // Back off so that a restarting server is not hammered, but come back quickly after a short blip.
    const delay = Math.min(8000, 400 * 2 ** attempts) + Math.random() * 300;
    attempts += 1;
    reconnectTimer = setTimeout(connect, delay);
  });
}

function send(message) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    toast(t("not_connected"));
    return false;
  }
  socket.send(JSON.stringify(message));
  return true;
}

function sendAction(action) {
  if (store.pending) return;
  if (send({ type: "move", version: store.version, action })) {
    store.sentAt = store.version;
    store.pending = true;
    root.dataset.pending = "1";
  }
}

function receive(message) {
  switch (message.type) {
    case "state":
      if (message.version < store.version) return; // an older frame overtaken by a newer one
      acceptState(message);
      break;
    case "chat":
      addChat(message);
      break;
    case "presence":
      // Only changes are announced: a seat is marked offline once its player's socket is known to be gone.
      store.offline = store.offline || new Set();
      if (message.online) store.offline.delete(message.user_id);
      else store.offline.add(message.user_id);
      render();
      break;
    case "error":
      store.pending = false;
      root.dataset.pending = "0";
      // The server's message is German and names the rule; other languages translate by the stable code.
      toast((LANG.startsWith("de") ? message.message : STR[`err_${message.code}`] || message.message) || t("error"));
      // After stale_version and not_your_turn the server sends the full state by itself; any other error
      // that shows a newer version than ours means a frame went missing: ask for the current view.
      if (Number.isInteger(message.version) && message.version > store.version && !["stale_version", "not_your_turn"].includes(message.code)) {
        send({ type: "sync" });
      }
      render();
      break;
    case "pong":
      if (Number.isInteger(message.version) && message.version > store.version) send({ type: "sync" });
      break;
    default:
      break;
  }
}

const initialStatus = config.state ? config.state.table.status : "";
const initialSeats = config.state ? JSON.stringify(config.state.table.seats.map((s) => s.name)) : "";

function acceptState(frame) {
  const before = store.frame;
  // The waiting room (seats, join and computer buttons) is rendered by the server: while the table is
  // open, any change of its seats or its start brings a fresh page rather than a half-updated one.
  if (initialStatus === "open" && (frame.table.status !== "open" || JSON.stringify(frame.table.seats.map((s) => s.name)) !== initialSeats)) {
    location.reload();
    return;
  }
  store.receivedAt = Date.now();
  store.frame = frame;
  store.version = frame.version;
  store.pending = false;
  root.dataset.pending = "0";
  root.dataset.version = String(frame.version);
  const v = frame.view;
  // Forget selections of cards that left the hand (played, or a new round).
  const keys = new Set(handKeys(v && v.hand ? v.hand : []));
  for (const key of [...store.selected]) if (!keys.has(key)) store.selected.delete(key);
  store.staged = store.staged.map((meld) => meld.filter((key) => keys.has(key))).filter((meld) => meld.length);
  if (!before || !v || !before.view || before.view.round_number !== v.round_number || v.to_act !== mySeat()) {
    store.tip = null;
  }
  render();
  if (v) noticeTimeout(v, v.history || [], mySeat());
}

// --- hand order ---------------------------------------------------------------------------------------------

/** Keys that tell identical cards apart (Rommé has two of each): "7H#0", "7H#1". */
function handKeys(hand) {
  const seen = {};
  return hand.map((code) => {
    seen[code] = (seen[code] || 0) + 1;
    return `${code}#${seen[code] - 1}`;
  });
}
const codeOf = (key) => key.split("#")[0];

function savedOrder() {
  try {
    return JSON.parse(localStorage.getItem(orderKey) || "[]");
  } catch {
    return [];
  }
}

/** The hand as groups of keys: melds first (server's best arrangement), by suit, or the player's own order. */
function orderedHand(v) {
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

/** The melds of the hand's best arrangement, as the server sent them (gin meter, Rommé best opening). */
function arrangementMelds(v) {
  if (v.meter && Array.isArray(v.meter.melds)) return v.meter.melds;
  if (v.best_opening && Array.isArray(v.best_opening.melds)) return v.best_opening.melds;
  return [];
}

function saveOwnOrder(keys) {
  localStorage.setItem(orderKey, JSON.stringify(keys.map(codeOf)));
}

function setOrder(mode) {
  if (mode === "own" && store.order !== "own") {
    // Start the own order from what the player sees now, so switching does not shuffle the cards.
    const v = view();
    if (v && v.hand && !savedOrder().length) saveOwnOrder(orderedHand(v).flat());
  }
  store.order = mode;
  localStorage.setItem("games:hand-order-mode", mode);
  render();
}

// --- numbers the server sends ---------------------------------------------------------------------------

/** The gin deadwood meter (view.meter) as {now, afterBest, bestDiscard, byCard, canKnock, canGin, knockLimit}. */
function ginMeter(v) {
  const meter = v.meter || {};
  const byCard = {};
  for (const choice of meter.discards || []) byCard[choice.card] = choice.deadwood;
  return {
    now: meter.deadwood ?? null,
    afterBest: meter.best_deadwood ?? null,
    bestDiscard: meter.best_discard ?? null,
    byCard,
    canKnock: Boolean(meter.can_knock) && legalOf("knock").length > 0,
    canGin: Boolean(meter.can_gin) && legalOf("knock").length > 0,
    knockLimit: meter.knock_limit ?? v.knock_limit ?? null,
  };
}

function deadwoodAfter(v, card) {
  return ginMeter(v).byCard[card] ?? null;
}

/** The knock the Klopfen button plays: the selected card if that one may knock, else the one leaving least. */
function chosenKnock(v, { ginOnly = false } = {}) {
  const knocks = legalOf("knock");
  if (!knocks.length) return null;
  const selected = [...store.selected].map(codeOf);
  const score = (a) => deadwoodAfter(v, a.card) ?? 99;
  let candidates = knocks;
  if (ginOnly) candidates = knocks.filter((a) => score(a) === 0);
  if (selected.length === 1) {
    const match = candidates.find((a) => a.card === selected[0]);
    return match || null;
  }
  if (!candidates.length) return null;
  return [...candidates].sort((a, b) => score(a) - score(b))[0];
}

// --- rendering ---------------------------------------------------------------------------------------------

function render() {
  const frame = store.frame;
  if (!frame) return;
  const v = frame.view;
  const tb = frame.table;
  root.dataset.game = tb.game;
  root.dataset.status = tb.status;
  root.dataset.phase = v ? v.phase : "waiting";
  root.dataset.toAct = v && v.to_act !== null && v.to_act !== undefined ? String(v.to_act) : "";
  root.dataset.mySeat = mySeat() === null ? "" : String(mySeat());
  renderHeader(tb, v);
  renderWaiting(tb, v);
  if (v) {
    renderOpponents(tb, v);
    renderCenter(tb, v);
    renderMelds(tb, v);
    renderHand(tb, v);
    renderActions(tb, v);
    renderScores(tb, v);
    renderRoundEnd(tb, v);
    renderLastMove(v);
  }
  renderMatchEnd(tb, v);
  const resign = document.getElementById("btn-resign");
  if (resign) resign.hidden = tb.status !== "playing" || mySeat() === null;
  tick();
}

function renderHeader(tb, v) {
  const info = $("#table-info");
  if (!info) return;
  const me = mySeat();
  const own = document.getElementById("me-name");
  if (own) own.textContent = me === null ? "" : t("you_are", { name: playerName(me) });
  renderFairness(tb);
  const parts = [];
  if (v) parts.push(t("round_n", { n: v.round_number }));
  if (tb.ranked) parts.push(t("ranked"));
  info.textContent = parts.join(" · ");
}

/** The deal's hash when a round starts, and the last round's deal to check it against once it is over. */
let dealLink = { number: null, url: "" };
function renderFairness(tb) {
  const box = document.getElementById("fairness");
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

function renderWaiting(tb, v) {
  const box = $("#waiting");
  if (!box) return;
  box.hidden = Boolean(v);
  if (v) return;
  const free = tb.seats.filter((s) => !s.taken).length;
  box.querySelector("[data-role=free]").textContent = t("seats_free", { n: free });
}

function seatBox(tb, v, seat) {
  const info = tb.seats[seat] || {};
  const turn = v.to_act === seat;
  const box = el("div", {
    class: `seat${turn ? " seat--turn" : ""}${info.left ? " seat--left" : ""}`,
    dataset: { seat: String(seat) },
  });
  const name = el("div", { class: "seat__name" }, playerName(seat));
  if (info.left) name.append(el("span", { class: "tag tag--warn", text: t("left") }));
  else if (info.user_id && store.offline && store.offline.has(info.user_id)) name.append(el("span", { class: "tag tag--warn", text: t("offline") }));
  box.append(name);
  const count = (v.hand_counts && v.hand_counts[seat]) ?? 0;
  const fan = el("div", { class: "fan", "aria-label": t("cards_in_hand", { n: count }) });
  for (let i = 0; i < Math.min(count, 14); i += 1) fan.append(cardBack({ small: true }));
  box.append(fan, el("div", { class: "seat__count", dataset: { role: "count" }, text: t("cards_n", { n: count }) }));
  const facts = el("div", { class: "seat__facts" });
  if (v.game === "romme" && Array.isArray(v.opened)) {
    facts.append(
      el("span", { class: `tag${v.opened[seat] ? " tag--ok" : ""}`, text: v.opened[seat] ? t("opened") : t("not_opened") }),
    );
  }
  if (info.timeouts) facts.append(el("span", { class: "tag tag--warn", text: t("timeouts_n", { n: info.timeouts }) }));
  if (facts.childNodes.length) box.append(facts);
  return box;
}

function renderOpponents(tb, v) {
  const area = $("#opponents");
  area.replaceChildren();
  const me = mySeat();
  const seats = v.seats ?? tb.seat_count;
  // Seats in play order starting after the own seat, so the next player is always first.
  const start = me === null ? 0 : me + 1;
  for (let i = 0; i < seats; i += 1) {
    const seat = (start + i) % seats;
    if (seat === me) continue;
    area.append(seatBox(tb, v, seat));
  }
}

function renderCenter(tb, v) {
  const stock = $("#stock");
  const pile = $("#pile");
  const drawStock = legal().find((a) => a.action === "draw" && a.from === "stock");
  const drawPile = legal().find((a) => a.action === "draw" && a.from === "discard");
  stock.replaceChildren(cardBack({ label: t("stock_n", { n: v.stock_size }) }));
  stock.append(el("span", { class: "pile__count", dataset: { role: "stock-size" }, text: v.stock_size }));
  stock.classList.toggle("is-playable", Boolean(drawStock));
  stock.disabled = !drawStock;
  stock.setAttribute("aria-label", drawStock ? t("draw_stock_n", { n: v.stock_size }) : t("stock_n", { n: v.stock_size }));

  pile.replaceChildren();
  if (v.discard_top) {
    pile.append(cardElement(v.discard_top, { lang: LANG }));
  } else {
    pile.append(el("div", { class: "pcard pcard--empty", text: t("empty") }));
  }
  pile.append(el("span", { class: "pile__count", dataset: { role: "pile-size" }, text: v.discard_size ?? 0 }));
  pile.classList.toggle("is-playable", Boolean(drawPile));
  pile.classList.toggle("is-target", discardsAllowed());
  pile.setAttribute(
    "aria-label",
    (v.discard_top ? t("pile_top", { card: cardName(v.discard_top, LANG), n: v.discard_size }) : t("pile_empty")) +
      (drawPile ? ` – ${t("take_pile")}` : ""),
  );

  const turn = $("#turn");
  const me = mySeat();
  if (v.over) turn.textContent = t("match_over");
  else if (v.to_act === null || v.to_act === undefined) turn.textContent = t("round_over");
  else if (v.to_act === me) turn.textContent = phaseHint(v);
  else turn.textContent = t("turn_of", { name: playerName(v.to_act) });
  turn.classList.toggle("turn--mine", v.to_act === me && me !== null);
}

function phaseHint(v) {
  if (legalOf("pass").length) return t("hint_first_turn");
  if (legalOf("draw").length) return t("hint_draw");
  if (legalOf("discard").length || legalOf("knock").length) return t("hint_discard");
  return t("your_turn");
}

function discardsAllowed() {
  return legalOf("discard").length > 0 || legalOf("knock").length > 0;
}

function renderHand(tb, v) {
  const area = $("#hand");
  const section = $("#me");
  if (!v.hand) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
  area.replaceChildren();
  const groups = orderedHand(v);
  const discardable = new Set(legalOf("discard").map((a) => a.card));
  const drawn = v.taken || v.drawn || null;
  for (const [index, group] of groups.entries()) {
    const isMeld = store.order === "melds" && index < arrangementMelds(v).length;
    const wrap = el("div", { class: `hand__group${isMeld ? " hand__group--meld" : ""}`, role: "group" });
    for (const key of group) {
      const code = codeOf(key);
      const card = cardElement(code, { tag: "button", lang: LANG });
      card.dataset.key = key;
      card.draggable = true;
      card.classList.toggle("is-selected", store.selected.has(key));
      card.classList.toggle("is-tip", store.tip === code);
      card.classList.toggle("is-staged", store.staged.some((meld) => meld.includes(key)));
      card.classList.toggle("is-drawn", drawn === code);
      card.classList.toggle("is-discardable", discardable.has(code));
      card.setAttribute("aria-pressed", store.selected.has(key) ? "true" : "false");
      wrap.append(card);
    }
    area.append(wrap);
  }
  for (const button of section.querySelectorAll("[data-order]")) {
    button.setAttribute("aria-pressed", button.dataset.order === store.order ? "true" : "false");
  }
  if (focused) {
    const again = area.querySelector(`[data-key="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  }
  renderNumbers(v);
}

function renderNumbers(v) {
  const box = $("#numbers");
  box.replaceChildren();
  if (v.game === "gin") {
    const meter = ginMeter(v);
    const drawn = (v.hand || []).length > 10;
    // After drawing the meter shows what remains after the best discard; before, the hand as it is.
    const shown = drawn ? meter.afterBest : meter.now;
    const limit = meter.knockLimit ?? 10;
    const wrap = el("div", {
      class: `meter${meter.canKnock ? " meter--knock" : ""}${shown === 0 ? " meter--gin" : ""}`,
      id: "deadwood-meter",
      dataset: { deadwood: shown ?? "" },
    });
    wrap.append(el("span", { class: "meter__label", text: drawn ? t("deadwood_after") : t("deadwood") }));
    wrap.append(el("strong", { class: "meter__value", dataset: { role: "deadwood" }, text: shown ?? "–" }));
    const bar = el("span", { class: "meter__bar", "aria-hidden": "true" });
    const fill = el("span", { class: "meter__fill" });
    fill.style.width = `${Math.min(100, ((shown ?? 0) / 60) * 100)}%`;
    const mark = el("span", { class: "meter__limit" });
    mark.style.left = `${Math.min(100, (limit / 60) * 100)}%`;
    bar.append(fill, mark);
    wrap.append(bar);
    if (meter.canKnock) wrap.append(el("span", { class: "meter__note", text: shown === 0 ? t("gin_possible") : t("knock_possible") }));
    else if (limit !== null) wrap.append(el("span", { class: "meter__note", text: t("knock_limit", { n: limit }) }));
    box.append(wrap);
  } else {
    const augen = v.hand_augen ?? null;
    if (augen !== null) box.append(el("div", { class: "stat", id: "augen" }, el("span", { text: t("augen") }), el("strong", { text: augen })));
    const opened = Array.isArray(v.opened) && mySeat() !== null ? v.opened[mySeat()] : false;
    const needed = v.opening_points ?? (v.options && v.options.opening_points) ?? 40;
    if (!opened) {
      const total = stagedTotal();
      box.append(
        el(
          "div",
          { class: `stat${total >= needed ? " stat--ok" : ""}`, id: "opening-total" },
          el("span", { text: t("opening_total") }),
          el("strong", { text: `${total} / ${needed}` }),
        ),
      );
      const best = v.best_opening;
      if (best && best.value !== undefined) {
        box.append(
          el("div", { class: `stat stat--hint${best.reaches ? " stat--ok" : ""}`, id: "best-opening" }, el("span", { text: t("best_opening") }), el("strong", { text: best.value })),
        );
      }
    } else {
      box.append(el("div", { class: "stat stat--ok" }, el("span", { text: t("you_opened") })));
    }
  }
}

/** A staged meld as it is sent: the server's suggestion in its own order, the player's own arranged. */
function stagedCodes(meld) {
  const codes = meld.map(codeOf);
  return store.fixedMelds.has(meld.join(",")) ? codes : arrangeMeld(codes);
}

const meldPoints = pointsInOrder;

function stagedTotal() {
  return store.staged.reduce((sum, meld) => sum + meldPoints(stagedCodes(meld)), 0);
}

function renderMelds(tb, v) {
  const area = $("#melds");
  if (v.game !== "romme") {
    area.hidden = true;
    return;
  }
  area.hidden = false;
  area.replaceChildren();
  const table = v.melds || v.table_melds || [];
  // Group the melds by the player who laid them, so "who has opened" reads at a glance.
  const bySeat = new Map();
  for (const [index, meld] of table.entries()) {
    const owner = meld.owner ?? meld.seat ?? null;
    if (!bySeat.has(owner)) bySeat.set(owner, []);
    bySeat.get(owner).push({ index, meld });
  }
  if (!table.length) area.append(el("p", { class: "muted", text: t("no_melds") }));
  for (const [owner, melds] of bySeat) {
    const row = el("div", { class: "meld-row" });
    row.append(el("div", { class: "meld-row__owner", text: owner === null ? "" : playerName(owner) }));
    const list = el("div", { class: "meld-row__melds" });
    for (const { index, meld } of melds) {
      const cards = meld.cards || meld;
      const id = meld.number ?? index + 1;
      const box = el("div", {
        class: `meld${layoffTargets().has(String(id)) ? " is-target" : ""}`,
        dataset: { meld: String(id) },
        tabindex: "0",
        role: "button",
        "aria-label": t("meld_label", { cards: cards.map(cardShort).join(" ") }),
      });
      for (const code of cards) box.append(cardElement(code, { small: true, lang: LANG }));
      list.append(box);
    }
    row.append(list);
    area.append(row);
  }
  if (store.staged.length) {
    const row = el("div", { class: "meld-row meld-row--staged" });
    row.append(el("div", { class: "meld-row__owner", text: t("your_new_melds") }));
    const list = el("div", { class: "meld-row__melds" });
    for (const [i, meld] of store.staged.entries()) {
      const box = el("div", { class: "meld meld--staged", dataset: { staged: String(i) } });
      for (const code of stagedCodes(meld)) box.append(cardElement(code, { small: true, lang: LANG }));
      box.append(el("span", { class: "meld__points", text: meldPoints(stagedCodes(meld)) }));
      list.append(box);
    }
    row.append(list);
    area.append(row);
  }
}

/** Melds a selected card may be laid off on, by the legal actions (ids as strings). */
function layoffTargets() {
  const selected = [...store.selected].map(codeOf);
  const targets = new Set();
  for (const action of legalOf("lay_off")) {
    if (action.meld === undefined) continue;
    if (!selected.length || selected.includes(action.card)) targets.add(String(action.meld));
  }
  return targets;
}

function button(label, { id, onclick, disabled = false, kind = "" } = {}) {
  return el("button", { type: "button", class: `btn${kind ? ` btn--${kind}` : ""}`, id, onclick, disabled }, label);
}

function renderActions(tb, v) {
  const bar = $("#actions");
  bar.replaceChildren();
  const me = mySeat();
  if (me === null || v.over) return;
  const selected = [...store.selected].map(codeOf);
  const one = selected.length === 1 ? selected[0] : null;
  const pass = legalOf("pass")[0];
  const drawPile = legal().find((a) => a.action === "draw" && a.from === "discard");
  const drawStock = legal().find((a) => a.action === "draw" && a.from === "stock");
  if (pass) {
    // The first-turn offer: two clear choices, the upcard named on the button.
    bar.append(
      button(t("take_upcard", { card: v.discard_top ? cardShort(v.discard_top) : "" }), {
        id: "btn-take",
        kind: "primary",
        onclick: () => sendAction(drawPile || { action: "draw", from: "discard" }),
        disabled: !drawPile,
      }),
      button(t("pass"), { id: "btn-pass", onclick: () => sendAction(pass) }),
    );
    return;
  }
  if (drawStock || drawPile) {
    if (drawStock) bar.append(button(t("draw_stock"), { id: "btn-draw-stock", kind: "primary", onclick: () => sendAction(drawStock) }));
    if (drawPile) bar.append(button(t("take_pile"), { id: "btn-draw-pile", onclick: () => sendAction(drawPile) }));
  }
  const discard = one && legalOf("discard").find((a) => a.card === one);
  if (legalOf("discard").length) {
    bar.append(
      button(one ? t("discard_card", { card: cardShort(one) }) : t("discard"), {
        id: "btn-discard",
        kind: "primary",
        disabled: !discard,
        onclick: () => discard && sendAction(discard),
      }),
    );
  }
  if (v.game === "gin") renderGinActions(bar, v);
  else renderRommeActions(bar, v, selected);
}

function renderGinActions(bar, v) {
  const knocks = legalOf("knock");
  if (knocks.length || legalOf("discard").length) {
    const knock = chosenKnock(v);
    const knockLeft = knock ? deadwoodAfter(v, knock.card) : null;
    const nonGin = knock && knockLeft !== 0;
    bar.append(
      button(knock && nonGin ? t("knock_with", { card: cardShort(knock.card), n: knockLeft ?? "?" }) : t("knock"), {
        id: "btn-knock",
        kind: "knock",
        disabled: !knock || !nonGin,
        onclick: () => knock && sendAction(knock),
      }),
    );
    const gin = chosenKnock(v, { ginOnly: true });
    bar.append(
      button(gin ? t("gin_with", { card: cardShort(gin.card) }) : t("gin"), {
        id: "btn-gin",
        kind: "gin",
        disabled: !gin,
        onclick: () => gin && sendAction(gin),
      }),
    );
  }
  const bigGin = legalOf("big_gin")[0];
  if (bigGin) bar.append(button(t("big_gin"), { id: "btn-big-gin", kind: "gin", onclick: () => sendAction(bigGin) }));
  if (legalOf("discard").length) {
    bar.append(
      button(t("tip"), {
        id: "btn-tip",
        kind: "ghost",
        onclick: () => {
          const meter = ginMeter(v);
          store.tip = meter.bestDiscard;
          if (store.tip) toast(t("tip_text", { card: cardShort(store.tip), n: meter.afterBest ?? "?" }));
          render();
        },
      }),
    );
  }
}

function renderRommeActions(bar, v, selected) {
  const choice = (store.endChoice || []).filter((a) => legal().some((b) => JSON.stringify(a) === JSON.stringify(b)));
  store.endChoice = choice;
  for (const action of choice) {
    bar.append(
      button(t(action.end === "low" ? "lay_off_low" : "lay_off_high", { card: cardShort(action.card), n: action.meld }), {
        id: `btn-end-${action.end}`,
        kind: "primary",
        onclick: () => {
          store.endChoice = [];
          sendAction(action);
        },
      }),
    );
  }
  // After drawing, any melds may be laid: the page gathers them, the server checks them when sent.
  const canLay = legalOf("discard").length > 0;
  if (!canLay) return;
  const suggestion = legalOf("lay")[0];
  if (suggestion && !store.staged.length) {
    bar.append(
      button(t("use_suggestion"), {
        id: "btn-suggest",
        kind: "ghost",
        onclick: () => {
          stageMelds(suggestion.melds);
          render();
        },
      }),
    );
  }
  bar.append(
    button(t("stage_meld"), {
      id: "btn-stage",
      disabled: selected.length < 3,
      onclick: () => {
        store.staged.push([...store.selected]);
        store.selected.clear();
        render();
      },
    }),
  );
  if (store.staged.length) {
    bar.append(
      button(t("lay_out", { n: stagedTotal() }), {
        id: "btn-lay-out",
        kind: "primary",
        onclick: () => {
          sendAction({ action: "lay", melds: store.staged.map(stagedCodes) });
          store.staged = [];
        },
      }),
      button(t("unstage"), {
        id: "btn-unstage",
        kind: "ghost",
        onclick: () => {
          store.staged = [];
          render();
        },
      }),
    );
  }
  for (const swap of legalOf("swap")) {
    if (selected.length && !selected.includes(swap.card)) continue;
    bar.append(
      button(t("swap_joker", { card: cardShort(swap.card), n: swap.meld }), {
        kind: "ghost",
        class: "btn-swap",
        onclick: () => sendAction(swap),
      }),
    );
  }
}

/** Stage melds given as card codes (the server's suggestion), picking matching keys from the hand. */
function stageMelds(melds) {
  const v = view();
  const free = handKeys(v.hand || []).filter((key) => !store.staged.some((meld) => meld.includes(key)));
  for (const meld of melds) {
    const keys = [];
    for (const code of meld) {
      const i = free.findIndex((key) => codeOf(key) === code);
      if (i >= 0) keys.push(free.splice(i, 1)[0]);
    }
    if (keys.length) {
      store.staged.push(keys);
      store.fixedMelds.add(keys.join(","));
    }
  }
  store.selected.clear();
}

function renderScores(tb, v) {
  const box = $("#scores");
  box.replaceChildren();
  const scores = v.scores;
  if (!scores) return;
  const seats = v.seats ?? tb.seat_count;
  // Computer players' long names would crowd the sheet: a short one there, the full one as a tooltip.
  const names = Array.from({ length: seats }, (_, seat) => (tb.seats[seat] && tb.seats[seat].bot ? t("computer_n", { n: seat + 1 }) : playerName(seat)));
  const tournament = scores.mode === "tournament";
  const sheet = el("table", { class: "scores", id: "score-sheet" });
  const head = el("tr", {}, el("th", { scope: "col", text: t("round") }));
  for (const name of names) head.append(el("th", { scope: "col", text: name }));
  sheet.append(el("thead", {}, head));
  const body = el("tbody");
  for (const round of scores.rounds || []) {
    const label = el("th", { scope: "row" }, String(round.round ?? ""));
    // Gin rounds end in different ways (knock, undercut, gin); a Rommé round is only remarkable when it is not plain.
    const kind = round.hand_romme ? "hand_romme" : round.result;
    if (kind && (v.game === "gin" || kind !== "romme")) label.append(el("span", { class: "scores__kind", text: ` ${resultName(kind)}` }));
    const row = el("tr", {}, label);
    for (let seat = 0; seat < seats; seat += 1) {
      let text = "";
      if (v.game === "gin") text = round.winner === seat ? `+${round.points}` : round.result === "dead" ? "–" : "";
      else if (tournament) text = `${round.wertungspunkte[seat]} (${round.augen[seat]})`;
      else text = round.minus ? (round.minus[seat] ? `−${round.minus[seat]}` : "0") : "";
      const cell = el("td", { text });
      if (round.winner === seat) cell.classList.add("is-winner");
      row.append(cell);
    }
    body.append(row);
  }
  if (!(scores.rounds || []).length) {
    body.append(el("tr", {}, el("td", { colspan: String(seats + 1), class: "muted-on-felt scores__empty", text: t("no_rounds") })));
  }
  sheet.append(body);
  const foot = el("tfoot");
  const addRow = (label, values, format = (x) => x) => {
    if (!Array.isArray(values)) return;
    const row = el("tr", {}, el("th", { scope: "row", text: label }));
    for (let seat = 0; seat < seats; seat += 1) row.append(el("td", { text: values[seat] === undefined ? "" : format(values[seat]) }));
    foot.append(row);
  };
  if (v.game === "gin") {
    addRow(t("totals"), scores.totals);
    addRow(t("boxes"), scores.boxes);
    if (v.over && !scores.columns && Array.isArray(scores.final) && Array.isArray(scores.totals)) {
      // Game, box and shutout bonuses are added when the match ends: what the final has above the round points.
      const bonuses = scores.final.map((value, seat) => value - scores.totals[seat]);
      if (bonuses.some(Boolean)) addRow(t("bonuses"), bonuses, (x) => (x ? `+${x}` : "0"));
    }
    if (v.over || scores.columns) addRow(t("final"), scores.final);
  } else if (tournament) {
    addRow(t("wp"), scores.wertungspunkte);
    addRow(t("augen"), scores.augen);
    addRow(t("result"), scores.results);
  } else {
    addRow(t("totals"), scores.minus, (x) => (x ? `−${x}` : "0"));
  }
  sheet.append(foot);
  box.append(sheet);
  if (Array.isArray(scores.columns)) {
    // Hollywood: three games scored at once, one small sheet per column with its own bonuses.
    const wrap = el("div", { class: "hollywood" });
    for (const [i, column] of scores.columns.entries()) {
      const col = el("table", { class: "scores scores--column" });
      col.append(el("caption", { text: t("column_n", { n: i + 1 }) + (column.finished ? " ✓" : "") }));
      col.append(el("thead", {}, el("tr", {}, ...names.map((n) => el("th", { text: n })))));
      const row = el("tr");
      for (let seat = 0; seat < seats; seat += 1) row.append(el("td", { text: column.scores[seat] }));
      const rows = [row];
      if (column.finished) {
        const bonus = el("tr");
        for (let seat = 0; seat < seats; seat += 1) bonus.append(el("td", { text: `+${column.bonuses[seat]}`, title: t("bonuses") }));
        rows.push(bonus);
      }
      col.append(el("tbody", {}, ...rows));
      wrap.append(col);
    }
    box.append(wrap);
  }
}

let shownRoundEnd = "";
function renderRoundEnd(tb, v) {
  const dialog = document.getElementById("round-end");
  const last = v.last_round;
  const roundOver = v.to_act === null || v.to_act === undefined;
  if (!last || !roundOver) {
    if (dialog.open) dialog.close();
    return;
  }
  const key = `${tb.match ? tb.match.id : ""}:${last.number ?? v.round_number}`;
  const body = dialog.querySelector("[data-role=body]");
  body.replaceChildren(roundSummary(tb, v, last));
  const ready = dialog.querySelector("#btn-ready");
  const me = mySeat();
  const mine = me !== null ? tb.seats[me] : null;
  ready.hidden = me === null || v.over;
  ready.disabled = Boolean(mine && mine.ready);
  ready.textContent = mine && mine.ready ? t("waiting_others") : t("next_round");
  if (!dialog.open && shownRoundEnd !== key) {
    shownRoundEnd = key;
    dialog.show();
  }
}

/** Cards of `all` minus those of `minus` (a multiset difference: Rommé has two of each card). */
function without(all, minus) {
  const rest = [...all];
  for (const code of minus) {
    const i = rest.indexOf(code);
    if (i >= 0) rest.splice(i, 1);
  }
  return rest;
}

function cardGroup(cards, extra = "") {
  const group = el("div", { class: `meld${extra ? ` ${extra}` : ""}` });
  for (const code of cards) group.append(cardElement(code, { small: true, lang: LANG }));
  return group;
}

function roundSummary(tb, v, last) {
  const box = el("div", { class: "summary" });
  const seats = v.seats ?? tb.seat_count;
  const result = last.hand_romme ? "hand_romme" : last.result;
  const headline = el("p", { class: "summary__headline", id: "round-headline" });
  if (result === "dead") headline.textContent = t("dead_round");
  else if (Number.isInteger(last.winner)) {
    const points = v.game === "gin" ? last.points : null;
    headline.textContent =
      points !== null ? t("round_winner", { name: playerName(last.winner), what: resultName(result), n: points }) : t("round_winner_romme", { name: playerName(last.winner), what: resultName(result) });
  }
  box.append(headline);
  for (let seat = 0; seat < seats; seat += 1) {
    const row = el("div", { class: "summary__seat", dataset: { seat: String(seat) } });
    const name = el("div", { class: "summary__name", text: playerName(seat) });
    if (v.game === "gin" && last.knocker === seat) name.append(el("span", { class: "tag tag--ok", text: ` ${t("knocker")}` }));
    row.append(name);
    const cards = el("div", { class: "summary__cards" });
    const figures = [];
    if (v.game === "gin") {
      const melds = (last.melds && last.melds[seat]) || [];
      const layoffs = seat !== last.knocker ? last.layoffs || [] : [];
      for (const meld of melds) cards.append(cardGroup(meld));
      if (layoffs.length && last.knocker !== null) {
        cards.append(el("span", { class: "summary__label", text: t("layoffs") }), cardGroup(layoffs, "meld--layoff"));
      }
      const dead = without((last.hands && last.hands[seat]) || [], [...melds.flat(), ...layoffs]);
      if (dead.length) cards.append(el("span", { class: "summary__label", text: t("deadwood") }), cardGroup(dead, "meld--deadwood"));
      if (last.deadwood && last.deadwood[seat] !== null && last.deadwood[seat] !== undefined) figures.push(t("deadwood_n", { n: last.deadwood[seat] }));
      if (last.winner === seat && last.points) figures.push(t("points_n", { n: last.points }));
    } else {
      const melds = (last.melds || []).filter((m) => m.owner === seat);
      for (const meld of melds) cards.append(cardGroup(meld.cards));
      const hand = (last.hands && last.hands[seat]) || [];
      if (hand.length) cards.append(el("span", { class: "summary__label", text: t("in_hand") }), cardGroup(hand, "meld--deadwood"));
      if (last.augen) figures.push(t("augen_n", { n: last.augen[seat] }));
      if (v.options && v.options.tournament && last.wertungspunkte) figures.push(t("wp_n", { n: last.wertungspunkte[seat] }));
      else if (last.minus) figures.push(last.minus[seat] ? t("minus_n", { n: last.minus[seat] }) : t("points_n", { n: 0 }));
      if (last.opened && !last.opened[seat]) figures.push(t("not_opened"));
    }
    row.append(cards, el("div", { class: "summary__figures", text: figures.join(" · ") }));
    box.append(row);
  }
  return box;
}

function renderMatchEnd(tb, v) {
  const box = $("#match-end");
  const over = (v && v.over) || tb.status === "finished";
  box.hidden = !over;
  if (!over) return;
  const result = (v && v.result) || (tb.match && tb.match.result) || {};
  const text = box.querySelector("[data-role=text]");
  if (Number.isInteger(result.winner)) text.textContent = t("match_winner", { name: playerName(result.winner) });
  else text.textContent = t("match_draw");
  const record = box.querySelector("#match-record");
  if (record && tb.match) record.href = `${config.record_url}?partie=${tb.match.number}`;
  const me = mySeat();
  const rematch = box.querySelector("#btn-rematch");
  rematch.hidden = me === null;
  const mine = me !== null ? tb.seats[me] : null;
  rematch.disabled = Boolean(mine && mine.ready);
  rematch.textContent = mine && mine.ready ? t("rematch_waiting") : t("rematch");
}

function describeMove(move) {
  const name = playerName(move.seat);
  switch (move.action) {
    case "pass":
      return t("mv_pass", { name });
    case "draw":
      return move.from === "discard" && move.card ? t("mv_take", { name, card: cardShort(move.card) }) : t("mv_draw", { name });
    case "discard":
      return t("mv_discard", { name, card: cardShort(move.card) });
    case "knock":
      return t("mv_knock", { name, card: cardShort(move.card) });
    case "big_gin":
      return t("mv_big_gin", { name });
    case "lay":
      return t("mv_lay_out", { name });
    case "lay_off":
      return t("mv_lay_off", { name, card: cardShort(move.card) });
    case "swap":
      return t("mv_swap", { name });
    case "resign":
      return t("mv_resign", { name });
    case "reshuffle":
      return t("mv_reshuffle");
    default:
      return `${name}: ${move.action}`;
  }
}

function renderLastMove(v) {
  const line = $("#last-move");
  const history = v.history || [];
  const me = mySeat();
  const last = [...history].reverse().find((move) => move.seat !== me);
  if (!last) return;
  const key = `${v.round_number}:${history.lastIndexOf(last)}`;
  if (key === store.lastMoveKey) return;
  store.lastMoveKey = key;
  line.textContent = describeMove(last);
  // Restart the fade: the line is readable for about four seconds, then gets out of the way.
  line.classList.remove("is-fading");
  void line.offsetWidth;
  line.classList.add("is-fading");
}

// A move of the own seat that this page did not send was the server's, when the turn time ran out.
let ownMoves = null;
function noticeTimeout(v, history, me) {
  if (me === null) return;
  const key = `${v.round_number}`;
  const count = history.filter((move) => move.seat === me).length;
  if (ownMoves && ownMoves.key === key && count > ownMoves.count && store.sentAt === undefined) {
    const line = document.getElementById("timeout-note");
    if (line) {
      line.textContent = t("timeout_played", { moves: history.filter((m) => m.seat === me).slice(ownMoves.count - count).map(describeMove).join(", ") });
      line.hidden = false;
      clearTimeout(noticeTimeout.timer);
      noticeTimeout.timer = setTimeout(() => (line.hidden = true), 8000);
    }
  }
  ownMoves = { key, count };
  store.sentAt = undefined;
}

// --- countdown --------------------------------------------------------------------------------------------

function tick() {
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
  clock.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  clock.classList.toggle("clock--urgent", left <= 10 && v.to_act === mySeat());
}
setInterval(tick, 250);
// A quiet socket is checked now and then: it keeps proxies from closing it, and a pong with a newer
// version than ours (a missed frame) brings the current state.
setInterval(() => {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping" }));
}, 25000);

// --- chat --------------------------------------------------------------------------------------------------

const chatSeen = new Set();
function addChat(line) {
  const list = document.getElementById("chat-lines");
  if (!list || chatSeen.has(line.id)) return;
  chatSeen.add(line.id);
  const item = el("li", { class: "chat__line" });
  // The server escapes chat text once; textContent keeps it from ever being read as markup here.
  const decode = (s) => new DOMParser().parseFromString(`<!doctype html><body>${s}`, "text/html").body.textContent;
  item.append(el("strong", { text: decode(line.user || "") }), " ", el("span", { text: decode(line.text || "") }));
  list.append(item);
  list.scrollTop = list.scrollHeight;
}

// --- toasts ---------------------------------------------------------------------------------------------

function toast(text) {
  const box = document.getElementById("toast");
  if (!box) return;
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (box.hidden = true), 4000);
}

// --- input: clicks, keys, drags -----------------------------------------------------------------------------

function toggleSelect(key) {
  if (store.selected.has(key)) store.selected.delete(key);
  else {
    // Gin plays one card at a time; Rommé builds melds from several.
    if (table().game === "gin") store.selected.clear();
    store.selected.add(key);
  }
  render();
}

function discardKey(key) {
  const code = codeOf(key);
  const discard = legalOf("discard").find((a) => a.card === code);
  if (discard) {
    sendAction(discard);
    return true;
  }
  if (discardsAllowed()) toast(t("cannot_discard", { card: cardShort(code) }));
  return false;
}

function layOff(key, meldId) {
  const code = codeOf(key);
  const fits = legalOf("lay_off").filter((a) => a.card === code && String(a.meld) === String(meldId));
  if (fits.length > 1) {
    // The card fits both ends of the run (a joker, or an ace on 2 … K): the player picks the end.
    store.endChoice = fits;
    render();
    return;
  }
  // Else the card may stand in for a joker there: dropping it swaps (the server's suggestion says where
  // the joker then goes).
  const action = fits[0] || legalOf("swap").find((a) => a.card === code && String(a.meld) === String(meldId));
  if (action) sendAction(action);
  else toast(t("cannot_lay_off", { card: cardShort(code) }));
}

root.addEventListener("click", (event) => {
  const card = event.target.closest("#hand .pcard");
  if (card) {
    toggleSelect(card.dataset.key);
    return;
  }
  if (event.target.closest("#stock")) {
    const draw = legal().find((a) => a.action === "draw" && a.from === "stock");
    if (draw) sendAction(draw);
    return;
  }
  if (event.target.closest("#pile")) {
    const draw = legal().find((a) => a.action === "draw" && a.from === "discard");
    if (draw) sendAction(draw);
    else if (store.selected.size === 1) discardKey([...store.selected][0]);
    return;
  }
  const meld = event.target.closest("#melds .meld[data-meld]");
  if (meld && store.selected.size === 1) layOff([...store.selected][0], meld.dataset.meld);
  const order = event.target.closest("[data-order]");
  if (order) setOrder(order.dataset.order);
});

root.addEventListener("dblclick", (event) => {
  const card = event.target.closest("#hand .pcard");
  if (card) discardKey(card.dataset.key);
});

root.addEventListener("keydown", (event) => {
  const card = event.target.closest && event.target.closest("#hand .pcard");
  if (card) {
    const cards = [...root.querySelectorAll("#hand .pcard")];
    const index = cards.indexOf(card);
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      event.preventDefault();
      const next = cards[(index + (event.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length];
      if (event.altKey || event.shiftKey) moveInOwnOrder(card.dataset.key, next.dataset.key, event.key === "ArrowRight");
      else next.focus();
    } else if (event.key === "Delete" || event.key === "Backspace" || event.key === "d") {
      event.preventDefault();
      discardKey(card.dataset.key);
    }
    return;
  }
  const meld = event.target.closest && event.target.closest("#melds .meld[data-meld]");
  if (meld && (event.key === "Enter" || event.key === " ") && store.selected.size === 1) {
    event.preventDefault();
    layOff([...store.selected][0], meld.dataset.meld);
  }
});

function moveInOwnOrder(key, targetKey, after) {
  const v = view();
  const keys = orderedHand(v).flat().filter((k) => k !== key);
  const at = keys.indexOf(targetKey);
  keys.splice(after ? at + 1 : at, 0, key);
  saveOwnOrder(keys);
  store.order = "own";
  localStorage.setItem("games:hand-order-mode", "own");
  render();
  const again = root.querySelector(`#hand [data-key="${CSS.escape(key)}"]`);
  if (again) again.focus();
}

let dragKey = null;
root.addEventListener("dragstart", (event) => {
  const card = event.target.closest && event.target.closest("#hand .pcard");
  if (!card) return;
  dragKey = card.dataset.key;
  event.dataTransfer.setData("text/plain", dragKey);
  event.dataTransfer.effectAllowed = "move";
  root.classList.add("is-dragging");
});
root.addEventListener("dragend", () => {
  dragKey = null;
  root.classList.remove("is-dragging");
  for (const node of root.querySelectorAll(".is-over")) node.classList.remove("is-over");
});
root.addEventListener("dragover", (event) => {
  const target = event.target.closest && event.target.closest("#pile, #hand .pcard, #melds .meld[data-meld], #melds");
  if (!target || !dragKey) return;
  event.preventDefault();
  for (const node of root.querySelectorAll(".is-over")) if (node !== target) node.classList.remove("is-over");
  target.classList.add("is-over");
});
root.addEventListener("drop", (event) => {
  const key = event.dataTransfer.getData("text/plain") || dragKey;
  if (!key) return;
  const target = event.target.closest && event.target.closest("#pile, #hand .pcard, #melds .meld[data-meld], #melds");
  if (!target) return;
  event.preventDefault();
  if (target.id === "pile") discardKey(key);
  else if (target.dataset.meld !== undefined) layOff(key, target.dataset.meld);
  else if (target.id === "melds") {
    // Dropped on the table but not on a meld: start or extend a meld being built.
    if (!store.staged.length || store.staged[store.staged.length - 1].length >= 3) store.staged.push([]);
    const last = store.staged[store.staged.length - 1];
    if (!store.staged.some((meld) => meld.includes(key))) last.push(key);
    render();
  } else if (target.dataset.key && target.dataset.key !== key) {
    const rect = target.getBoundingClientRect();
    moveInOwnOrder(key, target.dataset.key, event.clientX > rect.left + rect.width / 2);
  }
});

// The page-level buttons (outside the re-rendered areas).
document.getElementById("btn-ready")?.addEventListener("click", () => send({ type: "ready", version: store.version }));
document.getElementById("btn-rematch")?.addEventListener("click", () => send({ type: "rematch" }));
document.getElementById("btn-round-close")?.addEventListener("click", () => document.getElementById("round-end").close());
const resignDialog = document.getElementById("resign-dialog");
document.getElementById("btn-resign")?.addEventListener("click", () => resignDialog.showModal());
document.getElementById("btn-resign-confirm")?.addEventListener("click", () => {
  send({ type: "resign" });
  resignDialog.close();
});
document.getElementById("btn-resign-cancel")?.addEventListener("click", () => resignDialog.close());
document.getElementById("chat-form")?.addEventListener("submit", (event) => {
  event.preventDefault();
  const input = event.target.querySelector("input");
  const text = input.value.trim();
  if (!text) return;
  if (send({ type: "chat", text })) input.value = "";
});

store.receivedAt = Date.now();
render();
connect();
// For tests and curious players: the last frame, read-only.
window.ginTable = { get frame() { return store.frame; }, get version() { return store.version; } };
