// High card's part of the table: the cards played this round in the middle, a button that plays the chosen
// card, the score sheet's rounds won, and each seat's card at a round's end. It imports only the shell's
// helpers, as a game of its own package would.

import { cardElement, cardShort } from "../games/cards.js";
import { button, el } from "../games/table/dom.js";
import { LANG, t } from "../games/table/i18n.js";
import { selectedCodes } from "../games/table/hand.js";
import { cardGroup, resultName } from "../games/table/scores.js";
import { legalOf, playerName, sendAction } from "../games/table/store.js";

const short = (code) => cardShort(code, LANG);

/** The cards on the table: those played this round, or at a round's end the round's cards. */
function renderTable(area, tb, v) {
  area.replaceChildren();
  const played = (v.history || []).map((move) => [move.seat, move.card]);
  const shown = played.length ? played : ((v.last_round && v.last_round.cards) || []).map((card, seat) => [seat, card]);
  const row = el("div", { class: "meld-row", id: "played" });
  if (!shown.length) row.append(el("p", { class: "gt-melds__empty", text: t("hc_nothing_played") }));
  for (const [seat, card] of shown) {
    row.append(el("div", { class: "meld", dataset: { seat: String(seat) } }, el("span", { class: "meld-row__owner", text: playerName(seat) }), cardElement(card, { small: true, lang: LANG })));
  }
  area.append(row);
  return true;
}

function renderActions(bar) {
  const chosen = selectedCodes();
  const play = chosen.length === 1 ? legalOf("play").find((action) => action.card === chosen[0]) : null;
  if (!legalOf("play").length) return;
  bar.append(
    button(play ? t("hc_play_card", { card: short(play.card) }) : t("hc_play"), {
      id: "btn-play",
      kind: "primary",
      disabled: !play,
      onclick: () => play && sendAction(play),
    }),
  );
}

export default {
  roundsTotal: (v) => (v.options && v.options.rounds) || null,
  turnHint: () => (legalOf("play").length ? t("hc_hint") : null),
  describeMove: (move) => (move.action === "play" ? t("hc_mv_play", { card: short(move.card) }) : null),
  renderTable,
  renderActions,
  sheetRound: (v, round, seats) => ({
    kind: round.result === "tie" ? resultName("tie") : null,
    cells: Array.from({ length: seats }, (_, seat) => (round.winner === seat ? "+1" : "")),
  }),
  roundSeat: (v, last, seat) => ({ tags: [], parts: last.cards && last.cards[seat] ? [cardGroup([last.cards[seat]])] : [], figures: [] }),
};
