// The shell shared by every game: controls, timeline with marks, keys, point of view, event log,
// deep links and the result. It reads only the replay's full form (docs/replay-format.md) and
// calls the game's renderer to draw one recorded view.
//
// Frames: frame 0 is the start, frame k is the position after k steps, which is where step k was
// decided (the observation the bots got in the "act" message of step k); the last frame is the end.
// `#step=k` shows frame k. The controller state is one plain object {step, playing, speed, pov},
// changed only by DiveViewer.reduce(state, action, info) and mirrored in the URL hash.
(function (global) {
  "use strict";
  var DV = global.DiveViewer;
  var h = DV.h;
  var SPEEDS = [0.5, 1, 2, 4, 8];
  var STEP_MS = 700;  // one step every 0.7 s at 1x
  var HASH_MS = 150;
  // The full form is a version-1 replay whatever was stored (workers.replay.expand); a compact
  // (version 2) replay must be expanded by the server or `python -m workers.replay view` first.
  var READS_VERSIONS = [1];
  var COMPACT_VERSION = 2;
  DV.SPEEDS = SPEEDS;

  // --- what a replay must be ----------------------------------------------------------------

  // Why `replay` cannot be shown (a sentence), or null when it can.
  DV.checkReplay = function (replay) {
    if (!replay || typeof replay !== "object" || Array.isArray(replay) || replay.format !== "dive-arena-replay") {
      return "This is not a Dive Arena replay.";
    }
    if (replay.version === COMPACT_VERSION) {
      return "This replay is stored compact (format version 2), without its views: open it on its match page, "
        + "or write a page for it with python -m workers.replay view FILE.";
    }
    if (READS_VERSIONS.indexOf(replay.version) < 0) {
      var newer = typeof replay.version === "number" && replay.version > READS_VERSIONS[READS_VERSIONS.length - 1];
      return "This replay is in format version " + JSON.stringify(replay.version) + (newer ? ", newer than" : ", not one")
        + " this viewer reads (it reads version " + READS_VERSIONS.join(" and ") + "). "
        + (newer ? "Update the arena to watch it." : "");
    }
    if (!Object.prototype.hasOwnProperty.call(DV.games, replay.game)) {
      return "This replay is of a game this viewer does not know: " + JSON.stringify(replay.game) + ".";
    }
    if (!Array.isArray(replay.steps) || !replay.initial || typeof replay.initial !== "object") {
      return "This replay has no steps to show.";
    }
    var snapshots = [replay.initial].concat(replay.steps);
    for (var i = 0; i < snapshots.length; i++) {
      var snap = snapshots[i];
      if (!snap || typeof snap !== "object" || !snap.spectator || !Array.isArray(snap.observations)) {
        return "This replay is not in full form (" + (i === 0 ? "its initial position" : "step " + (i - 1))
          + " has no views): the viewer reads replays expanded by workers.replay.expand.";
      }
      if (i > 0 && (!Array.isArray(snap.to_act) || !Array.isArray(snap.actions))) {
        return "Step " + (i - 1) + " of this replay has no seats or actions.";
      }
    }
    return null;
  };

  DV.showError = function (root, message) {
    root.textContent = "";
    root.classList.add("rv");
    root.setAttribute("data-state", "error");
    root.appendChild(h("div", {"class": "rv-error", role: "alert", "data-role": "error"}, message));
  };

  // --- controller -----------------------------------------------------------------------------

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
      default:
        break;
    }
    return next;
  };

  // "#step=37&pov=2" -> {step: 37, pov: 2}; unknown or bad parts are left out.
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
    });
    return out;
  };

  DV.formatHash = function (state) {
    var parts = ["step=" + state.step];
    if (state.pov !== "spectator") { parts.push("pov=" + state.pov); }
    if (state.speed !== 1) { parts.push("speed=" + state.speed); }
    return "#" + parts.join("&");
  };

  // --- reading the replay ---------------------------------------------------------------------

  function model(replay, legend) {
    var renderer = DV.games[replay.game];
    var snapshots = [replay.initial].concat(replay.steps);
    var finished = !!(replay.result && replay.final && replay.final.full_view);
    var seats = (replay.seats || []).slice();
    for (var s = seats.length; s < replay.num_players; s++) { seats.push({seat: s, name: ""}); }
    var povs = ["spectator"];
    for (var seat = 0; seat < replay.num_players; seat++) { povs.push(seat); }
    if (finished) { povs.push("everything"); }
    var faultsAt = {};
    (replay.faults || []).forEach(function (fault) {
      (faultsAt[fault.step] = faultsAt[fault.step] || []).push(fault);
    });
    return {
      replay: replay, renderer: renderer, snapshots: snapshots, last: replay.steps.length,
      finished: finished, povs: povs, faultsAt: faultsAt,
      ctx: {game: replay.game, numPlayers: replay.num_players, seats: seats, options: replay.options || {},
            legend: legend || {}, finished: finished}
    };
  }

  // The view a point of view sees at frame `step`, and a note when it is not the exact one.
  function viewAt(m, step, pov) {
    var snap = m.snapshots[step];
    if (pov === "spectator") { return {view: snap.spectator}; }
    if (pov === "everything") {
      if (snap.full) { return {view: snap.full}; }
      if (step === m.last) { return {view: m.replay.final.full_view}; }
      return {view: snap.spectator, note: "This replay was recorded on engine version "
        + m.replay.engine_version + ", so hidden values are known only at the end: the public view is shown."};
    }
    return {view: snap.observations[pov]};
  }

  function phaseAt(m, step) {
    var phase = m.renderer.phase ? m.renderer.phase(m.snapshots[step].spectator, m.ctx) : null;
    return phase === undefined ? null : phase;
  }

  // Words for step k: the public events when the engine recorded them, else the renderer's words
  // from the actions. `reveal(seat)` says whose secret choices (hidden from the other seats at the
  // time) may be added: the decision panel adds the point of view's own, or everyone's.
  function stepWords(m, k, reveal) {
    var record = m.snapshots[k + 1], before = m.snapshots[k].spectator, words = null;
    var events = record.spectator && record.spectator.events;
    if (Array.isArray(events) && events.some(function (e) { return e && e.text; })) {
      var texts = events.filter(function (e) { return e && e.text; }).map(function (e) { return withNames(m, String(e.text)); });
      var joined = texts.join("; ");
      words = [/[.!?]$/.test(joined) ? joined : joined + "."];
    } else if (m.renderer.describe) {
      try {
        words = m.renderer.describe(record, before, record.spectator, m.ctx);
      } catch (error) {
        if (global.console) { console.error(error); }
      }
    }
    if (!words) {
      words = record.to_act.map(function (seat, i) { return DV.seatName(m.ctx, seat) + ": " + JSON.stringify(record.actions[i]); });
    }
    if (reveal && m.renderer.secret) {
      record.to_act.forEach(function (seat, i) {
        if (!reveal(seat)) { return; }
        var secret = null;
        try { secret = m.renderer.secret(record.actions[i], seat, before, m.ctx); } catch (error) { secret = null; }
        if (secret) { words = words.concat([DV.seatName(m.ctx, seat) + ", hidden from the other seats: " + secret]); }
      });
    }
    return words;
  }

  // One event of an observation's `events` as a sentence: the engine's text when it has one, else
  // the renderer's words for its type, else its fields spelled out (never the bare type).
  // `by` says which ("engine", "renderer", "fields"): the tests require "renderer" for every
  // event an engine sends without text.
  // `where` = {frame, index, count}: the event is the index-th of the count an observation at
  // that frame carried; a renderer may read the public views recorded around it (ctx.snapshots).
  function eventWords(m, e, where) {
    if (!e || typeof e !== "object") { return {text: sentence(JSON.stringify(e)), by: "fields"}; }
    if (e.text) { return {text: sentence(withNames(m, String(e.text))), by: "engine"}; }
    var text = null;
    if (m.renderer.event) {
      try { text = m.renderer.event(e, Object.assign({snapshots: m.snapshots}, m.ctx), where || null); } catch (error) { if (global.console) { console.error(error); } }
    }
    if (text) { return {text: sentence(text), by: "renderer"}; }
    var fields = Object.keys(e).filter(function (key) { return key !== "type"; }).map(function (key) {
      var value = e[key];
      if (key === "seat" && typeof value === "number") { return DV.seatName(m.ctx, value); }
      return DV.words(key) + " " + (typeof value === "object" ? JSON.stringify(value) : String(value));
    });
    return {text: sentence(DV.words(e.type || "event") + (fields.length ? ": " + fields.join(", ") : "")), by: "fields"};
  }

  function sentence(text) {
    text = String(text);
    return /[.!?]$/.test(text) ? text : text + ".";
  }

  // "seat 2 took ..." -> "seat 2 (alice-bot) took ..." (not inside parentheses already).
  function withNames(m, text) {
    return text.replace(/(\(?)\bseat (\d+)(?! \()/g, function (whole, paren, seat) {
      return paren || Number(seat) >= m.ctx.numPlayers ? whole : DV.seatName(m.ctx, Number(seat));
    });
  }

  function msText(value) {
    if (value === null || value === undefined) { return ""; }
    return (value < 10 ? Number(value).toFixed(value < 1 ? 2 : 1) : Math.round(value)) + " ms";
  }

  // --- building the page ------------------------------------------------------------------------

  // Where the time goes (read by bench/replay_viewer.py): parse, build (marks, log), first draw.
  DV.timings = DV.timings || {};

  DV.mount = function (root, replay, legend) {
    var mountStarted = global.performance.now();
    var problem = DV.checkReplay(replay);
    if (problem) { DV.showError(root, problem); return null; }
    var m = model(replay, legend);
    var info = {last: m.last, povs: m.povs};
    var state = {step: 0, playing: false, speed: 1, pov: "spectator"};
    var linked = DV.parseHash(global.location.hash, info);
    state = Object.assign(state, linked);

    root.textContent = "";
    root.classList.add("rv");
    root.setAttribute("data-game", replay.game);
    root.setAttribute("data-frames", String(m.last + 1));

    var title = (m.renderer.title || replay.game) + " · " + replay.num_players + (replay.num_players === 1 ? " seat" : " seats")
      + " · seed " + replay.seed;
    var povSelect = h("select", {"data-role": "pov", "aria-label": "Point of view"});
    m.povs.forEach(function (pov) {
      var label = pov === "spectator" ? "Spectator (public view)"
        : pov === "everything" ? "Everything (all hidden values)" : "Seat " + pov + (DV.botName(m.ctx, pov) ? ": " + DV.botName(m.ctx, pov) : "");
      povSelect.appendChild(h("option", {value: String(pov)}, label));
    });
    var speedSelect = h("select", {"data-role": "speed", "aria-label": "Speed"});
    SPEEDS.forEach(function (speed) { speedSelect.appendChild(h("option", {value: String(speed)}, speed + "×")); });

    var status = h("p", {"class": "rv-status", "data-role": "status", "aria-live": "polite"});
    var board = h("div", {"class": "rv-board", "data-role": "board"});
    var note = h("p", {"class": "rv-note", "data-role": "note", hidden: true});
    var slider = h("input", {type: "range", min: 0, max: m.last, value: 0, step: 1, "class": "rv-slider",
                             "data-role": "slider", "aria-label": "Step"});
    var marks = h("div", {"class": "rv-marks", "data-role": "marks"});
    var buttons = {};
    function button(action, label, aria) {
      buttons[action] = h("button", {type: "button", "data-action": action, "aria-label": aria, title: aria}, label);
      return buttons[action];
    }
    var controls = h("div", {"class": "rv-controls", "data-role": "controls"}, [
      button("start", "|◀", "Start (Home)"), button("prev", "◀", "Previous step (←)"),
      button("play", "▶ Play", "Play or pause (Space)"), button("next", "▶", "Next step (→)"),
      button("end", "▶|", "End (End)"),
      h("label", {"class": "rv-inline"}, ["Speed ", speedSelect]),
      h("label", {"class": "rv-inline"}, ["View ", povSelect])
    ]);
    var keys = h("p", {"class": "rv-keys", "data-role": "keys"}, [
      h("kbd", null, "←"), " ", h("kbd", null, "→"), " step · ", h("kbd", null, "Shift"), "+", h("kbd", null, "←"), " ",
      h("kbd", null, "→"), " ten steps · ", h("kbd", null, "Home"), " ", h("kbd", null, "End"), " start, end · ",
      h("kbd", null, "Space"), " play/pause · ", h("kbd", null, "v"), " point of view"
    ]);
    var decision = h("div", {"class": "rv-decision", "data-role": "decision"});
    var result = h("div", {"class": "rv-result", "data-role": "result", hidden: true});
    var logList = h("ol", {"class": "rv-log-list"});
    var logScroll = h("div", {"class": "rv-log-scroll"}, logList);
    var log = h("aside", {"class": "rv-log", "data-role": "log", "aria-label": "Event log"}, [h("h3", null, "Event log"), logScroll]);

    root.appendChild(h("div", {"class": "rv-head"}, h("strong", null, title)));
    root.appendChild(h("div", {"class": "rv-main"}, [
      h("div", {"class": "rv-stage"}, [status, board, note,
        h("div", {"class": "rv-timeline"}, [slider, marks]), controls, keys, decision, result]),
      log
    ]));

    var built = global.performance.now();
    buildMarks(m, marks);
    DV.timings.marksMs = global.performance.now() - built;
    built = global.performance.now();
    var lines = buildLog(m, logList);
    DV.timings.logMs = global.performance.now() - built;
    buildResult(m, result);

    // --- dispatching ---------------------------------------------------------------------------
    var timer = null, drawn = {step: -1, pov: null};
    var api = {model: m, info: info, get state() { return state; }};

    function dispatch(action) {
      state = DV.reduce(state, action, info);
      draw();
      schedule();
      return state;
    }
    api.dispatch = dispatch;

    function schedule() {
      if (timer !== null && (!state.playing || timer.speed !== state.speed)) { clearTimeout(timer.id); timer = null; }
      if (state.playing && timer === null) {
        timer = {speed: state.speed, id: setTimeout(function () { timer = null; dispatch({type: "tick"}); }, STEP_MS / state.speed)};
      }
    }

    // The address follows the state with replaceState (stepping must not fill the history), at
    // most every HASH_MS: browsers throttle pages that replace their state hundreds of times.
    // `readHash` is the address the viewer last wrote or read: one that differs was set by
    // someone else (a link, the tests) and its hashchange is still to come, so it is not
    // overwritten with the old state.
    var hashTimer = null, readHash = global.location.hash;
    function mirrorHash() {
      if (hashTimer !== null) { return; }
      hashTimer = setTimeout(function () {
        hashTimer = null;
        var hash = DV.formatHash(state);
        if (global.location.hash !== readHash) { return; }
        if (global.location.hash !== hash) { global.history.replaceState(null, "", hash); }
        readHash = global.location.hash;
      }, HASH_MS);
    }

    function draw() {
      var started = global.performance.now();
      var parts = {};
      if (state.step !== drawn.step || state.pov !== drawn.pov) {
        drawBoard();
        parts.board = global.performance.now() - started;
        drawDecision();
        parts.decision = global.performance.now() - started - parts.board;
        if (state.step !== drawn.step) { follow(lines, drawn.step, state.step, logScroll); }
        parts.log = global.performance.now() - started - parts.board - parts.decision;
        drawn = {step: state.step, pov: state.pov};
      }
      api.lastDrawParts = parts;
      slider.value = String(state.step);
      povSelect.value = String(state.pov);
      speedSelect.value = String(state.speed);
      buttons.play.textContent = state.playing ? "❚❚ Pause" : "▶ Play";
      buttons.play.setAttribute("aria-pressed", state.playing ? "true" : "false");
      buttons.start.disabled = buttons.prev.disabled = state.step === 0;
      buttons.end.disabled = buttons.next.disabled = state.step === m.last;
      result.hidden = state.step !== m.last;
      root.setAttribute("data-step", String(state.step));
      root.setAttribute("data-pov", String(state.pov));
      root.setAttribute("data-playing", state.playing ? "true" : "false");
      root.setAttribute("data-speed", String(state.speed));
      mirrorHash();
      api.lastDrawMs = global.performance.now() - started;
    }

    // Narrow screens get each renderer's compact layout (readable at 390 px, not a shrunk wide board).
    function compact() {
      var width = board.clientWidth || root.clientWidth || global.innerWidth;
      return width > 0 && width < 600;
    }
    var wasCompact = null;
    global.addEventListener("resize", function () {
      if (wasCompact !== null && compact() !== wasCompact) { drawn.pov = null; draw(); }
    });

    function drawBoard() {
      wasCompact = compact();
      var chosen = viewAt(m, state.step, state.pov);
      var svg;
      try {
        svg = m.renderer.render(chosen.view, state.pov, Object.assign({step: state.step, last: m.last, compact: wasCompact}, m.ctx));
        if (wasCompact) { svg.classList.add("rv-compact"); }
        svg.setAttribute("data-step", String(state.step));
        svg.setAttribute("data-pov", String(state.pov));
      } catch (error) {
        if (global.console) { console.error(error); }
        svg = h("p", {"class": "rv-error", "data-role": "board-error"},
                "This position cannot be drawn (" + (error && error.message) + ").");
      }
      board.replaceChildren ? board.replaceChildren(svg) : (board.textContent = "", board.appendChild(svg));
      note.hidden = !chosen.note;
      note.textContent = chosen.note || "";
      var phase = phaseAt(m, state.step);
      var parts = [state.step === m.last ? "End (step " + state.step + " of " + m.last + ")"
                                          : "Step " + state.step + " of " + m.last];
      if (phase) { parts.push(phase); }
      if (state.step < m.last) {
        parts.push(DV.list(m.snapshots[state.step + 1].to_act.map(function (s) { return DV.seatName(m.ctx, s); })) + " to act");
      }
      status.textContent = parts.join(" · ");
      status.setAttribute("data-phase", phase || "");
    }

    function drawDecision() {
      decision.textContent = "";
      if (state.step === m.last) {
        decision.appendChild(h("p", null, m.finished ? "The match is over: the result is below." : "The replay ends here."));
        return;
      }
      var k = state.step, record = m.snapshots[k + 1];
      var pov = state.pov;
      var reveal = function (seat) { return pov === "everything" || pov === seat; };
      var words = stepWords(m, k, reveal);
      var rows = record.to_act.map(function (seat, i) {
        var by = (record.by || [])[i] || "bot";
        return h("li", {"data-seat": seat, "data-by": by}, [
          h("span", {"class": "rv-swatch", style: "background:" + DV.seatColour(seat)}), DV.seatName(m.ctx, seat),
          " answered in ", msText((record.ms || [])[i]) || "–",
          by === "fallback" ? h("span", {"class": "rv-badge rv-fallback"}, "fallback") : null
        ]);
      });
      decision.appendChild(h("p", {"class": "rv-decision-head"}, "Step " + k + ": what was decided here"));
      decision.appendChild(h("ul", {"class": "rv-decision-seats"}, rows));
      decision.appendChild(h("div", {"class": "rv-decision-words", "data-role": "decision-words"},
                             words.map(function (text) { return h("p", null, text); })));
      // A seat's point of view: the events its observation carried (what happened since its last
      // decision), one sentence each, from those events' own fields only.
      if (typeof pov === "number") {
        var told = ((m.snapshots[k].observations || [])[pov] || {}).events;
        if (Array.isArray(told) && told.length) {
          decision.appendChild(h("div", {"class": "rv-decision-told", "data-role": "observation-events"}, [
            h("p", null, h("strong", null, "Sent to " + DV.seatName(m.ctx, pov) + " with this observation:")),
            h("ul", null, told.map(function (e, i) {
              var said = eventWords(m, e, {frame: k, index: i, count: told.length});
              return h("li", {"data-event-type": e.type, "data-said-by": said.by}, said.text);
            }))
          ]));
        }
      }
      (m.faultsAt[k] || []).forEach(function (fault) {
        decision.appendChild(h("p", {"class": "rv-fault", "data-role": "fault", "data-seat": fault.seat, "data-kind": fault.kind}, [
          h("strong", null, "Fault: "), DV.seatName(m.ctx, fault.seat) + " — " + fault.kind + " at step " + fault.step
            + (fault.message ? ": " + String(fault.message).split("\n")[0] : "")
            + ". The built-in fallback plays this seat from here on."
        ]));
      });
    }

    // --- input ---------------------------------------------------------------------------------
    buttons.start.addEventListener("click", function () { dispatch({type: "goTo", step: 0}); });
    buttons.prev.addEventListener("click", function () { dispatch({type: "stepBy", by: -1}); });
    buttons.next.addEventListener("click", function () { dispatch({type: "stepBy", by: 1}); });
    buttons.end.addEventListener("click", function () { dispatch({type: "goTo", step: m.last}); });
    buttons.play.addEventListener("click", function () { dispatch({type: "togglePlay"}); });
    slider.addEventListener("input", function () { dispatch({type: "goTo", step: Number(slider.value)}); });
    povSelect.addEventListener("change", function () {
      var value = povSelect.value;
      dispatch({type: "setPov", pov: /^\d+$/.test(value) ? Number(value) : value});
      povSelect.blur();   // so that the arrow keys step again instead of changing the choice
    });
    speedSelect.addEventListener("change", function () {
      dispatch({type: "setSpeed", speed: Number(speedSelect.value)});
      speedSelect.blur();
    });
    logList.addEventListener("click", function (event) {
      var line = event.target.closest ? event.target.closest("[data-step]") : null;
      if (line) { dispatch({type: "goTo", step: Number(line.getAttribute("data-step"))}); }
    });
    marks.addEventListener("click", function (event) {
      var mark = event.target.closest ? event.target.closest("[data-step]") : null;
      if (mark) { dispatch({type: "goTo", step: Number(mark.getAttribute("data-step"))}); }
    });

    function typing(target) {
      if (!target || !target.tagName) { return false; }
      var tag = target.tagName.toLowerCase();
      if (target.isContentEditable || tag === "textarea" || tag === "select") { return true; }
      return tag === "input" && target.type !== "range";
    }
    function onKey(event) {
      if (!root.isConnected || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) { return; }
      var action = null;
      if (event.key === "ArrowLeft") { action = {type: "stepBy", by: event.shiftKey ? -10 : -1}; }
      else if (event.key === "ArrowRight") { action = {type: "stepBy", by: event.shiftKey ? 10 : 1}; }
      else if (event.key === "Home") { action = {type: "goTo", step: 0}; }
      else if (event.key === "End") { action = {type: "goTo", step: m.last}; }
      else if (event.key === " " || event.key === "Spacebar") { action = {type: "togglePlay"}; }
      else if (event.key === "v" || event.key === "V") { action = {type: "cyclePov"}; }
      if (action) { event.preventDefault(); dispatch(action); }
    }
    document.addEventListener("keydown", onKey);
    // A focused button would also "click" on the Space key's release: the keydown already acted.
    document.addEventListener("keyup", function (event) {
      if ((event.key === " " || event.key === "Spacebar") && event.target && event.target.tagName === "BUTTON"
          && root.contains(event.target)) { event.preventDefault(); }
    });
    global.addEventListener("hashchange", function () {
      readHash = global.location.hash;
      var wanted = DV.parseHash(global.location.hash, info);
      if (wanted.step !== undefined && wanted.step !== state.step) { dispatch({type: "goTo", step: wanted.step}); }
      if (wanted.pov !== undefined && wanted.pov !== state.pov) { dispatch({type: "setPov", pov: wanted.pov}); }
      if (wanted.speed !== undefined && wanted.speed !== state.speed) { dispatch({type: "setSpeed", speed: wanted.speed}); }
      if (root.scrollIntoView) { root.scrollIntoView({block: "start"}); }
    });

    root.viewer = api;
    var drawStarted = global.performance.now();
    draw();
    DV.firstBoardAt = global.performance.now();
    DV.timings.firstDrawMs = DV.firstBoardAt - drawStarted;
    DV.timings.mountMs = DV.firstBoardAt - mountStarted;
    // A link to a step (a fault on a tournament page) lands on the viewer, not the page's top.
    if ((linked.step !== undefined || linked.pov !== undefined) && root.scrollIntoView) { root.scrollIntoView({block: "start"}); }
    root.setAttribute("data-state", "ready");
    return api;
  };

  // --- timeline marks: faults (red), rounds (bands), scoring (dots) -------------------------------

  function at(step, last) {
    var share = last ? step / last : 0;
    return "calc(7px + (100% - 14px) * " + share.toFixed(5) + ")";
  }

  function buildMarks(m, marks) {
    var last = m.last, bandStart = 0, bandPhase = phaseAt(m, 0), band = 0;
    function closeBand(end) {
      if (bandPhase === null) { return; }
      marks.appendChild(h("button", {type: "button", "class": "rv-band rv-band-" + (band % 2), "data-kind": "band",
        "data-phase": bandPhase, "data-step": bandStart, "data-to": end, title: bandPhase + " (steps " + bandStart + "–" + end + ")",
        "aria-label": bandPhase, style: "left:" + at(bandStart, last) + ";width:calc((100% - 14px) * " + ((end - bandStart) / (last || 1)).toFixed(5) + ")"}));
      band += 1;
    }
    for (var step = 1; step <= last; step++) {
      var phase = phaseAt(m, step);
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

  // --- the event log -----------------------------------------------------------------------------

  function buildLog(m, list) {
    var lines = [], phase = null;
    var setup = m.snapshots[0].spectator && m.snapshots[0].spectator.events;
    if (Array.isArray(setup) && setup.length) {
      list.appendChild(h("li", {"class": "rv-log-setup"}, "Setup: " + setup.map(function (e) { return eventWords(m, e).text; }).join(" ")));
    }
    for (var k = 0; k <= m.last; k++) {
      var now = phaseAt(m, k);
      if (now !== null && now !== phase) {
        list.appendChild(h("li", {"class": "rv-log-phase", "data-phase": now}, now));
        phase = now;
      }
      var line;
      if (k === m.last) {
        line = h("li", {"class": "rv-log-line rv-log-end", "data-step": k}, [h("span", {"class": "rv-log-step"}, "end"),
          m.finished ? "Game over: " + resultWords(m) : "The replay ends."]);
      } else {
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
          var text = msText((record.ms || [])[i]);
          return text ? (record.to_act.length > 1 ? seat + ": " : "") + text : "";
        }).filter(Boolean).join(", ");
        // Dice an engine event names in its details are shown as dice too.
        var dice = ((record.spectator || {}).events || []).filter(function (e) { return e && Array.isArray(e.dice); })
          .map(function (e) {
            return h("span", {"class": "rv-log-dice", "data-dice": e.dice.join(",")},
                     e.dice.map(function (d) { return h("span", {"class": "rv-log-die"}, String(d)); }));
          });
        line = h("li", {"class": "rv-log-line", "data-step": k, "data-seats": record.to_act.join(",")}, [
          h("span", {"class": "rv-log-step"}, String(k)),
          h("span", {"class": "rv-log-text"}, stepWords(m, k, null).join(" ")), dice,
          ms ? h("span", {"class": "rv-log-ms"}, ms) : null, badges
        ]);
        if (m.faultsAt[k]) { line.classList.add("rv-log-faulted"); }
      }
      lines.push(line);
      list.appendChild(line);
    }
    return lines;
  }

  function follow(lines, from, to, log) {
    if (lines[from]) { lines[from].classList.remove("rv-current"); lines[from].removeAttribute("aria-current"); }
    var line = lines[to];
    if (!line) { return; }
    line.classList.add("rv-current");
    line.setAttribute("aria-current", "step");
    // Scroll the log itself (never the page) so the current line stays in sight.
    // .rv-log-scroll is position: relative, so offsetTop counts from its top.
    var box = log, top = line.offsetTop, bottom = top + line.offsetHeight;
    if (top < box.scrollTop || bottom > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, top - box.clientHeight / 3);
    }
  }

  // --- the result ----------------------------------------------------------------------------

  function resultWords(m) {
    var result = m.replay.result, parts = [];
    if (!result) { return ""; }
    (result.ranks || []).forEach(function (rank, seat) {
      parts.push({rank: rank, text: DV.seatName(m.ctx, seat) + " rank " + rank + " (" + (result.scores || [])[seat] + ")"});
    });
    parts.sort(function (a, b) { return a.rank - b.rank; });
    return parts.map(function (p) { return p.text; }).join(", ") + ".";
  }

  function buildResult(m, box) {
    var result = m.replay.result;
    box.appendChild(h("h3", null, "Result"));
    if (!result) { box.appendChild(h("p", null, "This replay has no result.")); return; }
    var faults = {};
    (m.replay.faults || []).forEach(function (fault) { if (!faults[fault.seat]) { faults[fault.seat] = fault; } });
    var order = (result.ranks || []).map(function (rank, seat) { return seat; });
    order.sort(function (a, b) { return result.ranks[a] - result.ranks[b] || a - b; });
    var rows = order.map(function (seat) {
      var fault = faults[seat];
      return h("tr", {"data-seat": seat, "data-score": (result.scores || [])[seat], "data-rank": result.ranks[seat],
                      "data-fault-kind": fault ? fault.kind : null, "data-fault-step": fault ? fault.step : null}, [
        h("td", {"class": "num"}, String(result.ranks[seat])),
        h("td", null, [h("span", {"class": "rv-swatch", style: "background:" + DV.seatColour(seat)}), DV.seatName(m.ctx, seat)]),
        h("td", {"class": "num"}, String((result.scores || [])[seat])),
        h("td", null, fault ? [h("a", {href: "#step=" + fault.step + "&pov=" + seat, "data-role": "fault-link"},
                                     fault.kind + " at step " + fault.step)] : "–")
      ]);
    });
    box.appendChild(h("table", {"class": "rv-result-table"}, [
      h("thead", null, h("tr", null, [h("th", {"class": "num"}, "Rank"), h("th", null, "Seat"), h("th", {"class": "num"}, "Score"), h("th", null, "Fault")])),
      h("tbody", null, rows)
    ]));
    if (result.engine_ranks && JSON.stringify(result.engine_ranks) !== JSON.stringify(result.ranks)) {
      box.appendChild(h("p", {"class": "rv-muted"}, "A faulted seat ranks below every seat that did not fault (engine ranks: "
        + result.engine_ranks.join(", ") + ")."));
    }
    var notes = [];
    if (m.renderer.resultNotes) {
      try { notes = m.renderer.resultNotes(m.replay.final || {}, m.ctx) || []; } catch (error) { notes = []; }
    }
    notes.forEach(function (text) { box.appendChild(h("p", {"class": "rv-result-note", "data-role": "result-note"}, text)); });
  }
})(window);
