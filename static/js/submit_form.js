// Submit form: after a form error, move focus to the error summary at the top, and let each of
// its links focus the field it names (the browser only scrolls to an anchor).
(function () {
  "use strict";

  // The first-submission notice names the team the upload will bind: keep it on the chosen one.
  function followTeamChoice() {
    var select = document.getElementById("id_team");
    var named = document.getElementById("binding-team");
    if (!select || !named) { return; }
    select.addEventListener("change", function () {
      named.textContent = select.options[select.selectedIndex].text;
    });
  }

  function init() {
    followTeamChoice();
    var summary = document.getElementById("error-summary");
    if (!summary) { return; }
    summary.focus();
    summary.querySelectorAll("a[data-focus]").forEach(function (link) {
      link.addEventListener("click", function (event) {
        var target = document.getElementById(link.getAttribute("data-focus"));
        var holder = document.getElementById(link.getAttribute("href").slice(1));
        if (target && !/^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) {
          target = target.querySelector("input, select, textarea");
        }
        if (!target && holder) { target = holder.querySelector("input, select, textarea"); }
        if (!target) { return; }
        event.preventDefault();
        (holder || target).scrollIntoView({ block: "center" });
        target.focus();
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
