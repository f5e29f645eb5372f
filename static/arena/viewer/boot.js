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
    var data = document.getElementById("replay-data");
    if (data && data.getAttribute("data-encoding") === "gzip+base64") { unpack(data.textContent); }
    else { start(jsonOf("replay-data") || "", legend); }
    return;
  }

  // A page written by `python -m workers.replay view` holds its replay gzip-compressed in base64.
  function unpack(base64) {
    if (typeof global.DecompressionStream === "undefined") {
      DV.showError(root, "This browser cannot unpack the replay in this page (it needs DecompressionStream: "
        + "Chrome 80, Firefox 113, Safari 16.4 or newer).");
      return;
    }
    var bytes;
    try {
      var binary = global.atob(base64.replace(/\s+/g, ""));
      bytes = new Uint8Array(binary.length);
      for (var i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
    } catch (error) {
      DV.showError(root, "This replay cannot be shown: the page's replay data is damaged (" + error.message + ").");
      return;
    }
    var started = global.performance.now();
    new Response(new Blob([bytes]).stream().pipeThrough(new global.DecompressionStream("gzip"))).text()
      .then(function (text) { DV.timings.unpackMs = global.performance.now() - started; start(text, legend); })
      .catch(function (error) {
        DV.showError(root, "This replay cannot be shown: the page's replay data is damaged (" + error.message + ").");
      });
  }
  var url = root.getAttribute("data-url");
  if (!url) { DV.showError(root, "This page has no replay to show."); return; }
  root.setAttribute("data-state", "loading");
  root.textContent = "Loading the replay…";
  // The body as text, saying how much has arrived so far (a long replay takes a while on a slow line).
  function readText(response) {
    if (!response.body || !response.body.getReader || !global.TextDecoder) { return response.text(); }
    var reader = response.body.getReader(), decoder = new TextDecoder("utf-8"), parts = [], received = 0;
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) { parts.push(decoder.decode()); return parts.join(""); }
        received += chunk.value.length;
        parts.push(decoder.decode(chunk.value, {stream: true}));
        root.textContent = "Loading the replay… " + (received / 1e6).toFixed(1) + " MB";
        return pump();
      });
    }
    return pump();
  }

  fetch(url, {credentials: "same-origin", headers: {Accept: "application/json"}})
    .then(function (response) {
      return readText(response).then(function (body) {
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
