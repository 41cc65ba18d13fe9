// High card in the browser (a game of the test suite only): the hooks of the table page and of the replay
// viewer, named by its registry entry (tests/games/highcard/entry.py, client_module).

export const table = () => import("./table.js");
export const replay = () => import("./replay.js");
