// Gin's own part of the table, the hooks the shell (games/static/games/table.js) calls: the Restpunkte meter,
// the Klopfen / Gin! / Big Gin / Tipp buttons, how a knock reads and sounds, the score sheet with boxes,
// bonuses and Hollywood's columns, and each hand at a round's end (melds, lay-offs, Restpunkte). Every number
// comes from the server (view.meter, view.scores); the page only shows it.

import { cardShort } from "../games/cards.js";
import { button, el } from "../games/table/dom.js";
import { LANG, t } from "../games/table/i18n.js";
import { selectedCodes } from "../games/table/hand.js";
import { cardGroup, nameCell, resultName, without } from "../games/table/scores.js";
import { legal, legalOf, playerName, send, sendAction, store, view } from "../games/table/store.js";

/** The gin meter (view.meter) as {now, afterBest, bestDiscard, byCard, canKnock, knockLimit}. */
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
    knockLimit: meter.knock_limit ?? v.knock_limit ?? null,
  };
}

function deadwoodAfter(v, card) {
  return ginMeter(v).byCard[card] ?? null;
}

/** The knock a button plays: the selected card if that one may knock, else the one leaving least. */
function chosenKnock(v, { ginOnly = false } = {}) {
  const knocks = legalOf("knock");
  if (!knocks.length) return null;
  const selected = selectedCodes();
  const score = (a) => deadwoodAfter(v, a.card) ?? 99;
  const candidates = ginOnly ? knocks.filter((a) => score(a) === 0) : knocks;
  if (selected.length === 1) return candidates.find((a) => a.card === selected[0]) || null;
  if (!candidates.length) return null;
  return [...candidates].sort((a, b) => score(a) - score(b))[0];
}

function renderNumbers(box, v) {
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
  let note;
  const tip = store.tipAction ? tipText(v, store.tipAction) : null;
  if (tip) note = tip;
  else if (meter.canKnock) note = shown === 0 ? t("gin_possible") : t("knock_possible");
  else note = limit === 0 ? t("gin_only") : t("knock_limit", { n: limit });
  // The Tipp answer stands in the meter itself, never over the buttons (aria-live reads it out).
  wrap.append(el("span", { class: `meter__note${tip ? " meter__note--tip" : ""}`, id: "meter-note", "aria-live": "polite", text: note }));
  box.append(wrap);
}

function renderActions(bar, v) {
  const knocks = legalOf("knock");
  if (knocks.length || legalOf("discard").length) {
    const knock = chosenKnock(v);
    const knockLeft = knock ? deadwoodAfter(v, knock.card) : null;
    const nonGin = knock && knockLeft !== 0;
    bar.append(
      button(knock && nonGin ? t("knock_with", { card: cardShort(knock.card, LANG), n: knockLeft ?? "?" }) : t("knock"), {
        id: "btn-knock",
        kind: "knock",
        disabled: !knock || !nonGin,
        onclick: () => knock && sendAction(knock),
      }),
    );
    const gin = chosenKnock(v, { ginOnly: true });
    bar.append(
      button(gin ? t("gin_with", { card: cardShort(gin.card, LANG) }) : t("gin"), {
        id: "btn-gin",
        kind: "gin",
        disabled: !gin,
        onclick: () => gin && sendAction(gin),
      }),
    );
  }
  const bigGin = legalOf("big_gin")[0];
  if (bigGin) bar.append(button(t("big_gin"), { id: "btn-big-gin", kind: "gin", onclick: () => sendAction(bigGin) }));
  if (legal().some((a) => a.action !== "pass")) {
    // The expert's advice for this moment (draw or discard), searched on the server within 300 ms from this
    // seat's own view; the answer comes as a `hint` frame (table.js shows it here and on the card).
    bar.append(
      button(t("tip"), {
        id: "btn-tip",
        kind: "ghost",
        onclick: () => send({ type: "hint" }),
      }),
    );
  }
}

/** What the hint advises, in words (null for an action this page has no words for). */
function tipText(v, action) {
  const card = action.card ? cardShort(action.card, LANG) : "";
  if (action.action === "discard") return t("tip_text", { card, n: deadwoodAfter(v, action.card) ?? "?" });
  if (action.action === "knock") return deadwoodAfter(v, action.card) === 0 ? t("tip_gin", { card }) : t("tip_knock", { card });
  if (action.action === "big_gin") return t("tip_big_gin");
  if (action.action === "draw" && action.from === "stock") return t("tip_draw_stock");
  if (action.action === "draw") return t("tip_take_pile", { card: v.discard_top ? cardShort(v.discard_top, LANG) : "" });
  return null;
}

// --- the score sheet ---------------------------------------------------------------------------------------

/** Game, box and shutout bonuses are added when a gin match ends: what the final has above the round points. */
function ginBonuses(v) {
  const scores = v.scores || {};
  if (!v.over || scores.columns || !Array.isArray(scores.final) || !Array.isArray(scores.totals)) return null;
  const bonuses = scores.final.map((value, seat) => value - scores.totals[seat]);
  return bonuses.some(Boolean) ? bonuses : null;
}

const plus = (x) => (x ? `+${x}` : "0");

function sheetRound(v, round, seats) {
  // Gin rounds end in different ways (knock, undercut, gin): each row names it.
  const cells = Array.from({ length: seats }, (_, seat) => (round.winner === seat ? `+${round.points}` : round.result === "dead" ? "–" : ""));
  return { kind: round.result ? resultName(round.result) : null, cells };
}

function sheetTotals(v, scores) {
  const rows = [{ label: t("totals"), values: scores.totals }, { label: t("boxes"), values: scores.boxes }];
  const bonuses = ginBonuses(v);
  if (bonuses) rows.push({ label: t("bonuses"), values: bonuses.map(plus) });
  if (v.over || scores.columns) rows.push({ label: t("final"), values: scores.final });
  return rows;
}

/** Hollywood: three games scored at once, one small sheet per column with its own bonuses. */
function sheetAfter(v, scores, seats) {
  if (!Array.isArray(scores.columns)) return null;
  const wrap = el("div", { class: "hollywood" });
  for (const [i, column] of scores.columns.entries()) {
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

// --- the end of a round and of the match ---------------------------------------------------------------------

function roundHeadline(v, last) {
  if (last.result === "dead") return t("dead_round");
  if (!Number.isInteger(last.winner)) return null;
  return t("round_winner", { name: playerName(last.winner), what: resultName(last.result), n: last.points ?? 0 });
}

// Gin ends a round as a knock does, but the table says what it was: "Gin", not "klopft".
const KNOCKER_TAG = { gin: "result_gin", big_gin: "result_big_gin" };

/** A seat's hand at a round's end: its melds, the cards it laid off on the knocker's, its Restpunkte. */
function roundSeat(v, last, seat) {
  const parts = [];
  const figures = [];
  const melds = (last.melds && last.melds[seat]) || [];
  const layoffs = seat !== last.knocker ? last.layoffs || [] : [];
  for (const meld of melds) parts.push(cardGroup(meld));
  if (layoffs.length && last.knocker !== null) parts.push(el("span", { class: "summary__label", text: t("layoffs") }), cardGroup(layoffs, "meld--layoff"));
  const dead = without((last.hands && last.hands[seat]) || [], [...melds.flat(), ...layoffs]);
  if (dead.length) parts.push(el("span", { class: "summary__label", text: t("deadwood_cards") }), cardGroup(dead, "meld--unmelded"));
  if (last.deadwood && Number.isInteger(last.deadwood[seat])) figures.push(t("deadwood_n", { n: last.deadwood[seat] }));
  if (last.winner === seat && last.points) figures.push(t("points_n", { n: last.points }));
  return { tags: last.knocker === seat ? [{ text: t(KNOCKER_TAG[last.result] ?? "knocker"), ok: true }] : [], parts, figures };
}

function finalColumns(v, result) {
  const scores = v.scores || {};
  const bonuses = ginBonuses(v);
  const columns = [];
  if (!scores.columns) columns.push([t("totals"), scores.totals]);
  if (bonuses) columns.push([t("bonuses"), bonuses.map(plus)]);
  columns.push([t("final"), result.final || scores.final]);
  return columns;
}

// --- moves and sounds -------------------------------------------------------------------------------------------

function describeMove(move) {
  if (move.action === "knock") {
    // A knock ends the round, so the round's summary is this knock's: a gin is worded as one, not "klopft".
    const last = (view() || {}).last_round;
    const gin = last && last.knocker === move.seat && last.result === "gin";
    return t(gin ? "mv_gin" : "mv_knock", { card: cardShort(move.card, LANG) });
  }
  if (move.action === "big_gin") return t("mv_big_gin");
  return null;
}

/** Gin's own sound: a knock on the table, twice (with the shell's instruments, games/static/games/table/sound.js). */
const knock = (ac, { tone }) => {
  tone(ac, { frequency: 140, to: 70, length: 0.09, volume: 0.16 });
  tone(ac, { frequency: 140, to: 70, start: 0.16, length: 0.09, volume: 0.16 });
};
/** A move's sound: a knock knocks, Big Gin is the shell's fanfare. */
const SOUNDS = { knock: "knock", big_gin: "fanfare" };

export default {
  multiSelect: false, // gin plays one card at a time
  pileActions: ["discard", "knock"], // a knock discards too
  arrangement: (v) => (v.meter && Array.isArray(v.meter.melds) ? v.meter.melds : []),
  renderNumbers,
  renderActions,
  describeMove,
  sounds: { knock },
  moveSound: (move) => SOUNDS[move.action] ?? null,
  roundEndSound: (last) => (["gin", "big_gin"].includes(last.result) ? "fanfare" : null),
  sheetRound,
  sheetTotals,
  sheetAfter,
  roundHeadline,
  roundSeat,
  finalColumns,
  standing: (v) => (v.scores || {}).totals ?? null,
};
