// The live view, the remote's buttons and the optional sounds. No build step, no library.
"use strict";
(function () {
  const body = document.body;
  const words = JSON.parse(document.getElementById("words").textContent);
  const lang = body.dataset.lang;
  const $ = (id) => document.getElementById(id);
  // Every record as it arrived, for the browser tests: {kind, t, state, at: Date.now()}.
  window.mcLog = [];

  function show(record) {
    const kind = record.kind;
    if (kind === "snapshot" || kind === "unit") {
      const up = kind === "snapshot" ? record.unit : record.connected;
      body.dataset.stream = up ? "unit" : "no-unit"; // the stream is open (the tests wait for this)
      $("nounit").hidden = !!up;
      if (kind === "snapshot" && up) {
        if (record.state) setState(record.state);
        if (record.led) setLed(record.led.mode, record.led.hz);
        if (record.screen) setScreen(record.screen.text);
        if (record.clock && $("clock")) $("clock").textContent = record.clock;
        if (record.allowance && $("build")) $("build").textContent = record.allowance;
      }
    } else if (kind === "state") {
      setState(record.state);
    } else if (kind === "led") {
      setLed(record.mode, record.hz);
    } else if (kind === "screen") {
      setScreen(record.text);
      if (record.clock && $("clock")) $("clock").textContent = record.clock;
    } else if (kind === "build") {
      if ($("build")) $("build").textContent = record.allowance || String(record.result);
    } else if (kind === "sound") {
      play(record.tones);
    }
  }

  function setState(state) {
    const screen = $("screen");
    if (screen) screen.dataset.state = state;
    const label = $("state");
    if (label) label.textContent = words["state." + state] || label.textContent;
  }
  function setLed(mode, hz) {
    const led = $("led");
    if (!led) return;
    led.dataset.mode = mode;
    led.style.animationDuration = mode === "blink" && hz ? (1 / hz) + "s" : "";
  }
  function setScreen(text) {
    const screen = $("screen");
    if (screen) screen.textContent = text;
  }

  // --- the unit's sounds on the phone (off until the box is ticked: browsers need a tap first) ----
  let audio = null;
  const soundBox = $("sounds");
  if (soundBox) {
    soundBox.checked = localStorage.getItem("mc-sounds") === "1";
    soundBox.addEventListener("change", () => {
      localStorage.setItem("mc-sounds", soundBox.checked ? "1" : "0");
      if (soundBox.checked && !audio) audio = new AudioContext();
    });
  }
  function play(tones) {
    if (!soundBox || !soundBox.checked || !Array.isArray(tones)) return;
    if (!audio) audio = new AudioContext();
    let at = audio.currentTime;
    for (const [hz, ms] of tones) {
      if (hz > 0) {
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.type = "square";
        osc.frequency.value = hz;
        gain.gain.value = 0.08;
        osc.connect(gain).connect(audio.destination);
        osc.start(at);
        osc.stop(at + ms / 1000);
      }
      at += ms / 1000;
    }
  }

  // --- the live stream -----------------------------------------------------------------------
  function connect() {
    const source = new EventSource("/events?lang=" + encodeURIComponent(lang));
    source.onmessage = (event) => {
      const record = JSON.parse(event.data);
      window.mcLog.push({ kind: record.kind, t: record.t, state: record.state, at: Date.now() });
      show(record);
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 1000);
    };
  }
  connect();

  // --- the remote: press on touch, release on lift (a held button is a long press) -------------
  function send(button, action) {
    const form = new URLSearchParams({ button: button, action: action, csrf: body.dataset.csrf });
    return fetch("/press", { method: "POST", body: form, credentials: "same-origin" });
  }
  for (const el of document.querySelectorAll("[data-button]")) {
    let down = false;
    const press = (event) => {
      event.preventDefault();
      if (down) return;
      down = true;
      el.classList.add("down");
      send(el.dataset.button, "press");
    };
    const release = () => {
      if (!down) return;
      down = false;
      el.classList.remove("down");
      send(el.dataset.button, "release");
    };
    el.addEventListener("pointerdown", press);
    el.addEventListener("pointerup", release);
    el.addEventListener("pointercancel", release);
    el.addEventListener("pointerleave", release);
    el.addEventListener("contextmenu", (event) => event.preventDefault());
  }
  window.addEventListener("pagehide", () => {
    for (const el of document.querySelectorAll("[data-button].down")) send(el.dataset.button, "release");
  });
})();
