// Deep Sea Adventure: the submarine, the air track, the path of chips by level, divers with their
// carried chips (values face down unless the view holds them), the round and the last roll.
(function (DV) {
  "use strict";
  var svg = DV.svg, label = DV.label;
  // Two layouts: a wide one, and a narrow one for phones (ctx.compact) that stays readable.
  function layout(compact) {
    return compact ? {W: 420, perRow: 5, cell: 84, rowH: 86, top: 168, seatH: 78, airX: 12, airY: 80, rollX: 200, rollY: 10}
                   : {W: 800, perRow: 8, cell: 100, rowH: 92, top: 96, seatH: 50, airX: 180, airY: 10, rollX: 600, rollY: 10};
  }
  var L = layout(false);

  // A chip: its level's shape with as many dots, face down, or face up with its value.
  function chip(x, y, r, level, value, extra) {
    var sides = level + 2, points = [];
    for (var i = 0; i < sides; i++) {
      var angle = -Math.PI / 2 + (2 * Math.PI * i) / sides;
      points.push((x + r * Math.cos(angle)).toFixed(1) + "," + (y + r * Math.sin(angle)).toFixed(1));
    }
    var up = value !== undefined && value !== null;
    var group = svg("g", Object.assign({"class": "rv-chip", "data-chip": "", "data-level": level,
      "data-face": up ? "up" : "down", "data-value": up ? value : null}, extra || {}));
    group.appendChild(svg("polygon", {points: points.join(" "), "class": up ? "rv-face-up" : "rv-face-down", "stroke-width": 1.2}));
    if (up) {
      group.appendChild(label(x, y + r * 0.35, value, {"text-anchor": "middle", "font-size": r * 0.95, "font-weight": 700}));
    } else {
      for (var d = 0; d < level; d++) {
        group.appendChild(svg("circle", {cx: x + (d - (level - 1) / 2) * r * 0.42, cy: y + r * 0.1, r: r * 0.12, "class": "rv-light", fill: "#fff"}));
      }
    }
    return group;
  }

  function spaceXY(index) {       // index 0 = space 1; rows snake left-right, right-left
    var row = Math.floor(index / L.perRow), col = index % L.perRow;
    if (row % 2 === 1) { col = L.perRow - 1 - col; }
    return {x: col * L.cell + L.cell / 2, y: L.top + row * L.rowH + L.rowH / 2};
  }

  function actionWords(action, seat, before) {
    var diver = before && before.divers ? before.divers[seat] : null;
    switch (action && action.type) {
      case "continue": return "kept diving";
      case "turn_back": return "turned back";
      case "pass": return "passed";
      case "take": {
        var space = diver && before.path ? before.path[diver.position - 1] : null;
        var levels = space && space.levels ? space.levels : [];
        return levels.length > 1 ? "took a stack of levels " + levels.join("+") : levels.length ? "took a level-" + levels[0] + " chip" : "took the chip";
      }
      case "drop": {
        var item = diver && diver.carried ? diver.carried[action.item] : null;
        return "dropped " + (item ? (item.length > 1 ? "a stack of levels " + item.join("+") : "a level-" + item[0] + " chip") : "item " + action.item);
      }
      default: return JSON.stringify(action);
    }
  }

  function logWords(entry, ctx) {
    var who = DV.seatName(ctx, entry.seat);
    switch (entry.event) {
      case "roll": return who + " rolled " + entry.dice.join("+") + " and moved " + entry.moves;
      case "action": return who + " " + actionWords(entry.action, entry.seat, null) + (entry.forced ? " (forced)" : "");
      case "return": return who + " got back to the submarine";
      case "round_end": return "round " + entry.round + " ended";
      default: return null;
    }
  }

  // The spectator view just before an observation's event happened, or null. The events are the
  // tail of the public log at their frame; the view before is the frame before the log first held
  // the entry. Checked against the entry itself, so a log that does not line up says nothing.
  function viewBefore(e, ctx, where) {
    var snaps = ctx.snapshots;
    if (!where || !snaps || !snaps[where.frame]) { return null; }
    var log = (snaps[where.frame].spectator || {}).log || [];
    var at = log.length - where.count + where.index, entry = log[at];
    if (at < 0 || !entry || entry.event !== e.type || entry.seat !== e.seat) { return null; }
    var low = 1, high = where.frame;   // the first frame whose log holds entry `at`
    while (low < high) {
      var mid = (low + high) >> 1;
      if ((((snaps[mid].spectator || {}).log) || []).length > at) { high = mid; } else { low = mid + 1; }
    }
    return snaps[low - 1] ? snaps[low - 1].spectator : null;
  }

  DV.register("deep_sea_adventure", {
    title: "Deep Sea Adventure",

    phase: function (view) { return view && view.round ? "Round " + view.round : null; },

    // Chips secured: the score can only change when a diver gets back.
    tally: function (view) {
      return (view.divers || []).map(function (d) { return (d.secured_levels || []).length; }).join(",");
    },

    describe: function (record, before, after, ctx) {
      var words = record.to_act.map(function (seat, i) {
        return DV.seatName(ctx, seat) + " " + actionWords(record.actions[i], seat, before);
      });
      var earlier = before && before.log ? before.log.length : 0;
      var entries = after && after.log ? after.log.slice(earlier) : [];
      entries.forEach(function (entry, i) {
        if (i === 0 && entry.event === "action" && !entry.forced) { return; }  // the decision itself
        var text = logWords(entry, ctx);
        if (text) { words.push(text); }
      });
      return [words.join("; ") + "."];
    },

    // An observation's event: the spectator log's entry, with `type` for `event`.
    event: function (e, ctx, where) {
      if (e.type === "round_end") {
        return "round " + e.round + " ended" + ((e.dropping_seats || []).length ? "; " + DV.list(e.dropping_seats.map(function (s) {
          return DV.seatName(ctx, s); })) + " drowned and dropped what they carried" : "")
          + (e.next_start_seat !== null && e.next_start_seat !== undefined ? "; " + DV.seatName(ctx, e.next_start_seat) + " starts the next round" : "");
      }
      var before = e.type === "action" ? viewBefore(e, ctx, where) : null;
      if (before) { return DV.seatName(ctx, e.seat) + " " + actionWords(e.action, e.seat, before) + (e.forced ? " (forced)" : ""); }
      if (e.type === "action" && e.action && e.action.type === "take") {
        return DV.seatName(ctx, e.seat) + " took a chip" + (e.forced ? " (forced)" : "");
      }
      if (e.type === "action" && e.action && e.action.type === "drop") {
        return DV.seatName(ctx, e.seat) + " dropped a carried chip (item " + e.action.item + ")" + (e.forced ? " (forced)" : "");
      }
      return logWords(Object.assign({event: e.type}, e), ctx);
    },

    resultNotes: function (final, ctx) {
      var full = final.full_view || {};
      return (full.divers || []).map(function (diver, seat) {
        var chips = diver.secured_chips || [];
        if (!chips.length) { return DV.seatName(ctx, seat) + " secured no chip."; }
        var values = chips.map(function (c) { return c.value; });
        return DV.seatName(ctx, seat) + " secured " + values.join(" + ") + " = "
          + values.reduce(function (a, b) { return a + b; }, 0) + ".";
      });
    },

    // Equal scores: "the most chips of the highest level" (rules D15), level 4 first.
    tieBreak: function (seats, final, result, ctx) {
      var divers = (final.full_view || {}).divers || [];
      for (var level = 4; level >= 1; level--) {
        var counts = seats.map(function (seat) {
          return ((divers[seat] || {}).secured_levels || []).filter(function (l) { return l === level; }).length;
        });
        if (counts.some(function (c) { return c !== counts[0]; })) {
          return "the most chips of the highest level: level-" + level + " chips " + seats.map(function (seat, i) {
            return DV.seatName(ctx, seat) + " " + counts[i]; }).join(", ");
        }
      }
      return null;
    },

    render: function (view, pov, ctx) {
      L = layout(!!ctx.compact);
      var W = L.W, TOP = L.top, ROW_H = L.rowH, SEAT_H = L.seatH;
      var path = view.path || [], divers = view.divers || [];
      var rows = Math.max(1, Math.ceil(path.length / L.perRow));
      var seatsTop = TOP + rows * ROW_H + 14;
      var height = seatsTop + divers.length * SEAT_H + 8;
      var board = DV.board("deep_sea_adventure", W, height, {
        "data-round": view.round, "data-air": view.air, "data-current-seat": view.current_seat,
        "data-decision": view.decision, "data-path-length": path.length,
        "aria-label": "Deep Sea Adventure, round " + view.round + ", air " + view.air
      });
      board.appendChild(svg("rect", {x: 0, y: 0, width: W, height: TOP - 6, fill: "#dff1fb"}));
      board.appendChild(svg("rect", {x: 0, y: TOP - 6, width: W, height: rows * ROW_H + 12, fill: "#0f4c75"}));

      // The submarine with the divers that are in it.
      board.appendChild(svg("rect", {x: 10, y: 10, width: 150, height: 48, rx: 24, fill: "#f2c14e", stroke: "#8a6100"}));
      board.appendChild(label(85, 72, "submarine", {"text-anchor": "middle", "class": "rv-small rv-dim"}));
      var inSub = 0;
      divers.forEach(function (diver, seat) {
        if (diver.position !== 0) { return; }
        var cx = 30 + inSub * 22, cy = 34;
        inSub += 1;
        board.appendChild(svg("g", {"data-diver": "", "data-seat": seat, "data-position": 0, "data-direction": diver.direction,
                                    "data-returned": diver.returned ? "true" : "false"}, [
          svg("circle", {cx: cx, cy: cy, r: 10, fill: DV.seatColour(seat), stroke: "#1b1f24", "stroke-width": seat === view.current_seat ? 2.5 : 1}),
          label(cx, cy + 4, seat, {"text-anchor": "middle", "class": "rv-small", fill: "#fff", "font-weight": 700}),
          diver.returned ? label(cx, cy - 13, "✓", {"text-anchor": "middle", "class": "rv-small"}) : null
        ]));
      });

      // The air track.
      var full = (ctx.legend && ctx.legend.full_air) || 25;
      var airX = L.airX, airY = L.airY, airW = Math.min(360, W - 2 * airX), cellW = airW / (full + 1);
      board.appendChild(label(airX, airY + 10, "air " + view.air + " / " + full, {"class": "rv-small", "font-weight": 600, "data-role": "air"}));
      for (var a = 0; a <= full; a++) {
        board.appendChild(svg("rect", {x: airX + a * cellW, y: airY + 18, width: cellW - 1.5, height: 18,
          fill: a === view.air ? "#d1495b" : a < view.air ? "#7fb8d8" : "#ffffff", stroke: "#7f8c99", "stroke-width": 0.5}));
      }
      // Two short lines, names cut to fit: the header stays inside its box at every width.
      board.appendChild(label(airX, airY + 54, "Round " + view.round + " of " + ((ctx.legend && ctx.legend.rounds) || 3)
        + (view.game_over ? " · game over" : ""), {"class": "rv-small", "data-role": "round"}));
      if (view.decision) {
        board.appendChild(label(airX, airY + 69, DV.shortSeatName(ctx, view.current_seat, 18) + " decides: " + DV.words(view.decision),
          {"class": "rv-small", "data-role": "decides"}));
      }

      // The last roll.
      var roll = view.last_roll;
      if (roll) {
        var rollGroup = svg("g", {"data-role": "roll", "data-seat": roll.seat, "data-dice": roll.dice.join(","), "data-moves": roll.moves});
        rollGroup.appendChild(label(L.rollX, L.rollY + 10, "last roll: seat " + roll.seat, {"class": "rv-small"}));
        roll.dice.forEach(function (value, i) { rollGroup.appendChild(DV.die(L.rollX + i * 34, L.rollY + 18, 28, value)); });
        rollGroup.appendChild(label(L.rollX + 72, L.rollY + 38, "→ moved " + roll.moves, {"class": "rv-small"}));
        board.appendChild(rollGroup);
      }

      // The path: spaces by level, stacks, blanks; values only when the view holds them.
      var chipsAt = view.path_chips || null;
      for (var p = 0; p < path.length; p++) {
        var space = path[p], at = spaceXY(p);
        var values = chipsAt && chipsAt[p] ? chipsAt[p].map(function (c) { return c.value; }) : null;
        var g = svg("g", {"class": "rv-space", "data-space": p + 1, "data-blank": space.blank ? "true" : "false",
          "data-levels": (space.levels || []).join(","), "data-values": values ? values.join(",") : null});
        g.appendChild(svg("circle", {cx: at.x, cy: at.y, r: 30, fill: space.blank ? "#13598a" : "#1c6ea4", stroke: "#5aa9d6", "stroke-width": 1}));
        g.appendChild(label(at.x - 38, at.y - 30, p + 1, {"class": "rv-tiny", fill: "#cfe8f7"}));
        if (space.blank) {
          g.appendChild(label(at.x, at.y + 8, "✕", {"text-anchor": "middle", "font-size": 22, fill: "#8fb9d4"}));
        } else {
          var n = space.levels.length;
          space.levels.forEach(function (level, i) {
            g.appendChild(chip(at.x + (i - (n - 1) / 2) * 20, at.y, n > 1 ? 12 : 17, level, values ? values[i] : undefined));
          });
        }
        board.appendChild(g);
      }
      // Divers on the path.
      divers.forEach(function (diver, seat) {
        if (!diver.position) { return; }
        var at = spaceXY(diver.position - 1);
        var current = seat === view.current_seat;
        board.appendChild(svg("g", {"data-diver": "", "data-seat": seat, "data-position": diver.position,
                                    "data-direction": diver.direction, "data-returned": diver.returned ? "true" : "false"}, [
          svg("circle", {cx: at.x + 24, cy: at.y - 22, r: 12, fill: DV.seatColour(seat), stroke: current ? "#fff" : "#1b1f24", "stroke-width": current ? 3 : 1}),
          label(at.x + 24, at.y - 18, seat, {"text-anchor": "middle", "class": "rv-small", fill: "#fff", "font-weight": 700}),
          label(at.x + (at.x + 44 > L.W ? 8 : 40), at.y - 18, diver.direction === "up" ? "↑" : "↓", {"class": "rv-small", fill: "#fff", "font-weight": 700})
        ]));
      });

      // Each seat: where it is, what it carries (face down), what it secured.
      var mine = typeof view.me === "number" ? view.me : null;
      divers.forEach(function (diver, seat) {
        var y = seatsTop + seat * SEAT_H;
        var row = svg("g", {"data-seat-row": "", "data-seat": seat,
          "data-carried": (diver.carried || []).length, "data-secured": (diver.secured_levels || []).length});
        row.appendChild(svg("rect", {x: 4, y: y, width: W - 8, height: SEAT_H - 4, rx: 6, fill: seat === view.current_seat ? "#fff4d6" : "#f6f8fa", stroke: "#d0d7de"}));
        row.appendChild(svg("circle", {cx: 20, cy: y + 16, r: 8, fill: DV.seatColour(seat)}));
        row.appendChild(label(34, y + 20, DV.shortSeatName(ctx, seat, 16) + (pov === seat ? " · you" : ""),
          {"class": "rv-small", "font-weight": 600}, [svg("title", null, DV.seatTitle(ctx, seat, pov))]));
        var where = diver.position === 0 ? (diver.returned ? "back in the submarine" : "in the submarine")
          : (diver.direction === "up" ? "going up" : "going down") + " on space " + diver.position;
        row.appendChild(label(34, y + (ctx.compact ? 34 : 38), where, {"class": "rv-tiny rv-dim"}));
        // Carried items (a stack is one item): face down unless the view holds their values.
        var compact = !!ctx.compact, line2 = compact ? 22 : 0;
        var carriedChips = diver.carried_chips || null, x = compact ? 235 : 250;
        row.appendChild(label(x, y + 14, "carrying " + (diver.carried || []).length, {"class": "rv-tiny rv-dim", "data-role": "carried-count"}));
        (diver.carried || []).forEach(function (item, i) {
          item.forEach(function (level, j) {
            var known = carriedChips && carriedChips[i] ? carriedChips[i][j].value : undefined;
            row.appendChild(chip(x + 10, y + 31, 10, level, known, {"data-carried": i}));
            x += 22;
          });
          x += 6;
        });
        // Secured chips: values only for their owner (observation) or in the full view.
        var securedValues = diver.secured_chips ? diver.secured_chips.map(function (c) { return c.value; })
          : seat === mine ? view.my_secured_values || [] : null;
        x = compact ? 34 : Math.max(x + 16, 520);
        var step = Math.min(20, (W - 20 - x) / Math.max(1, (diver.secured_levels || []).length));
        row.appendChild(label(x, y + 14 + line2 + (compact ? 14 : 0), "secured " + (diver.secured_levels || []).length
          + (securedValues && securedValues.length ? " = " + securedValues.reduce(function (a, b) { return a + b; }, 0) : ""),
          {"class": "rv-tiny rv-dim", "data-role": "secured-count"}));
        (diver.secured_levels || []).forEach(function (level, i) {
          var shown = securedValues ? securedValues[i] : undefined;
          row.appendChild(chip(x + 9, y + 31 + line2 + (compact ? 12 : 0), 9, level, shown, {"data-secured": i}));
          x += step;
        });
        board.appendChild(row);
      });
      return board;
    }
  });
})(window.DiveViewer);
