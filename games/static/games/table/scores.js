// The score sheet beside the table, and the one view of a round's end and of the match's end: who won and
// how, every hand as the game shows it, the standing or the final score. The frame is the same for every
// game; what goes in its cells, rows and columns comes from the game's hooks (./game.js).

import { cardElement } from "../cards.js";
import { $, el } from "./dom.js";
import { matchEndText, rematchOffered, renderTournamentEnd } from "./ending.js";
import { LANG, has, num, t } from "./i18n.js";
import { game } from "./game.js";
import { config, hasLeft, mySeat, playerName, shortName } from "./store.js";

/** The name of how a round ended ("Klopfen", "Hand-Rommé", …: the game's words); an unknown kind as it came. */
export function resultName(kind) {
  return has(`result_${kind}`) ? t(`result_${kind}`) : String(kind);
}

function seatCount(tb, v) {
  return v.seats ?? tb.seat_count;
}

/** A column head with a seat's short name (and whether it left, or is the own seat). */
export function nameCell(tag, seat) {
  const cell = el(tag, { scope: "col", title: playerName(seat) }, el("span", { class: "scores__name", text: shortName(seat) }));
  if (hasLeft(seat)) cell.append(el("span", { class: "scores__left", text: t("left_short") }));
  if (seat === mySeat()) cell.classList.add("is-me");
  return cell;
}

// --- the score sheet: the frame is the shell's, the rounds' cells and the totals the game's -----------------------

export function renderScores(tb, v) {
  const box = $("#scores");
  box.replaceChildren();
  const scores = v.scores;
  if (!scores) return;
  const seats = seatCount(tb, v);
  const sheet = el("table", { class: `scores scores--${seats}`, id: "score-sheet" });
  const head = el("tr", {}, el("th", { scope: "col", class: "scores__round", text: t("round") }));
  for (let seat = 0; seat < seats; seat += 1) head.append(nameCell("th", seat));
  sheet.append(el("thead", {}, head));
  const body = el("tbody");
  for (const round of scores.rounds || []) {
    const label = el("th", { scope: "row", class: "scores__round" }, String(round.round ?? ""));
    const { kind, cells } = game.sheetRound(v, round, seats);
    if (kind) label.append(el("span", { class: "scores__kind", text: kind }));
    const row = el("tr", {}, label);
    for (let seat = 0; seat < seats; seat += 1) {
      const cell = el("td", {}, num(cells[seat] ?? ""));
      if (round.winner === seat) cell.classList.add("is-winner");
      row.append(cell);
    }
    body.append(row);
  }
  if (!(scores.rounds || []).length) {
    body.append(el("tr", {}, el("td", { colspan: String(seats + 1), class: "scores__empty", text: t("no_rounds") })));
  }
  sheet.append(body);
  const foot = el("tfoot");
  for (const { label, values, title } of game.sheetTotals(v, scores)) {
    if (!Array.isArray(values)) continue;
    const row = el("tr", {}, el("th", { scope: "row", class: "scores__round", text: label, title }));
    for (let seat = 0; seat < seats; seat += 1) row.append(el("td", { text: values[seat] === undefined ? "" : num(values[seat]) }));
    foot.append(row);
  }
  sheet.append(foot);
  box.append(sheet);
  const after = game.sheetAfter(v, scores, seats);
  if (after) box.append(after);
}

// --- the end of a round and of the match -------------------------------------------------------------------

/** Cards of `all` minus those of `minus` (a multiset difference: a game may have two of each card). */
export function without(all, minus) {
  const rest = [...all];
  for (const code of minus) {
    const i = rest.indexOf(code);
    if (i >= 0) rest.splice(i, 1);
  }
  return rest;
}

/** Small cards in a row (a meld, the cards left in a hand); those in `marked` shown as laid off. */
export function cardGroup(cards, extra = "", marked = []) {
  const group = el("div", { class: `meld${extra ? ` ${extra}` : ""}` });
  const left = [...marked];
  for (const code of cards) {
    const card = cardElement(code, { small: true, lang: LANG });
    const i = left.indexOf(code);
    if (i >= 0) {
      left.splice(i, 1);
      card.classList.add("is-laid-off");
    }
    group.append(card);
  }
  return group;
}

function headline(v, last) {
  const own = game.roundHeadline(v, last);
  if (own) return own;
  if (!Number.isInteger(last.winner)) return t("round_no_winner", { what: resultName(last.result) });
  return t("round_winner_what", { name: playerName(last.winner), what: resultName(last.result) });
}

function roundSummary(tb, v, last) {
  const box = el("div", { class: "summary" });
  const seats = seatCount(tb, v);
  for (let seat = 0; seat < seats; seat += 1) {
    const row = el("div", { class: `summary__seat${last.winner === seat ? " is-winner" : ""}`, dataset: { seat: String(seat) } });
    const { tags = [], parts = [], figures = [] } = game.roundSeat(v, last, seat);
    const name = el("div", { class: "summary__name", text: playerName(seat) });
    for (const tag of tags) name.append(el("span", { class: `tag ${tag.ok ? "tag--ok" : "tag--closed"}`, text: tag.text }));
    if (hasLeft(seat)) name.append(el("span", { class: "tag tag--warn", text: t("left") }));
    row.append(name);
    row.append(el("div", { class: "summary__cards" }, ...parts), el("div", { class: "summary__figures", text: figures.join(" · ") }));
    box.append(row);
  }
  return box;
}

/** The match's final score, one row per player by place, with the game's columns (the final by default). */
function finalScore(tb, v) {
  const scores = v.scores || {};
  const result = v.result || (tb.match && tb.match.result) || {};
  const seats = seatCount(tb, v);
  const places = result.places || scores.places || [];
  const order = Array.from({ length: seats }, (_, seat) => seat).sort((a, b) => (places[a] ?? 99) - (places[b] ?? 99) || a - b);
  const columns = game.finalColumns(v, result) || [[t("final"), result.final || scores.final]];
  const sheet = el("table", { class: "final", id: "final-score" });
  const head = el("tr", {}, el("th", { scope: "col", text: t("place") }), el("th", { scope: "col", text: t("player") }));
  for (const [label] of columns) head.append(el("th", { scope: "col", text: label }));
  sheet.append(el("thead", {}, head));
  const body = el("tbody");
  for (const seat of order) {
    const row = el("tr", { class: result.winner === seat ? "is-winner" : "" });
    row.append(el("td", { text: places[seat] ? `${places[seat]}.` : "" }), el("th", { scope: "row", text: playerName(seat) }));
    for (const [, values] of columns) row.append(el("td", { text: Array.isArray(values) && values[seat] !== undefined ? values[seat] : "" }));
    body.append(row);
  }
  sheet.append(body);
  return sheet;
}

/** The standing after a round: what the score sheet's total row says, in one line. */
function standing(tb, v) {
  const scores = v.scores || {};
  const seats = seatCount(tb, v);
  const values = game.standing(v) ?? scores.totals;
  if (!Array.isArray(values)) return null;
  const parts = Array.from({ length: seats }, (_, seat) => `${shortName(seat)} ${num(values[seat])}`);
  return el("p", { class: "summary__standing" }, el("strong", { text: `${t("totals")}: ` }), parts.join(" · "));
}

let shownEnd = "";

/** Whether the end view is to be shown now and under which key (a round's end, or the match's). */
export function endState(tb, v) {
  const over = Boolean((v && v.over) || tb.status === "finished");
  const roundOver = v && (v.to_act === null || v.to_act === undefined) && v.last_round;
  if (!over && !roundOver) return null;
  const last = v ? v.last_round : null;
  return { over, last, key: `${tb.match ? tb.match.id : ""}:${over ? "match" : (last && (last.round ?? last.number)) || v.round_number}` };
}

export function renderEnd(tb, v) {
  const dialog = $("#round-end");
  const end = endState(tb, v);
  if (!end) {
    if (dialog.open) dialog.close();
    return;
  }
  const { over, last, key } = end;
  dialog.dataset.kind = over ? "match" : "round";
  const number = last ? last.round ?? last.number ?? v.round_number : null;
  $("#round-end-title").textContent = over ? t("match_end_title") : t("round_end_title", { n: number });
  const line = $("#round-headline");
  line.textContent = last ? headline(v, last) : "";
  line.hidden = !last;
  renderMatchEnd(tb, v, over);
  const body = dialog.querySelector("[data-role=body]");
  body.replaceChildren();
  if (last) body.append(roundSummary(tb, v, last));
  if (!over && v) {
    const line2 = standing(tb, v);
    if (line2) body.append(line2);
  }
  const ready = $("#btn-ready");
  const me = mySeat();
  const mine = me !== null ? tb.seats[me] : null;
  ready.hidden = me === null || over;
  ready.disabled = Boolean(mine && mine.ready);
  ready.textContent = mine && mine.ready ? t("waiting_others") : t("next_round");
  if (!dialog.open && shownEnd !== key) {
    shownEnd = key;
    // Who plays by keyboard lands on the view's first button; someone typing in the chat keeps typing.
    const typing = document.activeElement && document.activeElement.matches("input, textarea");
    dialog.show();
    dialog.querySelector(".gt-end__body").scrollTop = 0;
    const first = [...dialog.querySelectorAll("button")].find((b) => !b.hidden && !b.disabled);
    if (!typing && first) first.focus({ preventScroll: true });
  }
}

/** Opens the end view again after the player closed it (the "Ergebnis ansehen" button). */
export function reopenEnd() {
  const dialog = $("#round-end");
  if (!dialog.open) dialog.show();
}

/** The end view was shown and the player closed it (to look at the table): the bar offers it again. */
export function endClosed(tb, v) {
  return Boolean(endState(tb, v)) && !$("#round-end").open;
}

function renderMatchEnd(tb, v, over) {
  const box = $("#match-end");
  box.hidden = !over;
  if (!over) {
    renderTournamentEnd(false, tb, v, playerName);
    return;
  }
  const text = box.querySelector("[data-role=text]");
  text.textContent = matchEndText(tb, v, playerName);
  renderTournamentEnd(over, tb, v, playerName);
  const holder = box.querySelector("[data-role=final]");
  holder.replaceChildren();
  if (v) holder.append(finalScore(tb, v));
  const record = box.querySelector("#match-record");
  if (record && tb.match) record.href = `${config.record_url}?partie=${tb.match.number}`;
  const me = mySeat();
  const rematch = box.querySelector("#btn-rematch");
  rematch.hidden = me === null || !rematchOffered(tb, v);
  const mine = me !== null ? tb.seats[me] : null;
  rematch.disabled = Boolean(mine && mine.ready);
  rematch.textContent = mine && mine.ready ? t("rematch_waiting") : t("rematch");
}

