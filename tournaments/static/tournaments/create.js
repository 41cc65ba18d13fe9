// The staff's create form: the kind select shows the option fields of the chosen kind (format) and hides the
// others'. A hidden set is disabled too, so its fields are not posted; the server checks the chosen kind's
// fields either way and refuses another kind's (without this script the page shows the kind it was loaded
// with, and links to the others).
const select = document.querySelector("select[data-role=kind]");

function show() {
  for (const set of document.querySelectorAll("fieldset[data-kind]")) {
    const chosen = set.dataset.kind === select.value;
    set.hidden = !chosen;
    set.disabled = !chosen;
  }
}

if (select) {
  select.addEventListener("change", show);
  show();
}
