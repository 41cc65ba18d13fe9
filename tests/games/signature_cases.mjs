// Runs the shared table of signature cases (signature_cases.json) through the browser's checker
// (games/static/games/canonical.js) under node; prints one JSON object: case name -> state.
import { readFileSync } from "node:fs";
import { signatureState } from "../../games/static/games/canonical.js";

const table = JSON.parse(readFileSync(new URL("./signature_cases.json", import.meta.url), "utf8"));
const out = {};
for (const item of table.cases) out[item.name] = await signatureState(item.text, [table.public_key]);
console.log(JSON.stringify(out));
