// Dive! Diver! Die!: the depth levels with their gold and clue tokens, the boat, divers and their
// depth tokens, the oxygen, the Oxygenator pile, the event cards played, hands (face down for
// others), bonuses and the Jewel of Zakarra.
(function (DV) {
  "use strict";
  var svg = DV.svg, label = DV.label;
  var EVENT_NAMES = {perilous_dive: "Perilous Dive", bonus_happy: "Bonus Happy", sabotage: "Sabotage!", wall_d: "Wall-D",
                     wall_f: "Wall-F", swordfish: "Swordfish Loves You", toughest_diver: "Toughest Diver",
                     long_robotic_arm: "Long Robotic Arm"};
  function eventName(id) { return EVENT_NAMES[id] || DV.words(id); }
  var STATUS = {descending: "going down", searching: "searching", ascending: "going up", surfaced: "surfaced", out: "out of oxygen"};

  function playWords(action, ctx) {
    var text = "played " + eventName(action.card);
    if (action.mode === "swap") { text += " to swap the max cards of seats " + action.seats.join(" and "); }
    else if (action.mode === "hand") { text += " giving a card of its hand to seat " + action.target; }
    else if (action.target !== undefined) { text += " on seat " + action.target; }
    if (action.take) { text += " to take the " + action.take + " bonus"; }
    return text;
  }

  function actionWords(action, ctx) {
    switch (action && action.type) {
      case "prepare": return "prepared (an oxygen card and a max card, face down)";
      case "choose_depth": return "chose depth " + action.depth;
      case "choose_duration": return "will search " + action.turns + (action.turns === 1 ? " turn" : " turns");
      case "choose_bonus": return "took the " + action.bonus + " bonus";
      case "play_event": return playWords(action, ctx);
      case "end_window": return "played no event card";
      default: return JSON.stringify(action);
    }
  }

  function historyWords(entry, ctx) {
    var who = function (seat) { return DV.seatName(ctx, seat); };
    switch (entry[0]) {
      case "oxygenator": return "the Oxygenator gave " + entry[1] + " (oxygen " + entry[2] + ")";
      case "move": return who(entry[1]) + " moved to " + (entry[2] ? "depth " + entry[2] : "the boat");
      case "search": return who(entry[1]) + " searched (" + entry[2] + " left)";
      case "ascent": return who(entry[1]) + " started up (depth " + entry[2] + ")";
      case "roll": return who(entry[1]) + " rolled " + (entry[2] > 0 ? "+" : "") + entry[2] + " oxygen (now " + entry[3] + ")";
      case "wall": return "the Wall rolled " + entry[2] + " for " + who(entry[1]);
      case "gold": return who(entry[1]) + " found " + entry[2] + " gold (pile " + entry[3] + ")";
      case "arrive": return who(entry[1]) + " arrived; max card " + entry[2];
      case "duration": return who(entry[1]) + " will search " + entry[2] + " (oxygen " + entry[3] + ")";
      case "surface": return who(entry[1]) + " surfaced and banked " + entry[2] + " gold";
      case "jewel": return who(entry[1]) + " took the Jewel of Zakarra";
      case "common": return "common oxygen card " + entry[1] + " revealed (oxygen " + entry[2] + ")";
      case "out": return who(entry[1]) + " ran out of oxygen";
      case "bonus": return who(entry[1]) + " got the " + entry[2] + " bonus (" + entry[3] + ")";
      case "swordfish": return "the Swordfish rolled " + entry[2] + " on " + who(entry[1]);
      case "toughest_diver": return who(entry[1]) + " gained " + entry[2] + " gold with Toughest Diver";
      case "sole_survivor": return who(entry[1]) + " was the sole survivor (+20 gold)";
      case "clue_refill": return "clue " + entry[2] + " placed at depth " + entry[1];
      default: return null;
    }
  }

  // A card: face down (a back) or face up with its value.
  function card(x, y, w, hgt, value, attrs) {
    var up = value !== null && value !== undefined;
    return svg("g", Object.assign({"data-face": up ? "up" : "down", "data-value": up ? value : null}, attrs || {}), [
      svg("rect", {x: x, y: y, width: w, height: hgt, rx: 3, "class": up ? "rv-face-up" : "rv-face-down"}),
      up ? label(x + w / 2, y + hgt / 2 + 4, value, {"text-anchor": "middle", "class": "rv-small", "font-weight": 700}) : null
    ]);
  }

  function token(x, y, text, fill, attrs) {
    return svg("g", attrs || {}, [svg("circle", {cx: x, cy: y, r: 11, fill: fill, stroke: "#1b1f24", "stroke-width": 0.8}),
      label(x, y + 3.5, text, {"text-anchor": "middle", "class": "rv-tiny", "font-weight": 700})]);
  }

  DV.register("dive_diver_die", {
    title: "Dive! Diver! Die!",

    phase: function (view) { return view && view.dive ? "Dive " + view.dive : null; },

    tally: function (view) { return (view.players || []).map(function (p) { return p.score; }).join(","); },

    describe: function (record, before, after, ctx) {
      var words;
      if (record.to_act.length > 1) {
        words = [DV.list(record.to_act.map(function (s) { return DV.seatName(ctx, s); })) + " "
          + actionWords(record.actions[0], ctx)];
      } else {
        words = record.to_act.map(function (seat, i) { return DV.seatName(ctx, seat) + " " + actionWords(record.actions[i], ctx); });
      }
      var entries = [];
      if (after && before && after.dive === before.dive) {
        entries = (after.dive_log || []).slice((before.dive_log || []).length);
      } else if (after) {
        if (before && before.dive) { words.push("dive " + before.dive + " ended"); }
        entries = after.dive_log || [];
      }
      var action = record.actions[0] || {};
      entries.forEach(function (entry, i) {
        // The decision itself is already in words: skip the history's record of it.
        if (i === 0 && ((action.type === "choose_duration" && entry[0] === "duration") ||
                        (action.type === "choose_bonus" && entry[0] === "bonus"))) { return; }
        var text = historyWords(entry, ctx);
        if (text) { words.push(text); }
      });
      return [words.join("; ") + "."];
    },

    // An observation's event: a history record with its fields named (engine's _EVENT_FIELDS).
    event: function (e, ctx) {
      switch (e.type) {
        case "dive_start": return "dive " + e.dive + " began; " + DV.seatName(ctx, e.start_player) + " starts";
        case "prepared": return "every seat put an oxygen card and a max card face down (treasure pile " + e.dive_pile + ")";
        case "decision": return DV.seatName(ctx, e.seat) + " " + actionWords(e.action, ctx);
        case "oxygenator": case "common": return historyWords([e.type, e.card, e.oxygen], ctx);
        case "move": case "ascent": return historyWords([e.type, e.seat, e.depth], ctx);
        case "search": return historyWords([e.type, e.seat, e.tokens_left], ctx);
        case "roll": case "swordfish": return historyWords([e.type, e.seat, e.roll, e.oxygen], ctx);
        case "wall": return historyWords([e.type, e.seat, e.roll], ctx);
        case "gold": return historyWords([e.type, e.seat, e.gold, e.dive_pile], ctx);
        case "arrive": return historyWords([e.type, e.seat, e.max_card], ctx);
        case "duration": return "the search of " + DV.seatName(ctx, e.seat) + " lasts " + e.turns + (e.turns === 1 ? " turn" : " turns") + " (oxygen " + e.oxygen + ")";
        case "surface": return historyWords([e.type, e.seat, e.banked], ctx);
        case "out": return DV.seatName(ctx, e.seat) + " ran out of oxygen (oxygen " + e.oxygen + ", treasure pile " + e.dive_pile + ")";
        case "bonus": return historyWords([e.type, e.seat, e.bonus, e.value], ctx);
        case "toughest_diver": return historyWords([e.type, e.seat, e.gold], ctx);
        case "jewel": case "sole_survivor": return historyWords([e.type, e.seat], ctx);
        case "clue_refill": return historyWords([e.type, e.depth, e.clue], ctx);
        default: return null;
      }
    },

    // Choices the other seats never saw.
    secret: function (action) {
      if (action && action.type === "prepare") {
        return "oxygen card " + action.oxygen + " into the common deck, max card " + action.duration;
      }
      return null;
    },

    resultNotes: function (final, ctx) {
      var notes = [], full = final.full_view || {};
      if (full.jewel_holder !== null && full.jewel_holder !== undefined) {
        notes.push(DV.seatName(ctx, full.jewel_holder) + " holds the Jewel of Zakarra (+" + ((ctx.legend || {}).jewel_value || 50) + ").");
      }
      var tiebreak = final.result && final.result.tiebreak;
      if (tiebreak) {
        notes.push("Tie-break (score, jewel, unused event cards): " + tiebreak.map(function (t, seat) {
          return "seat " + seat + " " + t.score + "/" + (t.jewel ? "jewel" : "–") + "/" + t.event_cards;
        }).join(", ") + ".");
      }
      return notes;
    },

    render: function (view, pov, ctx) {
      var compact = !!ctx.compact, legend = ctx.legend || {};
      var W = compact ? 420 : 800, players = view.players || [];
      var depthW = compact ? W : 400, bandH = 50, boatY = 36, depthTop = 70;
      var infoX = compact ? 0 : 420, infoY = compact ? depthTop + 6 * bandH + 16 : 0, infoH = 280;
      var seatsTop = compact ? infoY + infoH : Math.max(depthTop + 6 * bandH + 16, infoH);
      var seatH = compact ? 124 : 92;
      var height = seatsTop + players.length * seatH + 8;
      var me = typeof view.seat === "number" && view.you ? view.seat : null;
      var secrets = view.private || null;   // the full view: every seat's hidden cards
      var board = DV.board("dive_diver_die", W, height, {
        "data-dive": view.dive, "data-phase": view.phase, "data-decision": view.decision, "data-oxygen": view.oxygen,
        "data-dive-pile": view.dive_pile, "data-jewel-holder": view.jewel_holder,
        "aria-label": "Dive! Diver! Die!, dive " + view.dive + ", oxygen " + view.oxygen
      });

      // Water: the boat on top, then depths 1..6 with their gold per search, bonus and clue.
      board.appendChild(svg("rect", {x: 0, y: 0, width: depthW, height: depthTop, fill: "#dff1fb"}));
      board.appendChild(svg("rect", {x: 10, y: boatY - 14, width: 120, height: 26, rx: 10, fill: "#b5651d", stroke: "#5c3310"}));
      board.appendChild(label(16, 14, "boat", {"class": "rv-tiny rv-dim"}));
      var gold = legend.gold_per_search || [];
      for (var d = 1; d <= 6; d++) {
        var y = depthTop + (d - 1) * bandH;
        var band = svg("g", {"data-depth": d, "data-board-gold": (view.board_gold || [])[d - 1], "data-clue": (view.board_clues || [])[d - 1] || null,
                             "data-assigned": (view.assigned || [])[d - 1] ? "true" : "false"});
        band.appendChild(svg("rect", {x: 0, y: y, width: depthW, height: bandH, fill: "hsl(205, 70%, " + (52 - d * 6) + "%)"}));
        band.appendChild(label(8, y + 16, "depth " + d, {"class": "rv-small", fill: "#fff", "font-weight": 600}));
        if (gold[d] !== undefined) { band.appendChild(label(8, y + 32, gold[d] + " gold / search", {"class": "rv-tiny", fill: "#e6f2fa"})); }
        var bonus = (view.board_gold || [])[d - 1];
        if (bonus) { band.appendChild(token(depthW - 64, y + bandH / 2, "+" + bonus, "#f2c14e", {"data-role": "gold-bonus"})); }
        var clue = (view.board_clues || [])[d - 1];
        if (clue) { band.appendChild(token(depthW - 32, y + bandH / 2, clue, "#e0d4f7", {"data-role": "clue"})); }
        if ((view.assigned || [])[d - 1]) { band.appendChild(label(depthW - 100, y + 14, "assigned", {"class": "rv-tiny", fill: "#fff"})); }
        board.appendChild(band);
      }
      // Divers: in the water at their depth, in the boat, surfaced or out. Depth tokens on the right.
      players.forEach(function (p, seat) {
        var inBoat = !p.depth, x = inBoat ? 24 + seat * 22 : 130 + seat * 30;
        var y = inBoat ? boatY - 1 : depthTop + (p.depth - 1) * bandH + bandH / 2;
        var diver = svg("g", {"data-diver": "", "data-seat": seat, "data-depth": p.depth, "data-status": p.status,
                              "data-chosen-depth": p.chosen_depth});
        diver.appendChild(svg("circle", {cx: x, cy: y, r: 10, fill: DV.seatColour(seat), stroke: seat === view.turn_seat ? "#fff" : "#1b1f24",
                                         "stroke-width": seat === view.turn_seat ? 3 : 1, opacity: p.status === "out" ? 0.35 : 1}));
        diver.appendChild(label(x, y + 4, seat, {"text-anchor": "middle", "class": "rv-small", fill: "#fff", "font-weight": 700}));
        if (p.status === "ascending") { diver.appendChild(label(x + 12, y - 4, "↑", {"class": "rv-small", fill: "#fff"})); }
        if (p.status === "descending" && p.depth) { diver.appendChild(label(x + 12, y - 4, "↓", {"class": "rv-small", fill: "#fff"})); }
        if (p.status === "out") { diver.appendChild(label(x, y - 12, "✕", {"text-anchor": "middle", "class": "rv-small", fill: "#b00020"})); }
        if (p.status === "surfaced") { diver.appendChild(label(x, y - 12, "✓", {"text-anchor": "middle", "class": "rv-small"})); }
        board.appendChild(diver);
        if (p.chosen_depth) {
          var ty = depthTop + (p.chosen_depth - 1) * bandH + 6 + (seat % 3) * 14, tx = depthW - 130 - Math.floor(seat / 3) * 14;
          board.appendChild(svg("rect", {x: tx, y: ty, width: 10, height: 10, fill: DV.seatColour(seat), stroke: "#fff",
                                         "data-depth-token": seat, transform: "rotate(45 " + (tx + 5) + " " + (ty + 5) + ")"}));
        }
      });

      // Public table: oxygen, pile, decks, discards, clues, jewel.
      var iy = infoY + 20, ix = infoX + 10;
      var info = svg("g", {"data-role": "table"});
      info.appendChild(label(ix, iy, "Dive " + view.dive + " of " + (legend.dives || 4) + " · " + DV.words(view.phase || "")
        + (view.decision ? " · " + DV.words(view.decision) : ""), {"class": "rv-title"}));
      info.appendChild(label(ix, iy + 26, "oxygen " + view.oxygen, {"font-size": 18, "font-weight": 700, fill: view.oxygen <= 2 ? "#b00020" : "#0b3d5c", "data-role": "oxygen"}));
      info.appendChild(svg("rect", {x: ix + 120, y: iy + 12, width: Math.min(240, Math.max(0, view.oxygen) * 8), height: 16, fill: "#7fb8d8"}));
      info.appendChild(label(ix, iy + 48, "dive pile " + view.dive_pile + " gold · start player seat " + view.start_player, {"class": "rv-small", "data-role": "pile"}));
      // Decks: counts face down; in the full view their order.
      var decks = [["common oxygen deck", view.common_deck_count, view.common_deck],
                   ["Oxygenator", view.oxygenator_count, view.oxygenator_deck],
                   ["event deck", view.event_deck_count, view.event_deck]];
      decks.forEach(function (deck, i) {
        var y = iy + 70 + i * 22;
        info.appendChild(card(ix, y - 12, 12, 16, null, {"data-deck": deck[0], "data-count": deck[1]}));
        var text = deck[0] + ": " + deck[1] + " face down";
        if (Array.isArray(deck[2])) { text += " (" + deck[2].slice(0, 8).map(function (c) { return typeof c === "string" ? eventName(c) : c; }).join(", ") + (deck[2].length > 8 ? ", …" : "") + ")"; }
        info.appendChild(label(ix + 18, y, text, {"class": "rv-tiny"}));
      });
      var y2 = iy + 70 + 3 * 22 + 4;
      var shown = function (cards) { cards = cards || []; return cards.length ? (cards.length > 12 ? "…, " : "") + cards.slice(-12).join(", ") : "none"; };
      info.appendChild(label(ix, y2, "Oxygenator cards shown: " + shown(view.oxygenator_discard), {"class": "rv-tiny", "data-role": "oxygenator-discard"}));
      info.appendChild(label(ix, y2 + 13, "common oxygen revealed: " + shown(view.common_revealed), {"class": "rv-tiny"}));
      var played = (view.event_discard || []).filter(function (e) { return e.dive === view.dive; });
      info.appendChild(label(ix, y2 + 30, "events played this dive: " + (played.length ? "" : "none"), {"class": "rv-tiny", "font-weight": 600}));
      played.slice(-4).forEach(function (e, i) {
        info.appendChild(label(ix + 8, y2 + 45 + i * 13, "seat " + e.seat + ": " + eventName(e.card)
          + (e.target !== undefined && e.target !== null ? " → seat " + e.target : "") + (e.seats ? " → seats " + e.seats.join(", ") : "")
          + (e.mode ? " (" + e.mode + ")" : ""), {"class": "rv-tiny", "data-event-card": e.card, "data-seat": e.seat}));
      });
      if (view.jewel_option) {
        info.appendChild(label(ix, y2 + 104, "Jewel: " + (view.jewel_holder === null || view.jewel_holder === undefined ? "unclaimed" : DV.seatName(ctx, view.jewel_holder))
          + " · clue supply: " + ((view.clue_supply || []).join(" ") || "none"), {"class": "rv-tiny", "data-role": "jewel"}));
      }
      board.appendChild(info);

      // Seats: score, status, max card, tokens, found/bonus gold, clues, effects, hands.
      players.forEach(function (p, seat) {
        var y = seatsTop + seat * seatH;
        var own = seat === me ? view.you : secrets ? secrets[seat] : null;
        var row = svg("g", {"data-seat-row": "", "data-seat": seat, "data-score": p.score, "data-gold": p.gold,
                            "data-hand-size": p.hand_size, "data-event-hand-size": p.event_hand_size, "data-status": p.status});
        row.appendChild(svg("rect", {x: 4, y: y, width: W - 8, height: seatH - 6, rx: 6, fill: seat === view.turn_seat ? "#fff4d6" : "#f6f8fa", stroke: "#d0d7de"}));
        row.appendChild(svg("circle", {cx: 18, cy: y + 15, r: 7, fill: DV.seatColour(seat)}));
        row.appendChild(label(30, y + 19, DV.seatTitle(ctx, seat, pov) + (p.jewel ? " ♦ Jewel" : ""), {"class": "rv-small", "font-weight": 600}));
        row.appendChild(label(30, y + 35, "score " + p.score + " (banked " + p.gold + ") · " + (STATUS[p.status] || p.status)
          + (p.chosen_depth ? " · depth " + p.depth + " of " + p.chosen_depth : ""), {"class": "rv-tiny", "data-role": "score"}));
        var bits = [];
        if (p.duration !== null && p.duration !== undefined) { bits.push("search " + p.tokens_left + " of " + p.duration + " left"); }
        if (p.found_gold) { bits.push("found " + p.found_gold); }
        if (p.bonus_gold) { bits.push("bonus " + p.bonus_gold); }
        if ((p.clues || []).length) { bits.push("clues " + p.clues.join(" ")); }
        if ((p.temp_clues || []).length) { bits.push("new clues " + p.temp_clues.join(" ")); }
        if (p.perilous) { bits.push("Perilous"); }
        if (p.wall) { bits.push("Wall-" + String(p.wall).replace(/^wall_/, "").toUpperCase()); }
        if (p.swordfish) { bits.push("Swordfish: " + p.swordfish); }
        if (p.long_robotic_arm) { bits.push("Robotic Arm"); }
        if (view.phase === "prepare") { bits.push(p.submitted ? "prepared" : "preparing"); }
        row.appendChild(label(30, y + 50, bits.join(" · "), {"class": "rv-tiny rv-dim"}));
        // Max card: face up once revealed; face down otherwise (its owner, and the full view, see it).
        var mx = compact ? 30 : 470, my = compact ? y + 58 : y + 8;
        row.appendChild(label(mx, my + 10, "max card", {"class": "rv-tiny rv-dim"}));
        if (p.max_card !== null && p.max_card !== undefined && !p.max_card_face_down) {
          row.appendChild(card(mx, my + 14, 20, 28, p.max_card, {"data-max-card": seat}));
        } else if (p.max_card_face_down) {
          var seen = card(mx, my + 14, 20, 28, own ? own.max_card : null, {"data-max-card": seat, "data-hidden": own ? "seen" : "hidden"});
          if (own) {  // face down on the table: only its owner (or the full view) knows it
            seen.firstChild.setAttribute("stroke-dasharray", "3 2");
            seen.appendChild(svg("title", null, "face down: hidden from the other seats"));
          }
          row.appendChild(seen);
        } else {
          row.appendChild(label(mx + 2, my + 32, "–", {"class": "rv-small rv-dim"}));
        }
        // The hand: its size always; values for its owner or in the full view.
        var hx = mx + 56;
        row.appendChild(label(hx, my + 10, "hand " + p.hand_size, {"class": "rv-tiny rv-dim", "data-role": "hand-count"}));
        var hand = own && own.hand ? own.hand : null;
        for (var c = 0; c < p.hand_size; c++) {
          row.appendChild(card(hx + c * 16, my + 14, 14, 20, hand ? hand[c] : null, {"data-hand-card": c}));
        }
        var ex = hx + Math.max(4, p.hand_size) * 16 + 12;
        row.appendChild(label(ex, my + 10, "events " + p.event_hand_size, {"class": "rv-tiny rv-dim", "data-role": "event-count"}));
        var events = own && own.events ? own.events : null;
        for (var e = 0; e < p.event_hand_size; e++) {
          var known = events ? events[e] : null;
          row.appendChild(svg("g", {"data-event-hand": e, "data-face": known ? "up" : "down", "data-card": known}, [
            svg("rect", {x: ex + e * 16, y: my + 14, width: 14, height: 20, rx: 2, "class": known ? "rv-face-up" : "rv-face-down"},
                known ? [svg("title", null, eventName(known))] : null),
            known ? label(ex + e * 16 + 7, my + 28, eventName(known).charAt(0), {"text-anchor": "middle", "class": "rv-tiny"}) : null
          ]));
        }
        if (own && own.contributed !== null && own.contributed !== undefined) {
          row.appendChild(label(hx, my + 48, "gave oxygen card " + own.contributed + " this dive"
            + (own.removed ? " · removed at setup: " + own.removed.join(", ") : ""), {"class": "rv-tiny rv-dim", "data-role": "contributed"}));
        }
        board.appendChild(row);
      });
      return board;
    }
  });
})(window.DiveViewer);
