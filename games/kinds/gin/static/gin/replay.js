// Gin's part of the replay viewer (games/static/games/replay.js calls these hooks): each hand as the server
// arranged it, its melds first and its deadwood last, the Restpunkte beside each seat, a knock and Big Gin
// in words, and a round won with its points.

export default {
  seats: (pos) => pos.arranged.length,
  // Melds first, then the deadwood (the last group), as the server arranged them; gin.css styles the
  // deadwood's group (.rv-cards.is-deadwood).
  hand: (pos, seat) => pos.arranged[seat].map((cards, i, all) => ({ cards, kind: i === all.length - 1 ? "deadwood" : "meld" })),
  seatTags: (pos, seat, { S, fill }) => (pos.deadwood ? [{ text: fill(S.deadwood, { n: pos.deadwood[seat] }), kind: "" }] : []),
  moveText(move, { S, fill, name, cardText }, pos) {
    // A knock that leaves no Restpunkte is a gin: the record says "knock", the players say "Gin".
    const gin = pos && pos.deadwood && pos.deadwood[move.seat] === 0;
    if (move.action === "knock") return fill(gin ? S.gin : S.knock, { name: name(move.seat), card: cardText(move.card) });
    if (move.action === "big_gin") return fill(S.big_gin, { name: name(move.seat) });
    return null;
  },
  roundEnd(summary, { S, fill, name }) {
    if (summary.winner === null || summary.winner === undefined) return null;
    return fill(S.round_won, { name: name(summary.winner), result: S[`result_${summary.result}`] || summary.result, points: summary.points, n: summary.points });
  },
};
