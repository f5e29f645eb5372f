// The luck panel (docs/luck.md): each seat's luck up to the position shown and in the step that
// led to it; at the end "seat 2: 31 points; luck +6.5; play 24.5". It reads the match's luck from
// the viewer root's data-luck-url (the match page; computed by the server when asked). A page
// without it (`python -m workers.replay view`) has no panel.
(function (global) {
  "use strict";
  var DV = global.DiveViewer;
  var h = DV.h;

  function signed(value) {
    var rounded = Math.round(value * 10) / 10;
    if (rounded === 0) { return "±0.0"; }
    return (rounded > 0 ? "+" : "−") + Math.abs(rounded).toFixed(1);
  }

  // Luck up to frame k: the setup's and that of steps 0 .. k-1; the step that led to frame k is k - 1.
  DV.luckAt = function (report, frame) {
    var seats = report.luck.length, sofar = report.setup.slice(), step = null;
    for (var k = 0; k < frame && k < report.steps.length; k++) {
      for (var s = 0; s < seats; s++) { sofar[s] += report.steps[k][s]; }
    }
    if (frame > 0 && frame <= report.steps.length) { step = report.steps[frame - 1]; }
    return {sofar: sofar, step: step};
  };

  DV.addPart(function (m) {
    var root = document.getElementById("replay-viewer");
    var url = root && root.getAttribute("data-luck-url");
    if (!url || typeof global.fetch !== "function") { return null; }
    var body = h("div", {"data-role": "luck-body"}, h("p", {"class": "rv-luck-note"}, "Measuring luck…"));
    var element = h("section", {"class": "rv-luck", "data-role": "luck"}, [h("h3", null, "Luck"), body]);
    var report = null, frame = 0, shown = -1;

    function render() {
      if (!report || shown === frame) { return; }
      shown = frame;
      var at = DV.luckAt(report, frame);
      var rows = report.luck.map(function (total, seat) {
        return h("tr", {"data-seat": String(seat)}, [
          h("td", null, "seat " + seat),
          h("td", {"class": "num", "data-role": "luck-so-far"}, signed(at.sofar[seat])),
          h("td", {"class": "num", "data-role": "luck-step"}, at.step ? signed(at.step[seat]) : "–")
        ]);
      });
      var table = h("table", {"class": "rv-luck-table"}, [
        h("tr", null, [h("th", null, "Seat"), h("th", {"class": "num"}, frame === 0 ? "Setup" : "So far"),
                       h("th", {"class": "num"}, "This step")])
      ].concat(rows));
      var parts = [table];
      if (frame === m.last) {
        parts.push(h("ul", {"class": "rv-luck-lines", "data-role": "luck-lines"}, report.luck.map(function (luck, seat) {
          return h("li", null, "seat " + seat + ": " + report.scores[seat] + " points; luck " + signed(luck)
            + "; play " + report.play[seat].toFixed(1));
        })));
      }
      parts.push(h("p", {"class": "rv-luck-note"},
        "Luck: what the dice and cards gave each seat, in points, against what it could expect; play = score − luck."));
      body.textContent = "";
      DV.append(body, parts);
    }

    global.fetch(url, {credentials: "same-origin"}).then(function (response) {
      return response.json().then(function (data) {
        if (!response.ok) { throw new Error(data.detail || ("HTTP " + response.status)); }
        return data;
      });
    }).then(function (data) {
      report = data;
      render();
    }).catch(function (error) {
      body.textContent = "";
      DV.append(body, h("p", {"class": "rv-luck-note", "data-role": "luck-error"}, "No luck figures: " + error.message));
    });

    return {element: element, sync: function (state, shownFrame) { frame = shownFrame; render(); }};
  });
})(window);
