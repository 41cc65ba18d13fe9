// Loads game client modules the way the pages do (games/static/games/client.js, table/game.js) under node,
// with a stand-in for the page: good ones and bad ones. Prints one JSON object: case name -> what happened.
const elements = { "table-strings": { textContent: JSON.stringify({ totals: "Summe" }) } };
globalThis.document = { getElementById: (id) => elements[id] ?? null, documentElement: { lang: "de" } };

const { clientPart } = await import("../../games/static/games/client.js");
const { game, loadGame } = await import("../../games/static/games/table/game.js");

const module = (source) => `data:text/javascript,${encodeURIComponent(source)}`;
const part = (hooks) => `export const table = () => Promise.resolve({ default: ${hooks} });`;

async function outcome(href, load = () => clientPart("replay")) {
  if (href === null) delete elements["game-module"];
  else elements["game-module"] = { href };
  try {
    await load();
    return "loaded";
  } catch (error) {
    return `error: ${error.message}`;
  }
}

const out = {};
out["no module named"] = await outcome(null);
out["no such part"] = await outcome(module(part("{}")));
out["a part without hooks"] = await outcome(module(part("null")), () => clientPart("table"));
out["an unknown hook"] = await outcome(module(part("{ renderTabel() {}, multiSelect: true }")), loadGame);
out["good hooks"] = await outcome(module(part("{ multiSelect: true, roundsTotal: (v) => v.options.rounds }")), loadGame);
out["good hooks, as taken"] = {
  multiSelect: game.multiSelect,
  roundsTotal: game.roundsTotal({ options: { rounds: 3 } }),
  // What the game left out is the plain way: its totals row, no tags, no table middle.
  sheetTotals: game.sheetTotals({}, { totals: [2, 1] }),
  seatTags: game.seatTags({}, 0),
  renderTable: game.renderTable(null, {}, {}),
};
console.log(JSON.stringify(out));
