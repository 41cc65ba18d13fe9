// The action bar under the hand: the moves the server lists for this moment (draw, pass, discard) and the
// game's own buttons (its renderActions hook, ./game.js). Only enabled what `legal_actions` allows.

import { cardShort } from "../cards.js";
import { $, button } from "./dom.js";
import { LANG, t } from "./i18n.js";
import { game } from "./game.js";
import { selectedCodes } from "./hand.js";
import { legal, legalOf, mySeat, sendAction, store } from "./store.js";

export function renderActions(tb, v) {
  const bar = $("#actions");
  bar.replaceChildren();
  if (mySeat() === null || v.over) return;
  const selected = selectedCodes();
  const one = selected.length === 1 ? selected[0] : null;
  const pass = legalOf("pass")[0];
  const drawPile = legal().find((a) => a.action === "draw" && a.from === "discard");
  const drawStock = legal().find((a) => a.action === "draw" && a.from === "stock");
  if (pass) {
    // The first-turn offer: two clear choices, the upcard named on the button.
    bar.append(
      button(t("take_upcard", { card: v.discard_top ? cardShort(v.discard_top, LANG) : "" }), {
        id: "btn-take",
        kind: "primary",
        onclick: () => sendAction(drawPile || { action: "draw", from: "discard" }),
        disabled: !drawPile,
      }),
      button(t("pass"), { id: "btn-pass", onclick: () => sendAction(pass) }),
    );
    return;
  }
  if (drawStock) bar.append(button(t("draw_stock"), { id: "btn-draw-stock", kind: "primary", onclick: () => sendAction(drawStock) }));
  if (drawPile) bar.append(button(t("take_pile"), { id: "btn-draw-pile", onclick: () => sendAction(drawPile) }));
  if (legalOf("discard").length) {
    const discard = one && legalOf("discard").find((a) => a.card === one);
    bar.append(
      button(one ? t("discard_card", { card: cardShort(one, LANG) }) : t("discard"), {
        id: "btn-discard",
        kind: "primary",
        disabled: !discard,
        onclick: () => discard && sendAction(discard),
      }),
    );
  }
  game.renderActions(bar, v);
  bar.dataset.pending = store.pending ? "1" : "0";
}
