// Live updates for the TV page: one EventSource, each event replaces the screen.
// Without JavaScript the page reloads itself (<noscript> meta refresh).
(function () {
  "use strict";
  var screen = document.getElementById("screen");
  var link = document.getElementById("link");
  if (!screen || !window.EventSource) { return; }
  var skew = parseFloat(screen.getAttribute("data-now") || "0") - Date.now() / 1000;
  if (!isFinite(skew)) { skew = 0; } // server clock minus ours, in seconds

  function tick() {
    var el = screen.querySelector("[data-deadline]");
    if (!el) { return; }
    var left = Math.max(0, Math.ceil(parseFloat(el.getAttribute("data-deadline")) - (Date.now() / 1000 + skew)));
    var text = el.querySelector(".timer-text");
    var two = function (n) { return ("0" + n).slice(-2); };
    var shown = left >= 3600
      ? Math.floor(left / 3600) + ":" + two(Math.floor(left / 60) % 60) + ":" + two(left % 60)
      : Math.floor(left / 60) + ":" + two(left % 60);
    if (text) { text.textContent = shown; }
    el.classList.toggle("timer-urgent", left <= 30);
  }

  var version = screen.getAttribute("data-version") || "";
  var url = window.location.pathname.replace(/\/+$/, "") + "/events?after=" + encodeURIComponent(version);
  var source = new EventSource(url);
  source.addEventListener("screen", function (e) {
    var data = JSON.parse(e.data);
    skew = data.now - Date.now() / 1000;
    var seen = {};
    var old = screen.querySelectorAll(".reading");
    for (var j = 0; j < old.length; j++) { seen[old[j].getAttribute("data-key") || "#" + j] = true; }
    screen.innerHTML = data.html;
    // ballots read out since the last screen (keys not shown before) appear one by one
    var readings = screen.querySelectorAll(".reading");
    var n = 0;
    for (var i = 0; i < readings.length; i++) {
      if (seen[readings[i].getAttribute("data-key") || "#" + i]) { continue; }
      readings[i].style.setProperty("--n", String(n++));
      readings[i].classList.add("fresh");
    }
    screen.setAttribute("data-version", String(data.version));
    if (document.documentElement.lang !== data.lang) { document.documentElement.lang = data.lang; }
    tick();
  });
  source.addEventListener("open", function () { link.textContent = ""; link.className = "link"; });
  source.addEventListener("error", function () { link.textContent = "⟳"; link.className = "link down"; });
  source.addEventListener("gone", function () { source.close(); window.location.reload(); });
  setInterval(tick, 1000);
  tick();
}());
