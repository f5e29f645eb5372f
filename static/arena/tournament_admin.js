// The tournament admin's create form follows the chosen game and format: the bot picker lists the
// chosen game's bots only (every option carries data-game; bots of another game are unselected when
// the game changes), only the chosen game's option fields are shown (each input carries data-game),
// and only the fields of the chosen format (rounds: round robin and Swiss; advance: elimination).
// The form refuses what is hidden anyway (arena/tournaments/admin.py): this only keeps it tidy.
(function () {
  "use strict";
  var FORMAT_FIELDS = {rounds: ["round_robin", "swiss"], advance: ["elimination"]};

  function row(input) {
    return input.closest(".form-row") || input.closest("div") || input;
  }

  function filter() {
    var game = document.getElementById("id_game"), bots = document.getElementById("id_bots");
    if (!game) { return; }
    if (bots) {
      Array.prototype.forEach.call(bots.options, function (option) {
        var other = option.getAttribute("data-game") !== game.value;
        option.hidden = other;
        if (other) { option.selected = false; }
      });
    }
    Array.prototype.forEach.call(document.querySelectorAll("input[data-option]"), function (input) {
      row(input).hidden = input.getAttribute("data-game") !== game.value;
    });
  }

  function formatFields() {
    var format = document.getElementById("id_format");
    if (!format) { return; }
    Object.keys(FORMAT_FIELDS).forEach(function (name) {
      var input = document.getElementById("id_" + name);
      if (!input) { return; }
      var used = FORMAT_FIELDS[name].indexOf(format.value) !== -1;
      row(input).hidden = !used;
      if (!used) { input.value = ""; }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var game = document.getElementById("id_game"), format = document.getElementById("id_format");
    if (game) {
      game.addEventListener("change", filter);
      filter();
    }
    if (format) {
      format.addEventListener("change", formatFields);
      formatFields();
    }
  });
})();
