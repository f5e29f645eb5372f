// The A/B test page's charts, drawn by uPlot (static/vendor/uplot): the LLR over the games between
// its two bounds, and B's Elo over A with its 95 % interval. The data comes from the JSON script
// element "abtest-chart" the server wrote; each chart element keeps its uPlot as `el.uplot` and the
// number of points drawn in `data-points`. The page is live (static/arena/live.js): when a counted
// pair changes the test, its part of the page is swapped and the charts are drawn again from the
// new data (`live:updated`).
(function () {
  "use strict";
  var fixed = function (u, v) { return v == null ? "–" : v.toFixed(2); };

  function width(el) {
    return Math.max(240, Math.floor(el.getBoundingClientRect().width || el.parentNode.clientWidth || 320));
  }

  function draw() {
    if (typeof uPlot === "undefined") { return; }
    var node = document.getElementById("abtest-chart");
    if (!node) { return; }
    var chart = JSON.parse(node.textContent);
    var constant = function (value) { return chart.games.map(function () { return value; }); };
    var series = {
      llr: [[chart.games, chart.llr, constant(chart.bounds[0]), constant(chart.bounds[1])],
            [{ label: "LLR", stroke: "#0b3d5c", width: 2, value: fixed },
             { label: "H0 bound", stroke: "#8a6100", dash: [6, 4], value: fixed },
             { label: "H1 bound", stroke: "#116329", dash: [6, 4], value: fixed }], "LLR"],
      elo: [[chart.games, chart.elo, chart.lo, chart.hi],
            [{ label: "Elo", stroke: "#0b3d5c", width: 2, value: fixed },
             { label: "95 % low", stroke: "#9aa7b0", dash: [4, 4], value: fixed },
             { label: "95 % high", stroke: "#9aa7b0", dash: [4, 4], value: fixed }], "Elo"],
    };
    document.querySelectorAll("[data-abtest-chart]").forEach(function (el) {
      var which = series[el.getAttribute("data-abtest-chart")];
      if (!which) { return; }
      if (el.uplot) { el.uplot.destroy(); }
      var opts = {
        width: width(el), height: 220, scales: { x: { time: false } },
        series: [{ label: "Games" }].concat(which[1]),
        axes: [{ label: "Games" }, { label: which[2], size: 56 }],
        legend: { live: true },
      };
      el.uplot = new uPlot(opts, which[0], el);
      el.setAttribute("data-points", String(chart.games.length));
    });
  }

  document.addEventListener("live:updated", draw);
  draw();
})();
