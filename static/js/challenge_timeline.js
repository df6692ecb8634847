// The challenge page's phase timeline: each UTC date also in the viewer's own UTC offset, and the
// "Ends in 3 days" wording kept current. The server writes both in UTC first, so the page reads
// the same without JavaScript (leaderboard/challenges/timeline.py has the same units).
(function () {
  "use strict";

  var UNITS = [["year", 365 * 86400], ["month", 30 * 86400], ["day", 86400], ["hour", 3600], ["minute", 60]];

  function span(seconds) {
    seconds = Math.abs(seconds);
    for (var i = 0; i < UNITS.length; i++) {
      if (seconds >= UNITS[i][1]) {
        var n = Math.floor(seconds / UNITS[i][1]);
        return n + " " + UNITS[i][0] + (n === 1 ? "" : "s");
      }
    }
    return "less than a minute";
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function offsetText(date) {
    var minutes = -date.getTimezoneOffset();
    var sign = minutes < 0 ? "\u2212" : "+";
    minutes = Math.abs(minutes);
    return "UTC" + sign + pad(Math.floor(minutes / 60)) + ":" + pad(minutes % 60);
  }

  function localText(date) {
    return date.getFullYear() + "-" + pad(date.getMonth() + 1) + "-" + pad(date.getDate()) + " " +
      pad(date.getHours()) + ":" + pad(date.getMinutes()) + " " + offsetText(date);
  }

  function showLocalTimes() {
    var offsetShown = false;
    document.querySelectorAll("time[data-local]").forEach(function (el) {
      var date = new Date(el.getAttribute("datetime"));
      if (isNaN(date.getTime()) || date.getTimezoneOffset() === 0) return;
      var local = document.createElement("span");
      local.className = "local-time";
      local.textContent = " (" + localText(date) + " your time)";
      el.after(local);
      offsetShown = true;
    });
    var zone = document.querySelector(".local-zone");
    if (zone && offsetShown) {
      zone.textContent = ", and in your own time (" + offsetText(new Date()) + ")";
      zone.hidden = false;
    }
  }

  function updateRelative() {
    var now = Date.now();
    document.querySelectorAll(".relative[data-moment]").forEach(function (el) {
      var moment = new Date(el.getAttribute("data-moment")).getTime();
      if (isNaN(moment)) return;
      var seconds = (moment - now) / 1000;
      var verb = el.getAttribute("data-verb");
      if (verb !== "ended" && seconds <= 0) {
        el.textContent = verb === "opens" ? "Open now (reload the page)." : "Ended (reload the page).";
        return;
      }
      if (verb === "opens") el.textContent = "Opens in " + span(seconds) + ".";
      else if (verb === "ends") el.textContent = "Ends in " + span(seconds) + ".";
      else el.textContent = "Ended " + span(seconds) + " ago.";
    });
  }

  showLocalTimes();
  updateRelative();
  window.setInterval(updateRelative, 30000);
})();
