// Deep Sea Adventure starter bot in JavaScript: dive for deeper treasure, turn back while the air allows.
//
// Play it locally:
//     python -m workers.play deep_sea_adventure starter_kits/javascript/deep_sea_adventure builtin:random
// Upload main.js and arena_bot.js together as a zip (both at its root).
//
// How it decides (rules: docs/rules/deep_sea_adventure.md):
// - observation.decision is "direction" (actions {type: "continue"} / {type: "turn_back"})
//   or "search" ({type: "pass"}, {type: "take"}, {type: "drop", ...}).
// - observation.divers[observation.me] is my diver: position (0 = submarine),
//   direction ("down"/"up"), carried (my chips, their exact values unknown), returned.
// - observation.air is the shared air; every diver's carried chips use it up each turn.
// Two dice of faces 1-3 move a diver 4 spaces on average, minus one per chip carried.
"use strict";

const arena = require("./arena_bot.js");

const CARRY_LIMIT = 2; // chips to carry before heading home
const MARGIN = 2.0; // extra turns of air kept in hand

// About how many turns it takes to get back from `position` carrying `load` chips.
function turnsHome(position, load) {
  return position / Math.max(0.5, 4.0 - load);
}

// About how many of my turns the shared air still allows.
function turnsOfAir(observation, load) {
  let carried = 0;
  for (const diver of observation.divers) if (!diver.returned) carried += diver.carried.length;
  carried += load - observation.divers[observation.me].carried.length;
  return observation.air / Math.max(1, carried);
}

function choose(observation, legalActions) {
  const me = observation.divers[observation.me];
  const load = me.carried.length;
  const find = (type) => legalActions.findIndex((action) => action.type === type);
  const orFirst = (index) => Math.max(0, index);
  if (observation.decision === "direction") {
    if (load === 0) return orFirst(find("continue"));
    const goingHomeNow = turnsHome(me.position + 4, load) + MARGIN > turnsOfAir(observation, load);
    if (load >= CARRY_LIMIT || goingHomeNow) return orFirst(find("turn_back"));
    return orFirst(find("continue"));
  }
  const take = find("take");
  if (take >= 0) {
    const affordable = turnsHome(me.position, load + 1) + MARGIN <= turnsOfAir(observation, load + 1);
    if (load < CARRY_LIMIT + (me.direction === "up" ? 1 : 0) && affordable) return take;
  }
  return orFirst(find("pass"));
}

arena.run(choose);
