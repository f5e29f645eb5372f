// Divee!: the five dice (kept or re-rolled), re-rolls used, every seat's combination cards (in hand,
// scored with their bonus, discarded), special tiles when on, scores, the solo title at the end.
(function (DV) {
  "use strict";
  var svg = DV.svg, label = DV.label;
  // Display names of the card ids (words only; points and conditions come from the views/legend).
  var NAMES = {divee: "Divee", four_dice: "4 Dice", straight: "Straight", full_house: "Full House",
               big_dive: "Big Dive", small_dive: "Small Dive"};
  function cardName(id) { return NAMES[id] || DV.words(id); }

  // Which of the sorted dice were kept by the current turn's last re-roll (the rest were rolled).
  function keptFlags(view) {
    var log = view.log || [], lastEntry = log[log.length - 1];
    var dice = view.dice || [];
    if (!lastEntry || lastEntry.seat !== view.current_seat || !lastEntry.keep) { return dice.map(function () { return false; }); }
    var left = {};
    lastEntry.keep.forEach(function (v) { left[v] = (left[v] || 0) + 1; });
    return dice.map(function (v) { if (left[v]) { left[v] -= 1; return true; } return false; });
  }

  function actionWords(action, seat, before, ctx) {
    switch (action && action.type) {
      case "claim": return "claimed " + cardName(action.card);
      case "reroll": return "re-rolled, keeping " + (action.keep.length ? action.keep.join(" ") : "nothing");
      case "one_more_roll": return "used One More Roll, keeping " + (action.keep.length ? action.keep.join(" ") : "nothing");
      case "flip": return "flipped a " + action.value + " with Flip Over";
      default: return JSON.stringify(action);
    }
  }

  function logWords(entry, ctx) {
    var who = DV.seatName(ctx, entry.seat);
    switch (entry.type) {
      case "roll": return who + " rolled " + entry.dice.join(" ");
      case "instant_win": return who + " rolled a first-roll Divee (" + entry.dice.join(" ") + ") and wins at once";
      case "reroll": case "one_more_roll": return who + " rolled " + entry.rolled.join(" ") + " → " + entry.dice.join(" ");
      case "flip": return who + " now has " + entry.dice.join(" ");
      case "claim": return who + (entry.outcome === "scored" ? " scored " + cardName(entry.card) + " for " + entry.points
                                   : " discarded " + cardName(entry.card)) + (entry.forced ? " (forced)" : "");
      default: return null;
    }
  }

  DV.register("divee", {
    title: "Divee!",

    phase: function (view) { return view && view.round ? "Round " + view.round : null; },

    tally: function (view) { return (view.seats || []).map(function (s) { return s.score; }).join(","); },

    describe: function (record, before, after, ctx) {
      var words = record.to_act.map(function (seat, i) { return DV.seatName(ctx, seat) + " " + actionWords(record.actions[i], seat, before, ctx); });
      var earlier = before && before.log ? before.log.length : 0;
      (after && after.log ? after.log.slice(earlier) : []).forEach(function (entry) {
        var text = logWords(entry, ctx);
        if (text) { words.push(text); }
      });
      return [words.join("; ") + "."];
    },

    // An observation's event: the spectator log's entry.
    event: function (e, ctx) {
      var text = logWords(e, ctx);
      if (text && e.type === "roll" && e.round) { text = "round " + e.round + ": " + text; }
      if (text && (e.type === "reroll" || e.type === "one_more_roll")) {
        text = DV.seatName(ctx, e.seat) + (e.type === "one_more_roll" ? " used One More Roll, keeping " : " re-rolled, keeping ")
          + ((e.keep || []).length ? e.keep.join(" ") : "nothing") + ": rolled " + (e.rolled || []).join(" ") + " → " + (e.dice || []).join(" ");
      }
      if (text && e.type === "flip") { text = DV.seatName(ctx, e.seat) + " flipped a " + e.value + " with Flip Over: " + (e.dice || []).join(" "); }
      return text;
    },

    resultNotes: function (final, ctx) {
      var result = final.result || {}, notes = [];
      if (result.instant_winner !== null && result.instant_winner !== undefined) {
        notes.push(DV.seatName(ctx, result.instant_winner) + " won at once with a first-roll Divee.");
      }
      if (result.title) { notes.push("Solo title: " + result.title + (result.tier ? " (tier " + result.tier + " of 8)" : "") + "."); }
      return notes;
    },

    render: function (view, pov, ctx) {
      var compact = !!ctx.compact, W = compact ? 420 : 800;
      var seats = view.seats || [], legend = ctx.legend || {};
      var cards = legend.cards || Object.keys(NAMES);
      var base = legend.base_points || {};
      var rowH = compact ? 118 : 76, top = 118;
      var height = top + seats.length * rowH + 10;
      var board = DV.board("divee", W, height, {
        "data-round": view.round, "data-current-seat": view.current_seat, "data-dice": (view.dice || []).join(","),
        "data-rerolls-used": view.rerolls_used, "data-rerolls-left": Math.max(0, ((ctx.legend || {}).rerolls || 2) - (view.rerolls_used || 0)), "data-instant-winner": view.instant_winner,
        "aria-label": "Divee!, round " + view.round
      });
      board.appendChild(svg("rect", {x: 0, y: 0, width: W, height: top - 8, fill: "#e3f4fb"}));
      var over = view.current_seat === null || view.current_seat === undefined;
      board.appendChild(label(12, 22, "Round " + view.round + " of " + (legend.rounds || 6)
        + (over ? " · game over" : " · " + DV.seatName(ctx, view.current_seat) + " rolling"), {"class": "rv-title"}));
      // The dice: kept ones are outlined, re-rolled ones plain.
      var kept = keptFlags(view), dx = 12;
      (view.dice || []).forEach(function (value, i) {
        var die = DV.die(dx + i * 52, 34, 44, value, {"data-kept": kept[i] ? "true" : "false"});
        if (kept[i]) { die.firstChild.classList.add("rv-die-kept"); }
        board.appendChild(die);
      });
      var used = view.rerolls_used || 0, allowed = legend.rerolls || 2;
      var info = ["re-rolls: " + used + " used, " + Math.max(0, allowed - used) + " left"];
      if (view.first_roll) { info.push("first roll"); }
      if (view.omr_used_this_turn) { info.push("One More Roll used"); }
      if (view.flip_used_this_turn) { info.push("Flip Over used"); }
      board.appendChild(label(compact ? 12 : 290, compact ? 100 : 52, info.join(" · "), {"class": "rv-small", "data-role": "roll-info"}));
      if (!compact) { board.appendChild(label(290, 72, "outlined dice were kept from the last re-roll", {"class": "rv-tiny rv-dim"})); }
      if (view.instant_winner !== null && view.instant_winner !== undefined) {
        board.appendChild(label(compact ? 12 : 290, compact ? 112 : 92, DV.seatName(ctx, view.instant_winner) + " won with a first-roll Divee!",
          {"class": "rv-small", "font-weight": 700, fill: "#b00020"}));
      }

      // Every seat: score, the six cards, the tiles.
      var preview = view.claim_preview || {};
      seats.forEach(function (seatView, seat) {
        var y = top + seat * rowH, current = seat === view.current_seat;
        var row = svg("g", {"data-seat-row": "", "data-seat": seat, "data-score": seatView.score});
        row.appendChild(svg("rect", {x: 4, y: y, width: W - 8, height: rowH - 6, rx: 6, fill: current ? "#fff4d6" : "#f6f8fa", stroke: "#d0d7de"}));
        row.appendChild(svg("circle", {cx: 18, cy: y + 16, r: 7, fill: DV.seatColour(seat)}));
        row.appendChild(label(30, y + 20, DV.seatTitle(ctx, seat, pov), {"class": "rv-small", "font-weight": 600}));
        row.appendChild(label(30, y + 38, "score " + seatView.score, {"class": "rv-small", "font-weight": 700, "data-role": "score"}));
        if (view.special_tiles) {
          [["one_more_roll", "One More Roll"], ["flip_over", "Flip Over"]].forEach(function (tile, t) {
            var unused = !!seatView[tile[0]];
            var tx = compact ? 200 + t * 100 : 30 + t * 82, ty = compact ? y + 27 : y + 46;
            row.appendChild(svg("g", {"data-tile": tile[0], "data-unused": unused ? "true" : "false"}, [
              svg("rect", {x: tx, y: ty, width: 78, height: 18, rx: 4, fill: unused ? "#d6ecff" : "#eeeeee", stroke: unused ? "#2e86ab" : "#bbb",
                           "stroke-dasharray": unused ? null : "3 2"}),
              label(tx + 39, ty + 13, tile[1] + (unused ? "" : " ✕"), {"text-anchor": "middle", "class": "rv-tiny", fill: unused ? "#0b3d5c" : "#888"})
            ]));
          });
        }
        var cx0 = compact ? 12 : 200, cy0 = compact ? y + 48 : y + 8, cw = compact ? 64 : 96, ch = compact ? 58 : 56;
        cards.forEach(function (id, i) {
          var state = (seatView.cards || {})[id] || "hand";
          var points = (seatView.card_points || {})[id];
          var x = cx0 + i * (cw + 2);
          var fill = state === "scored" ? "#d8f3dc" : state === "discarded" ? "#e5e5e5" : "#ffffff";
          var g = svg("g", {"data-card": id, "data-state": state, "data-points": state === "scored" ? points : null});
          g.appendChild(svg("rect", {x: x, y: cy0, width: cw, height: ch, rx: 5, fill: fill, stroke: state === "hand" ? "#57606a" : state === "scored" ? "#2d6a4f" : "#aaa"}));
          g.appendChild(label(x + cw / 2, cy0 + 15, cardName(id), {"text-anchor": "middle", "class": "rv-tiny", "font-weight": 600,
                                                                    fill: state === "discarded" ? "#888" : "#1b1f24"}));
          if (state === "scored") {
            var bonus = typeof base[id] === "number" ? points - base[id] : 0;
            g.appendChild(label(x + cw / 2, cy0 + 38, String(points), {"text-anchor": "middle", "font-size": 18, "font-weight": 700, fill: "#2d6a4f"}));
            if (bonus > 0) {
              g.appendChild(svg("circle", {cx: x + cw - 12, cy: cy0 + ch - 12, r: 9, fill: "#e8a33d", "data-bonus": bonus}));
              g.appendChild(label(x + cw - 12, cy0 + ch - 8.5, "+" + bonus, {"text-anchor": "middle", "class": "rv-tiny", "font-weight": 700}));
            }
          } else if (state === "discarded") {
            g.appendChild(svg("line", {x1: x + 6, y1: cy0 + ch - 8, x2: x + cw - 6, y2: cy0 + 22, stroke: "#999", "stroke-width": 2}));
            g.appendChild(label(x + cw / 2, cy0 + 44, "discarded", {"text-anchor": "middle", "class": "rv-tiny", fill: "#888"}));
          } else if (current && preview[id] !== undefined) {
            g.setAttribute("data-preview", preview[id]);
            g.appendChild(label(x + cw / 2, cy0 + 40, preview[id] ? "now: " + preview[id] : "now: 0", {"text-anchor": "middle", "class": "rv-tiny",
                                                                                                       fill: preview[id] ? "#2d6a4f" : "#888"}));
          } else {
            g.appendChild(label(x + cw / 2, cy0 + 40, "in hand", {"text-anchor": "middle", "class": "rv-tiny rv-dim"}));
          }
          row.appendChild(g);
        });
        board.appendChild(row);
      });
      return board;
    }
  });
})(window.DiveViewer);
