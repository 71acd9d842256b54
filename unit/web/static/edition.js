// The Editions pages: every field checked by the server as it is typed (the edition loader's own
// messages, in the page's language), forms saved with fetch, an edition file uploaded as it is.
// No rule here: the server says what is wrong. Without this script the forms still post and answer.
"use strict";
(function () {
  const csrf = document.body.dataset.csrf;
  const lang = document.body.dataset.lang;
  const $ = (id) => document.getElementById(id);
  const CHECK_DELAY_MS = 250; // a pause in typing, then one check

  function post(url, body, type) {
    const headers = { Accept: "application/json", "X-CSRF-Token": csrf };
    if (type) headers["Content-Type"] = type;
    const sep = url.includes("?") ? "&" : "?";
    return fetch(url + sep + "lang=" + encodeURIComponent(lang), { method: "POST", body, headers, credentials: "same-origin" });
  }

  async function json(response) {
    const text = await response.text();
    try {
      return JSON.parse(text);
    } catch (e) {
      return { ok: false, error: text.trim(), errors: { _: text.trim() } };
    }
  }

  // --- a form checked as it is typed (a card, the edition's values) --------------------------------
  // A card's form (data-autosave) is saved after each pause in typing when it is right: nothing typed is
  // lost. One request at a time, each with the form as it is then (its version, the card's place).
  for (const form of document.querySelectorAll("form[data-check]")) {
    const touched = new Set();
    const auto = form.hasAttribute("data-autosave");
    let timer = null;
    let queue = Promise.resolve();
    let answered = 0;
    const field = (name) => form.elements.namedItem(name);

    function show(errors, all) {
      for (const line of form.querySelectorAll(".field-error[data-for]")) {
        const key = line.dataset.for;
        const text = all || key === "_" || touched.has(key) ? errors[key] || "" : "";
        line.textContent = text;
        line.hidden = !text;
        const input = field(key);
        if (input && input.setAttribute) {
          if (text) input.setAttribute("aria-invalid", "true");
          else input.removeAttribute("aria-invalid");
        }
      }
    }

    function saved(answer) {
      // The card is in the file: later saves replace it (its place, the file's version).
      if (field("n") && answer.n !== null && answer.n !== undefined) field("n").value = String(answer.n);
      if (field("card") && answer.card) field("card").value = answer.card; // the game's card form: by its name
      if (field("version") && answer.version) field("version").value = answer.version;
      const bar = document.querySelector("#progress progress");
      if (bar && answer.done !== undefined) bar.value = answer.done;
      const text = document.querySelector("#progress span");
      if (text && answer.progress) text.textContent = answer.progress;
      const status = $("autosaved");
      if (status) status.hidden = false;
    }

    function kept(answer) {
      // Refused because the file changed on another phone: the game's card form keeps what was typed and
      // gets the file's version, so that the next tap saves it over that change (the answer says so).
      if (!answer.ok && answer.version && field("version")) field("version").value = answer.version;
    }

    function send(mode) {
      const data = new URLSearchParams(new FormData(form));
      if (mode) data.set(mode, "1");
      return post(form.action, data).then(json);
    }

    function check() {
      queue = queue.then(async () => {
        try {
          const answer = await send(auto ? "auto" : "check");
          show(answer.errors || {}, false);
          kept(answer);
          if (auto && answer.ok && answer.version) saved(answer);
          form.dataset.answered = String(++answered); // for the browser tests
        } catch (e) {
          // offline: saving says so
        }
      });
    }

    // The skyscraper price follows the group until it is typed: the group's own price, or empty for a
    // new group (never the previous group's, carried over from the card before).
    const prices = JSON.parse(form.dataset.groupPrices || "{}");
    let skyTyped = false;
    const nameKey = (text) =>
      text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/[-'’.]/g, " ").trim().split(/\s+/).join(" ");

    // The game's card form: the values a colour group's cards share (its block costs, its skyscraper price)
    // follow the group chosen, until typed; typing a new group's name chooses « a new group ».
    const defaults = form.dataset.groupDefaults ? JSON.parse(form.dataset.groupDefaults) : null;
    const SHARED = ["residential_cost", "industrial_cost", "skyscraper_cost"];
    function followGroup() {
      const radio = form.querySelector("input[name='group']:checked");
      const typed = field("new_group") ? field("new_group").value : "";
      const shared = defaults[nameKey(radio && radio.value ? radio.value : typed)] || {};
      for (const key of SHARED) {
        if (field(key) && !touched.has(key)) field(key).value = shared[key] || "";
      }
    }

    form.addEventListener("input", (event) => {
      if (event.target.dataset && event.target.dataset.checks) $(event.target.dataset.checks).checked = true;
      if (defaults && ["group", "new_group"].includes(event.target.name)) followGroup();
      if (event.target.name) touched.add(event.target.name);
      if (event.target.name === "skyscraper_cost") skyTyped = true;
      if (!defaults && event.target.name === "group" && !skyTyped && field("skyscraper_cost")) {
        field("skyscraper_cost").value = prices[nameKey(event.target.value)] || "";
      }
      if (["group", "skyscraper_cost"].includes(event.target.name) && field("carried_from")) field("carried_from").value = "";
      const status = $("autosaved");
      if (status) status.hidden = true;
      clearTimeout(timer);
      timer = setTimeout(check, CHECK_DELAY_MS);
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      clearTimeout(timer);
      queue = queue.then(async () => {
        try {
          const answer = await send(null);
          if (answer.ok && answer.location) {
            window.location.href = answer.location;
            return;
          }
          show(answer.errors || {}, true);
          kept(answer);
        } catch (e) {
          show({ _: form.dataset.offline }, true);
        }
      });
    });
  }

  // --- k and M for amounts (the phone's number keyboard has no letters) ----------------------------
  const keys = $("keys");
  if (keys) {
    let last = null;
    const amount = (element) => !!(element && element.classList && element.classList.contains("amount"));
    // Shown while an amount is being typed (and only with this script: without it they would do nothing).
    document.addEventListener("focusin", (event) => {
      keys.hidden = !amount(event.target);
      if (amount(event.target)) last = event.target;
    });
    document.addEventListener("focusout", () => {
      setTimeout(() => {
        keys.hidden = !amount(document.activeElement);
      }, 0);
    });
    keys.addEventListener("pointerdown", (event) => event.preventDefault()); // keep the field's focus
    keys.addEventListener("click", (event) => {
      const key = event.target.dataset ? event.target.dataset.key : null;
      if (!key || !last) return;
      const end = last.value.length;
      last.setRangeText(key, last.selectionStart ?? end, last.selectionEnd ?? end, "end");
      last.focus();
      last.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }

  // --- an edition file uploaded as it is (the body is the file) -------------------------------------
  const upload = $("upload");
  if (upload) {
    upload.addEventListener("submit", async (event) => {
      event.preventDefault();
      const file = $("upload-file").files[0];
      const error = $("upload-error");
      error.hidden = true;
      if (!file) return;
      const named = $("upload-name"); // the file is kept under a name made from the edition's own
      const query = named ? "?name=" + encodeURIComponent(named.value.trim()) : "?file=" + encodeURIComponent(file.name);
      const url = upload.getAttribute("action") + query;
      try {
        const answer = await json(await post(url, file, "application/yaml"));
        if (answer.ok) {
          window.location.href = answer.location;
          return;
        }
        error.textContent = answer.error;
      } catch (e) {
        error.textContent = upload.dataset.offline;
      }
      error.hidden = false;
    });
  }
})();
