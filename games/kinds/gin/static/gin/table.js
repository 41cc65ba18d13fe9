// Gin's own part of the table: the Restpunkte meter and the Klopfen / Gin! / Big Gin / Tipp buttons. Every
// number comes from the server's meter (view.meter); the page only shows it.

import { cardShort } from "../cards.js";
import { button, el } from "./dom.js";
import { LANG, t } from "./i18n.js";
import { selectedCodes } from "./hand.js";
import { legalOf, rerender, sendAction, store } from "./store.js";

/** The gin meter (view.meter) as {now, afterBest, bestDiscard, byCard, canKnock, knockLimit}. */
export function ginMeter(v) {
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

export function renderGinNumbers(box, v) {
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
  if (store.tip) note = t("tip_text", { card: cardShort(store.tip, LANG), n: meter.afterBest ?? "?" });
  else if (meter.canKnock) note = shown === 0 ? t("gin_possible") : t("knock_possible");
  else note = limit === 0 ? t("gin_only") : t("knock_limit", { n: limit });
  // The Tipp answer stands in the meter itself, never over the buttons (aria-live reads it out).
  wrap.append(el("span", { class: `meter__note${store.tip ? " meter__note--tip" : ""}`, id: "meter-note", "aria-live": "polite", text: note }));
  box.append(wrap);
}

export function renderGinActions(bar, v) {
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
  if (legalOf("discard").length) {
    bar.append(
      button(t("tip"), {
        id: "btn-tip",
        kind: "ghost",
        onclick: () => {
          store.tip = ginMeter(v).bestDiscard;
          rerender();
        },
      }),
    );
  }
}
