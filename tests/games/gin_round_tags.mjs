// Loads gin's table part under node with a stand-in page and prints, as JSON, the tag each round's end puts on
// the seat that ended it: "Gin" / "Big Gin" for a gin, "klopft" only for a knock or an undercut.
const strings = JSON.parse(process.argv[2]);
const node = () => ({ append() {}, setAttribute() {}, addEventListener() {}, dataset: {}, classList: { add() {}, remove() {} }, querySelector: () => null });
const elements = {
  "table-strings": { textContent: JSON.stringify(strings) },
  "table-config": { textContent: JSON.stringify({ state: null }) },
  "table-app": node(),
};
globalThis.document = {
  getElementById: (id) => elements[id] ?? null,
  documentElement: { lang: process.argv[3] || "de" },
  createElement: node,
  createTextNode: node,
  addEventListener() {},
};
globalThis.localStorage = { getItem: () => null, setItem() {} };
globalThis.window = globalThis;
globalThis.addEventListener = () => {};
globalThis.matchMedia = () => ({ matches: false, addEventListener() {} });
globalThis.Node = function Node() {};

// The static folders laid out as the site serves them (/static/gin/, /static/games/): argv[4] is gin/table.js there.
const { default: gin } = await import(process.argv[4]);
const out = {};
for (const result of ["knock", "undercut", "gin", "big_gin"]) {
  const last = { result, knocker: 0, winner: result === "undercut" ? 1 : 0, melds: [[], []], hands: [[], []], layoffs: [] };
  out[result] = gin.roundSeat({}, last, 0).tags.map((tag) => tag.text);
}
// What the others see of a knock at the table: "klopft" unless the round's summary says it was a gin.
const { store } = await import(process.argv[4].replace(/gin\/table\.js$/, "games/table/store.js"));
const knockMove = { seat: 0, action: "knock", card: "5H" };
store.frame = { view: { last_round: { knocker: 0, result: "gin" } } };
const atGin = gin.describeMove(knockMove);
store.frame = { view: { last_round: { knocker: 0, result: "knock" } } };
out.table = { gin: atGin, knock: gin.describeMove(knockMove) };

// The replay's words for a knock: the position it led to tells a gin (no Restpunkte left) from a knock.
const { default: replay } = await import(process.argv[4].replace(/table\.js$/, "replay.js"));
const S = JSON.parse(process.argv[5]);
const fill = (text, values) => text.replace(/\{(\w+)\}/g, (whole, key) => (key in values ? String(values[key]) : whole));
const kit = { S, fill, name: (seat) => ["anna", "ben"][seat], cardText: (card) => card };
const knock = { seat: 0, action: "knock", card: "5H" };
out.replay = { gin: replay.moveText(knock, kit, { deadwood: [0, 12] }), knock: replay.moveText(knock, kit, { deadwood: [4, 12] }) };
console.log(JSON.stringify(out));
