// The game at the table (unit/web/table.py): a tap updates the view without loading the page again, the square
// finder filters as letters are typed, k and M keys for amounts, the box's auction sale offered when it ends.
// Progressive: without this script every link and form works as a page of its own. No rule here.
"use strict";
(function () {
  const main = document.getElementById("main");
  if (!main) return;
  const $ = (id) => document.getElementById(id);
  let busy = null; // the request on its way: a tap (POST) is never sent twice; a newer view replaces a view
  // The game's views (unit/web/table.py): the only pages swapped in; any other (a card asked, a report) is loaded.
  const VIEW = /^\/games\/[^/]+(\/(player\/\d+(\/buy)?|square\/[^/]+|trade\/[^/]+|history))?$/;

  // --- a view swapped in: the server's <main> alone (X-Fragment), the address and the title follow ---------
  async function show(url, options, push) {
    const posting = !!(options && options.method === "POST");
    if (busy && (busy.posting || posting)) return; // a tap on its way: wait for its answer
    if (busy) busy.abort();
    const mine = new AbortController();
    mine.posting = posting;
    busy = mine;
    document.body.dataset.busy = "1";
    const started = performance.now();
    try {
      const request = { credentials: "same-origin", headers: { "X-Fragment": "1" }, signal: mine.signal };
      const answer = await fetch(url, Object.assign(request, options || {}));
      const type = answer.headers.get("content-type") || "";
      // A view: the one a tap was redirected to, or a refusal or a question answered in place (not redirected).
      const isView = VIEW.test(new URL(answer.url).pathname) || (posting && !answer.redirected);
      if (!type.startsWith("text/html") || !isView) {
        window.location.assign(answer.url || url); // a file, a plain refusal: the browser shows it
        return;
      }
      const html = await answer.text();
      const before = main.querySelector(".table");
      // Answered in place (a refusal, a question): the view the tap came from, whose address stays; the POST's own
      // URL (/games/NAME/bank) answers no GET, so neither a reload nor Back may ever land on it.
      const inPlace = posting && !answer.redirected;
      const address = inPlace ? location.href : answer.url;
      const sameView = before && address.split("?")[0] === location.href.split("?")[0];
      main.innerHTML = html;
      const table = main.querySelector(".table");
      if (table && table.dataset.title) document.title = table.dataset.title;
      if (!inPlace) {
        if (push && answer.url !== location.href) history.pushState({ view: true }, "", answer.url);
        else if (answer.redirected) history.replaceState({ view: true }, "", answer.url);
      }
      setUp();
      const error = $("error") || $("slip");
      if (error) {
        // A refusal: the banker stays where they were, the sentence beside the control, what was typed kept.
        const field = main.querySelector("[aria-invalid='true']");
        (field || error).focus && (field || error).focus({ preventScroll: true });
        if (!sameView) window.scrollTo(0, 0);
        error.scrollIntoView({ block: "nearest" });
      } else if (!sameView) {
        window.scrollTo(0, 0);
        const heading = main.querySelector("h1");
        if (heading) heading.focus({ preventScroll: true });
      }
      window.mcLastSwap = { url: answer.url, status: answer.status, ms: performance.now() - started };
    } catch (error) {
      if (error.name !== "AbortError") window.location.assign(url); // the network: the browser tries it as a page
    } finally {
      if (busy === mine) {
        busy = null;
        delete document.body.dataset.busy;
      }
    }
  }

  main.addEventListener("click", (event) => {
    const link = event.target.closest("a[href]");
    if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin || !VIEW.test(url.pathname) || !main.querySelector(".table")) return;
    event.preventDefault();
    show(url.href, null, true);
  });

  main.addEventListener("submit", (event) => {
    const form = event.target;
    if (!main.querySelector(".table") || event.defaultPrevented) return;
    if (!form.checkValidity()) return;
    event.preventDefault();
    const data = new FormData(form, event.submitter || null);
    // The form's attributes, not its properties: a field named "action" hides form.action.
    const action = new URL(form.getAttribute("action") || location.href, location.href).href;
    if ((form.getAttribute("method") || "get").toLowerCase() === "get") {
      const url = new URL(action);
      url.search = new URLSearchParams(data).toString();
      show(url.href, null, true);
      return;
    }
    // Sent once: the buttons are off while it is on its way (the server refuses a second copy anyway).
    form.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    show(action, { method: "POST", body: new URLSearchParams(data) }, true);
  });

  window.addEventListener("popstate", () => show(location.href, null, false));

  // --- per view: the square finder, the k and M keys ---------------------------------------------------
  const plain = (text) =>
    text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[-'’.]/g, " ")
      .split(/\s+/).filter(Boolean).join(" ");

  function setUp() {
    const find = $("find");
    const found = $("found");
    const data = $("squares-data");
    const table = main.querySelector(".table");
    if (find && found && data && table) {
      const squares = JSON.parse(data.textContent);
      const base = table.dataset.view.split("/").slice(0, 3).join("/");
      const list = () => {
        const wanted = plain(find.value);
        found.replaceChildren();
        if (!wanted) { found.hidden = true; return; }
        for (const square of squares.filter((s) => s.k.includes(wanted)).slice(0, 8)) {
          const li = document.createElement("li");
          const a = document.createElement("a");
          a.href = base + "/square/" + encodeURIComponent(square.n);
          a.className = "square-link";
          a.textContent = square.n;
          if (square.o) {
            const owner = document.createElement("span");
            owner.textContent = square.o;
            a.append(" ", owner);
          }
          li.append(a);
          found.append(li);
        }
        found.hidden = !found.children.length;
      };
      find.addEventListener("input", list);
      list();
    }
    keys();
  }

  // k and M for amounts (a phone's number keyboard has no letters), beside each amount: they type in its field.
  function keys() {
    for (const group of main.querySelectorAll(".amount-keys:not([data-ready])")) {
      group.dataset.ready = "1";
      group.hidden = false;
      const field = group.parentElement.querySelector("input.amount");
      group.addEventListener("pointerdown", (event) => event.preventDefault()); // the field keeps the focus
      group.addEventListener("click", (event) => {
        const key = event.target.dataset && event.target.dataset.key;
        if (!key || !field) return;
        const end = field.selectionEnd === null ? field.value.length : field.selectionEnd;
        const start = field.selectionStart === null ? end : field.selectionStart;
        field.setRangeText(key, start, end, "end");
        field.dispatchEvent(new Event("input", { bubbles: true }));
        field.focus();
      });
    }
  }

  // --- the box's auction: when a countdown ends, the sale to record is shown on whatever view is open -----
  function watchSales() {
    const slot = $("sale-slot");
    if (!slot || !slot.dataset.paired || !window.EventSource) return;
    let state = null;
    const offer = () => {
      const here = $("sale-slot");
      if (!here || here.contains(document.activeElement)) return;
      const url = `/games/${encodeURIComponent(here.dataset.game)}/sale?view=${encodeURIComponent(here.dataset.view)}`;
      fetch(url, { credentials: "same-origin", headers: { "X-Fragment": "1" } })
        .then((answer) => (answer.status === 200 ? answer.text() : null))
        .then((html) => {
          const now = $("sale-slot");
          if (html === null || !now) return;
          now.innerHTML = html;
          const note = $("auction-note"); // « … up for auction: press AUCTION »: done, the sale is here
          if (note) note.remove();
          keys();
          now.scrollIntoView({ block: "nearest" });
        })
        .catch(() => {});
    };
    const stream = new EventSource("/events");
    stream.onmessage = (event) => {
      let record;
      try { record = JSON.parse(event.data); } catch (error) { return; }
      if (record.kind === "snapshot") { state = record.state || null; return; }
      if (record.kind !== "state") return;
      const ended = (state === "countdown" || state === "warning") && record.state !== "countdown" && record.state !== "warning";
      state = record.state;
      if (ended) setTimeout(offer, 300); // the "cancelled" sound, if any, comes with the same instant
    };
  }

  setUp();
  watchSales();
})();
