// The table's bank on the game page (unit/web/bank.py): a tap is sent once, and the auction the box just ended
// is offered without a reload. No rule here: every figure and every refusal comes from the server.
"use strict";
(function () {
  // A double tap sends one form: its buttons are disabled once it is on its way (after the submit, so the
  // tapped button's value still goes). The server refuses a second copy anyway: it names an older version.
  document.querySelectorAll("form[action$='/bank']").forEach((form) => {
    form.addEventListener("submit", () => {
      setTimeout(() => form.querySelectorAll("button").forEach((b) => { b.disabled = true; }), 0);
    });
  });
  // The box's auction: when a countdown ends, ask the server whether there is a sale to record (it knows
  // whether it was called off) and show its form. A paired phone only, as the server decides anyway.
  const slot = document.getElementById("sale-slot");
  if (!slot || !slot.dataset.paired || !window.EventSource) return;
  let state = null;
  const offer = () => {
    fetch(`/games/${encodeURIComponent(slot.dataset.game)}/sale`, { credentials: "same-origin" })
      .then((answer) => (answer.status === 200 ? answer.text() : null))
      .then((html) => { if (html !== null && !slot.contains(document.activeElement)) slot.innerHTML = html; })
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
    if (ended) setTimeout(offer, 300);  // the "cancelled" sound, if any, comes with the same instant
  };
})();
