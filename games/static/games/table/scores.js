// The score sheet beside the table, and the one view of a round's end and of the match's end: who won and
// how, every hand with its melds and lay-offs, the points, the standing or the final score with bonuses.

import { cardElement } from "../cards.js";
import { $, el } from "./dom.js";
import { matchEndText, rematchOffered, renderTournamentEnd } from "./ending.js";
import { LANG, has, t } from "./i18n.js";
import { config, hasLeft, mySeat, playerName, shortName } from "./store.js";

/** The name of how a round ended ("Klopfen", "Hand-Rommé", …); an unknown kind is shown as it came. */
function resultName(kind) {
  return has(`result_${kind}`) ? t(`result_${kind}`) : String(kind);
}

/** Masters scoring (Wertungspunkte), under its new name and its old one. */
export function mastersScoring(v, scores = v.scores) {
  const options = v.options || {};
  return Boolean(
    (scores && (scores.mode === "masters" || scores.mode === "tournament")) || options.scoring === "masters" || options.tournament === true,
  );
}

const signedMinus = (x) => (x ? `−${x}` : "0");

function seatCount(tb, v) {
  return v.seats ?? tb.seat_count;
}

function nameCell(tag, seat) {
  const cell = el(tag, { scope: "col", title: playerName(seat) }, el("span", { class: "scores__name", text: shortName(seat) }));
  if (hasLeft(seat)) cell.append(el("span", { class: "scores__left", text: t("left_short") }));
  if (seat === mySeat()) cell.classList.add("is-me");
  return cell;
}

// --- the score sheet --------------------------------------------------------------------------------------

export function renderScores(tb, v) {
  const box = $("#scores");
  box.replaceChildren();
  const scores = v.scores;
  if (!scores) return;
  const seats = seatCount(tb, v);
  const masters = v.game === "romme" && mastersScoring(v);
  const sheet = el("table", { class: `scores scores--${seats}`, id: "score-sheet" });
  const head = el("tr", {}, el("th", { scope: "col", class: "scores__round", text: t("round") }));
  for (let seat = 0; seat < seats; seat += 1) head.append(nameCell("th", seat));
  sheet.append(el("thead", {}, head));
  const body = el("tbody");
  for (const round of scores.rounds || []) {
    const label = el("th", { scope: "row", class: "scores__round" }, String(round.round ?? ""));
    // Gin rounds end in different ways (knock, undercut, gin); a Rommé round is only remarkable when it is not plain.
    const kind = round.hand_romme ? "hand_romme" : round.result;
    if (kind && (v.game === "gin" || kind !== "romme")) label.append(el("span", { class: "scores__kind", text: resultName(kind) }));
    const row = el("tr", {}, label);
    for (let seat = 0; seat < seats; seat += 1) {
      const cell = el("td");
      if (v.game === "gin") cell.textContent = round.winner === seat ? `+${round.points}` : round.result === "dead" ? "–" : "";
      else if (masters && round.wertungspunkte) {
        cell.append(String(round.wertungspunkte[seat]));
        if (round.augen) cell.append(el("small", { class: "scores__sub", text: `(${round.augen[seat]})` }));
      } else if (round.minus) cell.textContent = signedMinus(round.minus[seat]);
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
  const addRow = (label, values, format = (x) => x, title = undefined) => {
    if (!Array.isArray(values)) return;
    const row = el("tr", {}, el("th", { scope: "row", class: "scores__round", text: label, title }));
    for (let seat = 0; seat < seats; seat += 1) row.append(el("td", { text: values[seat] === undefined ? "" : format(values[seat]) }));
    foot.append(row);
  };
  if (v.game === "gin") {
    addRow(t("totals"), scores.totals);
    addRow(t("boxes"), scores.boxes);
    const bonuses = ginBonuses(v);
    if (bonuses) addRow(t("bonuses"), bonuses, (x) => (x ? `+${x}` : "0"));
    if (v.over || scores.columns) addRow(t("final"), scores.final);
  } else if (masters) {
    addRow(t("wp_short"), scores.wertungspunkte, undefined, t("wp"));
    addRow(t("augen_total"), scores.augen);
    addRow(t("result_short"), scores.results, undefined, t("result"));
  } else {
    addRow(t("totals"), scores.minus, signedMinus);
  }
  sheet.append(foot);
  box.append(sheet);
  if (Array.isArray(scores.columns)) box.append(hollywood(scores.columns, seats));
}

/** Game, box and shutout bonuses are added when a gin match ends: what the final has above the round points. */
function ginBonuses(v) {
  const scores = v.scores || {};
  if (!v.over || scores.columns || !Array.isArray(scores.final) || !Array.isArray(scores.totals)) return null;
  const bonuses = scores.final.map((value, seat) => value - scores.totals[seat]);
  return bonuses.some(Boolean) ? bonuses : null;
}

function hollywood(columns, seats) {
  // Three games scored at once, one small sheet per column with its own bonuses.
  const wrap = el("div", { class: "hollywood" });
  for (const [i, column] of columns.entries()) {
    const col = el("table", { class: "scores scores--column" });
    col.append(el("caption", { text: t("column_n", { n: i + 1 }) + (column.finished ? " ✓" : "") }));
    const head = el("tr");
    for (let seat = 0; seat < seats; seat += 1) head.append(nameCell("th", seat));
    col.append(el("thead", {}, head));
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
  return wrap;
}

// --- the end of a round and of the match -------------------------------------------------------------------

/** Cards of `all` minus those of `minus` (a multiset difference: Rommé has two of each card). */
function without(all, minus) {
  const rest = [...all];
  for (const code of minus) {
    const i = rest.indexOf(code);
    if (i >= 0) rest.splice(i, 1);
  }
  return rest;
}

function cardGroup(cards, extra = "", marked = []) {
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
  const result = last.hand_romme ? "hand_romme" : last.result;
  if (result === "dead") return t("dead_round");
  if (!Number.isInteger(last.winner)) return t("round_no_winner", { what: resultName(result) });
  if (v.game === "gin") return t("round_winner", { name: playerName(last.winner), what: resultName(result), n: last.points ?? 0 });
  return t("round_winner_romme", { name: playerName(last.winner), what: resultName(result) });
}

/** Rommé: the cards each seat laid off during the round, by the public moves (meld number → cards). */
function rommeLayoffs(v) {
  const bySeat = new Map();
  for (const move of v.history || []) {
    if (move.action !== "lay_off") continue;
    if (!bySeat.has(move.seat)) bySeat.set(move.seat, []);
    bySeat.get(move.seat).push(move);
  }
  return bySeat;
}

function roundSummary(tb, v, last) {
  const box = el("div", { class: "summary" });
  const seats = seatCount(tb, v);
  const layoffsBySeat = v.game === "romme" ? rommeLayoffs(v) : new Map();
  const laidOffByMeld = new Map();
  for (const moves of layoffsBySeat.values()) {
    for (const move of moves) laidOffByMeld.set(move.meld, [...(laidOffByMeld.get(move.meld) || []), move.card]);
  }
  for (let seat = 0; seat < seats; seat += 1) {
    const row = el("div", { class: `summary__seat${last.winner === seat ? " is-winner" : ""}`, dataset: { seat: String(seat) } });
    const name = el("div", { class: "summary__name", text: playerName(seat) });
    if (v.game === "gin" && last.knocker === seat) name.append(el("span", { class: "tag tag--ok", text: t("knocker") }));
    if (hasLeft(seat)) name.append(el("span", { class: "tag tag--warn", text: t("left") }));
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
      if (dead.length) cards.append(el("span", { class: "summary__label", text: t("deadwood_cards") }), cardGroup(dead, "meld--deadwood"));
      if (last.deadwood && Number.isInteger(last.deadwood[seat])) figures.push(t("deadwood_n", { n: last.deadwood[seat] }));
      if (last.winner === seat && last.points) figures.push(t("points_n", { n: last.points }));
    } else {
      for (const meld of (last.melds || []).filter((m) => m.owner === seat)) {
        cards.append(cardGroup(meld.cards, "", laidOffByMeld.get(meld.number) || []));
      }
      const mine = layoffsBySeat.get(seat) || [];
      if (mine.length) {
        cards.append(el("span", { class: "summary__label", text: t("layoffs") }), cardGroup(mine.map((m) => m.card), "meld--layoff"));
      }
      const hand = (last.hands && last.hands[seat]) || [];
      if (hand.length) cards.append(el("span", { class: "summary__label", text: t("in_hand") }), cardGroup(hand, "meld--deadwood"));
      if (last.augen) figures.push(t("augen_n", { n: last.augen[seat] }));
      if (mastersScoring(v) && last.wertungspunkte) figures.push(t("wp_n", { n: last.wertungspunkte[seat] }));
      else if (last.minus) figures.push(t("minus_n", { n: last.minus[seat] }));
      if (last.opened && !last.opened[seat]) figures.push(t("not_opened"));
    }
    row.append(cards, el("div", { class: "summary__figures", text: figures.join(" · ") }));
    box.append(row);
  }
  return box;
}

/** The match's final score, one row per player by place: totals, bonuses and the final (gin), or the list. */
function finalScore(tb, v) {
  const scores = v.scores || {};
  const result = v.result || (tb.match && tb.match.result) || {};
  const seats = seatCount(tb, v);
  const places = result.places || scores.places || [];
  const order = Array.from({ length: seats }, (_, seat) => seat).sort((a, b) => (places[a] ?? 99) - (places[b] ?? 99) || a - b);
  const columns = [];
  if (v.game === "gin") {
    const bonuses = ginBonuses(v);
    if (!scores.columns) columns.push([t("totals"), scores.totals]);
    if (bonuses) columns.push([t("bonuses"), bonuses.map((x) => (x ? `+${x}` : "0"))]);
    columns.push([t("final"), result.final || scores.final]);
  } else if (mastersScoring(v)) {
    columns.push([t("wp"), scores.wertungspunkte], [t("augen_total"), scores.augen], [t("result"), scores.results]);
  } else {
    columns.push([t("minus"), (scores.minus || result.final || []).map(signedMinus)]);
  }
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
  let values = null;
  if (v.game === "gin") values = scores.totals;
  else if (mastersScoring(v)) values = scores.wertungspunkte;
  else values = (scores.minus || []).map(signedMinus);
  if (!Array.isArray(values)) return null;
  const parts = Array.from({ length: seats }, (_, seat) => `${shortName(seat)} ${values[seat]}`);
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

