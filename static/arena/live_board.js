// A match being played, drawn live on its page: the public view after its latest step (the JSON
// in #live-view, put there by the server), drawn by the game's replay renderer as a spectator
// sees it. live.js swaps the page's main part when the match's token changes (a new step, the
// end); this draws again on every swap (`live:updated`). Game-logic-free, like the viewer.
(function (global) {
  "use strict";

  function data(id) {
    var node = document.getElementById(id);
    if (!node) { return null; }
    try { return JSON.parse(node.textContent); } catch (error) { return null; }
  }

  function draw() {
    var root = document.getElementById("live-board");
    var DV = global.DiveViewer;
    if (!root || !DV) { return; }
    var game = root.getAttribute("data-game");
    var renderer = DV.games && DV.games[game];
    var view = data("live-view");
    if (!renderer || !view) {
      root.textContent = "This game cannot be drawn here: its moves are in the replay once it is over.";
      return;
    }
    var seats = data("live-seats") || [];
    var step = Number(root.getAttribute("data-step") || 0);
    var compact = (root.clientWidth || global.innerWidth) < 600;
    var ctx = {game: game, numPlayers: seats.length, seats: seats, options: {}, legend: data("live-legend") || {},
               finished: false, lastView: null, step: step, frame: step, last: step, compact: compact};
    var svg;
    try {
      svg = renderer.render(view, "spectator", ctx);
    } catch (error) {
      root.textContent = "This position cannot be drawn (" + error.message + ").";
      return;
    }
    if (compact) { svg.classList.add("rv-compact"); }
    var board = document.createElement("div");
    board.className = "rv-board";
    board.appendChild(svg);
    root.replaceChildren(board);
    root.setAttribute("data-drawn-step", String(step));
  }

  document.addEventListener("live:updated", draw);
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", draw); } else { draw(); }
})(window);
