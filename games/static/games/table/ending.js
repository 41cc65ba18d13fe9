// The end of a match, where it is more than a score: a match won by forfeit says so and offers no rematch
// against the no-show, and a tournament table leads back to its tournament ("Zum Turnier"), with the
// player's standing after this match and the countdown to the next stage or how many tables still play.
// The tournament's part comes from the server as words in the page's language (the #match-end-tournament
// element names where: only tournament tables have it); this module only shows it and counts down.

import { el } from "./dom.js";
import { t } from "./i18n.js";

let facts = null; // the tournament's answer (ende.json), once fetched
let endArgs = null; // the last frame's table and view, to redraw the match's line once the answer is in

/** The seat that lost by forfeit (it never played), or null. The one place that decides: the server's
 *  ``forfeit`` in the match result when it writes one; otherwise, at a tournament table, what the tournament
 *  answers (``forfeit_seat``: the seat left without a move of its own while the server moved for it). */
export function forfeitSeat(tb, v) {
  const result = (v && v.result) || (tb.match && tb.match.result) || {};
  if (Number.isInteger(result.forfeit)) return result.forfeit;
  if (facts && Number.isInteger(facts.forfeit_seat)) return facts.forfeit_seat;
  return null;
}

/** Whether the end view offers a rematch: not at a tournament table, not against a no-show. */
export function rematchOffered(tb, v) {
  return !tournamentBox() && forfeitSeat(tb, v) === null;
}

/** The match's one line: who won (by forfeit, when so), or a draw. */
export function matchEndText(tb, v, name) {
  const result = (v && v.result) || (tb.match && tb.match.result) || {};
  if (!Number.isInteger(result.winner)) return t("match_draw");
  if (forfeitSeat(tb, v) !== null) return t("match_winner_forfeit", { name: name(result.winner) });
  return t("match_winner", { name: name(result.winner) });
}

function tournamentBox() {
  return document.getElementById("match-end-tournament");
}

// --- the tournament's part -----------------------------------------------------------------------------------

const POLL_MS = { unrecorded: 1500, waiting: 4000 };
let timer = null;
let loading = false;
let started = false;

function clock(at) {
  const left = Math.max(0, Math.round((Date.parse(at) - Date.now()) / 1000));
  const m = Math.floor(left / 60);
  return `${m}:${String(left % 60).padStart(2, "0")}`;
}

function draw() {
  const box = tournamentBox();
  if (!box || !facts) return;
  box.hidden = false;
  box.dataset.recorded = facts.recorded ? "1" : "0";
  const lines = [];
  if (facts.standing) lines.push(el("p", { class: "gt-match-end__standing", "data-role": "standing", text: facts.standing }));
  if (facts.countdown) {
    lines.push(el("p", { "data-role": "next" }, `${facts.countdown.label} `,
      el("time", { "data-role": "countdown", datetime: facts.countdown.at, text: clock(facts.countdown.at) })));
  } else if (facts.next) {
    lines.push(el("p", { "data-role": "next", text: facts.next }));
  }
  box.querySelector("[data-role=lines]").replaceChildren(...lines);
  if (endArgs) {
    const { tb, v, name } = endArgs;
    const text = document.querySelector("#match-end [data-role=text]");
    if (text) text.textContent = matchEndText(tb, v, name);
    const rematch = document.getElementById("btn-rematch");
    if (rematch && !rematchOffered(tb, v)) rematch.hidden = true;
  }
  const link = box.querySelector("[data-role=to-tournament]");
  link.href = facts.url;
  link.textContent = facts.to_tournament;
  link.hidden = false;
}

function tickCountdown() {
  const time = tournamentBox()?.querySelector("time[data-role=countdown]");
  if (time) time.textContent = clock(time.getAttribute("datetime"));
}

async function load() {
  const box = tournamentBox();
  if (!box || loading) return;
  loading = true;
  clearTimeout(timer);
  try {
    const response = await fetch(box.dataset.url, { headers: { Accept: "application/json" } });
    if (response.ok) facts = await response.json();
  } catch (_) {
    /* offline for a moment: the next try */
  } finally {
    loading = false;
  }
  draw();
  // Until this match is in the standings, and while the stage waits for other tables or its break, ask again.
  if (!facts || !facts.recorded) timer = setTimeout(load, POLL_MS.unrecorded);
  else if (facts.polling) timer = setTimeout(load, POLL_MS.waiting);
}

/** Shows the tournament's part of the end view (once the match is over; fetched on the first call). ``name``
 *  gives a seat's player name, for the match's line redrawn when the answer names a forfeit. */
export function renderTournamentEnd(over, tb, v, name) {
  endArgs = over ? { tb, v, name } : null;
  const box = tournamentBox();
  if (!box) return;
  if (!over) {
    box.hidden = true;
    return;
  }
  if (!started) {
    started = true;
    load();
    setInterval(tickCountdown, 1000);
  }
  draw();
}
