// The Dive Arena bot SDK for JavaScript (Node.js, no dependencies): the protocol loop.
//
//     const arena = require("./arena_bot.js");
//     arena.run((observation, legalActions, rng) => Math.floor(rng() * legalActions.length));
//
// `choose` returns an index into legalActions (or one of its actions). The protocol
// (docs/writing-a-bot.md): one JSON object per line on stdin and stdout. `run` answers "start" with
// "ready", each "act" with {"index": n} (or {"action": ...}), and exits at "end". Write logs with
// console.error (kept, capped, for you); never print anything else on stdout.
"use strict";

const fs = require("fs");

// A small, seeded random source (mulberry32): the same seat seed plays the same match the same way.
function seededRandom(seed) {
  let state = (Number(seed) >>> 0) ^ Math.floor(Number(seed) / 4294967296);
  return function rng() {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The match while `run` plays (filled in from the arena's messages).
const match = { game: "", seat: 0, numPlayers: 0, options: {}, limits: {}, step: -1, timeLeftMs: 0, result: null };

function send(message) {
  fs.writeSync(1, JSON.stringify(message) + "\n");
}

// Plays one match: reads stdin synchronously line by line (no event-loop latency per decision).
function run(choose) {
  let rng = seededRandom(0);
  const chunk = Buffer.alloc(1 << 16);
  let pending = "";
  for (;;) {
    let newline = pending.indexOf("\n");
    while (newline < 0) {
      let read;
      try {
        read = fs.readSync(0, chunk, 0, chunk.length, null);
      } catch (error) {
        if (error.code === "EAGAIN") continue;
        if (error.code === "EOF") read = 0;
        else throw error;
      }
      if (read === 0) return match.result;
      pending += chunk.toString("utf8", 0, read);
      newline = pending.indexOf("\n");
    }
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if (message.type === "start") {
      Object.assign(match, { game: message.game, seat: message.seat, numPlayers: message.num_players,
                             options: message.options || {}, limits: message.limits || {} });
      if (typeof message.seed === "number") rng = seededRandom(message.seed);
      send({ type: "ready" });
    } else if (message.type === "act") {
      match.step = message.step;
      match.timeLeftMs = message.time_left_ms || 0;
      const choice = choose(message.observation, message.legal_actions, rng);
      send(Number.isInteger(choice) ? { index: choice } : { action: choice });
    } else if (message.type === "end") {
      match.result = message.result || null;
      return match.result;
    }
  }
}

module.exports = { run, match, seededRandom };
