// What a step changed, found without game logic: the board drawn on both sides of the step is
// compared element by element through the data-* attributes the renderers set (every drawn
// element that means something carries them). An element is keyed by its place among its
// ancestors that carry data-* attributes, its tag, the names of its data-* attributes and the
// values of the few that name a thing (seat, role, space, cell...); its state is every data-*
// value (and its text, for an element with no such children). The innermost elements whose state
// differs, or which are new, get class rv-changed and data-changed="true": the diver that moved,
// the chip taken, the card revealed.
(function (global) {
  "use strict";
  var DV = global.DiveViewer;
  var NAMES = ["data-role", "data-seat", "data-space", "data-cell", "data-section", "data-tile", "data-card",
               "data-chief", "data-plan", "data-plan-hidden"];

  function dataAttrs(el) {
    var out = [];
    for (var i = 0; i < el.attributes.length; i++) {
      var a = el.attributes[i];
      if (a.name.indexOf("data-") === 0 && a.name !== "data-changed") { out.push(a); }
    }
    return out;
  }

  // key -> {el, state}, for every element with data-* attributes below `root` (not root itself).
  function index(root) {
    var out = {}, counts = {};
    function walk(node, parentKey) {
      for (var child = node.firstElementChild; child; child = child.nextElementSibling) {
        var attrs = dataAttrs(child);
        if (!attrs.length) { walk(child, parentKey); continue; }
        var names = attrs.map(function (a) { return a.name; }).sort();
        var signature = child.tagName + "[" + names.join(",") + "]" + NAMES.map(function (name) {
          return child.hasAttribute(name) ? name + "=" + child.getAttribute(name) : "";
        }).join("");
        var base = parentKey + "/" + signature;
        counts[base] = (counts[base] || 0) + 1;
        var key = base + "#" + counts[base];
        var state = attrs.map(function (a) { return a.name + "=" + a.value; }).sort().join("&");
        out[key] = {el: child, state: state, parent: parentKey};
        walk(child, key);
      }
    }
    walk(root, "");
    Object.keys(out).forEach(function (key) {
      var item = out[key];
      if (!item.el.querySelector("[data-seat],[data-role],[data-level],[data-value],[data-face]")) {
        item.state += "|" + item.el.textContent;
      }
    });
    return out;
  }

  // Marks in `shown` what differs from `other` (the board on the other side of the step);
  // returns how many elements were marked.
  DV.markChanges = function (shown, other) {
    var mine = index(shown), theirs = index(other), changed = {};
    Object.keys(mine).forEach(function (key) {
      if (!theirs[key] || theirs[key].state !== mine[key].state) { changed[key] = true; }
    });
    // The innermost only: a seat's row changes with the chip it took; the chip is what is marked.
    Object.keys(changed).forEach(function (key) {
      var parent = mine[key].parent;
      while (parent) {
        if (changed[parent]) { changed[parent] = "outer"; }
        parent = mine[parent] ? mine[parent].parent : "";
      }
    });
    var marked = 0;
    Object.keys(changed).forEach(function (key) {
      if (changed[key] !== true) { return; }
      mine[key].el.classList.add("rv-changed");
      mine[key].el.setAttribute("data-changed", "true");
      marked += 1;
    });
    shown.setAttribute("data-changes", String(marked));
    return marked;
  };
})(window);
