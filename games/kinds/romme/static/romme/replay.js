// Rommé's part of the replay viewer (games/static/games/replay.js calls these hooks): who has laid out, the
// melds on the table with their owners, a lay-out, a lay-off and a joker swap in words, and Hand-Rommé.

function tableMelds(pos, { S, fill, el, name, cardRow }) {
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

function moveText(move, { S, fill, name, cardText }) {
  const who = name(move.seat);
  switch (move.action) {
    case "lay": {
      const melds = (move.melds || []).map((m) => m.map(cardText).join(" ")).join(" · ");
      const offs = (move.lay_offs || []).map((o) => cardText(o.card)).join(" ");
      return fill(S.lay, { name: who, melds: offs ? `${melds} + ${offs}` : melds });
    }
    case "lay_off":
      return fill(S.lay_off, { name: who, card: cardText(move.card), meld: move.meld });
    case "swap":
      return fill(S.swap, { name: who, card: cardText(move.card), meld: move.meld });
    default:
      return null;
  }
}

export default {
  seatTags: (pos, seat, { S }) => (pos.opened && pos.opened[seat] ? [{ text: S.opened, kind: "" }] : []),
  board: tableMelds,
  moveText,
  roundEnd(summary, { S, fill, name }) {
    if (!summary.hand_romme || summary.winner === null || summary.winner === undefined) return null;
    return fill(S.round_won_what, { name: name(summary.winner), result: S.result_hand_romme });
  },
};
