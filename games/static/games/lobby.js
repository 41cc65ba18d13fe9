// The lobby page: keeps the table list live (the lobby socket says when, the server renders what) and
// shows the create form's options for the chosen game.

const list = document.getElementById("lobby-tables");
const live = document.getElementById("lobby-live");

let refreshTimer = null;
let inFlight = false;

async function refresh() {
  if (!list || inFlight) return;
  inFlight = true;
  try {
    const response = await fetch(list.dataset.url, { headers: { "X-Requested-With": "fetch" }, credentials: "same-origin" });
    if (response.ok) list.innerHTML = await response.text();
  } catch {
    // Offline for a moment: the next change or poll brings the list back.
  } finally {
    inFlight = false;
  }
}

function refreshSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, 150);
}

let attempts = 0;
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/lobby/`);
  socket.addEventListener("open", () => {
    attempts = 0;
    if (live) live.dataset.status = "online";
  });
  socket.addEventListener("message", refreshSoon);
  socket.addEventListener("close", () => {
    if (live) live.dataset.status = "offline";
    attempts += 1;
    setTimeout(connect, Math.min(10000, 500 * 2 ** attempts));
  });
}

if (list) {
  connect();
  // A slow poll as well, so the list stays right even when the socket cannot connect.
  setInterval(refresh, 20000);
}

const form = document.getElementById("create-form");
if (form) {
  const panels = form.querySelectorAll(".gl-game-options");
  const show = () => {
    const game = form.querySelector("input[name=game]:checked")?.value;
    for (const panel of panels) {
      const on = panel.dataset.game === game;
      panel.hidden = !on;
      // Hidden panels do not send their fields: only the chosen game's options reach the server.
      for (const field of panel.querySelectorAll("input, select")) field.disabled = !on;
    }
  };
  form.addEventListener("change", (event) => {
    if (event.target.name === "game") show();
  });
  show();
}
