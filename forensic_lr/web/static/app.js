// forensic-lr: a case page polls the progress of a running case and reloads when it ends.
(function () {
  "use strict";
  var box = document.getElementById("progress");
  if (!box || box.dataset.running !== "1") { return; }
  var text = document.getElementById("progress-text");
  var bar = document.getElementById("progress-bar");
  function poll() {
    fetch("/api/cases/" + encodeURIComponent(box.dataset.case) + "/progress", {credentials: "same-origin"})
      .then(function (r) { return r.json(); })
      .then(function (p) {
        if (!p.running) { window.location.reload(); return; }
        var g = p.progress || {};
        text.textContent = "running: " + (g.stage || "starting") + (g.total ? " " + g.done + "/" + g.total : "");
        if (g.total) { bar.max = g.total; bar.value = g.done; } else { bar.removeAttribute("value"); }
        setTimeout(poll, 500);
      })
      .catch(function () { setTimeout(poll, 1500); });
  }
  poll();
})();
