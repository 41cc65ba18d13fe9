// High card's part of the replay viewer: a played card in words. Hands, piles and round ends are the
// viewer's plain ones.

export default {
  moveText: (move, { S, fill, name, cardText }) => (move.action === "play" ? fill(S.hc_play, { name: name(move.seat), card: cardText(move.card) }) : null),
};
