// Tiny DOM helpers shared by the table's modules. Text always goes in as text (textContent), never as markup.

/** An element with attributes (`class`, `text`, `dataset`, `on<event>` handlers, plain attributes) and children. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const root = document.getElementById("table-app");

/** The first element inside the table that matches `selector`. */
export const $ = (selector) => root.querySelector(selector);

/** A button of the action bar (always type=button, at least 44 px tall by CSS). */
export function button(label, { id, onclick, disabled = false, kind = "", extra = "", title } = {}) {
  return el(
    "button",
    { type: "button", class: `btn${kind ? ` btn--${kind}` : ""}${extra ? ` ${extra}` : ""}`, id, onclick, disabled, title },
    label,
  );
}

/** A short message at the top of the table (never over the hand or the action buttons); gone after 4 s. */
export function toast(text) {
  const box = document.getElementById("toast");
  if (!box) return;
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (box.hidden = true), 4000);
}

export function clearToast() {
  const box = document.getElementById("toast");
  if (box) box.hidden = true;
  clearTimeout(toast.timer);
}
