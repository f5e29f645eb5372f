// Deep Dive: the coloured water sections with their shell counts, divers in the water or on shore,
// closed shells as counts (contents only in the full view) and opened pearls, black pearls, the
// dice rolled and the shark.
(function (DV) {
  "use strict";
  var svg = DV.svg, label = DV.label;
  var FILL = {red: "#e4572e", orange: "#f39237", yellow: "#f4d35e", green: "#59a96a", blue: "#3c91e6", purple: "#9b5de5"};
  var SHELL = {white: "#ffffff", black: "#1b1f24", empty: "#c9b79c"};

  function actionWords(action) {
    return action && action.type === "leave" ? "left the water" : action && action.type === "stay" ? "stayed" : JSON.stringify(action);
  }

  DV.register("deep_dive", {
    title: "Deep Dive",

    phase: function (view) { return view && view.round ? "Round " + view.round : null; },

    tally: function (view) { return (view.players || []).map(function (p) { return p.white_pearls; }).join(","); },

    describe: function (record, before, after, ctx) {
      var words = [record.to_act.map(function (seat, i) { return DV.seatName(ctx, seat) + " " + actionWords(record.actions[i]); }).join(", ")];
      if (after) {
        var players = after.players || [];
        (before && before.players || []).forEach(function (was, seat) {
          var now = players[seat];
          if (!now) { return; }
          var opened = now.white_pearls - was.white_pearls, black = now.black_found - was.black_found;
          if (opened || black) { words.push(DV.seatName(ctx, seat) + " opened " + opened + " white" + (black ? " and " + black + " black" : "")); }
        });
        if (after.round !== (before || {}).round) { words.push("round " + after.round + " began"); }
        var rolls = after.last_colour_rolls || {};
        var rolled = Object.keys(rolls).map(function (seat) { return DV.seatName(ctx, Number(seat)) + " " + rolls[seat]; });
        if (rolled.length) { words.push("dived: " + rolled.join(", ")); }
        if (after.last_shark_roll) { words.push("the shark swam to " + after.last_shark_roll); }
        players.forEach(function (p, seat) {
          var was = (before && before.players || [])[seat];
          if (p.status === "scared" && (!was || was.status !== "scared" || after.round !== before.round)) {
            words.push(DV.seatName(ctx, seat) + " was scared away");
          }
        });
        if (after.game_over) { words.push("the game ended (" + DV.words(after.end_reason || "") + ")"); }
      }
      return [words.join("; ") + "."];
    },

    // An observation's event (fields in docs/writing-a-bot.md).
    event: function (e, ctx) {
      var seats = function (list) { return DV.list((list || []).map(function (s) { return DV.seatName(ctx, Number(s)); })); };
      switch (e.type) {
        case "cycle": {
          var rolls = e.colour_rolls || {};
          var dived = Object.keys(rolls).map(function (s) { return DV.seatName(ctx, Number(s)) + " rolled " + rolls[s]; });
          var words = "round " + e.round + ", cycle " + e.cycle + ", " + DV.seatName(ctx, e.start_player) + " first"
            + (dived.length ? ": " + DV.list(dived) : "");
          if (e.shark_roll) {
            words += "; the shark swam to " + e.shark_roll + ((e.scared || []).length ? ", scaring away " + seats(e.scared) : ", scaring nobody");
          } else {
            words += "; the shark did not swim: the shell supply is empty";
          }
          return words;
        }
        case "choices": {
          var bits = [];
          if ((e.stayed || []).length) { bits.push(seats(e.stayed) + " stayed in the water"); }
          if ((e.left || []).length) { bits.push(seats(e.left) + " left the water"); }
          return bits.length ? bits.join("; ") : "nobody was left in the water to choose";
        }
        case "surface": {
          var found = [e.white + " white", e.black + " black", e.empty + " empty"];
          return DV.seatName(ctx, e.seat) + " surfaced and opened its shells: " + found.join(", ");
        }
        case "round_end": return "round " + e.round + " ended";
        case "game_end": return "the game ended (" + DV.words(e.reason || "") + ")";
        default: return null;
      }
    },

    resultNotes: function (final) {
      var reason = (final.result || {}).end_reason || (final.full_view || {}).end_reason;
      return reason ? ["The game ended: " + DV.words(reason) + "."] : [];
    },

    render: function (view, pov, ctx) {
      var compact = !!ctx.compact, W = compact ? 420 : 800, players = view.players || [];
      var sections = view.sections || [];
      var top = compact ? 100 : 70, secW = (W - 20) / Math.max(1, sections.length), secH = 170;
      var shoreY = top + secH + 12, seatsTop = shoreY + 60, seatH = compact ? 78 : 54;
      var height = seatsTop + players.length * seatH + 40;
      var board = DV.board("deep_dive", W, height, {
        "data-round": view.round, "data-cycle": view.cycle, "data-shark": view.last_shark_roll,
        "data-black-pile": view.black_pile, "data-supply-size": view.supply_size,
        "aria-label": "Deep Dive, round " + view.round + ", cycle " + view.cycle
      });
      board.appendChild(label(10, 22, "Round " + view.round + " · cycle " + view.cycle + " · start player seat " + view.start_player
        + (view.game_over ? " · game over" : ""), {"class": "rv-title"}));
      var toEnd = (ctx.legend || {}).black_pearls_to_end || 4;
      board.appendChild(label(10, 44, "black pearls " + view.black_pile + " / " + toEnd + " · supply " + view.supply_size
        + " closed · empties removed " + view.empties_removed, {"class": "rv-small", "data-role": "supply"}));
      var unopened = view.unopened || {};
      board.appendChild(label(10, 60, "not yet opened: " + (unopened.white || 0) + " white, " + (unopened.black || 0) + " black, "
        + (unopened.empty || 0) + " empty", {"class": "rv-tiny rv-dim"}));
      // The full view knows what the closed supply holds: a bag of counts (or, in older engine
      // versions, the ordered tokens).
      if (view.supply && typeof view.supply === "object") {
        var counts = {};
        if (Array.isArray(view.supply)) { view.supply.forEach(function (s) { counts[s] = (counts[s] || 0) + 1; }); }
        else { counts = view.supply; }
        board.appendChild(label(compact ? 10 : 430, compact ? height - 24 : 60, "supply (full view): " + (counts.white || 0) + " white, "
          + (counts.black || 0) + " black, " + (counts.empty || 0) + " empty", {"class": "rv-tiny", "data-role": "supply-contents",
          "data-white": counts.white || 0, "data-black": counts.black || 0, "data-empty": counts.empty || 0}));
      }
      // The dice of this cycle: each diver's colour die, then the shark die.
      var rolled = view.last_colour_rolls || {}, dx = compact ? 40 : 560, dy = compact ? 70 : 20;
      var diceRow = svg("g", {"data-role": "dice"});
      diceRow.appendChild(label(compact ? 10 : dx, compact ? dy + 14 : dy - 6, "dice", {"class": "rv-tiny rv-dim"}));
      Object.keys(rolled).forEach(function (seat, i) {
        diceRow.appendChild(svg("g", {"data-colour-roll": rolled[seat], "data-seat": seat}, [
          svg("rect", {x: dx + i * 26, y: dy, width: 20, height: 20, rx: 4, fill: FILL[rolled[seat]] || "#888", stroke: "#1b1f24"}),
          label(dx + i * 26 + 10, dy + 14, seat, {"text-anchor": "middle", "class": "rv-tiny", "font-weight": 700})
        ]));
      });
      if (view.last_shark_roll) {
        var sx0 = dx + Object.keys(rolled).length * 26 + 8;
        diceRow.appendChild(svg("g", {"data-shark-roll": view.last_shark_roll}, [
          svg("rect", {x: sx0, y: dy, width: 20, height: 20, rx: 4, fill: FILL[view.last_shark_roll] || "#888", stroke: "#1b1f24", "stroke-width": 2.5}),
          svg("path", {d: "M" + (sx0 + 4) + " " + (dy + 16) + " l6 -11 l6 11 z", fill: "#37474f"})
        ]));
      }
      board.appendChild(diceRow);

      // The sections, the shark and the divers in the water.
      sections.forEach(function (section, i) {
        var x = 10 + i * secW, shark = view.last_shark_roll === section.colour;
        var g = svg("g", {"data-section": section.colour, "data-shells": section.shells, "data-shark": shark ? "true" : "false"});
        g.appendChild(svg("rect", {x: x + 2, y: top, width: secW - 4, height: secH, rx: 6, fill: FILL[section.colour] || "#888", opacity: 0.85}));
        g.appendChild(label(x + secW / 2, top + 16, section.colour, {"text-anchor": "middle", "class": "rv-small", "font-weight": 700}));
        g.appendChild(label(x + secW / 2, top + 32, section.shells + (section.shells === 1 ? " shell" : " shells"), {"text-anchor": "middle", "class": "rv-tiny"}));
        if (shark) {
          g.appendChild(svg("path", {d: "M" + (x + secW / 2 - 18) + " " + (top + secH - 22) + " l18 -20 l18 20 z", fill: "#37474f", "data-role": "shark"}));
          g.appendChild(label(x + secW / 2, top + secH - 6, "shark", {"text-anchor": "middle", "class": "rv-tiny", fill: "#fff", "font-weight": 700}));
        }
        board.appendChild(g);
      });
      var rolls = view.last_colour_rolls || {};
      players.forEach(function (p, seat) {
        if (!p.in_water || !p.position) { return; }
        var i = sections.map(function (s) { return s.colour; }).indexOf(p.position);
        var x = 10 + i * secW + secW / 2, y = top + 56 + seat * 26;
        board.appendChild(svg("g", {"data-diver": "", "data-seat": seat, "data-position": p.position, "data-in-water": "true"}, [
          svg("circle", {cx: x, cy: y, r: 11, fill: DV.seatColour(seat), stroke: "#1b1f24"}),
          label(x, y + 4, seat, {"text-anchor": "middle", "class": "rv-small", fill: "#fff", "font-weight": 700}),
          label(x + 14, y + 4, String(p.closed_shells), {"class": "rv-tiny", "font-weight": 700})
        ]));
      });
      // Shore: divers out of the water.
      board.appendChild(svg("rect", {x: 10, y: shoreY, width: W - 20, height: 44, rx: 6, fill: "#f2e3c6"}));
      board.appendChild(label(18, shoreY + 14, "shore", {"class": "rv-tiny rv-dim"}));
      var onShore = 0;
      players.forEach(function (p, seat) {
        if (p.in_water) { return; }
        var x = 70 + onShore * 90;
        onShore += 1;
        board.appendChild(svg("g", {"data-diver": "", "data-seat": seat, "data-in-water": "false", "data-status": p.status}, [
          svg("circle", {cx: x, cy: shoreY + 22, r: 11, fill: DV.seatColour(seat), stroke: "#1b1f24"}),
          label(x, shoreY + 26, seat, {"text-anchor": "middle", "class": "rv-small", fill: "#fff", "font-weight": 700}),
          label(x + 15, shoreY + 26, p.status, {"class": "rv-tiny"})
        ]));
      });
      // Seats: closed shells face down (their contents only in the full view), opened pearls.
      players.forEach(function (p, seat) {
        var y = seatsTop + seat * seatH;
        var row = svg("g", {"data-seat-row": "", "data-seat": seat, "data-white": p.white_pearls, "data-black": p.black_found,
                            "data-closed": p.closed_shells, "data-status": p.status});
        row.appendChild(svg("rect", {x: 4, y: y, width: W - 8, height: seatH - 6, rx: 6, fill: "#f6f8fa", stroke: "#d0d7de"}));
        row.appendChild(svg("circle", {cx: 18, cy: y + 15, r: 7, fill: DV.seatColour(seat)}));
        row.appendChild(label(30, y + 19, DV.seatTitle(ctx, seat, pov), {"class": "rv-small", "font-weight": 600}));
        row.appendChild(label(30, y + 36, p.white_pearls + " white pearls · " + p.black_found + " black found · "
          + (p.in_water ? "in the water at " + p.position + (rolls[seat] ? " (rolled " + rolls[seat] + ")" : "") : p.status),
          {"class": "rv-tiny", "data-role": "pearls"}));
        var sx = compact ? 30 : 380, sy = compact ? y + 62 : y + 24;
        row.appendChild(label(sx, sy - (compact ? 11 : 12), p.closed_shells + " closed", {"class": "rv-tiny rv-dim", "data-role": "closed-count"}));
        var contents = Array.isArray(p.closed) ? p.closed : null;
        var stepX = Math.min(16, (W - sx - 20) / Math.max(1, p.closed_shells));
        for (var c = 0; c < p.closed_shells; c++) {
          var known = contents ? contents[c] : null;
          row.appendChild(svg("circle", {cx: sx + 6 + c * stepX, cy: sy, r: 6, "data-shell": c, "data-face": known ? "up" : "down",
            "data-content": known, fill: known ? SHELL[known] || "#888" : "#8d6e63", stroke: "#3e2723"}));
        }
        board.appendChild(row);
      });
      return board;
    }
  });
})(window.DiveViewer);
