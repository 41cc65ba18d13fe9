// The table chat: lines arrive as plain text and are only ever inserted as text (textContent), so whatever
// anyone types stays words on the screen and never becomes markup.

import { el, toast } from "./dom.js";
import { t } from "./i18n.js";
import { send } from "./store.js";

const seen = new Set();

export function addChat(line) {
  const list = document.getElementById("chat-lines");
  if (!list || seen.has(line.id)) return;
  seen.add(line.id);
  const item = el("li", { class: "chat__line" }, el("strong", { text: String(line.user ?? "") }), " ", el("span", { text: String(line.text ?? "") }));
  list.append(item);
  list.scrollTop = list.scrollHeight;
  const badge = document.getElementById("panel-badge");
  const side = document.getElementById("side");
  // In a closed drawer (narrow screens) a new line is announced by a dot on the drawer's button.
  if (badge && side && getComputedStyle(side).display === "none") badge.hidden = false;
}

export function wireChat() {
  document.getElementById("chat-form")?.addEventListener("submit", (event) => {
    event.preventDefault();
    const input = event.target.querySelector("input");
    const text = input.value.trim();
    if (!text) return;
    if (send({ type: "chat", text })) input.value = "";
    else toast(t("not_connected"));
  });
}
