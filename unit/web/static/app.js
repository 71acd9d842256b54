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
        if (record.screen) setScreen(record.screen.text, record.screen.view, record.screen.lines);
        if (record.clock && $("clock")) $("clock").textContent = record.clock;
        if (record.allowance && $("build")) $("build").textContent = record.allowance;
      }
    } else if (kind === "state") {
      setState(record.state);
    } else if (kind === "led") {
      setLed(record.mode, record.hz);
    } else if (kind === "screen") {
      setScreen(record.text, record.view, record.lines);
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

  // --- the box's screen, line by line as the OLED draws it ------------------------------------
  function row(line) {
    const p = document.createElement("p");
    p.className = "l-" + line.role;
    if (line.role === "head") {
      for (const part of [line.text, line.right || ""]) {
        const span = document.createElement("span");
        span.textContent = part;
        p.append(span);
      }
    } else if (line.role === "bar") {
      p.dataset.left = line.left;
      p.dataset.total = line.total;
      const fill = document.createElement("span");
      fill.className = "bar-fill";
      p.append(fill);
    } else if (line.role === "icons") {
      line.icons.forEach((icon, index) => {
        const span = document.createElement("span");
        span.textContent = icon;
        if (index === line.lit) span.className = "lit";
        p.append(span);
      });
    } else {
      p.textContent = line.text;
    }
    return p;
  }
  function setScreen(text, view, lines) {
    const screen = $("screen");
    if (!screen) return;
    const name = (view && view.name) || "off";
    const warning = !!(view && view.warning);
    if (warning && screen.dataset.warning !== "1") buzz(); // the last seconds: once, as the box turns red
    screen.dataset.view = name;
    screen.dataset.warning = warning ? "1" : "0";
    screen.setAttribute("aria-label", text || "");
    if (Array.isArray(lines)) screen.replaceChildren(...lines.map(row));
    else screen.replaceChildren(row({ role: "line", text: text || "" }));
    timer.follow(view);
  }

  // --- the auction's timer: the bar drains against this phone's clock, from a deadline ----------
  // The unit sends the seconds left once a second (counted from the end, so they never drift); the
  // record's arrival plus those seconds is the deadline, and every frame the bar shows what is left of
  // the total. A late or lost record only moves the deadline by its own lateness.
  const timer = {
    deadline: 0,
    total: 0,
    frame: 0,
    follow(view) {
      if (view && view.name === "countdown" && view.total > 0) {
        this.deadline = performance.now() + view.seconds_left * 1000;
        this.total = view.total * 1000;
        window.mcTimer = { deadline: this.deadline, total: this.total }; // for the browser tests
        this.draw();
        if (!this.frame) this.frame = requestAnimationFrame(() => this.tick());
      } else {
        this.total = 0;
        window.mcTimer = null;
      }
    },
    tick() {
      this.frame = 0;
      if (!this.total) return;
      this.draw();
      this.frame = requestAnimationFrame(() => this.tick());
    },
    draw() {
      const left = Math.max(0, this.deadline - performance.now());
      for (const fill of document.querySelectorAll("#screen .bar-fill")) {
        fill.style.width = (100 * Math.min(1, left / this.total)) + "%";
      }
    },
  };
  function buzz() {
    if (navigator.vibrate) navigator.vibrate([300, 120, 300]);
  }
  // The first paint: the server drew the lines; the bar starts from the seconds it drew.
  (function () {
    const bar = document.querySelector("#screen .l-bar");
    if (bar) timer.follow({ name: "countdown", seconds_left: +bar.dataset.left, total: +bar.dataset.total });
  })();

  // --- keep the screen on while the page is visible, with a switch -----------------------------
  // The Screen Wake Lock API where the browser offers it (https, or the machine itself); elsewhere (the box's
  // plain http address) a muted, inline, looping video, as the NoSleep library does: a phone keeps its screen
  // on while a video plays. A video may start only from a tap: the switch's, or the first tap on the page when
  // the switch was left on.
  const wakeBox = $("wake");
  let wakeLock = null;
  let video = null;
  const native = "wakeLock" in navigator;
  async function keepAwake() {
    if (!wakeBox || !wakeBox.checked || document.visibilityState !== "visible" || wakeLock) return;
    try {
      wakeLock = await navigator.wakeLock.request("screen");
      body.dataset.wake = "on";
      wakeLock.addEventListener("release", () => {
        wakeLock = null;
        body.dataset.wake = "off";
      });
    } catch (error) {
      body.dataset.wake = "refused"; // the battery saver, or a browser that says no
      $("wake-note").hidden = false;
    }
  }
  function playVideo() {
    if (!wakeBox.checked) return;
    if (!video) {
      video = document.createElement("video");
      for (const flag of ["muted", "loop", "playsinline"]) video.setAttribute(flag, "");
      video.muted = true;
      video.loop = true;
      video.playsInline = true;
      for (const [src, type] of [["/static/nosleep.webm", "video/webm"], ["/static/nosleep.mp4", "video/mp4"]]) {
        const source = document.createElement("source");
        source.src = src;
        source.type = type;
        video.append(source);
      }
      // A recorded video may not say its length: back to the start before its end, as NoSleep does.
      video.addEventListener("timeupdate", () => { if (video.currentTime > 1) video.currentTime = 0; });
      window.mcVideo = video; // for the browser tests
    }
    video.play().then(
      () => {
        if (!wakeBox.checked) { video.pause(); return; } // switched off while it started
        body.dataset.wake = "video";
        $("wake-note").hidden = true;
      },
      () => {
        if (!wakeBox.checked) return; // paused by the switch before it started
        body.dataset.wake = "refused";
        $("wake-note").hidden = false;
      },
    );
  }
  if (wakeBox) {
    wakeBox.checked = localStorage.getItem("mc-wake") !== "0";
    wakeBox.addEventListener("change", () => {
      localStorage.setItem("mc-wake", wakeBox.checked ? "1" : "0");
      if (!wakeBox.checked) {
        $("wake-note").hidden = true;
        if (wakeLock) wakeLock.release();
        if (video) video.pause();
        if (!native) body.dataset.wake = "off";
      } else if (native) keepAwake();
      else playVideo(); // the tap itself starts it
    });
    if (native) {
      // The browser lets the lock go when the page is hidden: ask again when it is back.
      document.addEventListener("visibilitychange", keepAwake);
      keepAwake();
    } else {
      body.dataset.wake = wakeBox.checked ? "tap" : "off";
      const first = () => { if (!video && wakeBox.checked) playVideo(); };
      document.addEventListener("pointerdown", first, { once: true, capture: true });
      document.addEventListener("keydown", first, { once: true, capture: true });
      document.addEventListener("visibilitychange", () => {
        if (video && wakeBox.checked && document.visibilityState === "visible") playVideo();
      });
    }
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
    // A click with no finger's press and lift (Enter or Space on a focused button): a short press, sent whole.
    const tap = (event) => {
      if (event.detail !== 0 || down) return;
      send(el.dataset.button, "tap");
    };
    el.addEventListener("pointerdown", press);
    el.addEventListener("pointerup", release);
    el.addEventListener("pointercancel", release);
    el.addEventListener("pointerleave", release);
    el.addEventListener("click", tap);
    // A held Enter repeats its click: one tap per key press (twice on ON/OFF would switch the game off).
    el.addEventListener("keydown", (event) => {
      if (event.repeat) event.preventDefault();
    });
    el.addEventListener("contextmenu", (event) => event.preventDefault());
  }
  window.addEventListener("pagehide", () => {
    for (const el of document.querySelectorAll("[data-button].down")) send(el.dataset.button, "release");
  });
})();
