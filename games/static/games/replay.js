// The replay viewer and the deal check of a finished match, or of a pasted record (whose signature it checks
// too). It knows no rules and no game: the server sent every position (all hands open) in #replay-data; this
// only draws them and steps between them, with the hooks of the game's client module (its package's static
// folder, named by the page: ./client.js) for what differs between games: how a hand is grouped, a seat's
// tags, the game's part of the board, its moves and how its rounds end. Cards are cards.js's, as at the table.

import { dealHash, signatureState } from "./canonical.js";
import { cardElement, cardShort } from "./cards.js";
import { clientPart, withDefaults } from "./client.js";

const data = JSON.parse(document.getElementById("replay-data").textContent);
const S = data.strings;
const lang = document.documentElement.lang || "de";

const plurals = new Intl.PluralRules(lang);

/** A text with its {name} placeholders filled; a text with plural forms ({one, other}) follows `values.n`. */
function fill(template, values) {
  if (template && typeof template === "object") {
    const n = Number(values.n);
    template = template[Number.isFinite(n) ? plurals.select(n) : "other"] ?? template.other;
  }
  return String(template).replace(/\{(\w+)\}/g, (whole, key) => (key in values ? String(values[key]) : whole));
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const cardText = (code) => cardShort(code, lang);

function cardNode(code) {
  return cardElement(code, { small: true, lang });
}

function cardRow(cards, className = "rv-cards") {
  const row = el("span", className);
  for (const code of cards) row.append(cardNode(code));
  return row;
}

function name(seat) {
  return data.players[seat] ?? `#${seat + 1}`;
}

/** What a game's replay hooks may use: the words, the page's helpers, one card component. */
const kit = { S, fill, el, name, cardText, cardNode, cardRow };

/** Every hook of a game's replay part, with what a game that does not name it gets. */
const DEFAULTS = {
  /** How many seats a position has. */
  seats: (pos) => pos.hands.length,
  /** A seat's hand as groups of cards, each drawn as one row: [{cards, kind}]. kind: "meld" (the viewer's
   * look for a meld), "" (plain) or a kind of the game's own, which its stylesheet styles as .rv-cards.is-<kind>. */
  hand: (pos, seat) => [{ cards: pos.hands[seat], kind: "" }],
  /** Tags in a seat's head: [{text, kind}] (kind: "" or "is-left", "is-turn"). */
  seatTags: () => [],
  /** The game's part of the board under the seats and the piles (a node), or null. */
  board: () => null,
  /** A move of the game's own in words, with the name ("Anna klopft und wirft ♠10 ab"); null: the viewer's. */
  moveText: () => null,
  /** How a round ended, in words (`summary`: the round's replay summary); null: the viewer's. */
  roundEnd: () => null,
};

let game = DEFAULTS;

// --- words for moves and round ends --------------------------------------------------------------------------

/** A move in words; `pos` is the position it led to (a game may word a move by what it did: a knock that was gin). */
function moveText(move, pos) {
  if (!move) return "";
  const own = game.moveText(move, kit, pos);
  if (own) return own;
  const who = name(move.seat);
  switch (move.action) {
    case "pass":
      return fill(S.pass, { name: who });
    case "draw":
      if (!move.card) return fill(S.draw_empty, { name: who });
      return fill(move.from === "discard" ? S.draw_discard : S.draw_stock, { name: who, card: cardText(move.card) });
    case "discard":
      return fill(S.discard, { name: who, card: cardText(move.card) });
    case "reshuffle":
      return fill(S.reshuffle, { n: move.stock_size });
    case "resign":
      return fill(S.resign, { name: who });
    default:
      return `${who}: ${move.action}`;
  }
}

function roundEndText(summary) {
  if (!summary) return "";
  const own = game.roundEnd(summary, kit);
  if (own) return own;
  if (summary.winner === null || summary.winner === undefined) return S.round_dead;
  return fill(S.round_won_what, { name: name(summary.winner), result: S[`result_${summary.result}`] || summary.result });
}

// --- drawing one position --------------------------------------------------------------------------------------

const board = document.getElementById("rv-board");
const moveLine = document.getElementById("rv-move");
const counter = document.getElementById("rv-counter");
const slider = document.getElementById("rv-slider");
const roundPick = document.getElementById("rv-round");
const moveList = document.getElementById("rv-moves");

let roundIndex = 0;
let index = 0; // into data.positions

function seatPanel(pos, seat) {
  const panel = el("section", "rv-seat" + (pos.to_act === seat ? " is-to-act" : ""));
  panel.dataset.seat = seat;
  const head = el("header", "rv-seat__head");
  head.append(el("strong", "", name(seat)));
  const groups = game.hand(pos, seat, kit);
  const count = groups.reduce((n, group) => n + group.cards.length, 0);
  head.append(el("span", "rv-muted", fill(S.cards_n, { n: count })));
  for (const tag of game.seatTags(pos, seat, kit)) head.append(el("span", `rv-tag${tag.kind ? ` ${tag.kind}` : ""}`, tag.text));
  if (pos.left && pos.left[seat]) head.append(el("span", "rv-tag is-left", S.left));
  if (pos.to_act === seat) head.append(el("span", "rv-tag is-turn", S.to_act));
  panel.append(head);
  const cards = el("div", "rv-hand");
  cards.dataset.role = "hand";
  for (const group of groups) {
    if (group.cards.length) cards.append(cardRow(group.cards, group.kind ? `rv-cards is-${group.kind}` : "rv-cards"));
  }
  panel.append(cards);
  return panel;
}

function centre(pos) {
  // A game without a stock or a pile (positions without stock_size, discard_size) shows none.
  const mid = el("section", "rv-centre");
  if (pos.stock_size !== undefined) {
    const stock = el("div", "rv-pile");
    stock.append(el("span", "rv-pile__label", `${S.stock}: ${pos.stock_size}`));
    if (pos.stock_top) stock.append(el("span", "rv-muted", fill(S.next_card, { card: cardText(pos.stock_top) })));
    mid.append(stock);
  }
  if (pos.discard_size !== undefined) {
    const pile = el("div", "rv-pile");
    pile.append(el("span", "rv-pile__label", `${S.discard_pile}: ${pos.discard_size}`));
    if (pos.discard) pile.append(cardNode(pos.discard));
    pile.dataset.role = "discard";
    mid.append(pile);
  }
  return mid;
}

function draw() {
  const pos = data.positions[index];
  const round = data.rounds[roundIndex];
  board.replaceChildren();
  const seats = game.seats(pos);
  const grid = el("div", "rv-seats");
  for (let seat = 0; seat < seats; seat++) grid.append(seatPanel(pos, seat));
  board.append(grid, centre(pos));
  const extra = game.board(pos, kit);
  if (extra) board.append(extra);
  board.dataset.position = index;

  const step = index - round.first;
  const total = round.last - round.first;
  counter.textContent = step === 0 ? `${S.position_deal} · ${fill(S.position, { n: 0, total })}` : fill(S.position, { n: step, total });
  let text = pos.move ? moveText(pos.move, pos) : fill(S.deal, { round: round.number, name: name(round.dealer) });
  if (index === round.last) text += " " + roundEndText(round.summary);
  moveLine.textContent = text;
  slider.max = String(total);
  slider.value = String(step);
  roundPick.value = String(round.number);
  for (const item of moveList.children) item.classList.toggle("is-current", Number(item.dataset.position) === index);
}

function listMoves() {
  const round = data.rounds[roundIndex];
  moveList.replaceChildren();
  for (let i = round.first; i <= round.last; i++) {
    const pos = data.positions[i];
    const item = el("li", "");
    const button = el("button", "rv-move-link", pos.move ? moveText(pos.move, pos) : fill(S.deal, { round: round.number, name: name(round.dealer) }));
    button.type = "button";
    item.dataset.position = i;
    button.addEventListener("click", () => go(i));
    item.append(button);
    moveList.append(item);
  }
}

function go(position) {
  const last = data.positions.length - 1;
  index = Math.max(0, Math.min(last, position));
  const found = data.rounds.findIndex((r) => index >= r.first && index <= r.last);
  if (found !== roundIndex) {
    roundIndex = found;
    listMoves();
  }
  draw();
}

function step(how) {
  const round = data.rounds[roundIndex];
  if (how === "forward") go(index + 1);
  else if (how === "back") go(index - 1);
  else if (how === "start") go(index === round.first && roundIndex > 0 ? data.rounds[roundIndex - 1].first : round.first);
  else if (how === "end") go(index === round.last && roundIndex < data.rounds.length - 1 ? data.rounds[roundIndex + 1].last : round.last);
}

async function startViewer() {
  const viewer = document.getElementById("replay");
  if (!data.positions.length) {
    viewer.hidden = true;
    return;
  }
  try {
    game = withDefaults(DEFAULTS, await clientPart("replay"), "replay");
  } catch (error) {
    // Without the game's hooks the positions cannot be drawn as that game: say so, keep the deal check.
    moveLine.textContent = S.viewer_unavailable;
    viewer.dataset.ready = "error";
    throw error;
  }
  for (const button of viewer.querySelectorAll("[data-step]")) {
    button.addEventListener("click", () => step(button.dataset.step));
  }
  roundPick.addEventListener("change", () => {
    const round = data.rounds.find((r) => String(r.number) === roundPick.value);
    if (round) go(round.first);
  });
  slider.addEventListener("input", () => go(data.rounds[roundIndex].first + Number(slider.value)));
  viewer.addEventListener("keydown", (event) => {
    if (event.target.tagName === "SELECT" || event.target.tagName === "INPUT") return;
    const keys = { ArrowRight: "forward", ArrowLeft: "back", Home: "start", End: "end" };
    if (keys[event.key]) {
      event.preventDefault();
      step(keys[event.key]);
    }
  });
  viewer.tabIndex = -1;
  // A link anywhere on the page with data-replay-position (the analysis's costliest moments) shows that position.
  document.addEventListener("click", (event) => {
    const link = event.target.closest("[data-replay-position]");
    if (!link) return;
    event.preventDefault();
    go(Number(link.dataset.replayPosition));
    viewer.scrollIntoView({ block: "start" });
    viewer.focus({ preventScroll: true });
  });
  listMoves();
  draw();
  viewer.dataset.ready = "true";
}

// --- the deal check ----------------------------------------------------------------------------------------------

// A pasted record is checked from its own text: each round's deal against the hash the record says was
// published (its deal_hash), and the signature against this site's key.
const pasted = data.verify ? parseRecord(data.verify.record_text) : null;

function parseRecord(text) {
  try {
    const record = JSON.parse(text);
    return record && typeof record === "object" && !Array.isArray(record) ? record : null;
  } catch {
    return null;
  }
}

function dealOf(round) {
  return { dealer: round.dealer, hands: round.hands, upcard: round.upcard, stock: round.stock };
}

async function checkDeals() {
  const summary = document.getElementById("dc-summary");
  const section = document.getElementById("deal-check");
  let ok = 0;
  const bad = [];
  for (const check of data.checks) {
    const row = section.querySelector(`.dc-row[data-round="${check.number}"]`);
    if (!row) continue;
    let deal = check.deal;
    let published = check.hash;
    const round = pasted && Array.isArray(pasted.rounds) ? pasted.rounds[check.number - 1] : null;
    if (round && typeof round === "object") {
      deal = dealOf(round);
      published = typeof round.deal_hash === "string" ? round.deal_hash : "";
    }
    const verdict = row.querySelector('[data-role="verdict"]');
    verdict.textContent = S.check_running;
    const computed = await dealHash(deal);
    if (computed === null) {
      row.dataset.state = "unavailable";
      verdict.textContent = S.check_unavailable;
      continue;
    }
    row.querySelector('[data-role="computed"]').textContent = computed;
    if (!published) {
      row.dataset.state = "computed";
      verdict.textContent = S.check_none;
    } else if (computed === published) {
      row.dataset.state = "ok";
      verdict.textContent = "✓ " + S.check_ok;
      ok++;
    } else {
      row.dataset.state = "bad";
      verdict.textContent = "✗ " + S.check_bad;
      bad.push(check.number);
    }
  }
  if (bad.length) {
    summary.textContent = fill(S.checks_some_bad, { rounds: bad.join(", ") });
    summary.dataset.state = "bad";
    summary.dataset.rounds = bad.join(",");
  } else if (ok) {
    summary.textContent = S.checks_all_ok;
    summary.dataset.state = "ok";
  }
  section.dataset.checked = "true";
}

// --- the signature (a pasted record) ------------------------------------------------------------------------------

async function checkSignature() {
  const verdict = document.getElementById("sig-verdict");
  if (!verdict || !data.verify) return;
  verdict.textContent = S.signature_running;
  const keys = data.verify.public_keys || [data.verify.public_key];
  const state = await signatureState(data.verify.record_text, keys);
  verdict.dataset.state = state;
  verdict.textContent = { ok: "✓ ", bad: "✗ ", foreign: "✗ " }[state] ?? "";
  verdict.textContent += S["signature_" + state];
}

checkDeals();
checkSignature();
startViewer();
