// Notices on every page (games/delivery/notices.py): one socket per tab on /ws/notices/, for signed-in people. A
// notice shows a banner with its link (one per table or tournament, withdrawn when its table's match is over),
// flashes the page title while the tab is not looked at, and plays the
// table's "your turn" sound if sound is on (the table's own switch; nothing before the first click or key).
// The server decides what to say; this page only puts it in its own words (the "notice-strings" catalogue).

import { play } from "./table/sound.js";

const box = document.getElementById("site-notices");
const words = JSON.parse(document.getElementById("notice-strings")?.textContent || "{}");
const SEEN = "games:notices-seen";

function fill(text, vars) {
  return String(text).replace(/\{(\w+)\}/g, (_, name) => (vars[name] ?? ""));
}

// Tables this browser has opened or whose notice was dismissed: a reconnect's pending notice of such a table
// is not shown again (the server cannot know which tab has a table open).
function seen() {
  try {
    return new Set(JSON.parse(localStorage.getItem(SEEN) || "[]"));
  } catch {
    return new Set();
  }
}

function markSeen(tableId) {
  const ids = [...seen(), String(tableId)].slice(-50);
  localStorage.setItem(SEEN, JSON.stringify([...new Set(ids)]));
}

function tableHere() {
  const match = location.pathname.match(/\/tisch\/(\d+)\/$/);
  return match ? match[1] : null;
}

const here = tableHere();
if (here) markSeen(here);

// Notices already shown in this tab (a reconnect's pending notices come again): shown once.
const shown = new Set();
// At most this many banners at once; a new one pushes out the oldest.
const MOST = 3;

function keyOf(notice) {
  return notice.kind === "table_ready" ? `table:${notice.table_id}:${notice.stage ?? ""}` : `${notice.kind}:${notice.tournament_url}:${notice.stage ?? ""}`;
}

// One banner per table and per tournament: a tournament's news takes the place of its earlier banner (the
// start, then the table of round 2, then the end), a pool table has its own.
function placeOf(notice) {
  return notice.tournament_url ? `tournament:${notice.tournament_url}` : `table:${notice.table_id}`;
}

function bannerAt(place) {
  return [...box.querySelectorAll(".site-notice")].find((banner) => banner.dataset.place === place);
}

// A banner that no longer applies goes: the table's match is over (``table_finished``), or a newer notice
// of the same table or tournament replaced it.
function withdraw(notice) {
  for (const banner of box.querySelectorAll(".site-notice")) {
    if (banner.dataset.tableId === String(notice.table_id)) banner.remove();
  }
}

// A stage in its format's own words ("Runde 2", a Rommé series "Serie 2"): the notice carries it in each of the
// site's languages, the page shows its own.
function stageOf(notice) {
  const labels = notice.stage_label || {};
  return labels[document.documentElement.lang] ?? Object.values(labels)[0] ?? notice.stage;
}

function textOf(notice) {
  const vars = { ...notice, stage: stageOf(notice) };
  if (notice.kind === "table_ready") {
    return notice.tournament ? fill(words.table_ready_tournament, vars) : words.table_ready;
  }
  return fill(words[notice.kind] || notice.kind, vars);
}

function linkOf(notice) {
  if (notice.kind === "table_ready") return [notice.url, words.to_table];
  if (notice.kind === "tournament_finished") return [notice.tournament_url, words.to_results];
  return [notice.tournament_url, words.to_tournament];
}

// --- the page title flashes while the tab is hidden or not focused ------------------------------------
const title = document.title;
let flashTimer = null;

function stopFlash() {
  clearInterval(flashTimer);
  flashTimer = null;
  document.title = title;
}

function flash(text) {
  stopFlash();
  let on = false;
  let left = document.hidden || !document.hasFocus() ? Infinity : 6;
  flashTimer = setInterval(() => {
    on = !on;
    document.title = on ? `★ ${text}` : title;
    left -= 1;
    if (left <= 0) stopFlash();
  }, 1000);
}

window.addEventListener("focus", stopFlash);
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) stopFlash();
});

function show(notice) {
  const key = keyOf(notice);
  if (shown.has(key)) return;
  if (notice.kind === "table_ready") {
    if (String(notice.table_id) === here) return; // this tab is that table
    if (notice.pending && seen().has(String(notice.table_id))) return;
  }
  shown.add(key);
  const banner = document.createElement("div");
  banner.className = "site-notice";
  banner.dataset.kind = notice.kind;
  banner.dataset.place = placeOf(notice);
  if (notice.kind === "table_ready") banner.dataset.tableId = String(notice.table_id);
  const text = document.createElement("span");
  text.className = "site-notice__text";
  text.textContent = textOf(notice);
  banner.append(text);
  const [url, label] = linkOf(notice);
  if (url) {
    const link = document.createElement("a");
    link.className = "site-notice__link";
    link.href = url;
    link.textContent = label;
    if (notice.kind === "table_ready") link.addEventListener("click", () => markSeen(notice.table_id));
    banner.append(link);
  }
  const close = document.createElement("button");
  close.type = "button";
  close.className = "site-notice__close";
  close.setAttribute("aria-label", words.dismiss);
  close.textContent = "×";
  close.addEventListener("click", () => {
    if (notice.kind === "table_ready") markSeen(notice.table_id);
    banner.remove();
  });
  banner.append(close);
  const before = bannerAt(banner.dataset.place);
  if (before) before.replaceWith(banner);
  else box.append(banner);
  const banners = box.querySelectorAll(".site-notice");
  for (let i = 0; i < banners.length - MOST; i += 1) banners[i].remove();
  flash(notice.kind === "table_ready" ? words.title_flash : words.title_news);
  play("turn");
}

// --- the socket: reconnects with backoff; a refusal (signed out) ends it -----------------------------------
let attempts = 0;
let retry = null;

function connect() {
  clearTimeout(retry);
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/notices/`);
  socket.addEventListener("open", () => {
    attempts = 0;
    box.dataset.status = "online";
  });
  socket.addEventListener("message", (event) => {
    let frame;
    try {
      frame = JSON.parse(event.data);
    } catch {
      return;
    }
    if (!frame || frame.type !== "notice") return;
    if (frame.kind === "table_finished") withdraw(frame);
    else show(frame);
    // The page may have a part of its own that the notice changes (the tournament page's header).
    document.dispatchEvent(new CustomEvent("site:notice", { detail: frame }));
  });
  socket.addEventListener("close", (event) => {
    box.dataset.status = "offline";
    if (event.code === 4403) return; // not signed in (any more): nothing to wait for
    attempts = event.code === 4429 || event.code === 4430 ? 5 : attempts + 1; // too many messages or sockets: the longest wait
    const wait = Math.min(30000, 1000 * 2 ** Math.min(attempts, 5)) * (0.5 + Math.random() / 2);
    retry = setTimeout(connect, wait);
  });
}

if (box) connect();
