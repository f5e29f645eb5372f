// Live parts of a page, without a reload. Every element with `data-live` and an id is refreshed
// from a fresh copy of the same page: every 3 s while one of them says something is pending
// (`data-live-pending`: a smoke test, a queued or running match), else every `data-live-idle`
// seconds (none: it stops). A part is swapped only when the server's HTML for it changed; the
// scripts in a swapped part run again, and a `live:updated` event tells other scripts (charts).
// Polling pauses while the tab is hidden.
// Cheap polls: when every live part names a token (`data-live-token`: a URL answering
// {"token", "final"}, arena/web/live.py) with the token it was drawn with (`data-live-token-value`),
// only the tokens are asked for on each tick, and the page is fetched again only when one changed;
// a part whose token says `final` stops polling (a finished match or tournament).
(function () {
  "use strict";
  var FAST_MS = 3000;
  var MAX_BACKOFF_MS = 60000;
  var last = {};      // id -> the server's HTML of that part, as last received
  var failures = 0;

  // A form's CSRF token is masked anew on every render: it is no change worth a swap.
  function comparable(html) {
    return html.replace(/name="csrfmiddlewaretoken" value="[^"]*"/g, "");
  }

  function regions() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-live][id]:not([data-live-final])"));
  }

  // Resolves true when the page must be fetched again: some part has no token, or a token changed.
  function tokensChanged() {
    var parts = regions();
    if (!parts.length || parts.some(function (el) { return !el.hasAttribute("data-live-token"); })) {
      return Promise.resolve(true);
    }
    var urls = {};
    parts.forEach(function (el) { (urls[el.getAttribute("data-live-token")] = urls[el.getAttribute("data-live-token")] || []).push(el); });
    return Promise.all(Object.keys(urls).map(function (url) {
      return fetch(url, {credentials: "same-origin", cache: "no-store", headers: {Accept: "application/json"}})
        .then(function (response) {
          if (!response.ok) { throw new Error("HTTP " + response.status); }
          return response.json();
        })
        .then(function (body) {
          var changed = urls[url].some(function (el) { return el.getAttribute("data-live-token-value") !== String(body.token); });
          if (!changed && body.final) {
            urls[url].forEach(function (el) { el.setAttribute("data-live-final", ""); });
          }
          return changed;
        });
    })).then(function (answers) { return answers.some(Boolean); });
  }

  function delay() {
    var parts = regions();
    if (!parts.length) { return 0; }
    var pending = parts.some(function (el) { return el.hasAttribute("data-live-pending"); });
    var base = 0;
    if (pending) {
      base = FAST_MS;
    } else {
      parts.forEach(function (el) {
        var idle = Number(el.getAttribute("data-live-idle") || 0) * 1000;
        if (idle > 0 && (base === 0 || idle < base)) { base = idle; }
      });
    }
    if (base === 0) { return 0; }
    return Math.min(MAX_BACKOFF_MS, base * Math.pow(2, failures));
  }

  function openDetails(el) {
    return Array.prototype.slice.call(el.querySelectorAll("details[id][open]")).map(function (d) { return d.id; });
  }

  function rerunScripts(el) {
    Array.prototype.slice.call(el.querySelectorAll("script")).forEach(function (old) {
      var type = old.getAttribute("type");
      if (type && type !== "text/javascript" && type !== "module") { return; }  // data (JSON), not code
      var script = document.createElement("script");
      Array.prototype.slice.call(old.attributes).forEach(function (a) { script.setAttribute(a.name, a.value); });
      script.textContent = old.textContent;
      script.async = false;  // scripts of a swapped part run in their order, as on a first load
      old.parentNode.replaceChild(script, old);
    });
  }

  function swap(el, fresh) {
    var html = fresh.innerHTML;
    ["data-live-pending", "data-live-idle", "data-live-token-value"].forEach(function (name) {
      if (fresh.hasAttribute(name)) { el.setAttribute(name, fresh.getAttribute(name)); } else { el.removeAttribute(name); }
    });
    if (last[el.id] === comparable(html)) { return; }
    last[el.id] = comparable(html);
    var keepOpen = openDetails(el);
    el.innerHTML = html;
    keepOpen.forEach(function (id) { var d = document.getElementById(id); if (d) { d.open = true; } });
    rerunScripts(el);
    el.dispatchEvent(new CustomEvent("live:updated", { bubbles: true }));
  }

  function refresh() {
    return fetch(window.location.href, { headers: { "X-Live": "1" }, credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.text();
      })
      .then(function (text) {
        var doc = new DOMParser().parseFromString(text, "text/html");
        regions().forEach(function (el) {
          var fresh = doc.getElementById(el.id);
          if (fresh && fresh.hasAttribute("data-live")) { swap(el, fresh); }
        });
        failures = 0;
      })
      .catch(function () { failures = Math.min(failures + 1, 5); });
  }

  function schedule() {
    var wait = delay();
    if (!wait) { return; }
    window.setTimeout(function () {
      if (document.hidden) { schedule(); return; }
      tokensChanged()
        .then(function (changed) { failures = 0; return changed ? refresh() : null; },
              function () { failures = Math.min(failures + 1, 5); })
        .then(schedule);
    }, wait);
  }

  regions().forEach(function (el) { last[el.id] = comparable(el.innerHTML); });  // before other scripts change them
  schedule();
})();
