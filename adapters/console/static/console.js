// The console's live part: swapped in from the event stream, its forms filled
// with the page's CSRF token and a fresh request id, posted without leaving
// the page. Open controls and ticked boxes survive a swap.
(function () {
  "use strict";
  var live = document.getElementById("live");
  var notice = document.getElementById("notice");
  var lost = document.getElementById("lost");
  var csrf = document.querySelector('meta[name="csrf"]').getAttribute("content");
  var offset = parseFloat(live.getAttribute("data-now")) * 1000 - Date.now();

  function rid() {
    var bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }

  function fill() {
    live.querySelectorAll("form.act").forEach(function (form) {
      if (!form.elements.csrf.value) form.elements.csrf.value = csrf;
      if (!form.elements.rid.value) form.elements.rid.value = rid();
    });
  }

  function tick() {
    live.querySelectorAll(".timer").forEach(function (el) {
      var left = Math.max(0, Math.ceil(parseFloat(el.getAttribute("data-deadline")) - (Date.now() + offset) / 1000));
      var h = Math.floor(left / 3600), m = Math.floor(left / 60) % 60, s = left % 60;
      el.textContent = (h ? h + ":" + ("0" + m).slice(-2) : m) + ":" + ("0" + s).slice(-2);
    });
  }

  function swap(html) {
    var open = {}, ticked = {};
    live.querySelectorAll("details[open]").forEach(function (d) { open[d.dataset.kind] = true; });
    live.querySelectorAll("input:checked").forEach(function (i) {
      ticked[i.closest("details").dataset.kind + "|" + i.name + "|" + i.value] = true;
    });
    live.innerHTML = html;
    live.querySelectorAll("details").forEach(function (d) { if (open[d.dataset.kind]) d.open = true; });
    live.querySelectorAll("input[type=radio], input[type=checkbox]").forEach(function (i) {
      if (ticked[i.closest("details").dataset.kind + "|" + i.name + "|" + i.value]) i.checked = true;
    });
    fill();
    tick();
  }

  live.addEventListener("click", function (e) {
    var cancel = e.target.closest("button.cancel");
    if (cancel) cancel.closest("details").open = false;
  });

  live.addEventListener("submit", function (e) {
    var form = e.target;
    e.preventDefault();
    var button = form.querySelector("button.confirm");
    button.disabled = true;
    fetch(location.pathname, {
      method: "POST",
      body: new URLSearchParams(new FormData(form)),
      headers: { "Accept": "application/json" },
      credentials: "omit",
    }).then(function (r) {
      return r.json().catch(function () { return { ok: false, notice: r.status + "" }; });
    }).then(function (answer) {
      notice.textContent = answer.notice;
      notice.className = "notice " + (answer.ok ? "ok" : "refused");
      form.closest("details").open = false;
      form.elements.rid.value = rid();
    }).catch(function () {
      // nothing known: the same request id goes again with the next tap
    }).finally(function () { button.disabled = false; });
  });

  fill();
  tick();
  setInterval(tick, 1000);
  if (!window.EventSource) return;
  var source = new EventSource(location.pathname.replace(/\/$/, "") + "/events");
  source.addEventListener("live", function (e) {
    var data = JSON.parse(e.data);
    offset = data.now * 1000 - Date.now();
    lost.hidden = true;
    swap(data.html);
  });
  source.addEventListener("gone", function () { source.close(); location.reload(); });
  source.onerror = function () {
    lost.hidden = false;
    // Refused for good (a rotated link answers 404): the page itself says so.
    if (source.readyState === EventSource.CLOSED) setTimeout(function () { location.reload(); }, 1000);
  };
})();
