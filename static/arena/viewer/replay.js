// Reading a replay: what a replay must be, the model the viewer's modules share, the views at a
// frame, and the words for steps, events and the result. No DOM here (bar the error box).
//
// Frames: frame 0 is the start, frame k is the position after k steps, which is where step k was
// decided (the observation the bots got in the "act" message of step k); the last frame is the end.
(function (global) {
  "use strict";
  var DV = global.DiveViewer;
  var h = DV.h;
  // The full form is a version-1 replay whatever was stored (workers.replay.expand); a compact
  // (version 2) replay must be expanded by the server or `python -m workers.replay view` first.
  var READS_VERSIONS = [1];
  var COMPACT_VERSION = 2;

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

  // What every module reads: the replay, its renderer, its frames, points of view, faults by step.
  DV.model = function (replay, legend) {
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
            legend: legend || {}, finished: finished,
            lastView: finished ? snapshots[snapshots.length - 1].spectator : null}
    };
  };

  // The view a point of view sees at frame `frame`, and a note when it is not the exact one.
  DV.viewAt = function (m, frame, pov) {
    var snap = m.snapshots[frame];
    if (pov === "spectator") { return {view: snap.spectator}; }
    if (pov === "everything") {
      if (snap.full) { return {view: snap.full}; }
      if (frame === m.last) { return {view: m.replay.final.full_view}; }
      return {view: snap.spectator, note: "This replay was recorded on engine version "
        + m.replay.engine_version + ", so hidden values are known only at the end: the public view is shown."};
    }
    return {view: snap.observations[pov]};
  };

  DV.phaseAt = function (m, frame) {
    var phase = m.renderer.phase ? m.renderer.phase(m.snapshots[frame].spectator, m.ctx) : null;
    return phase === undefined ? null : phase;
  };

  // Words for step k: the public events when the engine recorded them, else the renderer's words
  // from the actions. `reveal(seat)` says whose secret choices (hidden from the other seats at the
  // time) may be added: the decision panel adds the point of view's own, or everyone's.
  DV.stepWords = function (m, k, reveal) {
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
  };

  // One event of an observation's `events` as a sentence: the engine's text when it has one, else
  // the renderer's words for its type, else its fields spelled out (never the bare type).
  // `by` says which ("engine", "renderer", "fields"): the tests require "renderer" for every
  // event an engine sends without text.
  // `where` = {frame, index, count}: the event is the index-th of the count an observation at
  // that frame carried; a renderer may read the public views recorded around it (ctx.snapshots).
  DV.eventWords = function (m, e, where) {
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
  };

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

  DV.msText = function (value) {
    if (value === null || value === undefined) { return ""; }
    return (value < 10 ? Number(value).toFixed(value < 1 ? 2 : 1) : Math.round(value)) + " ms";
  };

  // "seat 1 (b) rank 1 (12), seat 0 (a) rank 2 (7)."
  DV.resultWords = function (m) {
    var result = m.replay.result, parts = [];
    if (!result) { return ""; }
    (result.ranks || []).forEach(function (rank, seat) {
      parts.push({rank: rank, text: DV.seatName(m.ctx, seat) + " rank " + rank + " (" + (result.scores || [])[seat] + ")"});
    });
    parts.sort(function (a, b) { return a.rank - b.rank; });
    return parts.map(function (p) { return p.text; }).join(", ") + ".";
  };
})(window);
