// Leaderboard controls. The form applies only on its Apply button (arrowing through the radio
// buttons or ticking boxes must not reload the page); a change shows that it is pending.
// Also: keep "Compare selected" to 2-4 rows, and show a scroll cue while table columns are hidden.
(function () {
  "use strict";

  // Leave "any" filters and the full column set out of the URL so permalinks stay short.
  function dropDefaults(form) {
    form.querySelectorAll("select").forEach(function (select) {
      select.disabled = select.value === "";
    });
    var columns = form.querySelectorAll('input[name="cols"]');
    var checked = form.querySelectorAll('input[name="cols"]:checked');
    if (columns.length && checked.length === columns.length) {
      columns.forEach(function (box) { box.disabled = true; });
    }
  }

  function initControls(form) {
    form.addEventListener("submit", function () {
      dropDefaults(form);
    });
    var pending = document.getElementById("controls-pending");
    var apply = form.querySelector('button[type="submit"]');
    form.addEventListener("change", function () {
      if (pending) { pending.hidden = false; }
      if (apply) { apply.classList.add("btn-primary"); }
    });
  }

  function initScrollCue(holder) {
    var wrap = holder.querySelector(".table-wrap");
    var hint = document.getElementById("scroll-hint");
    if (!wrap) { return; }
    var update = function () {
      var hidden = wrap.scrollWidth - wrap.clientWidth > 2;
      holder.classList.toggle("can-scroll", hidden);
      holder.classList.toggle("at-end", wrap.scrollLeft + wrap.clientWidth >= wrap.scrollWidth - 2);
      if (hint) { hint.hidden = !hidden; }
    };
    wrap.addEventListener("scroll", update, { passive: true });
    window.addEventListener("resize", update);
    update();
  }

  function initCompare(button) {
    var boxes = document.querySelectorAll('input[name="ids"][form="compare-form"]');
    var update = function () {
      var n = document.querySelectorAll('input[name="ids"][form="compare-form"]:checked').length;
      button.disabled = n < 2 || n > 4;
    };
    boxes.forEach(function (box) {
      box.addEventListener("change", update);
    });
    update();
  }

  function init() {
    var form = document.getElementById("board-controls");
    if (form) { initControls(form); }
    var scroll = document.getElementById("board-scroll");
    if (scroll) { initScrollCue(scroll); }
    var compareButton = document.getElementById("compare-button");
    if (compareButton) { initCompare(compareButton); }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
