// A generic replay viewer: step through a match, seeing the public (spectator) view or one
// seat's observation after each step. Works for every game: views are shown as JSON.
// Data is only ever inserted as text (textContent), never as HTML.
(function () {
  "use strict";
  var root = document.getElementById("replay-viewer");
  if (!root) { return; }

  function el(tag, text) {
    var node = document.createElement(tag);
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function show(replay) {
    var frames = [{ label: "start", record: null, snap: replay.initial }].concat(
      replay.steps.map(function (s) { return { label: "step " + s.step, record: s, snap: s }; }));
    root.textContent = "";
    var controls = el("p");
    var prev = el("button", "◀"), next = el("button", "▶");
    prev.type = next.type = "button";
    var slider = el("input");
    slider.type = "range"; slider.min = 0; slider.max = frames.length - 1; slider.value = 0;
    slider.setAttribute("aria-label", "Step");
    var where = el("span");
    var view = el("select");
    view.setAttribute("aria-label", "Point of view");
    view.appendChild(new Option("spectator", "spectator"));
    (replay.seats || []).forEach(function (seat) {
      view.appendChild(new Option("seat " + seat.seat + " (" + (seat.name || seat.bot) + ")", String(seat.seat)));
    });
    controls.append(prev, " ", slider, " ", next, " ", where, " ", view);
    var info = el("pre"), state = el("pre");
    state.className = "log";
    root.append(controls, info, state);

    function render() {
      var frame = frames[Number(slider.value)];
      where.textContent = frame.label + " of " + replay.steps.length;
      var r = frame.record;
      var lines = [];
      if (r) {
        r.to_act.forEach(function (seat, i) {
          var ms = r.ms[i] === null ? "" : " in " + r.ms[i] + " ms";
          lines.push("seat " + seat + " (" + r.by[i] + ms + "): " + JSON.stringify(r.actions[i]));
        });
        (r.faults || []).forEach(function (f) { lines.push("FAULT seat " + f.seat + ": " + f.kind); });
      } else {
        lines.push("Game " + replay.game + ", seed " + replay.seed + ", " + replay.num_players + " seats");
      }
      if (Number(slider.value) === frames.length - 1 && replay.result) {
        lines.push("result: scores " + JSON.stringify(replay.result.scores) + ", ranks " +
                   JSON.stringify(replay.result.ranks));
      }
      info.textContent = lines.join("\n");
      var snap = frame.snap || {};
      var shown = view.value === "spectator" ? snap.spectator : (snap.observations || [])[Number(view.value)];
      state.textContent = JSON.stringify(shown, null, 2);
    }
    prev.addEventListener("click", function () { slider.value = Math.max(0, Number(slider.value) - 1); render(); });
    next.addEventListener("click", function () {
      slider.value = Math.min(frames.length - 1, Number(slider.value) + 1); render();
    });
    slider.addEventListener("input", render);
    view.addEventListener("change", render);
    render();
  }

  root.textContent = "Loading the replay…";
  fetch(root.dataset.url, { credentials: "same-origin" })
    .then(function (response) {
      if (!response.ok) { throw new Error("HTTP " + response.status); }
      return response.json();
    })
    .then(function (replay) {
      if (!Array.isArray(replay.steps)) { throw new Error("not a replay this viewer knows"); }
      show(replay);
    })
    .catch(function (error) { root.textContent = "The replay could not be shown: " + error.message; });
})();
