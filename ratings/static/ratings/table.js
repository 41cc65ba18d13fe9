// The Wertungszahl at each seat of a ranked table (ratings app; the games app's table page only holds the
// containers): fetched when the page opens and whenever the table's status changes; when a match has ended the
// rating changes ("+14", "−9") follow as soon as they are stored (the rating is computed after the end is
// announced, so a bounded number of short waits). The server writes every word and number; this only places them.
const app = document.getElementById("table-app");
const bar = document.getElementById("seat-ratings");
const end = document.getElementById("match-end-ratings");
let generation = 0;

const wait = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

function node(tag, className, text) {
  const item = document.createElement(tag);
  if (className) item.className = className;
  if (text !== undefined) item.textContent = text;
  return item;
}

function seatItem(tag, seat) {
  const item = node(tag, "gt-ratings__seat");
  item.dataset.seat = String(seat.seat);
  item.append(node("span", "gt-ratings__name", seat.name), " ", node("span", "gt-wz", seat.rating));
  if (seat.change) {
    item.append(" ", node("span", `gt-delta is-${seat.trend}`, seat.change));
  }
  return item;
}

function render(data) {
  const { seats, words } = data;
  const note = seats.some((seat) => seat.provisional) ? words.provisional : "";
  bar.replaceChildren(node("span", "gt-ratings__title", `${words.title}:`));
  seats.forEach((seat, index) => {
    if (index) bar.append(" · ");
    bar.append(seatItem("span", seat));
  });
  bar.title = note;
  bar.hidden = seats.length === 0;
  if (!end) return;
  const rated = seats.filter((seat) => seat.change);
  end.replaceChildren();
  end.hidden = rated.length === 0;
  if (!rated.length) return;
  const list = node("ul", "gt-ratings__list");
  for (const seat of rated) list.append(seatItem("li", seat));
  end.append(node("h3", "gt-ratings__head", words.changes), list);
  if (note) end.append(node("p", "gt-ratings__note", note));
}

async function load() {
  generation += 1;
  const mine = generation;
  for (let attempt = 0; ; attempt += 1) {
    let data;
    try {
      const response = await fetch(bar.dataset.url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } });
      if (!response.ok) return;
      data = await response.json();
    } catch { return; /* offline for a moment: the next status change asks again */ }
    if (mine !== generation) return; // a newer request (the table moved on) answers instead
    render(data);
    if (!data.pending || attempt >= data.retries) return;
    await wait(data.retry_ms);
    if (mine !== generation) return;
  }
}

if (app && bar && bar.dataset.url) {
  load();
  // The live table sets data-status (open, playing, finished) with every frame that changes it.
  let status = app.dataset.status;
  new MutationObserver(() => {
    if (app.dataset.status === status) return;
    status = app.dataset.status;
    load();
  }).observe(app, { attributes: true, attributeFilter: ["data-status"] });
}
