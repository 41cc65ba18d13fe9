// The tournament page: countdowns to the start or the next stage, and the live part (tables and
// standings) fetched again every few seconds while the tournament runs. The server renders; this only swaps.
const REFRESH_MS = 5000;

function tick() {
  for (const el of document.querySelectorAll("time[data-countdown]")) {
    const left = Math.max(0, Math.round((Date.parse(el.getAttribute("datetime")) - Date.now()) / 1000));
    const h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
    el.textContent = (h ? `${h}:` : "") + `${String(m).padStart(h ? 2 : 1, "0")}:${String(s).padStart(2, "0")}`;
  }
}

async function refresh(live) {
  try {
    const response = await fetch(live.dataset.liveUrl, { headers: { "X-Requested-With": "fetch" } });
    if (response.ok) live.innerHTML = await response.text();
  } catch (_) { /* offline for a moment: try again on the next beat */ }
}

tick();
setInterval(tick, 1000);
const live = document.getElementById("tn-live");
if (live && ["running", "registration"].includes(live.dataset.status)) {
  setInterval(() => refresh(live), REFRESH_MS);
}
