// The page's words: the catalogue the server rendered for the request's language (table_i18n.py), with
// {name} placeholders and, for texts with a number, both plural forms picked by Intl.PluralRules.

const STR = JSON.parse(document.getElementById("table-strings").textContent);

export const LANG = document.documentElement.lang || "de";
const plurals = new Intl.PluralRules(LANG);
const lists = typeof Intl.ListFormat === "function" ? new Intl.ListFormat(LANG, { style: "long", type: "conjunction" }) : null;

function fill(text, vars) {
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

/** A translated text with its placeholders filled; a text with plural forms follows `vars.n`. */
export function t(key, vars = {}) {
  let text = STR[key] ?? key;
  if (text && typeof text === "object") {
    const n = Number(vars.n);
    text = text[Number.isFinite(n) ? plurals.select(n) : "other"] ?? text.other ?? key;
  }
  return fill(String(text), vars);
}

/** Whether the catalogue has a text for `key` (unknown round kinds are then shown as they came). */
export function has(key) {
  return key in STR;
}

/** "a, b und c" / "a, b, and c". */
export function listOf(items) {
  if (!items.length) return "";
  return lists ? lists.format(items) : items.join(", ");
}

/** A displayed number with the site's one minus sign (U+2212, games/glossary.py's MINUS); other values as they are. */
export function num(x) {
  return typeof x === "number" && x < 0 ? `\u2212${-x}` : x;
}
