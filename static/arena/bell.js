// The bell's unread count stays current without a reload: one small JSON request
// (GET /api/notifications/unread/, a COUNT over a partial index) every minute while the tab is
// visible, and at once when the tab comes back. Nothing else on the page is fetched.
(function () {
  "use strict";
  var EVERY_MS = 60000;
  var bell = document.querySelector("[data-role=bell][data-unread-url]");
  if (!bell) { return; }
  var count = bell.querySelector("[data-role=unread]");
  var timer = null;

  function show(unread) {
    count.textContent = String(unread);
    bell.classList.toggle("has-unread", unread > 0);
    bell.setAttribute("aria-label", "Notifications: " + unread + " unread");
  }

  function refresh() {
    timer = null;
    if (document.hidden) { return; }
    fetch(bell.getAttribute("data-unread-url"), {credentials: "same-origin", headers: {Accept: "application/json"}, cache: "no-store"})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (body) { if (body && typeof body.unread === "number") { show(body.unread); } })
      .catch(function () { /* the next tick tries again */ })
      .then(function () { if (timer === null) { timer = window.setTimeout(refresh, EVERY_MS); } });
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden && timer === null) { refresh(); }
    else if (!document.hidden) { window.clearTimeout(timer); refresh(); }
  });
  timer = window.setTimeout(refresh, EVERY_MS);
})();
