// The tournament admin's create form: the bot picker lists the chosen game's bots only (every
// option carries data-game); bots of another game are unselected when the game changes.
(function () {
  "use strict";
  function filter() {
    var game = document.getElementById("id_game"), bots = document.getElementById("id_bots");
    if (!game || !bots) { return; }
    Array.prototype.forEach.call(bots.options, function (option) {
      var other = option.getAttribute("data-game") !== game.value;
      option.hidden = other;
      if (other) { option.selected = false; }
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    var game = document.getElementById("id_game");
    if (game) { game.addEventListener("change", filter); filter(); }
  });
})();
