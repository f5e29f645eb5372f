// The timeline: a slider over the steps and its marks (faults in red, rounds as bands, scoring as
// dots), each mark a button to its step. DiveViewer.timeline(m, dispatch) -> {element, sync(state)}.
(function (global) {
  "use strict";
  var DV = global.DiveViewer;
  var h = DV.h;

  function at(step, last) {
    var share = last ? step / last : 0;
    return "calc(7px + (100% - 14px) * " + share.toFixed(5) + ")";
  }

  function buildMarks(m, marks) {
    var last = m.last, bandStart = 0, bandPhase = DV.phaseAt(m, 0), band = 0;
    function closeBand(end) {
      if (bandPhase === null) { return; }
      marks.appendChild(h("button", {type: "button", "class": "rv-band rv-band-" + (band % 2), "data-kind": "band",
        "data-phase": bandPhase, "data-step": bandStart, "data-to": end, title: bandPhase + " (steps " + bandStart + "–" + end + ")",
        "aria-label": bandPhase, style: "left:" + at(bandStart, last) + ";width:calc((100% - 14px) * " + ((end - bandStart) / (last || 1)).toFixed(5) + ")"}));
      band += 1;
    }
    for (var step = 1; step <= last; step++) {
      var phase = DV.phaseAt(m, step);
      if (phase !== bandPhase) { closeBand(step); bandStart = step; bandPhase = phase; }
    }
    closeBand(last);
    if (m.renderer.tally) {
      var before = m.renderer.tally(m.snapshots[0].spectator, m.ctx);
      for (step = 1; step <= last; step++) {
        var now = m.renderer.tally(m.snapshots[step].spectator, m.ctx);
        if (now !== null && now !== undefined && now !== before) {
          marks.appendChild(h("button", {type: "button", "class": "rv-mark rv-mark-score", "data-kind": "score", "data-step": step,
            title: "Scores changed (step " + step + ")", "aria-label": "scoring at step " + step, style: "left:" + at(step, last)}));
        }
        before = now;
      }
    }
    (m.replay.faults || []).forEach(function (fault) {
      marks.appendChild(h("button", {type: "button", "class": "rv-mark rv-mark-fault", "data-kind": "fault", "data-step": fault.step,
        "data-seat": fault.seat, "data-fault-kind": fault.kind,
        title: DV.seatName(m.ctx, fault.seat) + ": " + fault.kind + " at step " + fault.step,
        "aria-label": "fault of seat " + fault.seat + " at step " + fault.step, style: "left:" + at(fault.step, last)}));
    });
  }

  DV.timeline = function (m, dispatch) {
    var slider = h("input", {type: "range", min: 0, max: m.last, value: 0, step: 1, "class": "rv-slider",
                             "data-role": "slider", "aria-label": "Step"});
    var marks = h("div", {"class": "rv-marks", "data-role": "marks"});
    var started = global.performance.now();
    buildMarks(m, marks);
    DV.timings.marksMs = global.performance.now() - started;
    slider.addEventListener("input", function () { dispatch({type: "goTo", step: Number(slider.value)}); });
    marks.addEventListener("click", function (event) {
      var mark = event.target.closest ? event.target.closest("[data-step]") : null;
      if (mark) { dispatch({type: "goTo", step: Number(mark.getAttribute("data-step"))}); }
    });
    return {
      element: h("div", {"class": "rv-timeline"}, [slider, marks]),
      sync: function (state) { slider.value = String(state.step); }
    };
  };
})(window);
