// Starts the viewer on #replay-viewer: the replay is either inline (a page written by
// `python -m workers.replay view`) or fetched from data-url (the match page), in full form.
(function (global) {
  "use strict";
  var DV = global.DiveViewer;
  var root = document.getElementById("replay-viewer");
  if (!root) { return; }

  function jsonOf(id) {
    var node = document.getElementById(id);
    return node ? node.textContent : null;
  }

  function start(text, legend) {
    var replay, started = global.performance.now();
    try {
      replay = JSON.parse(text);
      DV.timings.parseMs = global.performance.now() - started;
    } catch (error) {
      DV.showError(root, "This replay cannot be shown: it is not valid JSON (" + error.message + ").");
      return;
    }
    DV.mount(root, replay, legend);
  }

  var legend = {};
  try { legend = JSON.parse(jsonOf("replay-legend") || "{}"); } catch (error) { legend = {}; }

  if (root.getAttribute("data-source") === "inline") {
    start(jsonOf("replay-data") || "", legend);
    return;
  }
  var url = root.getAttribute("data-url");
  if (!url) { DV.showError(root, "This page has no replay to show."); return; }
  root.setAttribute("data-state", "loading");
  root.textContent = "Loading the replay…";
  fetch(url, {credentials: "same-origin", headers: {Accept: "application/json"}})
    .then(function (response) {
      return response.text().then(function (body) {
        if (response.ok) { return start(body, legend); }
        var detail = "";
        try { detail = JSON.parse(body).detail || ""; } catch (error) { detail = ""; }
        DV.showError(root, response.status === 404 ? "This match has no replay yet."
          : "This replay cannot be shown: " + (detail || "the server answered " + response.status) + ".");
      });
    })
    .catch(function (error) {
      DV.showError(root, "The replay could not be loaded (" + error.message + "). Reload the page to try again.");
    });
})(window);
