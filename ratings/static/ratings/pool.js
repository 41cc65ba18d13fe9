// The lobby's ranked play (ratings app): the "Gewertet spielen" panel is rendered by the server and fetched
// here; while waiting, the status is polled every 2 s and a ready table is opened (once per table); the
// seats of ranked tables get their Wertungszahl.
const box = document.getElementById("ranked");
const list = document.getElementById("lobby-tables");
const get = (url) => fetch(url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } });
let poll = null;
let ticker = null;

function lead(url) {
  const key = `ranked-led:${url}`;
  if (!url || sessionStorage.getItem(key)) return;
  sessionStorage.setItem(key, "1");
  location.assign(url);
}

function tick() {
  const waited = box.querySelector("[data-waited]");
  if (!waited) return;
  const seconds = Number(waited.dataset.waited) + 1;
  waited.dataset.waited = String(seconds);
  waited.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

async function loadPanel() {
  try {
    const response = await get(box.dataset.panel);
    if (!response.ok) return;
    box.innerHTML = await response.text();
  } catch { return; }
  const panel = box.querySelector("[data-pool-state]");
  const state = panel?.dataset.poolState;
  clearTimeout(poll);
  clearInterval(ticker);
  if (state === "ready") lead(panel.dataset.tableUrl);
  if (state === "waiting") {
    tick();
    ticker = setInterval(tick, 1000);
    poll = setTimeout(checkStatus, 2000);
  }
}

async function checkStatus() {
  try {
    const response = await get(box.dataset.status);
    if (response.ok) {
      const status = await response.json();
      if (status.state !== "waiting") { await loadPanel(); return; }
    }
  } catch { /* offline for a moment: try again */ }
  poll = setTimeout(checkStatus, 2000);
}

async function seatRatings() {
  if (!list || !list.querySelector(".gl-pill--gold")) return;
  try {
    const response = await get(box.dataset.seatRatings);
    if (!response.ok) return;
    const { tables, unrated } = await response.json();
    // ratings.md "Farming": a ranked table whose match would be played unrated says so before the first move.
    for (const [tableId, note] of Object.entries(unrated || {})) {
      const item = list.querySelector(`[data-table="${tableId}"]`);
      if (!item || item.querySelector(".gl-unrated")) continue;
      const line = document.createElement("p");
      line.className = "gl-unrated";
      line.textContent = note;
      item.append(line);
    }
    for (const [tableId, seats] of Object.entries(tables)) {
      const items = list.querySelectorAll(`[data-table="${tableId}"] .gl-seats li`);
      for (const [index, rating] of Object.entries(seats)) {
        const item = items[Number(index)];
        if (!item || item.querySelector(".gl-wz")) continue;
        const badge = document.createElement("span");
        badge.className = "gl-wz";
        badge.textContent = `${rating.display}${rating.provisional ? "?" : ""}`;
        item.append(badge);
      }
    }
  } catch { /* the list stays without the numbers */ }
}

if (box) {
  loadPanel();
  seatRatings();
  if (list) new MutationObserver(() => seatRatings()).observe(list, { childList: true });
}
