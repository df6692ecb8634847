// Leaderboard controls: apply a change at once (the form's Apply button does the same
// without JavaScript), and keep "Compare selected" to 2-4 rows.
(function () {
  "use strict";

  // Leave "any" filters out of the URL so permalinks stay short.
  function dropEmpty(form) {
    form.querySelectorAll("select").forEach(function (select) {
      select.disabled = select.value === "";
    });
  }

  function init() {
    var form = document.getElementById("board-controls");
    if (form) {
      form.addEventListener("submit", function () {
        dropEmpty(form);
      });
      form.addEventListener("change", function (event) {
        // "only these" without a chosen value would filter nothing: wait for a choice.
        if (event.target.name && event.target.name.slice(-5) === "_only") {
          var param = event.target.name.slice(0, -5);
          if (!form.querySelector('input[name="' + param + '"]:checked')) {
            return;
          }
        }
        dropEmpty(form);
        form.submit();
      });
    }
    var compareButton = document.getElementById("compare-button");
    if (compareButton) {
      var boxes = document.querySelectorAll('input[name="ids"][form="compare-form"]');
      var update = function () {
        var n = document.querySelectorAll('input[name="ids"][form="compare-form"]:checked').length;
        compareButton.disabled = n < 2 || n > 4;
      };
      boxes.forEach(function (box) {
        box.addEventListener("change", update);
      });
      update();
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
