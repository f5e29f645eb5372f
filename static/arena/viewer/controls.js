// The controller and its controls: the state {step, playing, speed, pov, side}, changed only by
// DiveViewer.reduce(state, action, info) and mirrored in the URL hash; the buttons, the speed and
// point-of-view choices, the before/after toggle, and the keys (printed under the controls).
//
// `step` k is a decision; `side` says which position the board shows for it: "after" (the default:
// the position step k led to, which the words of step k tell) or "before" (where it was decided).
(function (global) {
  "use strict";
  var DV = global.DiveViewer;
  var h = DV.h;
  var SPEEDS = [0.5, 1, 2, 4, 8];
  var SIDES = ["after", "before"];
  DV.SPEEDS = SPEEDS;

  function clampStep(step, info) {
    step = Math.round(Number(step));
    if (!isFinite(step)) { return 0; }
    return Math.max(0, Math.min(info.last, step));
  }

  // The next controller state. Pure: `info` = {last: the last frame, povs: the points of view}.
  DV.reduce = function (state, action, info) {
    var next = Object.assign({}, state);
    switch (action.type) {
      case "goTo":      // a move by the user pauses playback
        next.step = clampStep(action.step, info); next.playing = false; break;
      case "stepBy":
        next.step = clampStep(state.step + action.by, info); next.playing = false; break;
      case "tick":      // the playback timer
        next.step = clampStep(state.step + 1, info);
        next.playing = state.playing && next.step < info.last; break;
      case "play":
        if (state.step >= info.last) { next.step = 0; }
        next.playing = info.last > 0; break;
      case "pause":
        next.playing = false; break;
      case "togglePlay":
        return DV.reduce(state, {type: state.playing ? "pause" : "play"}, info);
      case "setSpeed":
        if (SPEEDS.indexOf(Number(action.speed)) >= 0) { next.speed = Number(action.speed); } break;
      case "setPov":
        if (info.povs.indexOf(action.pov) >= 0) { next.pov = action.pov; } break;
      case "cyclePov":
        next.pov = info.povs[(info.povs.indexOf(state.pov) + 1) % info.povs.length]; break;
      case "setSide":
        if (SIDES.indexOf(action.side) >= 0) { next.side = action.side; } break;
      case "toggleSide":
        next.side = state.side === "before" ? "after" : "before"; break;
      default:
        break;
    }
    return next;
  };

  // The frame the board shows for a state: after step k is frame k + 1; the end has no step.
  DV.frameOf = function (state, last) {
    return state.side === "before" || state.step >= last ? state.step : state.step + 1;
  };

  // "#step=37&pov=2&side=before" -> {step: 37, pov: 2, side: "before"}; unknown or bad parts are left out.
  DV.parseHash = function (hash, info) {
    var out = {};
    String(hash || "").replace(/^#/, "").split("&").forEach(function (part) {
      var pair = part.split("="), key = decodeURIComponent(pair[0] || ""), value = decodeURIComponent(pair[1] || "");
      if (key === "step" && /^\d+$/.test(value)) { out.step = clampStep(value, info); }
      if (key === "pov") {
        var pov = /^\d+$/.test(value) ? Number(value) : value;
        if (info.povs.indexOf(pov) >= 0) { out.pov = pov; }
      }
      if (key === "speed" && SPEEDS.indexOf(Number(value)) >= 0) { out.speed = Number(value); }
      if (key === "side" && SIDES.indexOf(value) >= 0) { out.side = value; }
    });
    return out;
  };

  DV.formatHash = function (state) {
    var parts = ["step=" + state.step];
    if (state.pov !== "spectator") { parts.push("pov=" + state.pov); }
    if (state.speed !== 1) { parts.push("speed=" + state.speed); }
    if (state.side === "before") { parts.push("side=before"); }
    return "#" + parts.join("&");
  };

  // The buttons, choices and keys of a viewer: {element, keys, sync(state)}; every input dispatches.
  DV.controls = function (m, root, dispatch) {
    var povSelect = h("select", {"data-role": "pov", "aria-label": "Point of view"});
    m.povs.forEach(function (pov) {
      var label = pov === "spectator" ? "Spectator (public view)"
        : pov === "everything" ? "Everything (all hidden values)" : "Seat " + pov + (DV.botName(m.ctx, pov) ? ": " + DV.botName(m.ctx, pov) : "")
          + (DV.botLanguage(m.ctx, pov) ? " (" + DV.botLanguage(m.ctx, pov) + ")" : "");
      povSelect.appendChild(h("option", {value: String(pov)}, label));
    });
    var speedSelect = h("select", {"data-role": "speed", "aria-label": "Speed"});
    SPEEDS.forEach(function (speed) { speedSelect.appendChild(h("option", {value: String(speed)}, speed + "×")); });
    var buttons = {};
    function button(action, label, aria) {
      buttons[action] = h("button", {type: "button", "data-action": action, "aria-label": aria, title: aria}, label);
      return buttons[action];
    }
    var side = h("button", {type: "button", "data-action": "side", "data-role": "side", "class": "rv-side",
                            title: "Show the position before or after the step (b)"});
    var element = h("div", {"class": "rv-controls", "data-role": "controls"}, [
      button("start", "|◀", "Start (Home)"), button("prev", "◀", "Previous step (←)"),
      button("play", "▶ Play", "Play or pause (Space)"), button("next", "▶", "Next step (→)"),
      button("end", "▶|", "End (End)"), side,
      h("label", {"class": "rv-inline"}, ["Speed ", speedSelect]),
      h("label", {"class": "rv-inline"}, ["View ", povSelect])
    ]);
    var keys = h("p", {"class": "rv-keys", "data-role": "keys"}, [
      h("kbd", null, "←"), " ", h("kbd", null, "→"), " step · ", h("kbd", null, "Shift"), "+", h("kbd", null, "←"), " ",
      h("kbd", null, "→"), " ten steps · ", h("kbd", null, "Home"), " ", h("kbd", null, "End"), " start, end · ",
      h("kbd", null, "Space"), " play/pause · ", h("kbd", null, "b"), " before/after · ", h("kbd", null, "v"), " point of view"
    ]);

    buttons.start.addEventListener("click", function () { dispatch({type: "goTo", step: 0}); });
    buttons.prev.addEventListener("click", function () { dispatch({type: "stepBy", by: -1}); });
    buttons.next.addEventListener("click", function () { dispatch({type: "stepBy", by: 1}); });
    buttons.end.addEventListener("click", function () { dispatch({type: "goTo", step: m.last}); });
    buttons.play.addEventListener("click", function () { dispatch({type: "togglePlay"}); });
    side.addEventListener("click", function () { dispatch({type: "toggleSide"}); });
    povSelect.addEventListener("change", function () {
      var value = povSelect.value;
      dispatch({type: "setPov", pov: /^\d+$/.test(value) ? Number(value) : value});
      povSelect.blur();   // so that the arrow keys step again instead of changing the choice
    });
    speedSelect.addEventListener("change", function () {
      dispatch({type: "setSpeed", speed: Number(speedSelect.value)});
      speedSelect.blur();
    });

    function typing(target) {
      if (!target || !target.tagName) { return false; }
      var tag = target.tagName.toLowerCase();
      if (target.isContentEditable || tag === "textarea" || tag === "select") { return true; }
      return tag === "input" && target.type !== "range";
    }
    document.addEventListener("keydown", function (event) {
      if (!root.isConnected || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) { return; }
      var action = null;
      if (event.key === "ArrowLeft") { action = {type: "stepBy", by: event.shiftKey ? -10 : -1}; }
      else if (event.key === "ArrowRight") { action = {type: "stepBy", by: event.shiftKey ? 10 : 1}; }
      else if (event.key === "Home") { action = {type: "goTo", step: 0}; }
      else if (event.key === "End") { action = {type: "goTo", step: m.last}; }
      else if (event.key === " " || event.key === "Spacebar") { action = {type: "togglePlay"}; }
      else if (event.key === "v" || event.key === "V") { action = {type: "cyclePov"}; }
      else if (event.key === "b" || event.key === "B") { action = {type: "toggleSide"}; }
      if (action) { event.preventDefault(); dispatch(action); }
    });
    // A focused button would also "click" on the Space key's release: the keydown already acted.
    document.addEventListener("keyup", function (event) {
      if ((event.key === " " || event.key === "Spacebar") && event.target && event.target.tagName === "BUTTON"
          && root.contains(event.target)) { event.preventDefault(); }
    });

    function sync(state) {
      povSelect.value = String(state.pov);
      speedSelect.value = String(state.speed);
      buttons.play.textContent = state.playing ? "❚❚ Pause" : "▶ Play";
      buttons.play.setAttribute("aria-pressed", state.playing ? "true" : "false");
      buttons.start.disabled = buttons.prev.disabled = state.step === 0;
      buttons.end.disabled = buttons.next.disabled = state.step === m.last;
      var before = state.side === "before";
      side.textContent = before ? "Before step " + state.step : "After step " + state.step;
      side.setAttribute("aria-pressed", before ? "true" : "false");
      side.setAttribute("aria-label", (before ? "Showing the position before step " : "Showing the position after step ")
        + state.step + ": show the other (b)");
      side.disabled = state.step === m.last;
    }
    return {element: element, keys: keys, sync: sync};
  };
})(window);
