// The game's client module, as a page loads it: the server names it in the page (<link id="game-module">,
// the static path its registry entry gives, in the game's own package) and this imports one part of it. A
// client module exports one function per page ("table", "replay") that imports that page's hooks.

/** The hooks of the game's `part` ("table" or "replay"): the default export of what the part imports. */
export async function clientPart(part) {
  const link = document.getElementById("game-module");
  if (!link || !link.href) throw new Error("this page names no game module (#game-module)");
  const client = await import(link.href);
  if (typeof client[part] !== "function") throw new Error(`the game module ${link.href} has no ${part} part`);
  const hooks = (await client[part]()).default;
  if (!hooks || typeof hooks !== "object") throw new Error(`the ${part} part of ${link.href} exports no hooks`);
  return hooks;
}

/** `hooks` over `defaults`; an error naming any hook the page does not know (a typo would else go unseen). */
export function withDefaults(defaults, hooks, part) {
  const unknown = Object.keys(hooks).filter((name) => !(name in defaults));
  if (unknown.length) throw new Error(`the game's ${part} part names hooks this page does not know: ${unknown.join(", ")}`);
  return { ...defaults, ...hooks };
}
