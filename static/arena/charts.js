// Charts of the bot page, drawn by uPlot (static/vendor/uplot, pinned in package.json): a rating
// history per ladder (the official rating at each refit with its interval, and live Elo at each
// match) and decision times per match. The data comes from JSON script elements the
// server wrote (json_script); each chart element keeps its uPlot instance as `el.uplot` and the
// number of points drawn in `data-points`. Charts follow their box's width and are drawn again
// when live.js swaps the part of the page they sit in.
(function () {
  "use strict";
  if (typeof uPlot === "undefined") { return; }
  var HEIGHT = 220;

  function readJSON(id, root) {
    var node = (root && root.querySelector ? root.querySelector("#" + id) : null) || document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  function width(el) {
    return Math.max(240, Math.floor(el.getBoundingClientRect().width || el.parentNode.clientWidth || 320));
  }

  function options(el, series, axisLabel) {
    return {
      width: width(el), height: HEIGHT,
      // One point (a bot's first match) gets an hour each side, not uPlot's span of years.
      scales: { x: { time: true, range: function (u, min, max) {
        return min === max ? [min - 3600, max + 3600] : [min, max];
      } } },
      series: [{ label: "Time", value: "{YYYY}-{MM}-{DD} {HH}:{mm}" }].concat(series),
      axes: [{}, { label: axisLabel, size: 56 }],
      cursor: { drag: { x: true, y: false } },
      legend: { live: true },
    };
  }

  // Series on their own times merged on one time axis, every point kept (two at the same time
  // included): each series is null where another has the point (uPlot joins its points across
  // the gaps: spanGaps).
  function merged(parts) {
    var points = [];
    parts.forEach(function (p, k) {
      p.t.forEach(function (t, i) { points.push({ t: t, part: k, i: i, order: points.length }); });
    });
    points.sort(function (a, b) { return a.t - b.t || a.order - b.order; });
    var data = [points.map(function (p) { return p.t; })];
    parts.forEach(function (p, k) {
      p.values.forEach(function (values) {
        data.push(points.map(function (point) { return point.part === k ? values[point.i] : null; }));
      });
    });
    return data;
  }

  function rating(el, root) {
    var charts = readJSON(el.getAttribute("data-source"), root) || {};
    var chart = charts[el.getAttribute("data-key")];
    if (!chart) { return null; }
    var label = el.getAttribute("data-label") || "Rating";
    var one = function (u, v) { return v == null ? "–" : v.toFixed(1); };
    var official = chart.official;
    if (!official) {
      return { data: [chart.t, chart.v], opts: options(el, [{ label: label, stroke: "#0b3d5c", width: 2,
        value: one }], label) };
    }
    // The official rating (what the leaderboard ranks by) with its 95 % interval, Elo beside it.
    var data = merged([{ t: official.t, values: [official.v, official.lo, official.hi] },
                       { t: chart.t, values: [chart.v] }]);
    el.setAttribute("data-official-points", String(official.t.length));
    return { data: data, opts: options(el, [
      { label: "Official", stroke: "#0b3d5c", width: 2, spanGaps: true, value: one },
      { label: "95 % low", stroke: "#7d9fb5", width: 1, dash: [4, 4], spanGaps: true, value: one },
      { label: "95 % high", stroke: "#7d9fb5", width: 1, dash: [4, 4], spanGaps: true, value: one },
      { label: "Elo", stroke: "#8a6100", width: 1, spanGaps: true, value: one },
    ], "Rating") };
  }

  function times(el, root) {
    var t = readJSON(el.getAttribute("data-source"), root);
    if (!t) { return null; }
    var ms = function (u, v) { return v == null ? "–" : v.toFixed(1) + " ms"; };
    return { data: [t.t, t.p50, t.p95, t.max], opts: options(el, [
      { label: "p50", stroke: "#116329", width: 2, value: ms },
      { label: "p95", stroke: "#8a6100", width: 2, value: ms },
      { label: "max", stroke: "#b00020", width: 1, dash: [4, 4], value: ms },
    ], "ms") };
  }

  var builders = { rating: rating, times: times };

  function draw(root) {
    var scope = root || document;
    Array.prototype.slice.call(scope.querySelectorAll("[data-chart]")).forEach(function (el) {
      var build = builders[el.getAttribute("data-chart")];
      if (!build) { return; }
      if (el.uplot) { el.uplot.destroy(); el.uplot = null; }
      el.textContent = "";
      var spec = build(el, scope);
      if (!spec) { return; }
      el.uplot = new uPlot(spec.opts, spec.data, el);
      el.setAttribute("data-points", String(spec.data[0].length));
    });
  }

  var resizeTimer = null;
  window.addEventListener("resize", function () {
    window.clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(function () {
      Array.prototype.slice.call(document.querySelectorAll("[data-chart]")).forEach(function (el) {
        if (el.uplot) { el.uplot.setSize({ width: width(el), height: HEIGHT }); }
      });
    }, 150);
  });
  document.addEventListener("live:updated", function (event) { draw(event.target); });
  draw(document);
})();
