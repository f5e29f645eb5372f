// The event log: one line per step in words (grouped under the rounds), its dice, times, fallback
// and fault badges, and the end; a click on a line goes to its step, and the current line stays in
// sight. DiveViewer.eventLog(m, dispatch) -> {element, sync(state)}.
(function (global) {
  "use strict";
  var DV = global.DiveViewer;
  var h = DV.h;

  function buildLog(m, list) {
    var lines = [], phase = null;
    var setup = m.snapshots[0].spectator && m.snapshots[0].spectator.events;
    if (Array.isArray(setup) && setup.length) {
      list.appendChild(h("li", {"class": "rv-log-setup"}, "Setup: " + setup.map(function (e) { return DV.eventWords(m, e).text; }).join(" ")));
    }
    for (var k = 0; k <= m.last; k++) {
      var now = DV.phaseAt(m, k);
      if (now !== null && now !== phase) {
        list.appendChild(h("li", {"class": "rv-log-phase", "data-phase": now}, now));
        phase = now;
      }
      var line = k === m.last ? endLine(m, k) : stepLine(m, k);
      lines.push(line);
      list.appendChild(line);
    }
    return lines;
  }

  function endLine(m, k) {
    return h("li", {"class": "rv-log-line rv-log-end", "data-step": k}, [h("span", {"class": "rv-log-step"}, "end"),
      m.finished ? "Game over: " + DV.resultWords(m) : "The replay ends."]);
  }

  function stepLine(m, k) {
    var record = m.snapshots[k + 1];
    var badges = [];
    record.to_act.forEach(function (seat, i) {
      if ((record.by || [])[i] === "fallback") {
        badges.push(h("span", {"class": "rv-badge rv-fallback", "data-seat": seat, title: "seat " + seat + " was played by the built-in fallback"}, "fallback " + seat));
      }
    });
    (m.faultsAt[k] || []).forEach(function (fault) {
      badges.push(h("span", {"class": "rv-badge rv-fault-badge", "data-seat": fault.seat}, "fault: " + fault.kind + " (seat " + fault.seat + ")"));
    });
    var ms = record.to_act.map(function (seat, i) {
      var text = DV.msText((record.ms || [])[i]);
      return text ? (record.to_act.length > 1 ? seat + ": " : "") + text : "";
    }).filter(Boolean).join(", ");
    // Dice an engine event names in its details are shown as dice too.
    var dice = ((record.spectator || {}).events || []).filter(function (e) { return e && Array.isArray(e.dice); })
      .map(function (e) {
        return h("span", {"class": "rv-log-dice", "data-dice": e.dice.join(",")},
                 e.dice.map(function (d) { return h("span", {"class": "rv-log-die"}, String(d)); }));
      });
    var line = h("li", {"class": "rv-log-line", "data-step": k, "data-seats": record.to_act.join(",")}, [
      h("span", {"class": "rv-log-step"}, String(k)),
      h("span", {"class": "rv-log-text"}, DV.stepWords(m, k, null).join(" ")), dice,
      ms ? h("span", {"class": "rv-log-ms"}, ms) : null, badges
    ]);
    if (m.faultsAt[k]) { line.classList.add("rv-log-faulted"); }
    return line;
  }

  // Scroll the log itself (never the page) so the current line stays in sight.
  // .rv-log-scroll is position: relative, so offsetTop counts from its top.
  function follow(lines, from, to, box) {
    if (lines[from]) { lines[from].classList.remove("rv-current"); lines[from].removeAttribute("aria-current"); }
    var line = lines[to];
    if (!line) { return; }
    line.classList.add("rv-current");
    line.setAttribute("aria-current", "step");
    var top = line.offsetTop, bottom = top + line.offsetHeight;
    if (top < box.scrollTop || bottom > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, top - box.clientHeight / 3);
    }
  }

  DV.eventLog = function (m, dispatch) {
    var list = h("ol", {"class": "rv-log-list"});
    var scroll = h("div", {"class": "rv-log-scroll"}, list);
    var started = global.performance.now();
    var lines = buildLog(m, list);
    DV.timings.logMs = global.performance.now() - started;
    list.addEventListener("click", function (event) {
      var line = event.target.closest ? event.target.closest("[data-step]") : null;
      if (line) { dispatch({type: "goTo", step: Number(line.getAttribute("data-step"))}); }
    });
    var shown = -1;
    return {
      element: h("aside", {"class": "rv-log", "data-role": "log", "aria-label": "Event log"}, [h("h3", null, "Event log"), scroll]),
      sync: function (state) {
        if (state.step !== shown) { follow(lines, shown, state.step, scroll); shown = state.step; }
      }
    };
  };
})(window);
