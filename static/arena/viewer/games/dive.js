// Dive: the ocean view grid with its tints and species exactly as the bots see it, the descent
// track with pawns, each seat's plan and air tokens at the reveal, the village chief in solo games,
// companions when on. Revealed cards are drawn from the legend (the engine's card table).
(function (DV) {
  "use strict";
  var svg = DV.svg, label = DV.label;
  var SPECIES_FILL = {shark: "#546e7a", turtle: "#43a047", manta: "#8e24aa"};
  var LETTER = {shark: "S", turtle: "T", manta: "M"};

  function creature(x, y, size, species, attrs) {
    var g = svg("g", attrs || {});
    var fill = SPECIES_FILL[species] || "#888";
    if (species === "shark") {
      g.appendChild(svg("path", {d: "M" + (x - size * 0.45) + " " + (y + size * 0.3) + " L" + x + " " + (y - size * 0.45) + " L" + (x + size * 0.45) + " " + (y + size * 0.3) + " Z", fill: fill}));
    } else if (species === "manta") {
      g.appendChild(svg("path", {d: "M" + (x - size * 0.5) + " " + y + " L" + x + " " + (y - size * 0.35) + " L" + (x + size * 0.5) + " " + y + " L" + x + " " + (y + size * 0.35) + " Z", fill: fill}));
    } else {
      g.appendChild(svg("circle", {cx: x, cy: y, r: size * 0.38, fill: fill}));
    }
    g.appendChild(label(x, y + size * 0.16, LETTER[species] || "?", {"text-anchor": "middle", "font-size": size * 0.4, fill: "#fff", "font-weight": 700}));
    return g;
  }

  // A card as it lies: a 3x3 grid with its creatures (from the legend's card table).
  function cardGrid(x, y, cell, cardId, orientation, legend, attrs) {
    var info = (legend.cards || [])[cardId];
    var g = svg("g", Object.assign({"data-card-id": cardId, "data-orientation": orientation}, attrs || {}));
    g.appendChild(svg("rect", {x: x, y: y, width: cell * 3, height: cell * 3, fill: "#d7eefc", stroke: "#5a8fb0", rx: 3}));
    if (!info) {
      g.appendChild(label(x + cell * 1.5, y + cell * 1.7, "#" + cardId, {"text-anchor": "middle", "class": "rv-tiny"}));
      return g;
    }
    (info.creatures[orientation] || []).forEach(function (pair) {
      var c = pair[0];
      g.appendChild(creature(x + (c % 3) * cell + cell / 2, y + Math.floor(c / 3) * cell + cell / 2, cell * 0.9, pair[1], {"data-cell": c, "data-species": pair[1]}));
    });
    return g;
  }

  function callsText(calls) { return calls.map(function (c) { return c === "shark" ? "S" : "A"; }).join(""); }

  DV.register("dive", {
    title: "Dive",

    phase: function (view) { return view && view.round ? "Round " + view.round : null; },

    tally: function (view) { return (view.positions || []).join(",") + "|" + view.chief_position; },

    describe: function (record, before, after, ctx) {
      var kind = record.actions[0] && record.actions[0].type;
      var who = DV.list(record.to_act.map(function (s) { return DV.seatName(ctx, s); }));
      var words = [who + (kind === "plan" ? " planned their dives in secret" : kind === "air" ? " placed their air tokens in secret" : " acted")];
      var reveal = after && after.last_round;
      if (kind === "air" && reveal && (!before || !before.last_round || before.last_round.round !== reveal.round)) {
        words.push("round " + reveal.round + " revealed: " + (reveal.plans || []).map(function (plan, seat) {
          return "seat " + seat + " " + callsText(plan.calls) + " bids " + plan.bids.join("/") + (plan.companion ? " with " + DV.words(plan.companion) : "");
        }).join(", "));
        (reveal.levels || []).forEach(function (level, i) {
          var bits = [];
          if ((level.wrong || []).length) { bits.push("wrong call by seat " + level.wrong.join(", ")); }
          if ((level.forgiven || []).length) { bits.push("octopus saved seat " + level.forgiven.join(", ")); }
          if (level.helper) { bits.push(level.helper.kind + " → " + (level.helper.winner === "chief" ? "the chief" : "seat " + level.helper.winner) + " to " + level.helper.to); }
          words.push("level " + (i + 1) + ": card " + level.card + (bits.length ? " (" + bits.join("; ") + ")" : ""));
        });
        words.push("advance " + (reveal.advance || []).join(", ") + (reveal.wiped && reveal.wiped.some(Boolean) ? "; wiped: seat "
          + reveal.wiped.map(function (w, s) { return w ? s : null; }).filter(function (s) { return s !== null; }).join(", ") : ""));
      }
      return [words.join("; ") + "."];
    },

    // An observation's event (the same facts as `last_round`).
    event: function (e, ctx) {
      var seats = function (list) { return DV.list((list || []).map(function (s) { return DV.seatName(ctx, s); })); };
      var flagged = function (flags) { return (flags || []).map(function (f, s) { return f ? s : null; }).filter(function (s) { return s !== null; }); };
      switch (e.type) {
        case "plans_made": return "round " + e.round + ": every diver planned its calls in secret";
        case "reveal": {
          var plans = (e.plans || []).map(function (plan, seat) {
            return DV.seatName(ctx, seat) + " called " + (plan.calls || []).join(", ") + ", air tokens on levels " + (plan.token_levels || []).join(", ")
              + ", bids " + (plan.bids || []).join("/") + (plan.companion ? ", with " + DV.words(plan.companion) : "");
          });
          var chief = e.chief ? "; the village chief at depth " + e.chief.depth + " bid " + (e.chief.bids || []).join("/") : "";
          return "round " + e.round + " revealed: " + plans.join("; ") + chief;
        }
        case "level": {
          var bits = [];
          if ((e.wrong || []).length) { bits.push("wrong call by " + seats(e.wrong)); }
          if ((e.forgiven || []).length) { bits.push("the octopus saved " + seats(e.forgiven)); }
          if (e.helper) {
            bits.push("the " + e.helper.kind + " took " + (e.helper.winner === "chief" ? "the chief" : DV.seatName(ctx, e.helper.winner)) + " to " + e.helper.to);
          }
          return "level " + e.level + ": card " + e.card + " (orientation " + e.orientation + ")" + (bits.length ? "; " + bits.join("; ") : "");
        }
        case "rest": {
          var moves = (e.advance || []).map(function (a, s) { var right = (e.succeeded || [])[s];
            return DV.seatName(ctx, s) + " " + right + (right === 1 ? " correct call" : " correct calls") + ", +" + a + " to " + (e.positions || [])[s]; });
          var wiped = flagged(e.wiped);
          return "the divers rested: " + moves.join(", ") + (wiped.length ? "; wiped out: " + seats(wiped) : "")
            + (e.chief_position !== null && e.chief_position !== undefined ? "; the chief is at " + e.chief_position : "");
        }
        case "refill": return "round " + e.round + ": the discard pile (" + e.cards + " cards) was shuffled back into the stack";
        case "game_over": return "the game ended after " + e.rounds + " rounds";
        default: return null;
      }
    },

    secret: function (action) {
      if (!action) { return null; }
      if (action.type === "plan") { return "calls " + action.calls.join(", ") + (action.companion ? ", using its companion" : ""); }
      if (action.type === "air") { return "air tokens 1..5 on levels " + action.token_levels.join(", "); }
      return null;
    },

    resultNotes: function (final, ctx) {
      var result = final.result || {}, notes = [];
      if (result.rounds) { notes.push("Played " + result.rounds + " rounds."); }
      if (result.chief_position !== undefined && result.chief_position !== null) {
        notes.push("Solo: " + DV.seatName(ctx, 0) + " reached " + result.position + ", the village chief " + result.chief_position + ".");
      }
      return notes;
    },

    render: function (view, pov, ctx) {
      var compact = !!ctx.compact, legend = ctx.legend || {};
      var W = compact ? 420 : 800, positions = view.positions || [], n = positions.length;
      var cell = 62, gx = 10, gy = 54;
      var trackX = compact ? 10 : 240, trackY = compact ? gy + cell * 3 + 30 : 60, stone = legend.stone || 23, deep = legend.deep_water || 16;
      var maxPos = Math.max(stone, Math.max.apply(null, positions.concat([view.chief_position || 0])));
      var perRow = compact ? 12 : maxPos + 1, spaceW = compact ? 33 : Math.min(22, (W - trackX - 10) / (maxPos + 1));
      // Pawns stack under their space: each track row is as tall as its highest stack.
      var stacked = {};
      positions.concat(view.chief_position === null || view.chief_position === undefined ? [] : [view.chief_position])
        .forEach(function (p) { stacked[p] = (stacked[p] || 0) + 1; });
      var highest = Math.max.apply(null, [1].concat(Object.keys(stacked).map(function (p) { return stacked[p]; })));
      var rowH = 32 + highest * 12;
      var trackRows = Math.ceil((maxPos + 1) / perRow), trackH = trackRows * rowH + 10;
      var stackY = compact ? trackY + trackH + 10 : gy + cell * 3 + 24;
      var hasStack = Array.isArray(view.stack);
      var revealY = stackY + (view.phase === "over" && !hasStack ? 0 : 96) + (compact && view.phase === "air" ? n * 14 + 10 : 0) + 10;
      var last = view.last_round;
      var lineH = compact ? 36 : 22;
      var revealH = last ? 40 + (n + (last.chief ? 1 : 0)) * lineH + 70 : 0;
      var compY = revealY + revealH;
      var compLines = view.companions ? (compact ? view.companions.length : 1) : 0;
      var height = compY + compLines * 14 + 26;
      var board = DV.board("dive", W, height, {
        "data-round": view.round, "data-phase": view.phase, "data-positions": positions.join(","),
        "data-chief-position": view.chief_position, "data-stack-size": view.stack_size,
        "data-companions": view.companions ? view.companions.map(function (c) { return c.id + ":" + (c.used ? "used" : "unused"); }).join(",") : null,
        "aria-label": "Dive, round " + view.round + ", " + view.phase
      });
      // The rounds this game lasted (the replay's last public view): "Round 3 of 5", never the
      // 30-round safety limit of a game that ended in round 5.
      var played = ctx.lastView && ctx.lastView.round;
      var rounds = played ? " of " + played : " (at most " + (legend.max_rounds || 30) + ")";
      board.appendChild(label(10, 22, "Round " + view.round + rounds + " · " + (view.phase === "plan" ? "planning calls"
        : view.phase === "air" ? "placing air tokens" : view.phase === "over" ? "game over" : view.phase),
        {"class": "rv-title", "data-role": "round-title", "data-rounds": played || null}));
      board.appendChild(label(10, 40, "stack " + view.stack_size + " cards · " + (view.carried_levels || 0) + " carried levels · "
        + (view.discard || []).length + " discarded" + (view.solo ? " · solo against the village chief" : ""), {"class": "rv-tiny rv-dim"}));

      // The ocean view, exactly as every seat sees it.
      // The ocean view as the divers see it: the five transparent level cards stacked (their edges
      // behind), each creature seen through the haze of the cards above it, drawn as that many
      // translucent layers over it: the deeper and hazier, the fainter.
      var ocean = view.ocean_view;
      var grid = svg("g", {"data-role": "ocean"});
      for (var edge = 4; edge >= 1; edge--) {
        grid.appendChild(svg("rect", {x: gx + edge * 3, y: gy + edge * 3, width: cell * 3 - 2, height: cell * 3 - 2, rx: 5,
          fill: "#d7eefc", "fill-opacity": 0.55, stroke: "#5a8fb0", "stroke-opacity": 0.6, "data-card-edge": edge}));
      }
      grid.appendChild(svg("rect", {x: gx, y: gy, width: cell * 3 - 2, height: cell * 3 - 2, rx: 5, fill: "#e8f6fe", stroke: "#5a8fb0"}));
      for (var c = 0; c < 9; c++) {
        var entry = ocean ? ocean[c] : null, x = gx + (c % 3) * cell, y = gy + Math.floor(c / 3) * cell;
        var tint = entry ? entry.tint : 0;
        var cellGroup = svg("g", {"data-cell": c, "data-species": entry ? entry.species : null, "data-tint": entry ? entry.tint : null});
        cellGroup.appendChild(svg("rect", {x: x + 2, y: y + 2, width: cell - 6, height: cell - 6, rx: 4, fill: "none",
          stroke: "#9cc7e0", "stroke-dasharray": "3 3"}));
        if (entry) {
          cellGroup.appendChild(creature(x + cell / 2 - 1, y + cell / 2 - 1, cell * 0.62, entry.species));
          for (var layer = 0; layer < tint; layer++) {   // one translucent haze layer per step of tint
            cellGroup.appendChild(svg("rect", {x: x + 4, y: y + 4, width: cell - 10, height: cell - 10, rx: 4,
              fill: "#cfe9f7", "fill-opacity": 0.08, "data-haze": layer + 1}));
          }
          cellGroup.appendChild(svg("title", null, DV.words(entry.species) + ", seen through haze " + tint + " (the level cards above it)"));
        }
        grid.appendChild(cellGroup);
      }
      if (!ocean) { grid.appendChild(label(gx + cell * 1.5, gy + cell * 1.5, "no dive", {"text-anchor": "middle", "class": "rv-small"})); }
      board.appendChild(grid);

      // The descent track: pawns, deep water, the sacred stone.
      var track = svg("g", {"data-role": "track"});
      for (var s = 0; s <= maxPos; s++) {
        var row = Math.floor(s / perRow), col = s % perRow;
        var sx = trackX + col * spaceW, sy = trackY + row * rowH;
        track.appendChild(svg("rect", {x: sx, y: sy, width: spaceW - 2, height: 20, rx: 2, "data-space": s,
          fill: s === stone ? "#f2c14e" : s >= deep ? "#0b3d5c" : "#7fb8d8"}));
        track.appendChild(label(sx + (spaceW - 2) / 2, sy + 14, s, {"text-anchor": "middle", "class": "rv-tiny", fill: s >= deep && s !== stone ? "#fff" : "#1b1f24"}));
        var here = 0;
        positions.forEach(function (p, seat) {
          if (p !== s) { return; }
          track.appendChild(svg("g", {"data-pawn": "", "data-seat": seat, "data-position": p}, [
            svg("circle", {cx: sx + (spaceW - 2) / 2, cy: sy + 30 + here * 12, r: 5.5, fill: DV.seatColour(seat), stroke: "#1b1f24", "stroke-width": 0.6}),
            label(sx + (spaceW - 2) / 2, sy + 32.5 + here * 12, seat, {"text-anchor": "middle", "font-size": 7, fill: "#fff"})
          ]));
          here += 1;
        });
        if (view.chief_position === s) {
          track.appendChild(svg("g", {"data-pawn": "", "data-chief": "", "data-position": s}, [
            svg("rect", {x: sx + (spaceW - 2) / 2 - 5.5, y: sy + 24.5 + here * 12, width: 11, height: 11, fill: "#6d4c41"}),
            label(sx + (spaceW - 2) / 2, sy + 33 + here * 12, "C", {"text-anchor": "middle", "font-size": 8, fill: "#fff"})
          ]));
        }
      }
      track.appendChild(label(trackX, trackY - 6, "descent track (deep water from " + deep + ", the stone on " + stone + ")", {"class": "rv-tiny rv-dim"}));
      board.appendChild(track);

      // The five level cards: face down (only the ocean view is known), or as they lie in the full view.
      var levelCount = legend.levels || 5;
      var stack = svg("g", {"data-role": hasStack ? "levels" : "levels-hidden"});
      if (hasStack) {
        stack.appendChild(label(10, stackY, "the levels (full view)", {"class": "rv-tiny", "font-weight": 600}));
        view.stack.slice(0, levelCount).forEach(function (pair, i) {
          var lx = 10 + i * 66;
          stack.appendChild(label(lx, stackY + 14, "L" + (i + 1) + " haze " + ((legend.cards || [])[pair[0]] || {}).haze, {"class": "rv-tiny"}));
          stack.appendChild(cardGrid(lx, stackY + 18, 20, pair[0], pair[1], legend, {"data-level": i + 1}));
        });
      } else if (view.phase !== "over") {
        stack.appendChild(label(10, stackY, levelCount + " level cards, face down (" + view.stack_size + " in the stack)", {"class": "rv-tiny", "font-weight": 600}));
        for (var lv = 0; lv < levelCount; lv++) {
          stack.appendChild(svg("rect", {x: 10 + lv * 66, y: stackY + 18, width: 60, height: 60, rx: 4, "class": "rv-face-down",
                                         "data-face": "down", "data-level-back": lv + 1}));
          stack.appendChild(label(40 + lv * 66, stackY + 52, "L" + (lv + 1), {"text-anchor": "middle", "class": "rv-small", fill: "#fff"}));
        }
      }
      // This round's plans: secret until the reveal (face down), the seat's own, or all in the full view.
      if (view.phase === "air") {
        var px = compact ? 10 : 350;
        for (var ps = 0; ps < n; ps++) {
          var plan = Array.isArray(view.plans) ? view.plans[ps] : ps === view.seat && view.my_plan ? view.my_plan : null;
          var py = compact ? stackY + 92 + ps * 14 : stackY + 14 + ps * 16;
          if (plan) {
            stack.appendChild(label(px, py, "seat " + ps + (ps === view.seat ? " (you)" : "") + " plans " + plan.calls.join(", ")
              + (plan.companion ? " + companion" : ""), {"class": "rv-tiny", "data-plan": ps, "data-calls": plan.calls.join(",")}));
          } else {
            stack.appendChild(svg("rect", {x: px, y: py - 9, width: 10, height: 11, "class": "rv-face-down", "data-plan-hidden": ps}));
            stack.appendChild(label(px + 14, py, "seat " + ps + " planned in secret", {"class": "rv-tiny rv-dim"}));
          }
        }
      }
      board.appendChild(stack);

      // The last reveal: every plan with its bids, the cards turned, wrong calls, helpers, moves.
      if (last) {
        var rv = svg("g", {"data-role": "reveal", "data-round": last.round});
        rv.appendChild(label(10, revealY + 14, "Round " + last.round + " reveal", {"class": "rv-small", "font-weight": 700}));
        // Wide: one line per seat, a column per level. Narrow: the seat's name above its calls.
        var colX = compact ? 10 : 230, colW = compact ? 80 : 110, under = compact ? 15 : 0;
        (last.levels || []).forEach(function (level, i) {
          var lx = colX + i * colW;
          var headX = compact ? lx : lx, headY = compact ? revealY + 30 : revealY + 14;
          rv.appendChild(label(headX, headY, "L" + (i + 1), {"class": "rv-tiny", "font-weight": 600}));
          rv.appendChild(cardGrid(headX + 16, headY - 12, 9, level.card, level.orientation, legend, {"data-revealed-level": i + 1}));
        });
        var lines = (last.plans || []).map(function (plan, seat) { return {plan: plan, seat: seat}; });
        if (last.chief) { lines.push({chief: last.chief}); }
        lines.forEach(function (line, r) {
          var ly = revealY + (compact ? 62 : 48) + r * lineH;
          if (line.chief) {
            rv.appendChild(label(10, ly, "village chief", {"class": "rv-tiny", "font-weight": 600}));
            line.chief.bids.forEach(function (bid, i) {
              rv.appendChild(label(colX + i * colW, ly + under, "✓ " + bid, {"class": "rv-tiny", "data-chief-bid": i + 1}));
            });
            return;
          }
          var plan = line.plan, seat = line.seat;
          rv.appendChild(svg("circle", {cx: 16, cy: ly - 3, r: 5, fill: DV.seatColour(seat)}));
          rv.appendChild(label(25, ly, DV.seatTitle(ctx, seat, pov) + (plan.companion ? " + " + DV.words(plan.companion) : ""), {"class": "rv-tiny", "font-weight": 600}));
          plan.calls.forEach(function (call, i) {
            var level = (last.levels || [])[i];
            var wrong = level && (level.wrong || []).indexOf(seat) >= 0, saved = level && (level.forgiven || []).indexOf(seat) >= 0;
            var won = level && level.helper && level.helper.winner === seat;
            rv.appendChild(label(colX + i * colW, ly + under, (call === "shark" ? "shark" : "air") + " " + plan.bids[i] + (wrong ? " ✕" : saved ? " (saved)" : level ? " ✓" : "") + (won ? " ★" : ""),
              {"class": "rv-tiny", fill: wrong ? "#b00020" : "#1b1f24", "data-call": call, "data-level": i + 1, "data-seat": seat, "data-bid": plan.bids[i],
               "data-wrong": wrong ? "true" : "false"}));
          });
          rv.appendChild(label(W - 10, ly, "+" + (last.advance || [])[seat] + ((last.wiped || [])[seat] ? " wiped" : "") + " → " + (last.positions || [])[seat],
            {"text-anchor": "end", "class": "rv-tiny", "data-advance": (last.advance || [])[seat]}));
        });
        var legendY = revealY + (compact ? 62 : 48) + lines.length * lineH + 4;
        rv.appendChild(label(10, legendY, "✓ right call · ✕ wrong call · ★ won the level's helper", {"class": "rv-tiny rv-dim"}));
        rv.appendChild(label(10, legendY + 14, "air tokens 1..5 on levels: "
          + (last.plans || []).map(function (plan, seat) { return "seat " + seat + " " + (plan.token_levels || []).join(""); }).join(", "), {"class": "rv-tiny rv-dim"}));
        board.appendChild(rv);
      }
      if (view.companions) {
        var words = view.companions.map(function (comp, seat) { return "seat " + seat + " " + DV.words(comp.id) + (comp.used ? " (used)" : ""); });
        (compact ? words : [words.join(" · ")]).forEach(function (text, line) {
          board.appendChild(label(10, compY + 16 + line * 14, (line === 0 ? "companions: " : "") + text, {"class": "rv-tiny", "data-role": line === 0 ? "companions" : null}));
        });
      }
      return board;
    }
  });
})(window.DiveViewer);
