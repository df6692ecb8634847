// Live status of a submission page: polls the URL in #status[data-status-url]
// until the submission is scored or failed, then shows the metrics or the error
// in place (no reload). Loaded as a file: the site's CSP forbids inline scripts.
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

  function fmt(value) { return value === null || value === undefined ? "\u2014" : Number(value).toFixed(4); }

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

  function renderMetrics(data) {
    var section = document.getElementById("results");
    var body = document.getElementById("metrics-body");
    if (!section || !body) { return; }
    var hasSpread = document.querySelectorAll("#metrics-table thead th").length > 3;
    body.textContent = "";
    data.headline.forEach(function (m) {
      var row = document.createElement("tr");
      row.setAttribute("data-key", m.key);
      if (m.primary) { row.className = "primary"; }
      var name = cell("td", m.name + (m.primary ? " (primary)" : ""));
      name.title = m.description;
      row.appendChild(name);
      row.appendChild(cell("td", fmt(m.value), "num"));
      if (hasSpread) { row.appendChild(cell("td", m.spread === null ? "" : "\u00b1 " + fmt(m.spread), "num")); }
      row.appendChild(cell("td", m.higher_is_better ? "higher is better" : "lower is better", "dir"));
      body.appendChild(row);
    });
    section.hidden = false;
    var hint = document.getElementById("charts-hint");
    if (hint) { hint.hidden = false; }
  }

  function render(data) {
    var label = document.getElementById("status-label");
    text(label, data.status_display);
    if (label) { label.className = "pill pill-" + data.status; }
    box.className = "status-box status-" + data.status;
    box.setAttribute("data-status", data.status);
    renderDetail(data);
    renderError(data);
    if (data.status === "scored") { renderMetrics(data); }
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
