// forensic-lr teaching view: the server fits the background once (POST /api/teaching/fit) and
// gives the LR of each slider position (GET /api/teaching/FIT/lr); this script only draws.
(function () {
  "use strict";
  var csrf = document.getElementById("teach-data").dataset.csrf;
  var $ = function (id) { return document.getElementById(id); };
  var fit = null, pending = null, busy = false;

  function refit() {
    var example = $("example").value;
    var body = {method: $("method").value, elub: $("elub").checked, seed: Number($("seed").value) || 0};
    var sub = Number($("subsample").value);
    if (sub > 0) { body.subsample = sub; }
    var request;
    if (example === "upload") {  // the files are read on the server, by the command line's reader
      var form = new FormData();
      form.append("ss", $("ss-file").files[0]); form.append("ds", $("ds-file").files[0]);
      Object.keys(body).forEach(function (k) { form.append(k, body[k]); });
      request = {method: "POST", credentials: "same-origin", headers: {"x-csrf-token": csrf}, body: form};
    } else {
      body.example = example;
      request = {method: "POST", credentials: "same-origin",
        headers: {"content-type": "application/json", "x-csrf-token": csrf}, body: JSON.stringify(body)};
    }
    $("fit-info").textContent = "fitting...";
    fetch("/api/teaching/fit", request)
      .then(function (r) { return r.json().then(function (j) { if (!r.ok) { throw new Error(j.error); } return j; }); })
      .then(function (j) {
        fit = j;
        var s = $("score"), g = j.grid;
        s.min = g[0]; s.max = g[g.length - 1]; s.step = (g[g.length - 1] - g[0]) / 2000;
        s.value = j.evidence !== null ? j.evidence : (g[0] + g[g.length - 1]) / 2;
        $("fit-info").textContent = j.method + " fitted on " + j.n_ss + " same-source and " + j.n_ds +
          " different-source scores" + (j.elub ? "; ELUB log10 LR " + j.elub[0].toFixed(2) + " to " + j.elub[1].toFixed(2) : "; no ELUB") +
          (j.warnings.length ? ". Warnings: " + j.warnings.join("; ") : "");
        update();
      }).catch(function (e) { $("fit-info").textContent = "error: " + e.message; });
  }

  function update() {
    if (!fit) { return; }
    if (busy) { pending = true; return; }
    busy = true;
    var score = Number($("score").value), t0 = performance.now();
    $("score-value").textContent = score.toFixed(3);
    fetch("/api/teaching/" + fit.fit + "/lr?score=" + encodeURIComponent(score) + "&prior=" +
          encodeURIComponent(Number($("prior").value) || 0), {credentials: "same-origin"})
      .then(function (r) { return r.json(); })
      .then(function (j) {
        if (j.error) { $("fit-info").textContent = j.error; return; }
        $("densities-at").textContent = j.densities ? "densities at the score: " +
          j.densities[0].toPrecision(3) + " (same source) / " + j.densities[1].toPrecision(3) +
          " (different sources); the LR is their ratio" : "";
        $("lr").textContent = j.lr_text; $("log10").textContent = j.log10_text;
        $("verbal").textContent = j.verbal + (j.extrapolated ?
          " The score lies outside the range of the background scores: this LR is an extrapolation of the model." : "");
        $("posterior").innerHTML = j.posterior_odds_text;  // the library's escaped markup (10<sup>k</sup>)
        draw(score, j.log10_lr);
        $("timing").textContent = (performance.now() - t0).toFixed(0) + " ms";
      })
      .finally(function () { busy = false; if (pending) { pending = false; update(); } });
  }

  function axes(ctx, w, h, x0, x1, y0, y1, label) {
    ctx.clearRect(0, 0, w, h);
    ctx.strokeStyle = "#888"; ctx.fillStyle = "#333"; ctx.font = "12px sans-serif";
    ctx.beginPath(); ctx.moveTo(40, h - 25); ctx.lineTo(w - 10, h - 25); ctx.moveTo(40, 10); ctx.lineTo(40, h - 25); ctx.stroke();
    ctx.fillText(label, 46, 20);
    ctx.fillText(x0.toFixed(1), 40, h - 8); ctx.fillText(x1.toFixed(1), w - 40, h - 8);
    ctx.fillText(y1.toFixed(2), 2, 16); ctx.fillText(y0.toFixed(2), 2, h - 28);
  }

  function draw(score, log10lr) {
    var g = fit.grid, x0 = g[0], x1 = g[g.length - 1];
    var c = $("densities"), ctx = c.getContext("2d"), w = c.width, h = c.height;
    var px = function (x) { return 40 + (x - x0) / (x1 - x0) * (w - 50); };
    // with a fitted model the scale is the model's (a bar of few scores is cut at the top)
    var all = fit.pdf_ss ? fit.pdf_ss.concat(fit.pdf_ds) : fit.hist_ss.concat(fit.hist_ds);
    var ymax = (Math.max.apply(null, all) || 1) * (fit.pdf_ss ? 1.25 : 1);
    axes(ctx, w, h, x0, x1, 0, ymax, "score densities: same source (blue), different sources (red)" +
      (fit.pdf_ss ? "; bars: histograms, lines: fitted model" : " (histograms)"));
    [[fit.hist_ss, "rgba(31,95,168,0.45)"], [fit.hist_ds, "rgba(168,50,31,0.45)"]].forEach(function (p) {
      ctx.fillStyle = p[1];
      p[0].forEach(function (d, i) {
        var a = px(fit.hist_edges[i]), b = px(fit.hist_edges[i + 1]), y = Math.max((h - 25) - d / ymax * (h - 40), 10);
        ctx.fillRect(a, y, Math.max(b - a - 1, 1), (h - 25) - y);
      });
    });
    if (fit.pdf_ss) {
      [[fit.pdf_ss, "#1f5fa8"], [fit.pdf_ds, "#a8321f"]].forEach(function (p) {
        ctx.strokeStyle = p[1]; ctx.lineWidth = 2; ctx.beginPath();
        g.forEach(function (x, i) { var y = (h - 25) - p[0][i] / ymax * (h - 40); if (i) { ctx.lineTo(px(x), y); } else { ctx.moveTo(px(x), y); } });
        ctx.stroke(); ctx.lineWidth = 1;
      });
    }
    mark(ctx, px(score), h);
    c = $("curve"); ctx = c.getContext("2d");
    var lo = Math.min.apply(null, fit.log10_lr), hi = Math.max.apply(null, fit.log10_lr);
    if (fit.elub) { lo = Math.min(lo, fit.elub[0]); hi = Math.max(hi, fit.elub[1]); }
    lo = Math.min(lo, -1); hi = Math.max(hi, 1);
    var py = function (v) { return (h - 25) - (v - lo) / (hi - lo) * (h - 40); };
    axes(ctx, w, h, x0, x1, lo, hi, "log10 LR against score" + (fit.elub ? " (dashed: ELUB bounds)" : ""));
    ctx.strokeStyle = "#bbb"; ctx.beginPath(); ctx.moveTo(40, py(0)); ctx.lineTo(w - 10, py(0)); ctx.stroke();
    if (fit.elub) {
      ctx.setLineDash([5, 4]); ctx.strokeStyle = "#a8321f"; ctx.beginPath();
      fit.elub.forEach(function (b) { ctx.moveTo(40, py(b)); ctx.lineTo(w - 10, py(b)); });
      ctx.stroke(); ctx.setLineDash([]);
    }
    ctx.strokeStyle = "#1f5fa8"; ctx.lineWidth = 2; ctx.beginPath();
    g.forEach(function (x, i) { var y = py(fit.log10_lr[i]); if (i) { ctx.lineTo(px(x), y); } else { ctx.moveTo(px(x), y); } });
    ctx.stroke(); ctx.lineWidth = 1;
    mark(ctx, px(score), h);
    ctx.fillStyle = "#000"; ctx.beginPath(); ctx.arc(px(score), py(log10lr), 4, 0, 2 * Math.PI); ctx.fill();
  }

  function mark(ctx, x, h) {
    ctx.strokeStyle = "#000"; ctx.beginPath(); ctx.moveTo(x, 10); ctx.lineTo(x, h - 25); ctx.stroke();
  }

  $("example").addEventListener("change", function () {
    var up = $("example").value === "upload";
    $("upload-ss").classList.toggle("hidden", !up); $("upload-ds").classList.toggle("hidden", !up);
    if (!up) { refit(); }
  });
  $("preset").addEventListener("click", function () {
    $("example").value = "textbook"; $("method").value = "gaussian"; $("elub").checked = false;
    $("subsample").value = 0; refit();
  });
  $("refit").addEventListener("click", refit);
  $("score").addEventListener("input", update);
  $("prior").addEventListener("input", update);
  $("preset").click();
})();
