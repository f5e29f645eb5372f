// The player: mounts a viewer on a replay and draws it. The controls (controls.js), the timeline
// (timeline.js) and the event log (log.js) are parts it builds and keeps in step; it draws the
// board for the state's frame, highlights what the step changed (changes.js), the decision panel
// and the result. Other modules add parts with DiveViewer.addPart(build): build(m, api) returns
// {element, sync(state, frame)} and its element goes under the decision panel (a luck panel...).
//
// The controller state is one plain object {step, playing, speed, pov, side}, changed only by
// DiveViewer.reduce (controls.js) and mirrored in the URL hash (`#step=k&pov=2&side=before`).
(function (global) {
  "use strict";
  var DV = global.DiveViewer;
  var h = DV.h;
  var STEP_MS = 700;  // one step every 0.7 s at 1x
  var HASH_MS = 150;
  var extraParts = [];

  DV.addPart = function (build) { extraParts.push(build); };

  // Where the time goes (read by bench/replay_viewer.py): parse, build (marks, log), first draw.
  DV.timings = DV.timings || {};

  DV.mount = function (root, replay, legend) {
    var mountStarted = global.performance.now();
    var problem = DV.checkReplay(replay);
    if (problem) { DV.showError(root, problem); return null; }
    var m = DV.model(replay, legend);
    var info = {last: m.last, povs: m.povs};
    var state = {step: 0, playing: false, speed: 1, pov: "spectator", side: "after"};
    var linked = DV.parseHash(global.location.hash, info);
    state = Object.assign(state, linked);

    root.textContent = "";
    root.classList.add("rv");
    root.setAttribute("data-game", replay.game);
    root.setAttribute("data-frames", String(m.last + 1));

    var api = {model: m, info: info, get state() { return state; }};
    var title = (m.renderer.title || replay.game) + " · " + replay.num_players + (replay.num_players === 1 ? " seat" : " seats")
      + " · seed " + replay.seed;
    var status = h("p", {"class": "rv-status", "data-role": "status", "aria-live": "polite"});
    var board = h("div", {"class": "rv-board", "data-role": "board"});
    var note = h("p", {"class": "rv-note", "data-role": "note", hidden: true});
    var decision = h("div", {"class": "rv-decision", "data-role": "decision"});
    var result = h("div", {"class": "rv-result", "data-role": "result", hidden: true});
    var controls = DV.controls(m, root, dispatch);
    var timeline = DV.timeline(m, dispatch);
    var log = DV.eventLog(m, dispatch);
    var parts = [controls, timeline, log].concat(extraParts.map(function (build) { return build(m, api); }).filter(Boolean));

    root.appendChild(h("div", {"class": "rv-head"}, h("strong", null, title)));
    root.appendChild(h("div", {"class": "rv-main"}, [
      h("div", {"class": "rv-stage"}, [status, board, note, timeline.element, controls.element, controls.keys, decision]
        .concat(parts.slice(3).map(function (part) { return part.element; })).concat([result])),
      log.element
    ]));
    buildResult(m, result);

    // --- dispatching ---------------------------------------------------------------------------
    var timer = null, drawn = {step: -1, pov: null, frame: -1};

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
      var timed = {};
      var frame = DV.frameOf(state, m.last);
      if (frame !== drawn.frame || state.step !== drawn.step || state.pov !== drawn.pov) {
        drawBoard(frame, drawn.frame);
        timed.board = global.performance.now() - started;
        if (state.step !== drawn.step || state.pov !== drawn.pov) { drawDecision(); }
        timed.decision = global.performance.now() - started - timed.board;
        drawn = {step: state.step, pov: state.pov, frame: frame};
      }
      var logStarted = global.performance.now();
      parts.forEach(function (part) { part.sync(state, frame); });
      timed.log = global.performance.now() - logStarted;
      api.lastDrawParts = timed;
      result.hidden = state.step !== m.last;
      root.setAttribute("data-step", String(state.step));
      root.setAttribute("data-frame", String(frame));
      root.setAttribute("data-side", state.side);
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
      if (wasCompact !== null && compact() !== wasCompact) { drawn.frame = -1; draw(); }
    });

    function render(frame, pov) {
      var chosen = DV.viewAt(m, frame, pov);
      var svg = m.renderer.render(chosen.view, pov, Object.assign({step: state.step, frame: frame, last: m.last, compact: wasCompact}, m.ctx));
      if (wasCompact) { svg.classList.add("rv-compact"); }
      return {svg: svg, note: chosen.note};
    }

    function drawBoard(frame, previousFrame) {
      wasCompact = compact();
      var drawnNow, svg;
      try {
        drawnNow = render(frame, state.pov);
        svg = drawnNow.svg;
        svg.setAttribute("data-step", String(state.step));
        svg.setAttribute("data-frame", String(frame));
        svg.setAttribute("data-pov", String(state.pov));
        // What step k changed, marked on the board whichever side of it is shown.
        if (state.step < m.last) {
          var other = render(frame === state.step ? state.step + 1 : state.step, state.pov).svg;
          DV.markChanges(svg, other);
        }
        // A step forward or back by one animates lightly (none when the user asks for reduced motion).
        if (previousFrame >= 0 && Math.abs(previousFrame - frame) === 1) { svg.classList.add("rv-enter"); }
      } catch (error) {
        if (global.console) { console.error(error); }
        drawnNow = {note: null};
        svg = h("p", {"class": "rv-error", "data-role": "board-error"},
                "This position cannot be drawn (" + (error && error.message) + ").");
      }
      board.replaceChildren ? board.replaceChildren(svg) : (board.textContent = "", board.appendChild(svg));
      note.hidden = !drawnNow.note;
      note.textContent = drawnNow.note || "";
      var phase = DV.phaseAt(m, frame);
      var words = state.step === m.last ? ["End (step " + state.step + " of " + m.last + ")"]
        : [(state.side === "before" ? "Before step " : "After step ") + state.step + " of " + m.last];
      if (phase) { words.push(phase); }
      if (state.step < m.last) {
        words.push(DV.list(m.snapshots[state.step + 1].to_act.map(function (s) { return DV.seatName(m.ctx, s); }))
          + (state.side === "before" ? " to act" : " acted"));
      }
      status.textContent = words.join(" · ");
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
      var words = DV.stepWords(m, k, reveal);
      var rows = record.to_act.map(function (seat, i) {
        var by = (record.by || [])[i] || "bot";
        return h("li", {"data-seat": seat, "data-by": by}, [
          h("span", {"class": "rv-swatch", style: "background:" + DV.seatColour(seat)}), DV.seatName(m.ctx, seat),
          " answered in ", DV.msText((record.ms || [])[i]) || "–",
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
              var said = DV.eventWords(m, e, {frame: k, index: i, count: told.length});
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

    global.addEventListener("hashchange", function () {
      readHash = global.location.hash;
      var wanted = DV.parseHash(global.location.hash, info);
      if (wanted.step !== undefined && wanted.step !== state.step) { dispatch({type: "goTo", step: wanted.step}); }
      if (wanted.pov !== undefined && wanted.pov !== state.pov) { dispatch({type: "setPov", pov: wanted.pov}); }
      if (wanted.speed !== undefined && wanted.speed !== state.speed) { dispatch({type: "setSpeed", speed: wanted.speed}); }
      var side = wanted.side || "after";
      if (side !== state.side) { dispatch({type: "setSide", side: side}); }
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

  // --- the result ----------------------------------------------------------------------------

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
    DV.tieWords(m, faults).forEach(function (text) {
      box.appendChild(h("p", {"class": "rv-result-tie", "data-role": "tie"}, text));
    });
    var notes = [];
    if (m.renderer.resultNotes) {
      try { notes = m.renderer.resultNotes(m.replay.final || {}, m.ctx) || []; } catch (error) { notes = []; }
    }
    notes.forEach(function (text) { box.appendChild(h("p", {"class": "rv-result-note", "data-role": "result-note"}, text)); });
  }

  // One sentence per group of seats with equal scores: they share the rank, or what decided between
  // them (a fault, or the game's tie-break in the renderer's words: renderer.tieBreak(seats, final,
  // result, ctx)).
  DV.tieWords = function (m, faults) {
    var result = m.replay.result || {}, scores = result.scores || [], ranks = result.ranks || [], groups = {};
    scores.forEach(function (score, seat) { (groups[JSON.stringify(score)] = groups[JSON.stringify(score)] || []).push(seat); });
    return Object.keys(groups).filter(function (key) { return groups[key].length > 1; }).map(function (key) {
      var seats = groups[key].sort(function (a, b) { return ranks[a] - ranks[b] || a - b; });
      var names = DV.list(seats.map(function (s) { return DV.seatName(m.ctx, s); }));
      var head = names + " tied on " + JSON.parse(key) + " points";
      if (seats.every(function (s) { return ranks[s] === ranks[seats[0]]; })) {
        return head + " and share rank " + ranks[seats[0]] + ": no tie-break separates them.";
      }
      if (seats.some(function (s) { return faults[s]; })) {
        return head + ": a seat that faulted ranks below one that did not.";
      }
      var words = null;
      if (m.renderer.tieBreak) {
        try { words = m.renderer.tieBreak(seats, m.replay.final || {}, result, m.ctx); } catch (error) { words = null; }
      }
      return head + "; the tie-break decided: " + (words || "the rules' tie-break (see the game's rules)") + ".";
    });
  };
})(window);
