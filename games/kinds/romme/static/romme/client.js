// Rommé in the browser: the hooks of the table page and of the replay viewer, each imported by the page that
// uses it (the registry entry names this module: games/kinds/romme/entry.py, client_module).

export const table = () => import("./table.js");
export const replay = () => import("./replay.js");
