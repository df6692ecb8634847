// Render every server-built Plotly figure on the page.
// Each chart is a <div data-chart="ID"> next to a <script type="application/json" id="ID">
// data block holding fig.to_json() (CSP allows data blocks; it forbids inline code).
// On small screens the mode bar is hidden (it would cover the title) and a chart with a
// legend below it grows by one line per entry, so the legend stays inside its card.
(function () {
  "use strict";

  var SMALL = "(max-width: 640px)";

  function legendEntries(figure) {
    var layout = figure.layout || {};
    if (layout.showlegend === false) { return 0; }
    return (figure.data || []).filter(function (trace) {
      return trace.showlegend !== false && trace.name && trace.type !== "heatmap";
    }).length;
  }

  // Plotly titles do not wrap: break a long one into lines of about ``width`` characters.
  function wrapTitle(text, width) {
    var words = String(text).split(" ");
    var lines = [""];
    words.forEach(function (word) {
      var last = lines.length - 1;
      if (lines[last] && (lines[last] + " " + word).length > width) { lines.push(word); }
      else { lines[last] = lines[last] ? lines[last] + " " + word : word; }
    });
    return lines;
  }

  // Fields of a trace that carry names people typed (methods, teams, class labels). Plotly
  // renders a subset of HTML in them (<a href>, <b>, <br>); escaped, they read as typed.
  // hovertemplate is the site's own and keeps its markup.
  var TEXT_FIELDS = ["name", "text", "hovertext", "x", "y", "customdata", "labels"];

  function plain(value) {
    if (typeof value === "string") {
      return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    }
    return Array.isArray(value) ? value.map(plain) : value;
  }

  function asPlainText(traces) {
    traces.forEach(function (trace) {
      TEXT_FIELDS.forEach(function (field) {
        if (field in trace) { trace[field] = plain(trace[field]); }
      });
    });
    return traces;
  }

  function render(element) {
    var block = document.getElementById(element.getAttribute("data-chart"));
    if (!block || element.getAttribute("data-rendered")) {
      return;
    }
    var figure = JSON.parse(block.textContent);
    var layout = figure.layout || {};
    var small = window.matchMedia && window.matchMedia(SMALL).matches;
    var entries = legendEntries(figure);
    if (entries > 1) {
      // A horizontal legend below the plot: about one line per 2 entries on a phone, per 4 on a desktop.
      var legendLines = Math.ceil(entries / (small ? 2 : 4));
      layout.height = (layout.height || 380) + 24 * legendLines;
    }
    if (small) {
      layout.margin = Object.assign({}, layout.margin || {}, { l: 50, r: 10 });
      var title = Object.assign({}, layout.title || {}, { font: { size: 14 } });
      if (title.text) {
        var lines = wrapTitle(title.text, 34);
        title.text = lines.join("<br>");
        layout.margin.t = Math.max(layout.margin.t || 70, 30 + 20 * lines.length);
        // Anchored at the very top with a pad: plotly lifts a wrapped title by about 10 px per extra
        // line, so at y 0.98 its first line was drawn above the chart. 10 px a line keeps it ~7 px below.
        title.y = 1;
        title.yanchor = "top";
        title.pad = { t: 10 * lines.length };
      }
      layout.title = title;
    }
    if (layout.height) { element.style.minHeight = layout.height + "px"; }
    var config = { responsive: true, displaylogo: false, displayModeBar: small ? false : "hover" };
    window.Plotly.newPlot(element, asPlainText(figure.data || []), layout, config).then(function () {
      element.setAttribute("data-rendered", "1");
    });
  }

  function renderAll() {
    if (!window.Plotly) {
      return; // plotly.js did not load: the tables under each chart still hold the numbers
    }
    document.querySelectorAll("[data-chart]").forEach(render);
  }

  window.renderCharts = renderAll; // the live submission page calls it after swapping in its report

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", renderAll);
  } else {
    renderAll();
  }
})();
