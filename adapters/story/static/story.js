// The story page, a step at a time: buttons, arrow keys, and a play button
// for the TV that steps on by itself (every 8 seconds; `?every=N` for N).
// Without this script the page shows every step, one under the other.
(() => {
  "use strict";
  const steps = Array.from(document.querySelectorAll(".step"));
  const nav = document.querySelector(".controls");
  if (!steps.length || !nav) return;
  const prev = document.getElementById("prev");
  const next = document.getElementById("next");
  const play = document.getElementById("play");
  const where = document.getElementById("where");
  const asked = Number(new URLSearchParams(location.search).get("every"));
  const every = asked >= 0.2 && asked <= 600 ? asked * 1000 : 8000;
  let at = 0;
  let timer = null;

  function show(i) {
    at = Math.max(0, Math.min(steps.length - 1, i));
    steps.forEach((s, k) => s.classList.toggle("current", k === at));
    where.textContent = where.dataset.template
      .replace("{n}", String(at + 1))
      .replace("{total}", String(steps.length));
    prev.disabled = at === 0;
    next.disabled = at === steps.length - 1;
    history.replaceState(null, "", "#step-" + (at + 1));
    window.scrollTo(0, 0);
    fit();
  }

  // On a TV (a wide screen) a long step is made smaller until it fits the
  // screen, down to 65 %; a phone scrolls instead.
  function fit() {
    const step = steps[at];
    step.style.fontSize = "";
    const root = document.documentElement;
    let scale = 1;
    while (window.innerWidth >= 900 && root.scrollHeight > window.innerHeight && scale > 0.66) {
      scale -= 0.05;
      step.style.fontSize = scale.toFixed(2) + "em";
    }
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = play.dataset.play;
    play.setAttribute("aria-pressed", "false");
  }

  function start() {
    if (at === steps.length - 1) show(0);
    timer = setInterval(() => {
      show(at + 1);
      if (at === steps.length - 1) stop();
    }, every);
    play.textContent = play.dataset.pause;
    play.setAttribute("aria-pressed", "true");
  }

  prev.addEventListener("click", () => show(at - 1));
  next.addEventListener("click", () => show(at + 1));
  play.addEventListener("click", () => (timer === null ? start() : stop()));
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "ArrowRight" || e.key === "PageDown") show(at + 1);
    else if (e.key === "ArrowLeft" || e.key === "PageUp") show(at - 1);
    else if (e.key === "Home") show(0);
    else if (e.key === "End") show(steps.length - 1);
    else if (e.key === " " && e.target === document.body) (timer === null ? start() : stop());
    else return;
    e.preventDefault();
  });

  // A link to a step (#step-3) opens it, also from the address bar.
  function fromHash() {
    const m = /^#step-(\d+)$/.exec(location.hash);
    show(m ? Number(m[1]) - 1 : 0);
  }
  window.addEventListener("hashchange", fromHash);
  window.addEventListener("resize", fit);
  document.documentElement.classList.add("stepping");
  nav.hidden = false;
  fromHash();
})();
