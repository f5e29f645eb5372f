// Dive Arena replay viewer: shared helpers for the shell and the per-game renderers.
// A renderer is game-logic-free: it draws a recorded view and nothing else. Every string from a
// replay goes into the page as text (textContent / createTextNode), never as HTML.
(function (global) {
  "use strict";
  var DV = global.DiveViewer = global.DiveViewer || {};
  var SVG_NS = "http://www.w3.org/2000/svg";
  DV.games = DV.games || {};

  // register(id, renderer): renderer = {title, render(view, pov, ctx) -> SVG element, and the
  // optional phase, tally, describe, notes, resultNotes (see shell.js)}.
  DV.register = function (id, renderer) { DV.games[id] = renderer; };

  function append(node, children) {
    if (children === undefined || children === null || children === false) { return node; }
    if (!Array.isArray(children)) { children = [children]; }
    children.forEach(function (child) {
      if (child === undefined || child === null || child === false) { return; }
      if (Array.isArray(child)) { append(node, child); return; }
      node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    });
    return node;
  }

  function setAttrs(node, attrs) {
    if (!attrs) { return node; }
    Object.keys(attrs).forEach(function (name) {
      var value = attrs[name];
      if (value === undefined || value === null || value === false) { return; }
      if (name === "text") { node.textContent = String(value); return; }
      node.setAttribute(name, value === true ? "" : String(value));
    });
    return node;
  }

  // An SVG element: svg("rect", {x: 1, "data-seat": 2}, [children or strings]).
  DV.svg = function (tag, attrs, children) {
    return append(setAttrs(document.createElementNS(SVG_NS, tag), attrs), children);
  };

  // An HTML element, the same way.
  DV.h = function (tag, attrs, children) {
    return append(setAttrs(document.createElement(tag), attrs), children);
  };

  DV.append = append;

  // The root of a board: scales to its box (viewBox), with the data the tests read.
  DV.board = function (game, width, height, attrs, children) {
    var root = DV.svg("svg", Object.assign({
      viewBox: "0 0 " + width + " " + height, "class": "rv-svg", role: "img",
      "data-game": game, preserveAspectRatio: "xMidYMin meet"
    }, attrs || {}), children);
    return root;
  };

  DV.label = function (x, y, text, attrs, extra) {
    return DV.svg("text", Object.assign({x: x, y: y}, attrs || {}), [String(text)].concat(extra || []));
  };

  // Seat colours: distinct, readable on white and on blue water.
  var COLOURS = ["#d1495b", "#2e86ab", "#e8a33d", "#3f9e6b", "#8e5ea2", "#f26419"];
  DV.seatColour = function (seat) { return COLOURS[((seat % COLOURS.length) + COLOURS.length) % COLOURS.length]; };

  // The bot's name from the replay's seats ("" when it has none).
  DV.botName = function (ctx, seat) {
    var info = (ctx.seats || [])[seat];
    var name = info && (info.name || info.bot);
    // A local match names a bot by its path, and its "bot" is the file name: that says enough.
    if (info && info.bot && name !== info.bot && /[\\/]/.test(name)
        && (name.slice(-info.bot.length - 1) === "/" + info.bot || name.slice(-info.bot.length - 1) === "\\" + info.bot)) {
      name = info.bot;
    }
    return name ? String(name) : "";
  };

  // The bot's language when it is not Python (the replay's seats carry it since issue 22): "C++", "".
  var LANGUAGES = {javascript: "JavaScript", cpp: "C++", rust: "Rust", go: "Go", java: "Java"};
  DV.botLanguage = function (ctx, seat) {
    var info = (ctx.seats || [])[seat];
    return info && Object.prototype.hasOwnProperty.call(LANGUAGES, info.language) ? LANGUAGES[info.language] : "";
  };

  // "seat 2 (alice-bot)".
  DV.seatName = function (ctx, seat) {
    var name = DV.botName(ctx, seat);
    return "seat " + seat + (name ? " (" + name + ")" : "");
  };

  // "seat 2 (a-very-long-bot-n…)": the name cut to `max` characters, for tight places on a board.
  DV.shortSeatName = function (ctx, seat, max) {
    var name = DV.botName(ctx, seat);
    if (name.length > max) { name = name.slice(0, Math.max(1, max - 1)) + "…"; }
    return "seat " + seat + (name ? " (" + name + ")" : "");
  };

  // A seat's row title: its name, and "you" from its own point of view.
  DV.seatTitle = function (ctx, seat, pov) { return DV.seatName(ctx, seat) + (pov === seat ? " · you" : ""); };

  // "perilous_dive" -> "perilous dive": ids read as words.
  DV.words = function (id) { return String(id).replace(/_/g, " "); };

  DV.isSeatPov = function (pov) { return typeof pov === "number"; };

  // Join a list of words: "a", "a and b", "a, b and c".
  DV.list = function (items) {
    items = items.filter(function (item) { return item !== "" && item !== null && item !== undefined; });
    if (items.length <= 1) { return items.join(""); }
    return items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
  };

  // A die face with its number (and pips for 1..6): returns an SVG group.
  DV.die = function (x, y, size, value, attrs) {
    var group = DV.svg("g", Object.assign({"class": "rv-die", "data-die": value,
      transform: "translate(" + x + "," + y + ")"}, attrs || {}));
    group.appendChild(DV.svg("rect", {width: size, height: size, rx: size / 6, "class": "rv-die-face"}));
    group.appendChild(DV.label(size / 2, size / 2 + size * 0.18, value, {"class": "rv-die-value",
      "text-anchor": "middle", "font-size": size * 0.55}));
    return group;
  };
})(window);
