// Live status of a submission page: polls the URL in #status[data-status-url]
// until the submission is scored or failed, then swaps in the server-rendered report
// (#live-report[data-report-url]: rank on the board, metrics, charts), so the page is the
// same as after a reload. Loaded as a file: the site's CSP forbids inline scripts.
(function () {
  "use strict";

  var box = document.getElementById("status");
  if (!box) { return; }
  var url = box.getAttribute("data-status-url");
  var status = box.getAttribute("data-status");
  var started = Date.now();
  var FINISHED = { scored: true, failed: true };

  function text(el, value) { if (el) { el.textContent = value; } }

  function cell(tag, value, className) {
    var el = document.createElement(tag);
    el.textContent = value;
    if (className) { el.className = className; }
    return el;
  }

  function renderDetail(data) {
    var detail = document.getElementById("status-detail");
    if (!detail) { return; }
    detail.textContent = "";
    if (data.status === "queued") {
      detail.appendChild(document.createTextNode("Waiting for a scoring worker: position "));
      var pos = cell("span", String(data.queue_position));
      pos.id = "queue-position";
      detail.appendChild(pos);
      detail.appendChild(document.createTextNode(" in the queue."));
    } else if (data.status === "running") {
      detail.textContent = "Scoring now\u2026";
    } else if (data.status === "scored") {
      detail.textContent = "Scored with scorer " + (data.scorer_version || "") + ".";
    } else if (data.status === "failed") {
      detail.textContent = data.error_kind === "invalid" ? "Invalid submission." :
        "Platform error (not counted against your quota).";
    }
  }

  function renderError(data) {
    var pre = document.getElementById("status-error");
    // An invalid file's problems are listed once, in the table; the text is for the other failures.
    var listed = data.problems && data.problems.length;
    if (pre) {
      pre.hidden = !data.error || !!listed;
      text(pre, listed ? "" : (data.error || ""));
    }
    var holder = document.getElementById("status-problems");
    if (!holder || !data.problems || !data.problems.length || holder.childElementCount) { return; }
    var table = document.createElement("table");
    table.className = "data problems-table";
    var head = document.createElement("tr");
    ["Line", "Column", "Problem"].forEach(function (h) { head.appendChild(cell("th", h)); });
    table.appendChild(head);
    data.problems.forEach(function (p) {
      var row = document.createElement("tr");
      row.appendChild(cell("td", p.line === null ? "\u2014" : String(p.line)));
      row.appendChild(cell("td", p.column === null ? "\u2014" : p.column));
      row.appendChild(cell("td", p.message));
      table.appendChild(row);
    });
    holder.appendChild(cell("p", data.problem_count + " problem" + (data.problem_count === 1 ? "" : "s") + " found."));
    holder.appendChild(table);
  }

  function announce(message) {
    var region = document.getElementById("status-announce");
    if (region) { region.textContent = message; }
  }

  // Replace the live part of the page with the server's rendering of it; while the board
  // has not taken the new score in yet (data-standing-pending), ask again a few times.
  function swapReport(attempt, data) {
    var holder = document.getElementById("live-report");
    if (!holder) { return; }
    fetch(holder.getAttribute("data-report-url"), { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.text();
      })
      .then(function (html) {
        holder.innerHTML = html;
        if (window.renderCharts) { window.renderCharts(); }
        var standing = document.getElementById("standing");
        var label = document.getElementById("status-label");
        announce("Status: " + (label ? label.textContent : status) + "." + (standing ? " " + standing.textContent.replace(/\s+/g, " ").trim() : ""));
        if (standing && standing.getAttribute("data-standing-pending") && attempt < 10) {
          window.setTimeout(function () { swapReport(attempt + 1, data); }, 1500);
        }
      })
      .catch(function () {
        if (attempt === 0) { renderInPlace(data); } // at least the status, until the report loads
        if (attempt < 10) { window.setTimeout(function () { swapReport(attempt + 1, data); }, 3000); }
      });
  }

  function renderInPlace(data) {
    var label = document.getElementById("status-label");
    text(label, data.status_display);
    if (label) { label.className = "pill pill-" + data.status; }
    box.className = "status-box status-" + data.status;
    box.setAttribute("data-status", data.status);
    renderDetail(data);
    renderError(data);
  }

  function render(data) {
    if (FINISHED[data.status]) {
      // The server renders the finished page part (rank, metrics, charts): the label changes with it.
      swapReport(0, data);
    } else {
      renderInPlace(data);
      announce("Status: " + data.status_display + ".");
    }
  }

  function delay() {
    var elapsed = (Date.now() - started) / 1000;
    if (elapsed < 30) { return 1000; }
    if (elapsed < 300) { return 3000; }
    return 10000;
  }

  function poll() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.json();
      })
      .then(function (data) {
        if (data.status !== status || data.status === "queued") { render(data); }
        status = data.status;
        if (!FINISHED[status]) { window.setTimeout(poll, delay()); }
      })
      .catch(function () { window.setTimeout(poll, 5000); });
  }

  if (!FINISHED[status]) { window.setTimeout(poll, 500); }
})();
