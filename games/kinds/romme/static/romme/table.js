// Rommé's own part of the table, the hooks the shell (games/static/games/table.js) calls: the melds on the
// table (numbered, grouped by who laid them), the meld builder, lay-offs and joker swaps, Augen and the
// opening total, the Tipp button and its answer, the score sheet in Minuspunkte or Masters' Wertungspunkte, and
// each hand at a round's end.
// The page knows no rules: a meld's order and points come from the server (`meld_preview`), and whether a
// lay-off or a lay-out is allowed is the server's call.

import { cardElement, cardShort } from "../games/cards.js";
import { button, el, root, toast } from "../games/table/dom.js";
import { LANG, t } from "../games/table/i18n.js";
import { addDropTarget, codeOf, handKeys, selectedCodes } from "../games/table/hand.js";
import { flyFrom, ghostFlight, rectOf } from "../games/table/motion.js";
import { cardGroup, resultName } from "../games/table/scores.js";
import { askMeldPreview, legal, legalOf, mySeat, plainName, playerName, rerender, send, sendAction, store, view } from "../games/table/store.js";

const short = (code) => cardShort(code, LANG);

// --- what the server says a staged meld is ------------------------------------------------------------------

const previews = new Map(); // sorted codes → {status: "pending" | "ok" | "invalid" | "offline", meld, points}

const previewKey = (codes) => [...codes].sort().join(",");

/** The server's reading of a staged meld (asked once per set of cards; the answer redraws the page). */
function previewOf(keys) {
  const codes = keys.map(codeOf);
  const id = previewKey(codes);
  let known = previews.get(id);
  if (!known || known.status === "offline") {
    known = { status: "pending" };
    previews.set(id, known);
    askMeldPreview(codes).then((answer) => {
      if (!answer) previews.set(id, { status: "offline" });
      else if (Array.isArray(answer.meld)) previews.set(id, { status: "ok", meld: answer.meld, points: answer.points });
      else previews.set(id, { status: "invalid", error: answer.error || "" });
      rerender();
    });
  }
  return known;
}

function stagedPreviews() {
  return store.staged.map(previewOf);
}

function stagedTotal() {
  return stagedPreviews().reduce((sum, p) => sum + (p.status === "ok" ? p.points : 0), 0);
}

function stagedReady() {
  const all = stagedPreviews();
  return all.length > 0 && all.every((p) => p.status === "ok");
}

/** Stage melds given as card codes (the server's suggestion), picking matching keys from the hand. */
function stageMelds(melds) {
  const v = view();
  const reserved = store.swapping ? store.swapping.key : null;
  const laidOff = new Set((store.stagedLayoffs || []).map((item) => item.key));
  const free = handKeys(v.hand || []).filter((key) => key !== reserved && !laidOff.has(key) && !store.staged.some((meld) => meld.includes(key)));
  for (const meld of melds) {
    const keys = [];
    for (const code of meld) {
      const i = free.findIndex((key) => codeOf(key) === code);
      if (i >= 0) keys.push(free.splice(i, 1)[0]);
    }
    if (keys.length) store.staged.push(keys);
  }
  store.selected.clear();
}

// --- lay-offs and swaps --------------------------------------------------------------------------------------

// A joker swap the player composes: the card of the hand (its key, kept back) goes in for the joker of meld
// `meld`, and the freed joker, shown beside the melds being built as its own card (the key SWAP_KEY), joins a
// new meld; "Tauschen und auslegen" sends the swap with those melds as its lay (before opening: the opening).
// Only a swap whose freed joker can make a new meld may be started (the server still checks it all).
const SWAP_KEY = "JK#swap";

/** The melds (numbers as strings) whose joker the hand's `card` may go in for so that the freed joker makes a
 * new meld with the hand (before opening: the opening): those the legal actions list a swap into new melds for
 * (the server's solver, `swap_lays`, tries the hand with the joker instead of the card). A swap whose joker can
 * only be laid off again is its own button. */
function jokersToTake(card) {
  return new Set(legalOf("swap").filter((a) => a.card === card && a.then?.action === "lay").map((a) => String(a.meld)));
}

// Before opening, lay-offs go with the lay-out in one action (a Hand-Rommé below the opening's minimum may need
// them): a card dropped on (or sent to) a meld of the table while melds are being built is kept for the lay-out,
// as {key, meld}; whether it fits is the server's call when the lay-out is sent.
function stagedLayoffs() {
  const hand = new Set(handKeys(view()?.hand || []));
  const opened = Array.isArray(view()?.opened) && mySeat() !== null && view().opened[mySeat()];
  store.stagedLayoffs = opened || !store.staged.length ? [] : (store.stagedLayoffs || []).filter((item) => hand.has(item.key));
  return store.stagedLayoffs;
}

const layoffsOf = (items) => items.map((item) => ({ card: codeOf(item.key), meld: Number(item.meld), ...(item.end ? { end: item.end } : {}) }));

/** Keeps the card of `key` for the lay-out, to be laid off on meld `number` (at `end` of a run, if given). */
function stageLayoff(key, number, end) {
  store.stagedLayoffs = [...stagedLayoffs().filter((item) => item.key !== key), { key, meld: String(number), ...(end ? { end } : {}) }];
  store.stagedEnd = null;
  store.selected.delete(key);
  rerender();
}

/** A card kept for the lay-out that fits both ends of a run (the view's `lay_off_both_ends`), waiting for the
 * player to say which end: {key, meld}, dropped when the card or the melds being built are gone. */
function stagedEndChoice() {
  const pending = store.stagedEnd;
  if (!pending) return null;
  const hand = new Set(handKeys(view()?.hand || []));
  const fits = (view()?.lay_off_both_ends || []).some((a) => a.card === codeOf(pending.key) && String(a.meld) === pending.meld);
  if (!fits || !hand.has(pending.key) || !store.staged.length) store.stagedEnd = null;
  return store.stagedEnd;
}

/** The swap being composed, if the legal actions still offer it for its card and meld (else it is dropped). */
function swapping() {
  const current = store.swapping;
  if (!current) return null;
  const hand = handKeys(view()?.hand || []);
  const offered = jokersToTake(current.card).has(String(current.meld));
  if (offered && hand.includes(current.key)) return current;
  store.swapping = null;
  store.selected.delete(SWAP_KEY);
  store.staged = store.staged.map((meld) => meld.filter((key) => key !== SWAP_KEY)).filter((meld) => meld.length);
  return null;
}

function startSwap(key, meld) {
  store.swapping = { key, card: codeOf(key), meld: String(meld) };
  store.selected.clear();
  store.selected.add(SWAP_KEY);
  store.staged = store.staged.map((keys) => keys.filter((k) => k !== key)).filter((keys) => keys.length);
  rerender();
}

function cancelSwap() {
  store.swapping = null;
  store.selected.delete(SWAP_KEY);
  store.staged = store.staged.map((meld) => meld.filter((key) => key !== SWAP_KEY)).filter((meld) => meld.length);
  rerender();
}

/** The freed joker's card beside the melds being built: a click chooses it (or not) for the next meld. */
function swapToken(current) {
  const placed = store.staged.some((meld) => meld.includes(SWAP_KEY));
  const box = el("div", { class: "meld-swap", id: "swap-joker" });
  const text = t("swap_token", { card: short(current.card), n: current.meld });
  const token = cardElement("JK", { tag: "button", small: true, lang: LANG });
  token.dataset.swapKey = SWAP_KEY;
  token.classList.toggle("is-selected", store.selected.has(SWAP_KEY));
  token.classList.toggle("is-staged", placed);
  token.setAttribute("aria-pressed", store.selected.has(SWAP_KEY) ? "true" : "false");
  token.setAttribute("aria-label", text);
  token.title = text;
  token.disabled = placed;
  box.append(token, el("span", { class: "meld-swap__note", text: placed ? text : `${text} ${t("swap_place_joker")}` }));
  return box;
}

/** Melds a selected card may be laid off on (or swapped into), by the legal actions (numbers as strings). */
function targetMelds() {
  const selected = selectedCodes();
  const targets = new Set();
  for (const action of [...legalOf("lay_off"), ...legalOf("swap")]) {
    if (action.meld === undefined) continue;
    if (!selected.length || selected.includes(action.card)) targets.add(String(action.meld));
  }
  return targets;
}

/** Lays the card of `key` off on meld `number` (or swaps it for the joker there), as the server allows. */
function layOff(key, number) {
  const code = codeOf(key);
  const fits = legalOf("lay_off").filter((a) => a.card === code && String(a.meld) === String(number));
  if (fits.length > 1) {
    // The card fits both ends of the run (a joker, or an ace on 2 … K): the player picks the end.
    store.endChoice = fits;
    rerender();
    return true;
  }
  // Else the card may stand in for a joker there: dropping it swaps.
  const action = fits[0] || legalOf("swap").find((a) => a.card === code && String(a.meld) === String(number));
  if (action) return sendAction(action);
  const opened = Array.isArray(view()?.opened) && view().opened[mySeat()];
  if (!opened && store.staged.length && !store.staged.some((meld) => meld.includes(key)) && key !== store.swapping?.key) {
    // Not opened yet: the lay-off goes with the melds being built; a card that fits both ends of the run (a joker,
    // an ace on 2 … K) waits for the player to say which.
    if ((view()?.lay_off_both_ends || []).some((a) => a.card === code && String(a.meld) === String(number))) {
      store.stagedEnd = { key, meld: String(number) };
      rerender();
      return true;
    }
    stageLayoff(key, number);
    return true;
  }
  toast(t("cannot_lay_off_here", { card: short(code), n: number }));
  return false;
}

const layingAllowed = () => legalOf("discard").length > 0;

addDropTarget("#melds .meld[data-meld]", (key, node) => layOff(key, node.dataset.meld), { active: layingAllowed });
addDropTarget(
  "#melds",
  (key) => {
    // Dropped on the table but not on a meld: start or extend a meld being built.
    if (store.staged.some((meld) => meld.includes(key)) || (store.swapping && store.swapping.key === key)) return false;
    const last = store.staged[store.staged.length - 1];
    if (!last || last.length >= 3) store.staged.push([key]);
    else last.push(key);
    store.selected.delete(key);
    rerender();
    return true;
  },
  { active: layingAllowed },
);

// A click on a meld lays the one chosen card off there; a click on a meld being built takes it back to the
// hand. Enter and space do the same for the keyboard.
root.addEventListener("click", (event) => {
  if (event.target.closest("#swap-joker [data-swap-key]")) {
    if (store.selected.has(SWAP_KEY)) store.selected.delete(SWAP_KEY);
    else store.selected.add(SWAP_KEY);
    rerender();
    return;
  }
  const layoff = event.target.closest("#melds [data-staged-layoff]");
  if (layoff) {
    store.stagedLayoffs = stagedLayoffs().filter((item) => item.key !== layoff.dataset.stagedLayoff);
    rerender();
    return;
  }
  const staged = event.target.closest("#melds .meld--staged");
  if (staged) {
    store.staged.splice(Number(staged.dataset.staged), 1);
    rerender();
    return;
  }
  const meld = event.target.closest("#melds .meld[data-meld]");
  if (meld && store.selected.size === 1 && !store.selected.has(SWAP_KEY)) layOff([...store.selected][0], meld.dataset.meld);
});

root.addEventListener("keydown", (event) => {
  if (!event.target.closest || (event.key !== "Enter" && event.key !== " ")) return;
  const meld = event.target.closest("#melds .meld[data-meld]");
  if (meld && store.selected.size === 1 && !store.selected.has(SWAP_KEY)) {
    event.preventDefault();
    layOff([...store.selected][0], meld.dataset.meld);
  }
  const staged = event.target.closest("#melds .meld--staged");
  if (staged) {
    event.preventDefault();
    staged.click();
  }
});

// --- drawing the melds ---------------------------------------------------------------------------------------

function meldBox(cards, attrs = {}) {
  const box = el("div", attrs);
  for (const code of cards) box.append(cardElement(code, { small: true, lang: LANG }));
  return box;
}

function renderMelds(area, tb, v) {
  area.replaceChildren();
  area.setAttribute("aria-label", t("melds_on_table"));
  const onTable = v.melds || [];
  const targets = targetMelds();
  // Grouped by who laid them, so "who has opened" reads at a glance; the own melds first.
  const me = mySeat();
  const bySeat = new Map(me === null ? [] : [[me, []]]);
  for (const [index, meld] of onTable.entries()) {
    const owner = meld.owner ?? null;
    if (!bySeat.has(owner)) bySeat.set(owner, []);
    bySeat.get(owner).push({ number: meld.number ?? index + 1, meld });
  }
  // The melds being built come first (and stay in view while the table's melds scroll under them).
  const current = swapping();
  if (store.staged.length || current) {
    const row = el("div", { class: "meld-row meld-row--staged" });
    row.append(el("span", { class: "meld-row__owner", text: t("your_new_melds") }));
    if (current) row.append(swapToken(current));
    for (const [i, keys] of store.staged.entries()) {
      const preview = previewOf(keys);
      const cards = preview.status === "ok" ? preview.meld : keys.map(codeOf);
      const box = meldBox(cards, {
        class: `meld meld--staged meld--${preview.status}`,
        dataset: { staged: String(i), status: preview.status },
        role: "button",
        tabindex: "0",
        "aria-label": t("unstage_one", { cards: cards.map(short).join(" ") }),
        title: t("unstage_one", { cards: cards.map(short).join(" ") }),
      });
      const note =
        preview.status === "ok" ? t("points_n", { n: preview.points }) : preview.status === "invalid" ? t("meld_invalid") : t("meld_checking");
      box.append(el("span", { class: "meld__points", text: note }));
      row.append(box);
    }
    for (const item of stagedLayoffs()) {
      const words = item.end === "low" ? "layoff_staged_low" : item.end === "high" ? "layoff_staged_high" : "layoff_staged";
      const text = t(words, { card: short(codeOf(item.key)), n: item.meld });
      row.append(el("button", { type: "button", class: "meld-layoff", dataset: { stagedLayoff: item.key }, title: text, "aria-label": text, text }));
    }
    area.append(row);
  }
  if (!onTable.length && !store.staged.length) area.append(el("p", { class: "gt-melds__empty", text: t("no_melds") }));
  for (const [owner, melds] of bySeat) {
    if (!melds.length) continue;
    const row = el("div", { class: "meld-row", dataset: { owner: String(owner) } });
    row.append(el("span", { class: "meld-row__owner", text: owner === null ? "" : plainName(owner), title: owner === null ? "" : playerName(owner) }));
    for (const { number, meld } of melds) {
      const cards = meld.cards || [];
      const target = targets.has(String(number));
      const label = t(target ? "meld_target" : "meld_label", { n: number, cards: cards.map(short).join(" ") });
      const box = meldBox(cards, {
        class: `meld${target ? " is-target" : ""}`,
        dataset: { meld: String(number) },
        tabindex: "0",
        role: "button",
        "aria-label": label,
        title: label,
      });
      box.prepend(el("span", { class: "meld__no", "aria-hidden": "true", text: number }));
      row.append(box);
    }
    area.append(row);
  }
  // A newly chosen card that fits somewhere: the first meld it fits is scrolled into view.
  const chosen = selectedCodes().join(",");
  if (chosen && chosen !== lastChosen) area.querySelector(".meld.is-target")?.scrollIntoView({ block: "nearest" });
  lastChosen = chosen;
  return true;
}

let lastChosen = "";

// --- the numbers above the hand ---------------------------------------------------------------------------

/** A label with a short form for phones (the long one stays for screen readers). */
function label(long, shortText) {
  return el("span", { class: "stat__label" }, el("span", { class: "stat__long", text: long }), el("span", { class: "stat__short", "aria-hidden": "true", text: shortText }));
}

function renderNumbers(box, v) {
  // The Tipp answer (the server's `hint` frame, kept by the shell for the version it was asked at) stands
  // first, read out by aria-live; it names the move, and the card it plays is marked in the hand.
  const tip = store.tipAction ? tipText(v, store.tipAction) : null;
  if (tip) box.append(el("div", { class: "stat stat--tip", id: "tip-note", "aria-live": "polite", dataset: { action: store.tipAction.action } }, el("span", { text: tip })));
  const augen = v.hand_augen ?? null;
  if (augen !== null) box.append(el("div", { class: "stat", id: "augen" }, label(t("augen"), t("augen_short")), el("strong", { text: augen })));
  const me = mySeat();
  const opened = Array.isArray(v.opened) && me !== null ? v.opened[me] : false;
  const needed = v.opening_points ?? (v.options && v.options.opening_points) ?? 40;
  if (!opened) {
    const total = stagedTotal();
    box.append(
      el(
        "div",
        { class: `stat${total >= needed ? " stat--ok" : ""}`, id: "opening-total" },
        label(t("opening_total"), t("opening_short")),
        el("strong", { text: `${total} / ${needed}` }),
      ),
    );
    const best = v.best_opening;
    if (best && best.value !== undefined) {
      box.append(
        el("div", { class: `stat stat--hint${best.reaches ? " stat--ok" : ""}`, id: "best-opening" }, label(t("best_opening"), t("best_short")), el("strong", { text: best.value })),
      );
    }
  } else {
    box.append(el("div", { class: "stat stat--ok" }, el("span", { text: t("you_opened") })));
  }
}

// --- the Tipp ---------------------------------------------------------------------------------------------

const meldsText = (melds) => (melds || []).map((meld) => meld.map(short).join(" ")).join(" · ");
const layoffsText = (items) => items.map((item) => t("layoff_item", { card: short(item.card), n: item.meld })).join(", ");

/** What the expert advises (a `hint` frame's action), in words; null for an action this page has no words for. */
function tipText(v, action) {
  switch (action.action) {
    case "draw":
      return action.from === "stock" ? t("tip_draw_stock") : t("tip_take_pile", { card: v.discard_top ? short(v.discard_top) : "" });
    case "lay":
      if (Array.isArray(action.lay_offs) && action.lay_offs.length) return t("tip_lay_offs", { melds: meldsText(action.melds), layoffs: layoffsText(action.lay_offs) });
      return t("tip_lay", { melds: meldsText(action.melds) });
    case "lay_off":
      return t("tip_lay_off", { card: short(action.card), n: action.meld });
    case "swap":
      if (action.then && action.then.action === "lay") {
        const melds = action.then.lay_offs?.length ? `${meldsText(action.then.melds)} (${layoffsText(action.then.lay_offs)})` : meldsText(action.then.melds);
        return t("tip_swap_lay", { card: short(action.card), n: action.meld, melds });
      }
      return t("tip_swap", { card: short(action.card), n: action.meld });
    case "discard":
      return t("tip_discard", { card: short(action.card) });
    default:
      return null;
  }
}

/** The Tipp button: the seat to act asks the server's expert (a `hint` message). The search runs in the
 * computer players' worker from this seat's own view within 300 ms; a refusal (a tournament's table, a busy
 * server) comes back as an error the shell shows in words. */
function tipButton(bar) {
  if (!legal().length) return;
  bar.append(button(t("tip"), { id: "btn-tip", kind: "ghost", title: t("tip_title"), onclick: () => send({ type: "hint" }) }));
}

// --- the buttons ------------------------------------------------------------------------------------------

function renderActions(bar, v) {
  tipButton(bar);
  const current = swapping();
  // The card going in for the joker stays in the hand until the swap is sent: marked as used.
  if (current) root.querySelector(`#hand [data-key="${CSS.escape(current.key)}"]`)?.classList.add("is-staged");
  const kept = stagedLayoffs();
  for (const item of kept) root.querySelector(`#hand [data-key="${CSS.escape(item.key)}"]`)?.classList.add("is-staged");
  const selected = selectedCodes();
  const choice = (store.endChoice || []).filter((a) => legal().some((b) => JSON.stringify(a) === JSON.stringify(b)));
  store.endChoice = choice;
  for (const action of choice) {
    bar.append(
      button(t(action.end === "low" ? "lay_off_low" : "lay_off_high", { card: short(action.card), n: action.meld }), {
        id: `btn-end-${action.end}`,
        kind: "primary",
        onclick: () => {
          store.endChoice = [];
          sendAction(action);
        },
      }),
    );
  }
  const pendingEnd = stagedEndChoice();
  if (pendingEnd) {
    for (const end of ["low", "high"]) {
      bar.append(
        button(t(end === "low" ? "lay_off_low" : "lay_off_high", { card: short(codeOf(pendingEnd.key)), n: pendingEnd.meld }), {
          id: `btn-staged-end-${end}`,
          kind: "primary",
          onclick: () => stageLayoff(pendingEnd.key, pendingEnd.meld, end),
        }),
      );
    }
  }
  // After drawing, any melds may be laid: the page gathers them, the server checks them when sent.
  if (!layingAllowed()) return;
  const suggestion = legalOf("lay")[0];
  if (suggestion && !store.staged.length) {
    bar.append(
      button(t("use_suggestion"), {
        id: "btn-suggest",
        kind: "ghost",
        onclick: () => {
          stageMelds(suggestion.melds);
          rerender();
        },
      }),
    );
  }
  if (selected.length) {
    bar.append(
      button(t("stage_meld"), {
        id: "btn-stage",
        disabled: selected.length < 3,
        onclick: () => {
          store.staged.push([...store.selected].filter((key) => (!current || key !== current.key) && !kept.some((item) => item.key === key)));
          store.selected.clear();
          rerender();
        },
      }),
    );
  }
  if (current) {
    // The composed swap: sent with the melds being built as its lay, once the freed joker is in one of them.
    const placed = store.staged.some((meld) => meld.includes(SWAP_KEY));
    bar.append(
      button(t("swap_lay_out", { n: stagedTotal() }), {
        id: "btn-swap-lay-out",
        kind: "primary",
        disabled: !placed || !stagedReady(),
        title: placed ? undefined : t("swap_place_joker"),
        onclick: () => {
          const melds = stagedPreviews().map((p) => p.meld);
          const then = { action: "lay", melds };
          if (kept.length) then.lay_offs = layoffsOf(kept);
          const action = { action: "swap", meld: Number(current.meld), card: current.card, then };
          if (sendAction(action)) {
            store.staged = [];
            store.stagedLayoffs = [];
            store.swapping = null;
            store.selected.delete(SWAP_KEY);
          }
        },
      }),
      button(t("swap_cancel"), { id: "btn-swap-cancel", kind: "ghost", onclick: cancelSwap }),
    );
  } else if (store.staged.length) {
    bar.append(
      button(t("lay_out", { n: stagedTotal() }), {
        id: "btn-lay-out",
        kind: "primary",
        disabled: !stagedReady(),
        onclick: () => {
          const melds = stagedPreviews().map((p) => p.meld);
          const action = { action: "lay", melds };
          if (kept.length) action.lay_offs = layoffsOf(kept);
          if (sendAction(action)) {
            store.staged = [];
            store.stagedLayoffs = [];
          }
        },
      }),
      button(t("unstage"), {
        id: "btn-unstage",
        kind: "ghost",
        onclick: () => {
          store.staged = [];
          rerender();
        },
      }),
    );
  }
  if (selected.length !== 1 || choice.length || store.selected.has(SWAP_KEY)) return;
  // The chosen card's lay-offs and swaps as buttons too: reachable without dragging, by keyboard.
  const card = selected[0];
  const key = [...store.selected][0];
  const layoffs = legalOf("lay_off").filter((a) => a.card === card);
  const seen = new Set();
  for (const action of layoffs) {
    if (seen.has(action.meld)) continue;
    seen.add(action.meld);
    const both = layoffs.filter((a) => a.meld === action.meld).length > 1;
    bar.append(
      button(t("lay_off_at", { card: short(card), n: action.meld }), {
        kind: "ghost",
        extra: "btn-lay-off",
        onclick: () => (both ? layOff(`${card}#0`, action.meld) : sendAction(action)),
      }),
    );
  }
  // Each swap the server lists (its joker laid off again, or into the melds its solver found), and for each
  // joker whose freeing lets a new meld be made, the swap whose new melds the player builds.
  for (const swap of legalOf("swap")) {
    if (swap.card !== card) continue;
    const lays = swap.then && swap.then.action === "lay";
    const text = lays
      ? t("swap_joker_lay", { card: short(swap.card), n: swap.meld, melds: meldsText(swap.then.melds) })
      : t("swap_joker", { card: short(swap.card), n: swap.meld });
    bar.append(button(text, { kind: "ghost", extra: lays ? "btn-swap btn-swap-lay" : "btn-swap", onclick: () => sendAction(swap) }));
  }
  if (current) return;
  for (const meld of jokersToTake(card)) {
    bar.append(button(t("swap_take", { card: short(card), n: meld }), { kind: "ghost", extra: "btn-swap-take", onclick: () => startSwap(key, meld) }));
  }
}

// --- the score sheet: Minuspunkte, or Masters' Wertungspunkte -------------------------------------------------

/** Masters scoring (Wertungspunkte), under its new name and its old one. */
function mastersScoring(v, scores = v.scores) {
  const options = v.options || {};
  return Boolean(
    (scores && (scores.mode === "masters" || scores.mode === "tournament")) || options.scoring === "masters" || options.tournament === true,
  );
}

const signedMinus = (x) => (x ? `−${x}` : "0");

/** How a round ended: a hand laid out all at once is Hand-Rommé. */
const roundKind = (round) => (round.hand_romme ? "hand_romme" : round.result);

function sheetRound(v, round, seats) {
  const masters = mastersScoring(v);
  const cells = Array.from({ length: seats }, (_, seat) => {
    if (masters && round.wertungspunkte) {
      const cell = [String(round.wertungspunkte[seat])];
      if (round.augen) cell.push(el("small", { class: "scores__sub", text: `(${round.augen[seat]})` }));
      return cell;
    }
    return round.minus ? signedMinus(round.minus[seat]) : "";
  });
  // A Rommé round is only remarkable when it is not plain.
  const kind = roundKind(round);
  return { kind: kind && kind !== "romme" ? resultName(kind) : null, cells };
}

function sheetTotals(v, scores) {
  if (mastersScoring(v)) {
    return [
      { label: t("wp_short"), values: scores.wertungspunkte, title: t("wp") },
      { label: t("augen_total"), values: scores.augen },
      { label: t("result_short"), values: scores.results, title: t("result") },
    ];
  }
  return [{ label: t("totals"), values: Array.isArray(scores.minus) ? scores.minus.map(signedMinus) : null }];
}

// --- the end of a round and of the match ---------------------------------------------------------------------

/** The cards each seat laid off during the round, by the public moves. */
function layoffsBySeat(v) {
  const bySeat = new Map();
  for (const move of v.history || []) {
    if (move.action !== "lay_off") continue;
    if (!bySeat.has(move.seat)) bySeat.set(move.seat, []);
    bySeat.get(move.seat).push(move);
  }
  return bySeat;
}

function roundHeadline(v, last) {
  if (!last.hand_romme || !Number.isInteger(last.winner)) return null;
  return t("round_winner_what", { name: playerName(last.winner), what: resultName("hand_romme") });
}

/** A seat's part of a round's end: its melds (the cards others laid off on them marked), what it laid off,
 * what stayed in its hand, and its points. */
function roundSeat(v, last, seat) {
  const bySeat = layoffsBySeat(v);
  const laidOffByMeld = new Map();
  for (const moves of bySeat.values()) {
    for (const move of moves) laidOffByMeld.set(move.meld, [...(laidOffByMeld.get(move.meld) || []), move.card]);
  }
  const parts = [];
  const figures = [];
  for (const meld of (last.melds || []).filter((m) => m.owner === seat)) parts.push(cardGroup(meld.cards, "", laidOffByMeld.get(meld.number) || []));
  const mine = bySeat.get(seat) || [];
  if (mine.length) parts.push(el("span", { class: "summary__label", text: t("layoffs") }), cardGroup(mine.map((m) => m.card), "meld--layoff"));
  const hand = (last.hands && last.hands[seat]) || [];
  if (hand.length) parts.push(el("span", { class: "summary__label", text: t("in_hand") }), cardGroup(hand, "meld--unmelded"));
  if (last.augen) figures.push(t("augen_n", { n: last.augen[seat] }));
  if (mastersScoring(v) && last.wertungspunkte) figures.push(t("wp_n", { n: last.wertungspunkte[seat] }));
  else if (last.minus) figures.push(t("minus_n", { n: last.minus[seat] }));
  if (last.opened && !last.opened[seat]) figures.push(t("not_opened"));
  return { tags: [], parts, figures };
}

function finalColumns(v, result) {
  const scores = v.scores || {};
  if (mastersScoring(v)) return [[t("wp"), scores.wertungspunkte], [t("augen_total"), scores.augen], [t("result"), scores.results]];
  return [[t("minus"), (scores.minus || result.final || []).map(signedMinus)]];
}

function standing(v) {
  const scores = v.scores || {};
  if (mastersScoring(v)) return scores.wertungspunkte ?? null;
  return (scores.minus || []).map(signedMinus);
}

// --- the rest of the table ---------------------------------------------------------------------------------------

function describeMove(move) {
  switch (move.action) {
    case "lay":
      return t("mv_lay_out", { n: (move.melds || []).length || 1 });
    case "lay_off":
      return t("mv_lay_off", { card: short(move.card) });
    case "swap":
      return t("mv_swap", { card: short(move.card) });
    default:
      return null;
  }
}

/** A meld laid flies from the hand (or the seat) to its place; a card laid off or swapped in flies to its meld. */
function animateMove(move, { snap, mine, delay, from, seatRect }) {
  if (move.action === "lay") {
    for (const meld of root.querySelectorAll("#melds .meld[data-meld]")) {
      if (snap.melds.has(meld.dataset.meld)) continue;
      flyFrom(meld, mine ? snap.handArea : seatRect(move.seat), { delay });
    }
  } else if (move.action === "lay_off" || move.action === "swap") {
    const meld = root.querySelector(`#melds .meld[data-meld="${move.meld}"]`);
    ghostFlight(move.card, from, rectOf(meld), { delay });
  }
}

export default {
  multiSelect: true, // Rommé builds melds from several cards
  animateMove,
  arrangement: (v) => (v.best_opening && Array.isArray(v.best_opening.melds) ? v.best_opening.melds : []),
  roundsTotal: (v) => (v.options && v.options.rounds) || null,
  seatTags: (v, seat) => (Array.isArray(v.opened) ? [{ text: v.opened[seat] ? t("opened") : t("not_opened"), ok: Boolean(v.opened[seat]) }] : []),
  turnHint: (v) => (legalOf("discard").length ? t("hint_discard_romme") : null),
  describeMove,
  moveSound: (move) => (["lay", "lay_off", "swap"].includes(move.action) ? "lay" : null),
  roundEndSound: (last) => (last.hand_romme || last.result === "romme" ? "fanfare" : null),
  renderTable: renderMelds,
  renderNumbers,
  renderActions,
  sheetRound,
  sheetTotals,
  roundHeadline,
  roundSeat,
  finalColumns,
  standing,
};
