// The table's one source of truth in the page: the last `state` frame the server sent, what the player
// has chosen meanwhile, and the WebSocket that brings frames and carries moves (docs/protocol.md).

import { t } from "./i18n.js";

export const config = JSON.parse(document.getElementById("table-config").textContent);

export const store = {
  frame: config.state || null, // the last `state` frame
  previous: null, // the frame before it (motion and sounds compare the two)
  version: config.state ? config.state.version : -1,
  receivedAt: Date.now(),
  selected: new Set(), // keys of selected hand cards ("7H#0": a game may have two of each card)
  // What a game's hooks keep between frames (their own choices, forgotten as cards leave the hand):
  staged: [], // melds being built, each a list of keys
  tip: null, // the card a hint points at
  tipAction: null, // the action the hint (the server's `hint` frame) advises, with the version it is for
  endChoice: [], // a lay-off that fits both ends of a run, waiting for the player's pick
  pending: false, // a move is on its way; buttons wait for the answer
  sentAt: undefined, // the version a move of ours was sent at (tells our moves from the server's timeouts)
  offline: new Set(), // user ids whose socket is known to be gone
  connected: false,
  order: localStorage.getItem("games:hand-order-mode") || "melds",
  received: { state: 0, delta: 0, sync: 0 }, // whole states, deltas applied, syncs asked for after a gap
};

export function view() {
  return store.frame ? store.frame.view : null;
}

export function table() {
  return store.frame ? store.frame.table : null;
}

/** The seat of whoever looks at the page, or null for a spectator. A player who left the match watches. */
export function mySeat() {
  const tb = table();
  const v = view();
  let seat = null;
  if (v && Number.isInteger(v.seat)) seat = v.seat;
  else if (tb && Number.isInteger(tb.you)) seat = tb.you;
  if (seat !== null && hasLeft(seat)) return null;
  return seat;
}

/** The seat the page's user holds, even after leaving the match (the server then sends the public view
 * with `you` null and `left` naming the seat they had, so the page can say so). */
export function ownSeat() {
  const tb = table();
  if (!tb) return null;
  if (Number.isInteger(tb.you)) return tb.you;
  return Number.isInteger(tb.left) ? tb.left : null;
}

export function hasLeft(seat) {
  const tb = table();
  const v = view();
  return Boolean((tb && tb.seats && tb.seats[seat] && tb.seats[seat].left) || (v && Array.isArray(v.left) && v.left[seat]));
}

export function legal() {
  const v = view();
  if (mySeat() === null) return [];
  return (v && Array.isArray(v.legal_actions) && v.legal_actions) || [];
}

export function legalOf(kind) {
  return legal().filter((action) => action.action === kind);
}

export function playerName(seat) {
  const tb = table();
  const v = view();
  const info = tb && tb.seats && tb.seats[seat];
  // Computer players are named here, in the page's language, with their level.
  if (info && info.bot) return t("computer_name", { n: seat + 1, level: t(`level_${info.bot}`) });
  const fromView = v && v.players && v.players[seat];
  return (info && info.name) || fromView || t("seat_n", { n: seat + 1 });
}

/** A computer player without its level ("Computer 2"), a person by name: for labels beside cards. */
export function plainName(seat) {
  const tb = table();
  const info = tb && tb.seats && tb.seats[seat];
  return info && info.bot ? t("computer_plain", { n: seat + 1 }) : playerName(seat);
}

/** A short name where space is tight (score sheet columns): "Comp. 2" for computer players, "C2" when
 * five or six columns share the sheet. */
export function shortName(seat) {
  const tb = table();
  const info = tb && tb.seats && tb.seats[seat];
  if (!info || !info.bot) return playerName(seat);
  return t(tb.seat_count >= 5 ? "computer_tiny" : "computer_n", { n: seat + 1 });
}

// --- the socket -------------------------------------------------------------------------------------------

let socket = null;
let attempts = 0;
let reconnectTimer = null;
let handlers = {};
let previewId = 0;
const previewWaiters = new Map();

function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // frames=delta: after the first whole state, each change comes as what changed (docs/protocol.md).
  const join = config.ws_path.includes("?") ? "&" : "?";
  return `${scheme}://${location.host}${config.ws_path}${join}frames=delta`;
}

/** The `state` a `delta` frame makes of `frame`, the state at its `after` version: the keys of `table` and
 * `view` it names replaced, those in `drop` gone, of each list in `lists` (the melds on the table) the first `length`
 * entries kept and those in `set` replaced or added, the history cut at `history.from` and `append`ed. A
 * new object: `frame` stays as it was (motion and sounds compare the two). */
export function applyDelta(frame, delta) {
  const table = { ...frame.table, ...(delta.table || {}) };
  const view = { ...frame.view, ...(delta.view || {}) };
  const drop = delta.drop || {};
  for (const key of drop.table || []) delete table[key];
  for (const key of drop.view || []) delete view[key];
  for (const [key, change] of Object.entries(delta.lists || {})) {
    const items = (frame.view[key] || []).slice(0, change.length);
    for (const [index, item] of Object.entries(change.set)) items[Number(index)] = item;
    view[key] = items;
  }
  if (delta.history) view.history = (frame.view.history || []).slice(0, delta.history.from).concat(delta.history.append);
  return { type: "state", version: delta.version, table, view };
}

/** Opens the socket and keeps it open. `on` maps message types (and "open"/"close") to handlers. */
export function connect(on) {
  handlers = on;
  open();
  // A quiet socket is checked now and then: it keeps proxies from closing it, and a pong with a newer
  // version than ours (a missed frame) brings the current state.
  setInterval(() => {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping" }));
  }, 25000);
}

function open() {
  clearTimeout(reconnectTimer);
  socket = new WebSocket(socketUrl());
  socket.addEventListener("open", () => {
    const wasDown = attempts > 0 || store.everConnected;
    attempts = 0;
    store.connected = true;
    store.everConnected = true;
    handlers.open?.(wasDown);
    // The server sends the full current state on every (re)connect: whatever happened meanwhile is in it.
  });
  socket.addEventListener("message", (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    if (message.type === "state" && message.version < store.version) return; // overtaken by a newer frame
    if (message.type === "delta") {
      if (message.version <= store.version) return; // overtaken: we hold that version already
      if (!store.frame || !store.frame.view || message.after !== store.version) {
        store.received.sync += 1;
        send({ type: "sync" }); // a gap: a version went missing, so ask for the whole state
        return;
      }
      store.received.delta += 1;
      message = applyDelta(store.frame, message);
    } else if (message.type === "state") {
      store.received.state += 1;
    }
    if (message.type === "meld_preview") {
      const waiter = previewWaiters.get(message.id);
      previewWaiters.delete(message.id);
      waiter?.(message);
      return;
    }
    if (message.type === "error" && previewWaiters.size) {
      // A refused preview (not this seat's turn, rate limited, busy) is answered without its id: no waiter
      // may hang on it, so every open question gets the refusal.
      for (const waiter of previewWaiters.values()) waiter({ error: message.message, code: message.code });
      previewWaiters.clear();
    }
    if (message.type === "pong" && Number.isInteger(message.version) && message.version > store.version) {
      send({ type: "sync" });
      return;
    }
    handlers[message.type]?.(message);
  });
  socket.addEventListener("close", (event) => {
    store.connected = false;
    store.pending = false;
    for (const waiter of previewWaiters.values()) waiter(null);
    previewWaiters.clear();
    handlers.close?.(event.code);
    if (event.code === 4404 || event.code === 4403) return; // no such table / not allowed: do not retry
    // Back off so that a restarting server is not hammered, but come back quickly after a short blip;
    // after 4429 (closed for too many messages, docs/protocol.md) wait 10 s first.
    const delay = event.code === 4429 || event.code === 4430 ? 10000 : Math.min(8000, 400 * 2 ** attempts) + Math.random() * 300;
    attempts += 1;
    reconnectTimer = setTimeout(open, delay);
  });
}

/** Sends one message; false (and nothing sent) while the socket is down. */
export function send(message) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return false;
  socket.send(JSON.stringify(message));
  return true;
}

/** Sends one engine action at the current version, once: further clicks wait for the server's answer. */
export function sendAction(action) {
  if (store.pending) return false;
  if (!send({ type: "move", version: store.version, action })) return false;
  store.sentAt = store.version;
  store.pending = true;
  return true;
}

/** Asks the server what `cards` make as one meld (docs/protocol.md, meld_preview): {meld, points, kind} or
 * {error}; null offline. */
export function askMeldPreview(cards) {
  return new Promise((resolve) => {
    previewId += 1;
    const id = previewId;
    if (!send({ type: "meld_preview", id, cards })) {
      resolve(null);
      return;
    }
    previewWaiters.set(id, resolve);
  });
}

// --- redrawing ----------------------------------------------------------------------------------------------

let renderer = () => {};

/** The page's render function (table.js sets it); modules call `rerender()` after a change of choice. */
export function onRender(fn) {
  renderer = fn;
}

export function rerender() {
  renderer();
}
