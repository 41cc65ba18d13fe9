// The replay viewer and the deal check of a finished match, or of a pasted record (whose signature it checks
// too). It knows no rules: the server sent every position (all hands open) in #replay-data; this only draws
// them and steps between them.

import { dealHash, signatureState } from "./canonical.js";

const data = JSON.parse(document.getElementById("replay-data").textContent);
const S = data.strings;
const lang = document.documentElement.lang || "de";
const german = !lang.startsWith("en");

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RANKS = german ? { T: "10", J: "B", Q: "D", K: "K", A: "A" } : { T: "10", J: "J", Q: "Q", K: "K", A: "A" };

function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (whole, key) => (key in values ? String(values[key]) : whole));
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function cardText(code) {
  if (code === "JK") return S.joker;
  return (RANKS[code[0]] || code[0]) + SUITS[code[1]];
}

function cardNode(code) {
  const red = code !== "JK" && (code[1] === "H" || code[1] === "D");
  const node = el("span", "rv-card" + (red ? " is-red" : "") + (code === "JK" ? " is-joker" : ""), cardText(code));
  node.dataset.card = code;
  return node;
}

function cardRow(cards, className = "rv-cards") {
  const row = el("span", className);
  for (const code of cards) row.append(cardNode(code));
  return row;
}

function name(seat) {
  return data.players[seat] ?? `#${seat + 1}`;
}

// --- words for moves and round ends --------------------------------------------------------------------------

function moveText(move) {
  if (!move) return "";
  const who = name(move.seat);
  switch (move.action) {
    case "pass":
      return fill(S.pass, { name: who });
    case "draw":
      if (!move.card) return fill(S.draw_empty, { name: who });
      return fill(move.from === "discard" ? S.draw_discard : S.draw_stock, { name: who, card: cardText(move.card) });
    case "discard":
      return fill(S.discard, { name: who, card: cardText(move.card) });
    case "knock":
      return fill(S.knock, { name: who, card: cardText(move.card) });
    case "big_gin":
      return fill(S.big_gin, { name: who });
    case "lay": {
      const melds = (move.melds || []).map((m) => m.map(cardText).join(" ")).join(" · ");
      const offs = (move.lay_offs || []).map((o) => cardText(o.card)).join(" ");
      return fill(S.lay, { name: who, melds: offs ? `${melds} + ${offs}` : melds });
    }
    case "lay_off":
      return fill(S.lay_off, { name: who, card: cardText(move.card), meld: move.meld });
    case "swap":
      return fill(S.swap, { name: who, card: cardText(move.card), meld: move.meld });
    case "reshuffle":
      return fill(S.reshuffle, { n: move.stock_size });
    case "resign":
      return fill(S.resign, { name: who });
    default:
      return `${who}: ${move.action}`;
  }
}

function resultWord(kind, handRomme) {
  if (handRomme) return S.result_hand_romme;
  return S[`result_${kind}`] || kind;
}

function roundEndText(summary) {
  if (!summary) return "";
  if (summary.winner === null || summary.winner === undefined) return S.round_dead;
  const who = name(summary.winner);
  if (data.game === "gin") {
    return fill(S.round_won, { name: who, result: resultWord(summary.result), points: summary.points });
  }
  return fill(S.round_romme, { name: who, result: resultWord(summary.result, summary.hand_romme) });
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
  const hand = pos.hands ? pos.hands[seat] : pos.arranged[seat].flat();
  head.append(el("span", "rv-muted", fill(S.cards_n, { n: hand.length })));
  if (pos.deadwood) head.append(el("span", "rv-tag", fill(S.deadwood, { n: pos.deadwood[seat] })));
  if (pos.opened && pos.opened[seat]) head.append(el("span", "rv-tag", S.opened));
  if (pos.left && pos.left[seat]) head.append(el("span", "rv-tag is-left", S.left));
  if (pos.to_act === seat) head.append(el("span", "rv-tag is-turn", S.to_act));
  panel.append(head);
  const cards = el("div", "rv-hand");
  cards.dataset.role = "hand";
  if (data.game === "gin") {
    // Melds first, then the deadwood (the last group), as the server arranged them.
    pos.arranged[seat].forEach((group, i, all) => {
      if (!group.length) return;
      cards.append(cardRow(group, i === all.length - 1 ? "rv-cards is-deadwood" : "rv-cards is-meld"));
    });
  } else {
    cards.append(cardRow(hand));
  }
  panel.append(cards);
  return panel;
}

function centre(pos) {
  const mid = el("section", "rv-centre");
  const stock = el("div", "rv-pile");
  stock.append(el("span", "rv-pile__label", `${S.stock}: ${pos.stock_size}`));
  if (pos.stock_top) stock.append(el("span", "rv-muted", fill(S.next_card, { card: cardText(pos.stock_top) })));
  const pile = el("div", "rv-pile");
  pile.append(el("span", "rv-pile__label", `${S.discard_pile}: ${pos.discard_size}`));
  if (pos.discard) pile.append(cardNode(pos.discard));
  pile.dataset.role = "discard";
  mid.append(stock, pile);
  return mid;
}

function tableMelds(pos) {
  const box = el("section", "rv-table-melds");
  box.append(el("h3", "", S.melds_table));
  if (!pos.melds.length) {
    box.append(el("p", "rv-muted", S.no_melds));
    return box;
  }
  const list = el("ol", "rv-meld-list");
  for (const meld of pos.melds) {
    const item = el("li", "");
    item.value = meld.number;
    item.append(cardRow(meld.cards), el("span", "rv-muted", " " + fill(S.owner, { name: name(meld.owner) })));
    list.append(item);
  }
  box.append(list);
  return box;
}

function draw() {
  const pos = data.positions[index];
  const round = data.rounds[roundIndex];
  board.replaceChildren();
  const seats = pos.hands ? pos.hands.length : pos.arranged.length;
  const grid = el("div", "rv-seats");
  for (let seat = 0; seat < seats; seat++) grid.append(seatPanel(pos, seat));
  board.append(grid, centre(pos));
  if (data.game === "romme") board.append(tableMelds(pos));
  board.dataset.position = index;

  const step = index - round.first;
  const total = round.last - round.first;
  counter.textContent = step === 0 ? `${S.position_deal} · ${fill(S.position, { n: 0, total })}` : fill(S.position, { n: step, total });
  let text = pos.move ? moveText(pos.move) : fill(S.deal, { round: round.number, name: name(round.dealer) });
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
    const button = el("button", "rv-move-link", pos.move ? moveText(pos.move) : fill(S.deal, { round: round.number, name: name(round.dealer) }));
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

function startViewer() {
  const viewer = document.getElementById("replay");
  if (!data.positions.length) {
    viewer.hidden = true;
    return;
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

startViewer();
checkDeals();
checkSignature();
