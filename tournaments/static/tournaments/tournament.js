// The tournament page: countdowns to the start or the next stage, and the live parts (the header with its
// status, countdown and buttons; the tables and standings; the participants) fetched again while the
// tournament is open or running: every few seconds, at once when a notice about this tournament arrives on
// the page's notice socket (games/static/games/notices.js), and just after a countdown ran out. The server
// renders; this only swaps each part for the one of the same name.
const REFRESH_MS = 5000;
const LIVE = ["registration", "running"];

const live = document.getElementById("tn-live");
let timer = null;
let fetching = false;
let again = false;
let dueAt = new Map(); // countdown element → the refresh its end asked for (once per countdown)

function status() {
  return document.querySelector("[data-live-part=head]")?.dataset.status || "";
}

function tick() {
  for (const el of document.querySelectorAll("time[data-countdown]")) {
    const at = Date.parse(el.getAttribute("datetime"));
    const left = Math.max(0, Math.round((at - Date.now()) / 1000));
    const h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
    el.textContent = (h ? `${h}:` : "") + `${String(m).padStart(h ? 2 : 1, "0")}:${String(s).padStart(2, "0")}`;
    // The start or the next stage is due: the server's clock does it within its pass, so look again soon.
    if (left === 0 && !dueAt.has(el)) {
      dueAt.set(el, true);
      setTimeout(refresh, 1200);
    }
  }
}

function swap(html) {
  const fresh = document.createElement("template");
  fresh.innerHTML = html;
  for (const part of fresh.content.querySelectorAll("[data-live-part]")) {
    const old = document.querySelector(`[data-live-part="${part.dataset.livePart}"]`);
    // A button the player has focus on keeps it when its part is the same as before.
    if (old && old.outerHTML !== part.outerHTML) old.replaceWith(part);
  }
  dueAt = new Map([...dueAt].filter(([el]) => el.isConnected));
  tick();
}

async function refresh() {
  if (!live) return;
  if (fetching) {
    again = true;
    return;
  }
  fetching = true;
  try {
    const response = await fetch(live.dataset.liveUrl, { headers: { "X-Requested-With": "fetch" } });
    if (response.ok) swap(await response.text());
  } catch (_) {
    /* offline for a moment: try again on the next beat */
  } finally {
    fetching = false;
  }
  if (again) {
    again = false;
    refresh();
    return;
  }
  schedule();
}

function schedule() {
  clearTimeout(timer);
  timer = LIVE.includes(status()) ? setTimeout(refresh, REFRESH_MS) : null;
}

// A notice about this tournament (started, paused, a stage began, finished, cancelled; a table ready):
// the page shows it now, not at the next beat.
document.addEventListener("site:notice", (event) => {
  const notice = event.detail || {};
  if (live && notice.tournament_url === live.dataset.tournamentUrl) refresh();
});

tick();
setInterval(tick, 1000);
schedule();
