// The calculator's pages: a choice in a list applies at once, the rent page's search filters as you type.
// No rule here: every figure comes from the server (unit/web/game.py). No build step, no library.
"use strict";
(function () {
  // A select marked "auto" submits its form when changed (the same request as its OK button without JS).
  document.querySelectorAll("select.auto").forEach((select) => {
    select.addEventListener("change", () => select.form.requestSubmit());
  });
  // The search: any part of the name (accents, case, hyphens and apostrophes do not matter, as on the
  // command line). The server wrote each square's key the same way (unit.fields.name_key).
  const plain = (text) =>
    text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[-'’.]/g, " ")
      .split(/\s+/).filter(Boolean).join(" ");
  const search = document.getElementById("q");
  const squares = document.querySelectorAll("#squares li");
  if (search && squares.length) {
    const filter = () => {
      const wanted = plain(search.value);
      squares.forEach((li) => { li.hidden = wanted !== "" && !li.dataset.key.includes(wanted); });
    };
    search.addEventListener("input", filter);
    search.form.addEventListener("submit", (event) => { event.preventDefault(); filter(); });
    filter();
  }
})();
