// The live table: renders every `state` frame the server sends and turns clicks, taps, drags and keys into
// the legal actions that frame lists. It knows no rules and no game of its own: the game's client module
// (its package's static folder, named by the page) brings its hooks (./table/game.js), which this shell
// calls. The parts live in ./table/: the socket and store, the hand and dragging, the score sheet and the
// end views, chat, motion and sound.

import { renderActions } from "./table/actions.js";
import { noticeTimeout, renderCenter, renderHeader, renderOpponents, renderWaiting, tick } from "./table/board.js";
import { addChat, wireChat } from "./table/chat.js";
import { $, clearToast, root, toast } from "./table/dom.js";
import { game, loadGame } from "./table/game.js";
import { LANG, t } from "./table/i18n.js";
import { codeOf, discardKey, handKeys, orderClicked, renderHand, toggleSelect } from "./table/hand.js";
import { animate, capture, flights, moving } from "./table/motion.js";
import { endClosed, renderEnd, renderScores, reopenEnd } from "./table/scores.js";
import { play, setSound, soundOn } from "./table/sound.js";
import { connect, hasLeft, legal, mySeat, onRender, ownSeat, send, sendAction, store } from "./table/store.js";

// --- rendering ---------------------------------------------------------------------------------------------

// A pointer held on the table (a finger on a card, the main mouse button down on a button or the stock):
// frames wait until it is lifted. Drawn under it, the hand and the buttons would be new elements, and the
// press begun on the old ones would come to nothing (a click is a press and a release on one element; a
// finger's move and release go to the element it touched first). Held longer than HOLD_MS, the frame is
// drawn anyway.
const held = new Set();
const HOLD_MS = 3000;
let holding = null; // the timer of a frame waiting for the press to end

root.addEventListener("pointerdown", (event) => event.button === 0 && held.add(event.pointerId), true);

// The waiting frame is drawn: the press ended (after the click its release makes), or it lasted HOLD_MS.
function drawHeld() {
  clearTimeout(holding);
  holding = null;
  setTimeout(render, 0);
}

function release(event) {
  if (event.type === "blur") held.clear();
  else held.delete(event.pointerId);
  if (!held.size && holding !== null) drawHeld();
}
for (const type of ["pointerup", "pointercancel"]) window.addEventListener(type, release, true);
window.addEventListener("blur", release);

function render() {
  const frame = store.frame;
  if (!frame) return;
  if (held.size) {
    holding ??= setTimeout(() => {
      held.clear();
      drawHeld();
    }, window.gameTable.holdMs);
    return;
  }
  const v = frame.view;
  const tb = frame.table;
  const snap = capture();
  const me = mySeat();
  root.dataset.game = tb.game;
  root.dataset.status = tb.status;
  root.dataset.phase = v ? v.phase : "waiting";
  root.dataset.toAct = v && Number.isInteger(v.to_act) ? String(v.to_act) : "";
  root.dataset.mySeat = me === null ? "" : String(me);
  root.dataset.pending = store.pending ? "1" : "0";
  root.dataset.seats = String(tb.seat_count);
  renderHeader(tb, v);
  renderWaiting(tb, v);
  if (v) {
    renderOpponents(tb, v);
    renderCenter(tb, v);
    // The game's part of the table's middle (melds, cards played), when it has one.
    const middle = $("#melds");
    const shown = Boolean(game.renderTable(middle, tb, v));
    if (!shown) middle.replaceChildren();
    middle.hidden = !shown;
    // The layout follows what the table holds, not which game it is: without a middle part (no melds, no
    // cards played) the piles and the hand get the room.
    root.dataset.middle = shown ? "1" : "0";
    renderOwn(tb, v);
    renderScores(tb, v);
  }
  if (v || tb.status === "finished") renderEnd(tb, v);
  $("#btn-show-result").hidden = !endClosed(tb, v);
  const resign = document.getElementById("btn-resign");
  if (resign) resign.hidden = tb.status !== "playing" || me === null || Boolean(v && v.over);
  const chat = document.getElementById("chat-form");
  if (chat) chat.hidden = ownSeat() !== null && hasLeft(ownSeat());
  tick();
  animate(snap, store.previous, frame);
  store.previous = frame;
}

function renderOwn(tb, v) {
  const section = $("#me");
  const left = ownSeat() !== null && hasLeft(ownSeat());
  $("#left-note").hidden = !left;
  const me = mySeat();
  section.hidden = me === null || !v.hand;
  root.dataset.hand = section.hidden ? "0" : "1";
  if (section.hidden) {
    $("#hand").replaceChildren(); // no cards of a seat the page no longer plays
    $("#actions").replaceChildren();
    return;
  }
  renderHand(tb, v);
  const numbers = $("#numbers");
  numbers.replaceChildren();
  game.renderNumbers(numbers, v);
  renderActions(tb, v);
}

onRender(render);

// The game's hooks come before the first frame is drawn. A page whose game module does not load says so
// rather than drawing a table without the game's part.
try {
  await loadGame();
} catch (error) {
  toast(t("error"));
  throw error;
}

// --- frames from the server ---------------------------------------------------------------------------------

const initialStatus = store.frame ? store.frame.table.status : "";
const initialSeats = store.frame ? JSON.stringify(store.frame.table.seats.map((s) => s.name)) : "";

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
  root.dataset.version = String(frame.version);
  const v = frame.view;
  // Forget choices of cards that left the hand (played, or a new round). A choice is keyed by card and copy
  // ("7H#1"): when one copy of a card leaves, the other takes the lower copy number, so every choice of a
  // card whose count went down is forgotten, not only the keys that no longer exist.
  const hand = v && v.hand ? v.hand : [];
  const keys = new Set(handKeys(hand));
  const count = (cards) => cards.reduce((n, c) => n.set(c, (n.get(c) || 0) + 1), new Map());
  const was = count(before && before.view && before.view.hand ? before.view.hand : []);
  const now = count(hand);
  const kept = (key) => keys.has(key) && (now.get(codeOf(key)) || 0) >= (was.get(codeOf(key)) || 0);
  for (const key of [...store.selected]) if (!kept(key)) store.selected.delete(key);
  store.staged = store.staged.map((meld) => meld.filter(kept)).filter((meld) => meld.length);
  if (!before || !v || !before.view || before.view.round_number !== v.round_number || v.to_act !== mySeat()) store.tip = null;
  // A hint is for the version it was asked at: any change of the table (the draw it advised) ends it.
  if (store.tipAction && store.tipAction.version !== frame.version) {
    store.tipAction = null;
    store.tip = null;
  }
  if (v && (v.to_act === null || v.to_act === undefined)) clearToast(); // nothing of the turn lingers into its end
  render();
  sounds(before, frame);
  noticeTimeout(v);
}

/** One quiet sound for what this frame changed: a card drawn or laid, the game's own moves (its own sounds),
 * a round won in style (the game says which), your turn. */
function sounds(before, after) {
  if (!before || !before.view || !after.view) return;
  const bv = before.view;
  const av = after.view;
  const me = mySeat();
  let sound = null;
  if (bv.round_number === av.round_number) {
    for (const move of (av.history || []).slice((bv.history || []).length)) {
      const own = game.moveSound(move);
      if (own) sound = own;
      else if (move.action === "draw") sound = "draw";
      else if (move.action === "discard") sound = "discard";
    }
  }
  const wasPlaying = Number.isInteger(bv.to_act);
  const ended = wasPlaying && !Number.isInteger(av.to_act) && av.last_round;
  const endSound = ended ? game.roundEndSound(av.last_round) : null;
  if (endSound) sound = endSound;
  if (sound) play(sound, game.sounds);
  if (me !== null && av.to_act === me && bv.to_act !== me) setTimeout(() => play("turn", game.sounds), sound ? 220 : 0);
}

function setConnection(status) {
  const banner = $("#connection");
  root.dataset.connected = status === "online" ? "1" : "0";
  if (!banner) return;
  banner.dataset.status = status;
  banner.textContent =
    status === "online" ? t("conn_back") : status === "offline" ? t("conn_reconnecting") : status === "flooded" ? t("conn_flooded") : status === "crowded" ? t("conn_crowded") : t("conn_connecting");
  clearTimeout(setConnection.hideTimer);
  if (status === "online") setConnection.hideTimer = setTimeout(() => (banner.hidden = true), 2500);
  banner.hidden = false;
}

connect({
  open(wasDown) {
    if (wasDown) setConnection("online");
    else root.dataset.connected = "1";
  },
  close(code) {
    // 4429: closed for too many messages; 4430: too many open sockets (tabs) of this person or address.
    setConnection(code === 4429 ? "flooded" : code === 4430 ? "crowded" : "offline");
    render();
  },
  state: acceptState,
  chat: addChat,
  hint(message) {
    // The Tipp button's answer (docs/protocol.md): the expert's action for this seat, if still current.
    if (message.version !== store.version || !message.action) return;
    store.tipAction = { ...message.action, version: message.version };
    store.tip = message.action.card || null;
    render();
  },
  presence(message) {
    // Only changes are announced, per person: a seat is marked offline once its player's last socket is gone.
    for (const change of message.changes || [message]) {
      if (change.online) store.offline.delete(change.user_id);
      else store.offline.add(change.user_id);
    }
    render();
  },
  error(message) {
    store.pending = false;
    // The server's message is German and names the rule; other languages translate by the stable code.
    const own = t(`err_${message.code}`);
    toast((LANG.startsWith("de") ? message.message : own !== `err_${message.code}` ? own : message.message) || t("error"));
    // After stale_version and not_your_turn the server sends the full state by itself; any other error
    // that shows a newer version than ours means a frame went missing: ask for the current view.
    if (Number.isInteger(message.version) && message.version > store.version && !["stale_version", "not_your_turn"].includes(message.code)) {
      send({ type: "sync" });
    }
    render();
  },
});

// --- input ------------------------------------------------------------------------------------------------

function offline() {
  if (store.connected) return false;
  toast(t("not_connected"));
  return true;
}

// A double click discards. Counted here, not by the browser's dblclick: the first click redraws the hand,
// and a browser does not pair two clicks on different elements. Both clicks must meet the same state of the
// table: a click after a change (a card drawn, a new round dealt that holds the same card again) is a new
// choice, never the second half of a double click that would throw the card away.
const DOUBLE_CLICK_MS = 450;
let lastCardClick = { key: null, at: 0, version: null };

root.addEventListener("click", (event) => {
  const card = event.target.closest("#hand .pcard");
  if (card) {
    const key = card.dataset.key;
    const now = performance.now();
    const paired = lastCardClick.key === key && lastCardClick.version === store.version;
    if (paired && now - lastCardClick.at < window.gameTable.doubleClickMs && event.detail !== 0) {
      lastCardClick = { key: null, at: 0, version: null };
      if (!offline()) discardKey(key);
      return;
    }
    lastCardClick = { key, at: event.detail === 0 ? 0 : now, version: store.version };
    toggleSelect(key);
    return;
  }
  if (event.target.closest("#stock")) {
    const draw = legal().find((a) => a.action === "draw" && a.from === "stock");
    if (draw && !offline()) sendAction(draw);
    return;
  }
  if (event.target.closest("#pile")) {
    const draw = legal().find((a) => a.action === "draw" && a.from === "discard");
    if (offline()) return;
    if (draw) sendAction(draw);
    else if (store.selected.size === 1) discardKey([...store.selected][0]);
    return;
  }
  const order = event.target.closest("[data-order]");
  if (order) orderClicked(order);
  const actionButton = event.target.closest("#actions .btn");
  if (actionButton && !store.connected) toast(t("not_connected"));
});

root.addEventListener("keydown", (event) => {
  if (event.key === "Escape") {
    setPanel(false);
    const end = document.getElementById("round-end");
    if (end.open && end.contains(event.target)) {
      end.close();
      render();
    }
  }
});

// --- the page's own buttons ------------------------------------------------------------------------------

document.getElementById("btn-copy-invite")?.addEventListener("click", async (event) => {
  const button = event.currentTarget;
  try {
    await navigator.clipboard.writeText(document.getElementById("invite-link").value);
    button.textContent = button.dataset.done;
  } catch {
    document.getElementById("invite-link").select(); // no clipboard (plain http): the link is selected to copy
  }
});
// Offline, a button's message could not go out: the player is told (offline()) rather than left believing it did.
document.getElementById("btn-ready")?.addEventListener("click", () => offline() || send({ type: "ready" }));
document.getElementById("btn-show-result")?.addEventListener("click", () => {
  reopenEnd();
  render();
});
document.getElementById("btn-rematch")?.addEventListener("click", () => offline() || send({ type: "rematch" }));
document.getElementById("btn-round-close")?.addEventListener("click", () => {
  document.getElementById("round-end").close();
  render();
});
const resignDialog = document.getElementById("resign-dialog");
document.getElementById("btn-resign")?.addEventListener("click", () => resignDialog.showModal());
document.getElementById("btn-resign-confirm")?.addEventListener("click", () => {
  resignDialog.close();
  if (!offline()) send({ type: "resign" });
});
document.getElementById("btn-resign-cancel")?.addEventListener("click", () => resignDialog.close());

const soundButton = document.getElementById("btn-sound");
function showSound() {
  if (!soundButton) return;
  soundButton.setAttribute("aria-pressed", soundOn() ? "true" : "false");
  const label = soundOn() ? t("sound_on") : t("sound_off");
  soundButton.setAttribute("aria-label", label);
  soundButton.title = label;
}
soundButton?.addEventListener("click", () => {
  setSound(!soundOn());
  showSound();
});
showSound();

const side = document.getElementById("side");
const panelButton = document.getElementById("btn-panel");
function setPanel(open) {
  if (!side || !panelButton) return;
  side.classList.toggle("is-open", open);
  panelButton.setAttribute("aria-expanded", open ? "true" : "false");
  panelButton.setAttribute("aria-label", open ? t("panel_close") : t("panel_open"));
  if (open) {
    const badge = document.getElementById("panel-badge");
    if (badge) badge.hidden = true;
  }
}
panelButton?.addEventListener("click", () => setPanel(!side.classList.contains("is-open")));
document.getElementById("btn-panel-close")?.addEventListener("click", () => {
  setPanel(false);
  panelButton?.focus();
});
setPanel(false);

wireChat();
render();
setInterval(tick, 250);

// For tests and curious players: the last frame, read-only.
window.gameTable = {
  get frame() {
    return store.frame;
  },
  get version() {
    return store.version;
  },
  get received() {
    return { ...store.received };
  },
  get moving() {
    return moving();
  },
  get flights() {
    return flights();
  },
  get selected() {
    return [...store.selected];
  },
  /** Draws the table again from what the page holds, as any frame does. */
  redraw() {
    render();
  },
  // How close two clicks on one card must come to be a double click (a test may widen it, so that what it
  // checks does not depend on the machine's speed).
  doubleClickMs: DOUBLE_CLICK_MS,
  // How long a press holds frames back before they are drawn under it anyway.
  holdMs: HOLD_MS,
};
